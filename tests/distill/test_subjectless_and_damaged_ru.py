"""Russian claims with no subject, words lost in the source, and stress marks in leads (issue 15,
session 10, the seed 13131 errors): a subjectless claim carries its section's subject though
the subject's other words stand in it as objects; a short participle before its agent is a
verb, not a first name; a double space after a function word is a lost link's text (damaged);
a past verb of sequence opening a short sentence joins the events before; Wikipedia's stress
marks are out of claims and terms (quotes keep them), so a lead under its title is its
definition. Each rule fires and does not fire, through the offline distiller where it can."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back, refers_back
from pegas_memory.distill.head_ru import head_missing
from pegas_memory.distill.leads import match_lead_definition
from pegas_memory.distill.lean_ru import sequel
from pegas_memory.distill.standalone import DAMAGED, lost_link
from pegas_memory.distill.types import DraftAtom
from pegas_memory.distill.units import clean_claim
from pegas_memory.distill.words_ru import agent_after, unstressed
from tests.distill.offline_chunk import distil

_ADHD = "Синдром дефицита внимания и гиперактивности"


def _distill(text: str, heading: str | None, language: str) -> tuple[list[DraftAtom], dict]:
    return distil(text, None, (heading,) if heading else (), language)


def _claims(text: str, heading: str | None, language: str) -> list[str]:
    return [a.claim for a in _distill(text, heading, language)[0]]


# --- a subjectless claim whose objects repeat the subject's words ---------------------------


def test_a_subjectless_claim_carries_its_subject_though_its_objects_repeat_its_words() -> None:
    text = (
        "Проявляется такими симптомами, как трудности концентрации внимания, гиперактивность и"
        " плохо управляемая импульсивность."
    )
    assert _claims(text, _ADHD, "ru") == [f"{_ADHD}: проявляется" + text[len("Проявляется") :]]


def test_a_name_subject_is_left_to_mentions() -> None:
    assert not head_missing("Родился Иван Петров в Москве в семье врача.", "Иван Петров")
    # named only as an owner after the verb ("врача Петрова": the father), the name is no
    # subject of the verb: the claim lacks it (verbfirst_ru.named_obliquely, session 11)
    assert head_missing("Родился в Москве в семье врача Петрова.", "Иван Петров")


def test_a_short_participle_before_its_agent_is_a_verb_not_a_first_name() -> None:
    assert agent_after("Разработана", "Биллом")
    assert agent_after("Основан", "Петром")
    assert agent_after("Написана", "Ахматовой")
    claim = "Разработана Биллом Гейтсом и Марком Макдональдом в 1976-1977 годах."
    reference = refers_back(claim, "ru")
    assert reference is not None and reference.kind == "subjectless"
    # an acronym title agrees with a feminine participle: carried
    assert _claims(claim, "FAT", "ru") == [f"FAT: разработана{claim[len('Разработана') :]}"]


def test_a_named_subject_of_the_claim_is_not_carried_onto_it() -> None:
    claim = "Светлана Иванова родилась в Москве в семье врача и учительницы."
    assert _claims(claim, "Иванова, Светлана", "ru") == [claim]


# --- a double space where a link's text was lost ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Разработана Биллом Гейтсом и  в 1976-1977 годах для дискет.", "ru"),
        ("Название продукта образовано из латинских слов  (Везувий) и  (вино).", "ru"),
        ("The engine was written by Bill Gates and  in 1976 for floppy disks.", "en"),
    ],
)
def test_a_double_space_after_a_function_word_before_another_is_damaged(
    text: str, language: str
) -> None:
    atoms, dropped = _distill(text, "FAT", language)
    assert atoms == [] and dropped[DAMAGED] == 1
    assert lost_link(text)


@pytest.mark.parametrize(
    "text",
    [
        # after a sentence's end or a content word: spacing, nothing lost
        "11 июля 1989 года в Междуреченске (Кузбасс)  началась забастовка шахтёров города.",
        "The table is stored in PostgreSQL.  Its rows are projected into the vector slice.",
        # a single space after the conjunction
        "Разработана Биллом Гейтсом и в 1976-1977 годах для дискет.",
        # a name after the double space: only the spacing is odd
        "Образование компании связано с именами Луи и  Петра Бохов из Лотарингии.",
    ],
)
def test_other_double_spaces_are_no_loss(text: str) -> None:
    assert not lost_link(text)


# --- a past verb of sequence leans on the events before --------------------------------------

_STRIKE = "Забастовки шахтёров Донбасса (1989—1990-е годы)"
_BEFORE = (
    "11 июля 1989 года в Междуреченске началась забастовка шахтёров всех угледобывающих"
    " предприятий города. Шахтёры вышли на центральную площадь и начали круглосуточный митинг."
)


def test_a_short_sentence_opening_on_a_verb_of_sequence_joins_the_events_before() -> None:
    text = f"{_BEFORE} Начались переговоры с министром угольной промышленности СССР."
    claims = _claims(text, _STRIKE, "ru")
    assert len(claims) == 1 and claims[0].endswith("Начались переговоры с министром угольной"
                                                   " промышленности СССР.")  # fmt: skip
    assert sequel("Вскоре последовали аресты членов забастовочного комитета.")
    assert leans_back("Возобновились бои за город.", "ru", "Перемирие было нарушено.")


def test_an_english_sentence_is_not_read_as_a_russian_sequel() -> None:
    text = "The strike began in July 1989 in the city. Negotiations began with the minister."
    assert len(_claims(text, "Miners' strikes", "en")) == 2


# --- stress marks ----------------------------------------------------------------------------


def test_stress_marks_are_out_of_claim_and_term_and_the_quote_keeps_them() -> None:
    text = (
        "Те́трис (производное от «тетрамино» и «теннис») — компьютерная игра, первоначально"
        " изобретённая и разработанная советским программистом Алексеем Пажитновым."
    )
    atoms, _ = _distill(text, "Тетрис", "ru")
    assert len(atoms) == 1
    atom = atoms[0]
    assert atom.type == "definition" and atom.term == "Тетрис"
    assert atom.claim.startswith("Тетрис (производное") and "\u0301" not in atom.claim
    assert atom.quote == text  # the source bytes


def test_a_lead_under_its_title_with_a_dash_in_its_name_is_its_definition() -> None:
    text = (
        "Па́пуа — Но́вая Гвине́я, Па́пуа-Но́вая Гвине́я (полное название — Незави́симое"
        " Госуда́рство Па́пуа Но́вая Гвине́я; English: Papua New Guinea) — государство в Океании,"
        " в юго-западной части Тихого океана."
    )
    atoms, _ = _distill(text, "Папуа — Новая Гвинея", "ru")
    assert [(a.type, a.term) for a in atoms] == [("definition", "Папуа — Новая Гвинея")]
    assert atoms[0].quote == text


@pytest.mark.parametrize(
    "sentence",
    [
        # a verb before the dash: a statement about the country
        "Папуа — Новая Гвинея вступила в ООН в 1975 году — это было важное событие.",
        # the sentence ends before any dash
        "Папуа — Новая Гвинея. Государство — член Содружества наций.",
    ],
)
def test_a_statement_opening_on_the_title_is_no_lead(sentence: str) -> None:
    assert match_lead_definition(sentence, ("Папуа — Новая Гвинея",)) is None


def test_a_latin_accent_is_spelling_not_a_stress_mark() -> None:
    combining = "Cafe\u0301 de Flore"
    assert unstressed("café") == "café"
    assert unstressed(combining) == combining
    assert clean_claim("The Café de Flore is a café in Paris.") == (
        "The Café de Flore is a café in Paris."
    )
    assert unstressed("Гу́нны и Орфѐй") == "Гунны и Орфей"
