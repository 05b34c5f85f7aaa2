"""Two sentences of nearly the same words agree only on the same content, roles and order
(ingest.claim_agreement, pure): the frame of a sentence and the disagreements of two frames."""

from __future__ import annotations

import pytest

from pegas_memory.ingest.claim_agreement import claim_frame, disagreements, latin_lemma
from pegas_memory.ingest.claims import _is_content_word


def _reasons(a: str, b: str) -> tuple[str, ...]:
    return disagreements(claim_frame(a, _is_content_word), claim_frame(b, _is_content_word))


def _kinds(a: str, b: str) -> set[str]:
    return {r.split(" ", 1)[0] for r in _reasons(a, b)}


def test_a_preposition_marks_the_role_of_the_words_after_it() -> None:
    frame = claim_frame("The proxy writes the data from the client to the log.", _is_content_word)
    roles = {w.lemma: w.marker for w in frame.words}
    assert roles == {"proxy": "", "write": "", "data": "", "client": "from", "log": "to"}


def test_a_russian_noun_without_a_preposition_is_marked_by_its_case() -> None:
    frame = claim_frame("Прокси записывает данные, полученные клиентом.", _is_content_word)
    roles = {w.lemma: w.marker for w in frame.words}
    assert roles["клиент"] == "ablt"
    frame = claim_frame("Прокси записывает данные от клиента.", _is_content_word)
    assert {w.lemma: w.marker for w in frame.words}["клиент"] == "от"


@pytest.mark.parametrize(
    "a,b",
    [
        ("The proxy writes the data from the client to the log.",
         "The proxy writes the data received by the client to the log."),
        ("The proxy records the data sent by the client.",
         "The proxy records the data sent to the client."),
        ("Прокси записывает в журнал данные от клиента.",
         "Прокси записывает в журнал данные, полученные клиентом."),
        ("Обработчик проверяет параметры пути и тело запроса.",
         "Обработчик проверяет параметры тела, пути и запроса."),
    ],
)  # fmt: skip
def test_the_same_words_in_other_roles_disagree(a: str, b: str) -> None:
    assert "role" in _kinds(a, b)


def test_the_same_bare_words_in_another_order_disagree() -> None:
    a = "The handler validates the path parameters and the request body."
    b = "The handler validates the body, path and request parameters."
    assert "order" in _kinds(a, b)


def test_a_claim_that_says_much_more_disagrees_on_content() -> None:
    a = "The server keeps the data from the client."
    b = "The server keeps the data sent by your program, checked and received by the client."
    assert "content" in _kinds(a, b)


def test_one_word_more_is_within_the_tolerance() -> None:
    a, b = "The drug reduces pain in adults.", "The drug reduces acute pain in adults."
    assert _reasons(a, b) == ()


@pytest.mark.parametrize(
    "a,b",
    [
        ("The Volga is the longest river in Europe.",
         "the Volga is the longest\nriver in Europe!!"),
        ("The rate fell by 1,642 cases in 2019.", "The rate fell by 1642 cases in 2019."),
        ("Exposure increased the risk of infection.", "Exposure increases the risk of infection."),
        ("В последние годы число случаев выросло.", "В последних годах число случаев выросло."),
        ("After the storm the bridge was rebuilt.", "The bridge was rebuilt after the storm."),
        ("Treatment for two days increased the activity of brown fat.",
         "Treatment for two days, increased the activity of brown fat."),
        ("Обработчик проверяет параметры пути и тело запроса.",
         "Обработчик  проверяет параметры пути\nи тело запроса"),
    ],
)  # fmt: skip
def test_the_same_claim_reworded_by_form_agrees(a: str, b: str) -> None:
    assert _reasons(a, b) == ()


def test_latin_lemmas_join_the_forms_of_one_word() -> None:
    assert latin_lemma("parameters") == latin_lemma("parameter") == "parameter"
    assert latin_lemma("cases") == "case" and latin_lemma("processes") == "process"
    assert latin_lemma("europe's") == "europe" and latin_lemma("studies") == "study"
