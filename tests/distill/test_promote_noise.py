"""Dialogue, exclamations, short fragments and page furniture in the offline distiller: dropped
with a counted reason, joined with the narration before them, or kept as `text` when they
stand alone (en and ru).

The labelled sentences of these rules are rows of `cases/promote.toml` (run by
`test_promote_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import IngestRequest
from pegas_memory.distill.dialogue import speech
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext
from pegas_memory.ingest.html import html_to_text
from tests.conftest import files_memory

EN_STORY = (
    '"I haven\'t the slightest idea," said the Hatter.\n\n'
    '"Nor I," said the March Hare.\n\n'
    '"Come on, then!" roared the Queen.\n\n'
    '"Where\'s the Duchess?"\n\n'
    '"You might just as well say," added the Dormouse, "that I breathe when I sleep is the '
    'same thing as I sleep when I breathe, and nobody would believe it."\n\n'
    "Alice walked down the long hall towards the little door of the garden.\n\n"
    "Down, down, down!\n\n"
)
RU_STORY = (
    "— Нет, — сказал он.\n\n"
    "— Почему? — спросила она.\n\n"
    "— Я не пойду туда, — ответил он.\n\n"
    "— Ладно, — вздохнула она.\n\n"
    "Поезд пришёл на станцию в Твери ровно в полдень, и все вышли на перрон.\n\n"
    "Какой ужас!\n\n"
)


def _run(text: str, language: str) -> tuple[list[str], dict[str, int]]:
    atoms, dropped = OfflineDistiller().distill_counted(text, ChunkContext(language=language))
    return [a.claim for a in atoms], dropped


def test_short_dialogue_lines_are_dropped_and_counted_en() -> None:
    claims, dropped = _run(EN_STORY, "en")
    assert not any("Nor I" in c or "Come on" in c or "Duchess" in c for c in claims)
    assert not any("slightest idea" in c for c in claims)
    assert dropped["dialogue line"] >= 4
    assert "Alice walked down the long hall towards the little door of the garden." in " ".join(
        claims
    )


def test_a_line_of_speech_that_stands_alone_is_kept_as_text_en() -> None:
    atoms = OfflineDistiller().distill(EN_STORY, ChunkContext(language="en"))
    dormouse = next(a for a in atoms if "Dormouse" in a.claim)
    assert dormouse.type == "text" and dormouse.metadata["kind"] == "dialogue"


def test_dash_dialogue_is_dropped_and_counted_ru() -> None:
    claims, dropped = _run(RU_STORY, "ru")
    assert not any(c.startswith("—") for c in claims)
    assert dropped["dialogue line"] >= 4
    assert any(c.startswith("Поезд пришёл на станцию") for c in claims)


def test_an_exclamation_joins_the_narration_before_it() -> None:
    for text, language, narration in (
        (EN_STORY, "en", "Alice walked down"),
        (RU_STORY, "ru", "Поезд пришёл"),
    ):
        claims, _ = _run(text, language)
        joined = next(c for c in claims if c.startswith(narration))
        assert joined.endswith(("Down, down, down!", "Какой ужас!")), joined


def test_a_news_quote_with_a_number_is_kept_and_a_quoted_phrase_is_narration() -> None:
    claims, _ = _run('"We expect 5% growth," Smith said.\n\nПлан "Б" сработал в 2019 году.', "en")
    assert claims == ['"We expect 5% growth," Smith said.', 'План "Б" сработал в 2019 году.']
    assert not speech('Untreated plague is "always fatal", says WHO.').is_dialogue
    assert speech('"Nor I," said the March Hare.').is_dialogue
    assert speech("— Нет, — сказал он.").is_dialogue
    assert not speech("Он назвал это «большой ошибкой» на пресс-конференции вчера.").is_dialogue


def test_page_furniture_is_dropped_with_its_reason() -> None:
    page = (
        "The rover landed on the plain after a seven-month cruise.\n\n"
        "**Related: The 15 Weirdest Galaxies in Our Universe**\n\n"
        "- <u>15 Amazing Images of Stars</u>\n\n"
        "**Plague warning: CDC names EIGHT deadly diseases \\[WARNING\\]**\n\n"
        "Jewels after Jewels, installation views, photos © Inexhibit, 2018\n\n"
        "**Читайте также: Марсоход нашёл воду на равнине**\n\n"
        "Reporting by Will Dunham; editing by Peter Cooney.\n\n"
        "Keith Bradsher contributed reporting from Hong Kong.\n\n"
        "Follow Newsbeat on Instagram, Facebook, Twitter and YouTube.\n\n"
    )
    claims, dropped = _run(page, "en")
    assert claims == ["The rover landed on the plain after a seven-month cruise."]
    assert dropped == {"related link": 4, "caption": 1, "page boilerplate": 3}


def test_figcaption_becomes_a_caption_not_an_atom() -> None:
    text = html_to_text(
        "<html><body><p>Alice sat by her sister on the bank of the river all day.</p>"
        "<figure><img src='a.jpg'/><figcaption><p>Alice at the Mad Tea Party.</p>"
        "</figcaption></figure><figure><figcaption>Алиса на безумном чаепитии у Шляпника."
        "</figcaption></figure></body></html>"
    )
    assert "![Alice at the Mad Tea Party.]" in text
    claims, dropped = _run(text, "en")
    assert claims == ["Alice sat by her sister on the bank of the river all day."]
    assert dropped == {"caption": 2}


def test_ingest_result_counts_the_dialogue_it_dropped(database_url: str, tmp_path: Path) -> None:
    """The reasons reach memory_ingest's answer, so an agent sees why a story gave few atoms."""
    with files_memory(database_url, tmp_path) as svc:
        path = tmp_path / "files" / "story.md"
        path.write_text("# Tea party\n\n" + EN_STORY, encoding="utf-8")
        result = svc.ingest(IngestRequest(source=str(path)))
    assert result.dropped.get("dialogue line", 0) >= 1, result.dropped


