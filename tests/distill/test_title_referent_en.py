"""English claims whose referent is in the sentence before or only in the title (issue 15, scope
2; `distill/join_en.py` rules 7 and 11, `distill/subject_en.py`): a definite event noun with no
complement ("The transformation was complete ...") or a noun of the sentence before's word family
("failed ... The failure") joins the sentence before; a claim whose subject is a common-noun
phrase naming nothing carries the heading when the heading is a text's title (a paper in a
reading list, a book, an editorial), the document's subject under a README's label heading, and
nothing under a manual's label, a work title or in dialogue. Each rule on both sides; Russian
sentences are not read by these rules (they have their own: `context` rule 1, `carry` rule 4)."""

from __future__ import annotations

import pytest

from pegas_memory.distill.context import leans_back
from tests.distill.offline_chunk import claims, grouped

_BEFORE = (
    "The time course for the disappearance of pattern F matched the time course of the "
    "appearance of pattern B, with a half-time of 30 min."
)
_READING_LIST = "SciFact abstracts (a reading list)"


def _claims(text: str, heading_path: tuple[str, ...], title: str | None = None) -> list[str]:
    return claims(text, title, heading_path, "en")


# --- join_en rule 11: a definite event or result noun with no complement ---------------------


def test_an_event_noun_with_its_verb_next_joins_the_sentence_before() -> None:
    text = f"{_BEFORE} The transformation was complete in 90 min."
    assert grouped(text) == [text]
    increase = "Serum levels of IL-6 rose in treated mice. The increase was significant."
    assert grouped(increase) == [increase]


def test_a_paragraphs_first_sentence_joins_nothing() -> None:
    assert not leans_back("The transformation was complete in 90 min.", "en", None)
    assert leans_back("The transformation was complete in 90 min.", "en", _BEFORE)


def test_findings_and_results_are_the_studys_not_the_sentence_befores() -> None:
    text = "Clutches are largest in cavity nesters. The findings offer a bridge between fields."
    assert len(grouped(text)) == 2


# --- join_en rule 7: a noun of the sentence before's word family ------------------------------


def test_a_noun_of_the_sentence_befores_word_family_joins_it() -> None:
    text = "The first pump failed twice during the trial. The failure was traced to a seal."
    assert grouped(text) == [text]
    other = "The first pump stalled twice during the trial. The failure was traced to a seal."
    assert len(grouped(other)) == 2  # no word of its family before: it stands (or is carried)


def test_the_english_join_rules_do_not_read_russian() -> None:
    before = "Исчезновение узора F совпало с появлением узора B."
    # A Russian bare noun subject does lean back since session 10 (distill/bare_ru.py: Russian
    # has no article, "Трансформация ..." is "The transformation ..."); the English event-noun
    # rule is not what says so: with an adjective the noun is no longer bare, and nothing joins.
    assert not leans_back("Полная трансформация завершилась за 90 минут.", "ru", before)
    assert leans_back("The transformation was complete in 90 min.", None, _BEFORE)  # en default


# --- subject_en: the subject is a common-noun phrase that names nothing ---------------------


_EDITORIAL = ("# SciFact abstracts (a reading list)", "Malaria eradication back on the table.")


def test_a_definite_subject_under_a_papers_title_carries_the_title() -> None:
    text = (
        "After a lapse of almost 40 years, malaria eradication is back on the global agenda.\n\n"
        "The challenges remain formidable."
    )
    claims = _claims(text, _EDITORIAL, _READING_LIST)
    assert "Malaria eradication back on the table: the challenges remain formidable." in claims


def test_a_subject_with_a_name_in_its_predicate_still_carries_a_papers_title() -> None:
    # test_distill_carry keeps these under a label-like heading, where they carry nothing
    for sentence in (
        "The data were therefore analysed with Kaplan-Meier curves.",
        "The mean age of the patients was 54 years.",
    ):
        (claim,) = _claims(sentence, ("Palliative care in Germany",))
        assert claim == f"Palliative care in Germany: t{sentence[1:]}"


def test_a_dash_aside_is_no_part_of_the_subject() -> None:
    text = (
        "Any strategic plan – and here we learn again from the past – needs to be a "
        "synchronous global effort, locally adapted in all endemic areas."
    )
    (claim,) = _claims(text, _EDITORIAL, _READING_LIST)
    assert claim.startswith("Malaria eradication back on the table: Any strategic plan")


def test_this_book_under_the_books_heading_carries_it() -> None:
    heading = ("# SciFact abstracts (a reading list)", "Children's Exercise Physiology")
    text = (
        "In the eight years since the first edition of this book was published, much new "
        "information has surfaced."
    )
    (claim,) = _claims(text, heading, _READING_LIST)
    assert claim == (
        "Children's Exercise Physiology: in the eight years since the first edition of this "
        "book was published, much new information has surfaced."
    )


def test_a_readme_label_heading_gives_the_one_word_h1_of_the_project() -> None:
    text = (
        "By default, the recursive directory iterator will ignore hidden files and\n"
        "directories. This can be disabled by building the iterator with `WalkBuilder`:"
    )
    (claim,) = _claims(text, ("ignore", "Example: advanced"), "ignore")
    # "will ignore" uses the name as a verb: no mention of the crate
    assert claim.startswith("ignore: by default, the recursive directory iterator")
    named = "By default, the ignore crate skips hidden files and directories in a walk."
    assert _claims(named, ("ignore", "Example: advanced"), "ignore") == [named]


def test_a_one_word_title_that_is_no_heading_of_the_document_is_a_file_name() -> None:
    text = "By default, the recursive directory iterator will skip hidden files and directories."
    assert _claims(text, ("Example: advanced",), "ignore") == [text]


def test_no_carry_under_a_work_title_or_in_dialogue() -> None:
    text = "The hall was lined with doors all round, and every one of them was locked."
    assert _claims(text, ("Down The Rabbit-Hole",), "Alice's Adventures in Wonderland") == [text]
    dialogue = (
        "'The door is locked,' said the Hatter.\n\n'The key is lost,' said Alice.\n\n"
        "'The tea is cold,' said the Hare.\n\n"
    )
    heading = ("A Mad Tea-Party and the hall of doors",)
    assert not any(":" in c.split("'")[0] for c in _claims(dialogue, heading))


@pytest.mark.parametrize("title", ["Error Handlers", "Templates"])
def test_a_manual_pages_own_title_is_no_project_name(title: str) -> None:
    text = "By default, the recursive directory iterator will skip hidden files and directories."
    assert _claims(text, (title, "Example: advanced"), title) == [text]
    assert _claims(text, (title,), title) == [text]
