"""The promote stage keeps pointers, narration and fragments in their passage
(`distill.promote`, `distill.discourse`), in English and Russian, and promotes what states
something behind a pointer or says what a step is for; a model's drafts pass the same stage."""

from __future__ import annotations

import pytest

from pegas_memory.distill.discourse import fragment, narration, pointer
from pegas_memory.distill.promote import promote
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.both_sides import both_sides


@pytest.mark.parametrize(
    ("claim", "language", "holds"),
    both_sides(
        # a sentence that points elsewhere is a pointer
        holds=[
            ("Section 5.4 will extend this rule to negated premises.", "en"),
            ("Details of the proof are given in Appendix B.", "en"),
            ("The following section describes the experimental setup.", "en"),
            ("More details can be found in [12].", "en"),
            ("See Chapter 3 for the proof.", "en"),
            ("Результаты экспериментов приведены в таблице 2.", "ru"),
            ("В следующем разделе рассматривается устойчивость метода.", "ru"),
            ("См. главу 3.", "ru"),
        ],
        # a claim behind or beside a reference is no pointer
        fails=[
            ("As shown in Figure 3, accuracy grows with depth until eight layers.", "en"),
            ("In Section 3 we show that the method converges for convex losses.", "en"),
            ("This paper describes the Estimation and Projection Package for HIV.", "en"),
            ("If a record is mapped to tables p and q, the row in q must exist.", "en"),
            ("Как показано на рис. 3, точность растёт с глубиной сети до восьми слоёв.", "ru"),
            ("В данной работе представлена карта рифов и выявлены 120 очагов.", "ru"),
        ],
    ),
)
def test_a_sentence_that_points_elsewhere_is_a_pointer_and_a_claim_beside_a_reference_is_not(
    claim: str, language: str, holds: bool
) -> None:
    assert bool(pointer(claim, language)) is holds


@pytest.mark.parametrize(
    ("claim", "language", "holds"),
    both_sides(
        # steps and narration to the reader are narration
        holds=[
            ("Let's add a second route to the application.", "en"),
            ("Then you place your order and wait for the confirmation.", "en"),
            ("Click the Save button in the top right corner.", "en"),
            ("Now run the tests again.", "en"),
            ("Давайте создадим новый файл конфигурации.", "ru"),
            ("Нажмите кнопку «Сохранить» в правом верхнем углу.", "ru"),
            ("Теперь откройте файл settings.py в редакторе.", "ru"),
            ("Рассмотрим функцию f на отрезке [0, 1].", "ru"),
        ],
        # statements and steps with a purpose are not narration
        fails=[
            ("Use --force to overwrite existing files.", "en"),
            ("You can configure the timeout with the --timeout option.", "en"),
            ("Run times were shorter than before the upgrade in every benchmark.", "en"),
            ("We present a new method to identify recombination hotspots.", "en"),
            ("Нажмите F5, чтобы обновить страницу.", "ru"),
            ("Вы можете задать тайм-аут параметром --timeout.", "ru"),
            ("Заметим, что функция f непрерывна на всём отрезке.", "ru"),
            ("Москва является столицей России с 1918 года.", "ru"),
        ],
    ),
)
def test_steps_and_narration_to_the_reader_are_narration_and_steps_with_a_purpose_are_not(
    claim: str, language: str, holds: bool
) -> None:
    assert bool(narration(claim, language)) is holds


def test_a_sentence_started_inside_another_is_a_fragment() -> None:
    text = "and the results improve on every set we tried. Graphs are sparse."
    assert fragment(text, text[:46], 0, text[:46], "en")
    later = "Graphs are sparse."
    assert not fragment(text, later, text.index(later), later, "en")
    name = "globset implements globs with regular expressions."
    assert not fragment(name, name, 0, name, "en")
    ru = "которые были отправлены в архив в 1990 году."
    assert fragment(ru, ru, 0, ru, "ru")


def test_a_models_drafts_pass_the_same_stage_and_are_counted() -> None:
    text = (
        "Smith, J., Brown, K. (2019). Deep graphs. Journal of ML, 20(4): 1–35.\n\n"
        "Section 4 will extend this rule.\n\n"
        "Graph neural networks pass messages along edges."
    )

    def draft(quote: str, kind: str = "fact") -> DraftAtom:
        start = text.index(quote)
        meta = {"distiller": "ollama"}
        return DraftAtom(kind, quote, quote, 0.8, quote, start, start + len(quote), "en", meta)  # type: ignore[arg-type]

    drafts = [
        draft("Smith, J., Brown, K. (2019). Deep graphs. Journal of ML, 20(4): 1–35."),
        draft("Section 4 will extend this rule."),
        draft("Graph neural networks pass messages along edges."),
    ]
    kept, counted = promote(drafts, text, ChunkContext(language="en"))
    assert [a.claim for a in kept] == ["Graph neural networks pass messages along edges."]
    assert kept[0].metadata["promoted_by"] == "stands alone: fact"
    assert counted == {"reference list entry": 1, "pointer": 1}
