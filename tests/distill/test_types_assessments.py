"""Types by grammar: assessments and generic presents (issue 15, "types that mean something"), from
the type errors of graded samples 9191 and 10101: an assessment in a definition's shape ("X is a
fast-moving field", "X — одна из самых недооценённых ...") defines nothing; a generic present with
its object ("SIV naturally infects non-human primates") and a Russian past of a consonant stem
("возросла", "предпочли"), a stressed "-ёт" present ("берёт") or the copula ("была в услужении")
state something checkable; a reader told about "this text" is blind text; a long lead-in after
statements leaves them stated unless it speaks to the reader or a sentence before points ahead;
"This part of the documentation covers ..." describes the text. Each rule on both sides, in English
and Russian."""

from __future__ import annotations

import pytest

from pegas_memory.distill.leads import match_lead_definition
from pegas_memory.distill.mood import about_the_text, generic_present, instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import is_fact, match_definition
from pegas_memory.distill.types import ChunkContext

EVENTS = (
    "There are some varieties of argument styles which can be accepted by listener functions. "
    "Taking the example of PoolEvents.connect(), this function is documented as receiving "
    "dbapi_connection and connection_record arguments. We can opt to receive these arguments by "
    "name, by establishing a listener function that accepts keyword arguments, by passing "
    "named=True to either listen() or listens_for():"
)
RECORDS = (
    "Команда установила несколько рекордов за долгую историю своего существования в высшей лиге. "
    "Среди них были рекорды по числу побед подряд, по числу очков за сезон и по разнице забитых "
    "и пропущенных мячей:"
)


def typed(text: str, language: str, title: str | None = None) -> list[tuple[str, str | None]]:
    atoms = OfflineDistiller().distill(text, ChunkContext(title, (), language))
    return [(a.type, a.term) for a in atoms]


# --- an assessment in a definition's shape is no definition ---


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Children's exercise physiology is a fast-moving field.", "en"),
        ("Malaria eradication is an important open problem.", "en"),
        ("Карьера Роберта Сиодмака — одна из самых недооценённых в истории Голливуда.", "ru"),
        ("Творчество Платонова — одно из наиболее значительных явлений русской прозы.", "ru"),
    ],
)
def test_an_assessment_is_no_definition(sentence: str, language: str) -> None:
    assert match_definition(sentence) is None
    assert typed(sentence, language) == [("fact", None)]


def test_a_lead_that_judges_its_subject_is_no_definition() -> None:
    subjects = ("Exercise physiology",)
    judged = "Exercise physiology is a fast-moving field of study."
    assert match_lead_definition(judged, subjects) is None
    named = "Exercise physiology is the study of the acute responses of the body to exercise."
    found = match_lead_definition(named, subjects)
    assert found is not None and found[0] == "Exercise physiology"


# --- a generic present with its object is a checkable statement ---


@pytest.mark.parametrize(
    "sentence",
    [
        "Simian immunodeficiency virus (SIV) naturally infects non-human primates in Africa.",
        "The virus infects host cells of the upper airways.",
        "The builder pattern allows a user to specify multiple optional settings.",
    ],
)
def test_a_generic_present_with_an_object_is_a_fact(sentence: str) -> None:
    assert generic_present(sentence)
    assert is_fact(sentence, "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "Fully POSIX-compliant flags (including short & long versions)",
        "Automatic help generation for commands and flags in every shell.",
    ],
)
def test_a_noun_phrase_in_s_has_no_verb(sentence: str) -> None:
    assert not generic_present(sentence)
    assert not is_fact(sentence, "en")


# --- Russian: consonant-stem pasts, the stressed "-ёт" present and the copula are verbs ---


@pytest.mark.parametrize(
    "sentence",
    [
        "Сфера использования товарных знаков возросла в условиях процветающей торговли.",
        "Другие предпочли обосноваться за пределами города на фермах.",
        "Экспедиция достигла побережья через долгие месяцы пути.",
        "Долгое время была в услужении в панском имении Ясеневка.",
        "На заре прошлого века велосипед был очень модным развлечением в США.",
        "Берёт исток в горах Шварцвальда в Германии.",
    ],
)
def test_a_russian_event_or_state_is_a_fact(sentence: str) -> None:
    assert is_fact(sentence, "ru")
    assert typed(sentence, "ru") == [("fact", None)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Определение простого числа и его смысла",
        "Отчёт о полёте и расчёт стекла",
        "Свойства масла, узла и горла",
    ],
)
def test_russian_nouns_in_la_and_yot_are_no_verbs(sentence: str) -> None:
    assert not is_fact(sentence, "ru")