def test_markup_roles_and_links_leave_the_claim_but_not_the_quote() -> None:
    text = (
        "The application object calls :meth:`~flask.Flask.wsgi_app` for every request since "
        "version 0.7.\n\nThe project is released under the terms of [the BSD license](LICENSE.txt) "
        "since 2010."
    )
    atoms = OfflineDistiller().distill(text, ChunkContext(language="en"))
    claims = [a.claim for a in atoms]
    assert any("calls flask.Flask.wsgi_app() for every request" in c for c in claims), claims
    assert any("under the terms of the BSD license since 2010" in c for c in claims), claims
    assert not any(":meth:" in c or "](" in c for c in claims)
    # The quote stays what the source says, so the citation still finds it.
    assert any(":meth:`~flask.Flask.wsgi_app`" in (a.quote or "") for a in atoms)


def test_lead_ins_and_pointers_are_dropped_and_counted_en_ru() -> None:
    text = (
        "Cobra can be installed by running the following command:\n\n"
        "Состав команды на сезон 2019 года был объявлен заранее:\n\n"
        "See [LICENSE.txt](LICENSE.txt)\n\n"
        "См. также статью о Волге.\n\n"
        "The Volga flows into the Caspian Sea near Astrakhan.\n\n"
        "Волга впадает в Каспийское море у Астрахани.\n\n"
        "See the 2019 report: the Volga basin holds about 40% of Russia's population."
    )
    claims, dropped = _run(text, "en")
    assert dropped["lead-in"] == 2 and dropped["pointer"] == 2, dropped
    joined = " ".join(claims)
    assert "Caspian Sea near Astrakhan" in joined and "Каспийское море" in joined
    # A sentence that starts with "See" but says something of its own is kept.
    assert any("40% of Russia's population" in c for c in claims), claims
