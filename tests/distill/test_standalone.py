"""What still does not stand alone after join and carry is not stored, damaged source text is no
claim, and a lead-in that only announces its list is not glued to a claim (issue 15, session 9:
`distill.standalone`, `distill.units`). Each rule fires and does not fire, in English and
Russian, through the offline distiller and its `dropped` reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.standalone import DAMAGED, NEEDS_CONTEXT, damaged_gap, needs_context
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.conftest import files_memory
from tests.distill.offline_chunk import distil


def _distill(text: str, language: str, title: str | None = None) -> tuple[list[DraftAtom], dict]:
    return distil(text, title, (), language)


# A chunk with no heading or title: nothing can be carried, so a claim leaning back stays marked.
@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "Они были отправлены на корабле «Калькутта» под командованием капитана Вудрифа в 1803"
            " году.",
            "ru",
        ),
        ("Сейчас они играют в 4-й лиге, нижней профессиональной лиге Польши.", "ru"),
        ("Большинство из них были уничтожены после Варшавского восстания 1944 года.", "ru"),
        ("Примером такого права является регистрация автомобиля в повете.", "ru"),
        ("They were shipped to the colony on HMS Calcutta in 1803 under captain Woodriff.", "en"),
        ("But she also felt like she did not have much of a choice in 2019.", "en"),
        ("Such a change took place in the colony between 1803 and 1810.", "en"),
    ],
)
def test_a_claim_whose_subject_only_the_text_before_names_is_dropped(
    text: str, language: str
) -> None:
    atoms, dropped = _distill(text, language)
    assert atoms == []
    assert dropped == {NEEDS_CONTEXT: 1}


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # an owner, not the subject: the phrase names its own head
        ("Их сын Михаил появился на свет в 1905 году и был записан на фамилию Кузнецов.", "ru"),
        # "такие ..., как X" names its kind
        ("Такие города, как Люблин и Краков, имеют права повета с 1999 года.", "ru"),
        # the authors and the document, which a claim may name so
        ("Our findings suggest that serum corin could be an indicator of the disease.", "en"),
        ("This paper describes the Estimation and Projection Package for HIV in 2008.", "en"),
        # an expletive "it"
        ("It is known that the colony was founded in 1803 by settlers from England.", "en"),
        # a pronoun after a noun that can be its antecedent
        ("The suspect said he needed to get dressed before the police arrived.", "en"),
        ("Губернатор сказал, что он ждёт решения комиссии до конца 2020 года.", "ru"),
    ],
)
def test_a_marked_claim_that_names_its_subject_is_kept(text: str, language: str) -> None:
    atoms, dropped = _distill(text, language)
    assert [a.quote for a in atoms] == [text]
    assert NEEDS_CONTEXT not in dropped


def test_a_pronoun_claim_that_carries_a_subject_is_kept() -> None:
    """The rule is for what nothing resolved: under a heading that names something, the carry
    makes the claim stand alone and it is stored."""
    text = "Они были отправлены на корабле «Калькутта» в 1803 году."
    atoms, dropped = OfflineDistiller().distill_counted(
        text, ChunkContext("Порт-Филлип", ("Порт-Филлип", "Поселенцы Порт-Филлипа"), "ru")
    )
    assert NEEDS_CONTEXT not in dropped
    assert [a.quote for a in atoms] == [text]
    assert atoms[0].claim.startswith("Поселенцы Порт-Филлипа:")


def test_partitive_pronouns_need_context() -> None:
    assert needs_context("Most of them were destroyed after the uprising of 1944.", "en")
    assert needs_context("Многие из них были уничтожены в 1944 году.", "ru")
    assert not needs_context("Most of the churches were destroyed in 1944.", "en")
    assert not needs_context("Многие из церквей были уничтожены в 1944 году.", "ru")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("В 2010 году началась работа над фильмом .", "ru"),  # a work's name lost after "над"
        ("Съёмки эпизода проходили в сериале , а также в Нью-Йорке весной 2017 года.", "ru"),
        ("Съёмки проходили в , а затем в Нью-Йорке весной 2017 года.", "ru"),  # a preposition
        ("Production of the series began in . It was filmed in Vancouver.", "en"),
        ("The actor starred in the film , which was released in 2010 to good reviews.", "en"),
    ],
)
def test_a_sentence_with_words_lost_where_grammar_needs_them_is_dropped(
    text: str, language: str
) -> None:
    atoms, dropped = _distill(text, language, title="Кино и сериалы")
    assert atoms == []
    assert dropped == {DAMAGED: 1}


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # a lost footnote or image after a complete phrase
        (
            "Термоскоп представлял собой стеклянный шарик с припаянной к нему стеклянной трубкой ."
            " Шарик слегка нагревали в 1597 году.",
            "ru",
        ),
        ("Мяч получил защитник Уард , который вернул его на пять ярдов в 2016 году.", "ru"),
        # an aside lost inside brackets, the main claim intact
        ("Курт Леговец (родился 12 июля 1918 года в , Австро-Венгрия) — чешский физик.", "ru"),
        ("The tube was soldered to a small glass bulb . The bulb was heated in 1597.", "en"),
        ("Kurt Lehovec (born 12 June 1918 in , Austria-Hungary) was a Czech physicist.", "en"),
        # no gap: a decimal
        ("Risk rose with advancing age (P < .001) in the whole cohort of 878 patients.", "en"),
    ],
)
def test_a_harmless_gap_is_kept(text: str, language: str) -> None:
    atoms, dropped = _distill(text, language, title="Физика и история")
    assert DAMAGED not in dropped
    assert atoms and atoms[0].quote.startswith(text.split(" ")[0])


def test_damaged_gap_reads_grammar_not_particular_words() -> None:
    assert damaged_gap("Группа записала песню для , выпущенного в 2001 году.", "ru")
    assert damaged_gap("The band recorded the song for , released in 2001.", "en")
    assert not damaged_gap("Группа записала песню , выпущенную в 2001 году.", "ru")
    assert not damaged_gap("The band recorded a new song , released in 2001.", "en")


_RAPTORS = (
    "Хотя «Торонто Рэпторс» ни разу не выигрывали чемпионат НБА, команда установила несколько"
    " рекордов в лиге. Среди них:\n\n* наибольшее число побед подряд в сезоне\n"
)
_WALK = (
    "By default, the walker of the ignore crate skips hidden files and directories. This can be"
    " disabled by building the iterator with WalkBuilder:\n\n```rust\n"
    'let walker = WalkBuilder::new("./").hidden(false).build();\n```\n'
)
_BLOGS = (
    "The walker of the ignore crate skips hidden files and directories by default. They are"
    " listed here:\n\n* dot files\n* dot directories\n"
)


@pytest.mark.parametrize(
    ("text", "language", "claim"),
    [
        (
            _RAPTORS,
            "ru",
            "Хотя «Торонто Рэпторс» ни разу не выигрывали чемпионат НБА, команда установила"
            " несколько рекордов в лиге.",
        ),
        (
            _BLOGS,
            "en",
            "The walker of the ignore crate skips hidden files and directories by default.",
        ),
    ],
)
def test_an_empty_lead_in_is_cut_off_the_claim_before_it(
    text: str, language: str, claim: str
) -> None:
    atoms, _ = _distill(text, language)
    assert claim in [a.claim for a in atoms]
    assert not any(a.claim.endswith(":") and "." in a.claim for a in atoms)


def test_a_lead_in_that_says_something_stays_with_its_sentence() -> None:
    atoms, _ = _distill(_WALK, "en", title="Notes on walking")
    prose = [a for a in atoms if a.type != "code"]
    assert [a.claim for a in prose] == [
        "By default, the walker of the ignore crate skips hidden files and directories. This can"
        " be disabled by building the iterator with WalkBuilder:"
    ]
    assert any(a.type == "code" for a in atoms)  # the block it introduces is its own atom


def test_literal_punctuation_of_inline_code_is_no_gap() -> None:
    """A manual's "separated with ``:``, or ``;``" reads "with :, or ;" once the backticks go."""
    text = "Multiple paths are separated with :, or ; on Windows since version 2.0."
    atoms, dropped = _distill(text, "en", title="Flask configuration")
    assert DAMAGED not in dropped
    assert [a.quote for a in atoms] == [text]


def test_ingest_reports_what_it_dropped_as_needing_context_or_damaged(
    database_url: str, tmp_path: Path
) -> None:
    """The reasons reach memory_ingest's answer, so an agent sees why a sentence is missing."""
    text = (
        "Они были отправлены на корабле «Калькутта» под командованием капитана Вудрифа.\n\n"
        "В 2010 году началась работа над фильмом .\n\n"
        "Корабль «Калькутта» был спущен на воду в 1795 году в Бомбее.\n"
    )
    with files_memory(database_url, tmp_path) as svc:
        path = tmp_path / "files" / "notes.md"
        path.write_text(text, encoding="utf-8")
        result = svc.ingest(IngestRequest(source=str(path)))
    assert result.dropped.get(NEEDS_CONTEXT) == 1, result.dropped
    assert result.dropped.get(DAMAGED) == 1, result.dropped
    assert result.atoms_new == 1, result