# --- blind text that speaks to its reader about itself ---


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("If you read this text, you will get no information.", "en"),
        ("This text tells you nothing about the selected font.", "en"),
        ("Если вы прочтёте этот текст, вы не получите никакой информации.", "ru"),
    ],
)
def test_a_reader_told_about_this_text_is_placeholder(sentence: str, language: str) -> None:
    assert about_the_text(sentence, language)
    assert not is_fact(sentence, language)


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("If you read the manual, you will find the list of flags.", "en"),
        ("The committee published the text of the treaty in 1920.", "en"),
        ("Комитет опубликовал текст договора в 1920 году.", "ru"),
    ],
)
def test_a_text_of_the_world_is_no_placeholder(sentence: str, language: str) -> None:
    assert not about_the_text(sentence, language)


# --- a long lead-in after statements ---


@pytest.mark.parametrize(("text", "language"), [(EVENTS, "en"), (RECORDS, "ru")])
def test_statements_before_a_long_lead_in_stand(text: str, language: str) -> None:
    assert not instructs(text, language)
    assert is_fact(text, language)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "This is what a very basic blueprint looks like. In this case we want to implement "
            "a blueprint that does simple rendering of static templates:",
            "en",
        ),
        (
            "The downside with the approach mentioned earlier is that it makes testing harder. "
            "There is no single solution for this problem in general, but there are a couple of "
            "things you can keep in mind:",
            "en",
        ),
        (
            "Команда установила несколько рекордов за долгую историю. Вы можете сравнить их с "
            "рекордами других клубов высшей лиги по таблице, которая приведена на сайте лиги:",
            "ru",
        ),
    ],
)
def test_a_lead_in_to_the_reader_or_after_a_pointer_is_text(text: str, language: str) -> None:
    assert instructs(text, language)
    assert not is_fact(text, language)


# --- what a part of the documentation covers ---


def test_a_part_of_the_documentation_describes_the_text() -> None:
    docs = "This part of the documentation covers all the interfaces of Flask."
    engine = "This part of the engine covers all the interfaces of Flask."
    assert about_the_text(docs, "en") and not is_fact(docs, "en")
    assert not about_the_text(engine, "en") and is_fact(engine, "en")


# --- an atom of several sentences: an open question or research narrative first ---

HIPPO = (
    "Although a developmental role for Hippo signaling in organ size control is well appreciated, "
    "how this pathway functions in tissue regeneration is largely unknown. Here we address this "
    "issue using a dextran sodium sulfate (DSS)-induced colonic regeneration model."
)
RNA = (
    "Total RNA was collected from pneumococci isolated from infected blood and cerebrospinal "
    "fluid. Microarray analysis of pneumococcal genes expressed in these models identified body "
    "site-specific patterns of expression for virulence factors."
)


def test_an_open_question_then_an_aim_is_text() -> None:
    assert not is_fact(HIPPO, "en")
    # what follows the open question states something: the atom is a fact
    found = HIPPO.split(". Here")[0] + ". The pathway regulates colonic repair through YAP."
    assert is_fact(found, "en")


def test_a_method_then_a_finding_is_a_fact() -> None:
    assert is_fact(RNA, "en")
    # a method followed by more method stays text
    method = RNA.split(". Microarray")[0] + ". The samples were then analysed by microarray."
    assert not is_fact(method, "en")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Роль этих клеток остаётся неизвестной. Мы рассмотрим её на модели мышей.", False),
        ("Клетки выделили из крови пациентов. Они подавляли воспаление в опытах на мышах.", True),
    ],
)
def test_russian_atoms_of_several_sentences(text: str, expected: bool) -> None:
    assert is_fact(text, "ru") is expected
