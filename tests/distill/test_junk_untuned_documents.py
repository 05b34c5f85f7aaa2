"""Classes of junk the graded sample on untuned documents showed (bench/results/graded-sample.md):
sentences razdel cut inside a bracket or at a semicolon are joined back, structured-abstract
section labels are not glued onto claims, and a numbered PDF heading line is not glued onto the
paragraph after it (en and ru)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.sentences import left_open
from pegas_memory.distill.types import ChunkContext
from tests.distill.offline_chunk import claims


def _claims(text: str, language: str) -> list[str]:
    return claims(text, language=language)


def _quotes_verbatim(text: str, language: str) -> None:
    for atom in OfflineDistiller().distill(text, ChunkContext(language=language)):
        assert atom.quote in text


RU_LEAD = (
    "Ге́нри Ки́ссинджер (English: Henry Kissinger, при рождении Хайнц Ки́ссингер "
    "(German: Heinz Kissinger); род. 27 мая 1923, Фюрт, Бавария) — американский "
    "государственный деятель и дипломат. Советник по национальной безопасности США с 1969 года.\n\n"
    "«Хэ́ллоуин» (English: Halloween; США, 2018) — фильм ужасов режиссёра Дэвида Гордона Грина."
)
EN_STATS = (
    "Compared with normal function, after adjustment, those with severe diastolic dysfunction "
    "(-1.30 METs; 95% confidence interval [CI], -1.52 to -0.99; P < .001) had substantially "
    "lower exercise capacity. For this study a DSS event was declared if: 1) death was "
    "certified as due to CAP; 2) death was due to complications of treatment; or 3) death was "
    "from unknown causes."
)


def test_a_sentence_cut_inside_a_bracket_is_joined_back_ru() -> None:
    claims = _claims(RU_LEAD, "ru")
    assert not any(c.startswith(("27 мая", "США, 2018", "род.")) for c in claims), claims
    assert any(c.startswith("Генри") and "американский государственный" in c for c in claims)
    assert any(c.startswith("«Хэллоуин» (English: Halloween; США, 2018) — фильм") for c in claims)
    _quotes_verbatim(RU_LEAD, "ru")


def test_a_sentence_cut_at_semicolons_and_in_brackets_is_joined_back_en() -> None:
    claims = _claims(EN_STATS, "en")
    assert not any(c.startswith(("95%", "P < .001", "2) death")) for c in claims), claims
    assert any(c.startswith("Compared with") and c.endswith("exercise capacity.") for c in claims)
    assert any(c.startswith("For this study") and c.endswith("unknown causes.") for c in claims)
    _quotes_verbatim(EN_STATS, "en")


def test_left_open() -> None:
    assert left_open("He said (as usual;")
    assert left_open("The 5-year DSS was 96%;")
    assert not left_open("Patients were included if 1) they were evaluable.")
    assert not left_open("Kissinger (born 1923) was a diplomat.")


def test_abstract_section_labels_are_not_glued_on_en_ru() -> None:
    en = _claims(
        "OBJECTIVE To determine if statin treatment reduces the inflammatory response. "
        "METHODS AND MATERIALS Men entered on one of four trials between 1975 and 1992. "
        "RESULTS The mortality was similar in the two groups of 120 patients.",
        "en",
    )
    assert en and not any(c.startswith(("OBJECTIVE", "METHODS", "RESULTS")) for c in en), en
    assert any(c.startswith("Men entered on one of four trials") for c in en)
    ru = _claims(
        "РЕЗУЛЬТАТЫ Смертность в обеих группах из 120 пациентов была одинаковой в 2019 году. "
        "ВЫВОДЫ Статины снижают воспалительный ответ у 40% больных.",
        "ru",
    )
    assert ru and not any(c.startswith(("РЕЗУЛЬТАТЫ", "ВЫВОДЫ")) for c in ru), ru
    assert any(c.startswith("Статины снижают") for c in ru)
    # An acronym that opens an ordinary sentence stays.
    assert any(c.startswith("NASA launched") for c in _claims("NASA launched it in 1990.", "en"))


@pytest.mark.parametrize(
    ("text", "language", "heading", "paragraph"),
    [
        (
            "The first section ends here with a sentence.\n2 Bar\nHello, here is some text "
            "without a meaning. This text should show what a printed text will look like.",
            "en",
            "2 Bar",
            "Hello, here is some text",
        ),
        (
            "Первый раздел заканчивается этим предложением.\n3 Свойства пространства\nКаждое "
            "метрическое пространство является хаусдорфовым по определению Хаусдорфа.",
            "ru",
            "3 Свойства",
            "Каждое метрическое",
        ),
    ],
)
def test_a_numbered_heading_line_is_not_glued_onto_the_paragraph_en_ru(
    text: str, language: str, heading: str, paragraph: str
) -> None:
    claims = _claims(text, language)
    assert not any(c.startswith(heading) for c in claims), claims
    assert any(c.startswith(paragraph) for c in claims)


def test_a_line_wrapped_before_a_number_is_no_heading() -> None:
    de = _claims("Die Menge besteht aus\n3 Punkten und ist endlich.\nDas ist klar.", "de")
    assert any("besteht aus 3 Punkten" in c for c in de), de
