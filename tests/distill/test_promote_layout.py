"""The promote stage keeps layout in its passage (`distill.promote`, `distill.layout`): reference
list entries, contents lines, front matter, captions and glyph debris, in English and Russian,
each counted by its reason; the sentences of content beside them become atoms."""

from __future__ import annotations

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.promote import PROMOTED_BY
from pegas_memory.distill.types import ChunkContext
from tests.distill.offline_chunk import distil


def _distill(text: str, heading: tuple[str, ...] = (), lang: str = "en") -> tuple[list[str], dict]:
    atoms, dropped = distil(text, None, heading, lang)
    return [a.claim for a in atoms], dropped


def test_reference_entries_stay_passages_in_both_languages() -> None:
    text = (
        "Smith, J. A., Brown, K. (2019). Deep learning for graphs. Journal of Machine Learning "
        "Research, 20(4): 1–35.\n\n"
        "Lee, H., Park, S. Learning to rank with partial labels. In: Proceedings of the 35th "
        "Conference on Neural Information Processing, pp. 112–120, 2021.\n\n"
        "Иванов И. И., Петров П. П. Методы сжатия изображений // Вестник МГУ. — 2010. — Т. 5, "
        "№ 2. — С. 10–20.\n\n"
        "Graph neural networks learn node representations by passing messages along edges."
    )
    claims, dropped = _distill(text, ("Discussion",))
    assert claims == [
        "Graph neural networks learn node representations by passing messages along edges."
    ]
    assert dropped.get("reference list entry", 0) >= 2, dropped


def test_a_sentence_citing_its_sources_is_kept() -> None:
    claims, dropped = _distill(
        "Message passing improves accuracy on sparse graphs (Smith et al., 2019)."
    )
    assert claims == ["Message passing improves accuracy on sparse graphs (Smith et al., 2019)."]
    assert not dropped


def test_a_section_of_references_contents_or_acknowledgements_holds_no_atoms() -> None:
    body = "The authors thank the reviewers for their careful reading of the manuscript."
    for heading in ("References", "7 Acknowledgements", "Список литературы", "Оглавление"):
        claims, dropped = _distill(body, ("Paper", heading))
        assert claims == [], heading
        assert sum(dropped.values()) == 1, (heading, dropped)
    claims, _ = _distill(body, ("Paper", "Results"))
    assert claims == [body]


def test_contents_lines_and_front_matter_stay_passages() -> None:
    text = (
        "Introduction to graph theory and its applications ........ 5\n"
        "Spanning trees and the matroid structure of forests ........ 17\n\n"
        "УДК 519.17. Ключевые слова: графы, остовные деревья, матроиды.\n\n"
        "Correspondence should be sent to jane.doe@example.org at the department office.\n\n"
        "A spanning tree of a connected graph contains every vertex of the graph."
    )
    claims, dropped = _distill(text)
    assert claims == ["A spanning tree of a connected graph contains every vertex of the graph."]
    assert dropped.get("table of contents") and dropped.get("front matter"), dropped


def test_captions_stay_passages_and_the_text_after_them_is_kept() -> None:
    text = (
        "Figure 3: Accuracy of the model as the number of layers grows from 2 to 16.\n\n"
        "Рис. 2 — Зависимость точности модели от числа слоёв сети.\n\n"
        "Accuracy grows with depth until eight layers and falls after that."
    )
    claims, dropped = _distill(text)
    assert claims == ["Accuracy grows with depth until eight layers and falls after that."]
    assert dropped.get("caption") == 2, dropped


def test_glyph_debris_stays_a_passage_and_a_short_russian_sentence_does_not() -> None:
    torn = "The matrix has rank r /+/ 1 x y = k z q ( ) i j = t /+/ 1 in every case we tried."
    claims, dropped = _distill(torn)
    assert claims == [] and dropped.get("glyph debris") == 1, dropped
    claims, _ = _distill("Наибольшее расстояние с севера на юг — 1024 км.", lang="ru")
    assert claims == ["Наибольшее расстояние с севера на юг — 1024 км."]


def test_a_promoted_atom_says_which_rule_promoted_it() -> None:
    atoms, _ = OfflineDistiller().distill_counted(
        "A tree is defined as a connected graph without cycles.\n\n"
        "```python\ndef f(x):\n    return x\n```\n",
        ChunkContext(language="en"),
    )
    rules = {a.type: a.metadata[PROMOTED_BY] for a in atoms}
    assert rules == {"definition": "stands alone: definition", "code": "block"}


def test_one_line_with_a_year_and_a_venue_word_is_no_reference_list() -> None:
    text = (
        "# Exhibit 3\n\nExhibit 3 is a small clock from the year 1803. It was restored in 1953 "
        "by the workshop of master 9."
    )
    claims, dropped = _distill(text, ("Exhibit 3",))
    assert len(claims) == 1 and claims[0].startswith("Exhibit 3 is a small clock"), dropped


def test_a_fenced_admonition_is_prose_without_its_fence_lines() -> None:
    text = (
        '````smart header="Функция сравнения"\n'
        "Функция сравнения может вернуть любое число.\n"
        "````\n\n"
        "Прокси — это особый объект, который оборачивает другой объект.\n"
    )
    atoms = OfflineDistiller().distill(text, ChunkContext(language="ru"))
    claims = [a.claim for a in atoms]
    assert "Функция сравнения может вернуть любое число." in claims
    assert any(c.startswith("Прокси — это особый объект") for c in claims)  # not swallowed
    assert all("header" not in c and "`" not in c for c in claims)
    assert all(a.type != "code" for a in atoms)
