"""English claims that lean on the sentence before through an ordinal, a glossed "here" or a
condition, and three type errors (issue 15, scope 2 and 3; seed 13131's graded errors,
`distill/continues_en.py` rules 5-7, `distill/patterns.py`, `distill/mood.py`):

- "The first argument is the function ..." after the sentence that introduced connect() joins
  it, and an ordinal description is no defined term;
- '"Releasing" here means ...' joins the sentence whose word it glosses, even when that one opens
  on a code name ("The scoped_session.remove() method ...", which names something);
- "If not, ..." / "If so, ..." / "At this point, ..." join the sentence whose condition or step
  they take up;
- a joined atom whose last sentence leads in after a sentence ending in a short word ("... ask
  for it. As a means ...:") is typed by what it states; a reported count ("Of 1106 participants
  assessed, 632 ... were randomized", "A total of 200 patients ...") is a fact; a "should" in a
  relative clause identifying a definite noun ("the function that should be called") is no norm.

Each on both sides (fires / does not fire); Russian text is not read by the English rules."""

from __future__ import annotations

import pytest

from pegas_memory.distill.continues_en import continues_before, ordinal_subject
from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.types import ChunkContext
from tests.distill.offline_chunk import grouped, typed_claims

_CONNECT = "Every signal object has a connect() method that registers a receiver."


def _atoms(text: str, language: str = "en") -> list[tuple[str, str]]:
    return typed_claims(text, language=language)


# --- rule 5: a definite ordinal description names a member of what came before -------------


@pytest.mark.parametrize(
    "second",
    [
        "The first argument of connect() is the receiver function.",  # says whose argument
        "The first time the application starts, Flask reads its configuration.",  # a moment
        "The First Amendment protects free speech in the United States.",  # a name
    ],
)
def test_an_ordinal_that_says_whose_series_or_is_a_moment_or_a_name_stands(second: str) -> None:
    assert not ordinal_subject(second)
    assert len(grouped(f"{_CONNECT} {second}")) == 2


def test_an_ordinal_description_opening_a_paragraph_joins_nothing() -> None:
    first = "The first argument is the function to call."
    assert not continues_before(first, None)
    assert len(_atoms(f"{_CONNECT}\n\n{first}")) == 2


def test_an_ordinal_description_is_no_defined_term_but_a_definition_still_is_one() -> None:
    ordinal = "The first argument is the function that should be called when the signal is emitted."
    assert match_definition(ordinal) is None
    assert _atoms(ordinal) == [("fact", ordinal)]  # a property of connect()'s arguments
    receiver = "A receiver is a function that is called when the signal is emitted."
    term = match_definition(receiver)
    assert term is not None and term[0] == "receiver"


# --- rule 7: a condition or step taken up from the sentence before ---------------------------


def test_russian_sentences_are_not_read_by_the_english_rules() -> None:
    text = "Первый аргумент метода задаёт функцию. Если нет, вызывается обработчик по умолчанию."
    assert len(grouped(text, "ru")) == 2


# --- types -----------------------------------------------------------------------------------


def test_a_statement_before_a_lead_in_is_typed_by_what_it_states_after_a_short_word() -> None:
    joined = (
        "The job of the scoped_session is simple; hold onto a Session for all who ask for it. "
        "As a means of producing more transparent access, the registry proxies method calls "
        "to the Session:"
    )
    assert is_fact(joined, "en")
    # an instruction before the lead-in stays text, short last word or not
    assert not is_fact("Install it. The output looks like this:", "en")
    assert not is_fact("Then run the tests:", "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "Of 1106 participants assessed, 632 with type 2 diabetes were randomized.",
        "A total of 200 patients with metabolic syndrome were randomized to rosiglitazone or "
        "placebo.",
    ],
)
def test_a_reported_count_is_a_fact(sentence: str) -> None:
    assert _atoms(sentence) == [("fact", sentence)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Patients with metabolic syndrome were randomized to rosiglitazone or placebo.",
        "Of the participants assessed, most were randomized.",
    ],
)
def test_a_method_without_a_count_stays_text(sentence: str) -> None:
    assert _atoms(sentence) == [("text", sentence)]


def test_should_identifying_a_definite_noun_is_no_norm_but_a_norm_stays_text() -> None:
    assert is_fact("The first argument is the function that should be called on emit.", "en")
    assert not is_fact(
        "A relational database provides rich functionality that should be fully exposed.", "en"
    )
    assert not is_fact("You should pass the function that should be called first.", "en")


def test_subscribing_to_a_signal_is_no_newsletter_boilerplate() -> None:
    """A "subscribe to our newsletter" line is page boilerplate; "To subscribe to a signal" in an
    API's docs is its content (flask's signals.rst lost it, and the ordinal sentence after it
    lost its antecedent)."""
    distiller = OfflineDistiller()
    context = ChunkContext("Signals", ("Subscribing to Signals",), "en")
    docs = "To subscribe to a signal, you can use the connect() method of a signal."
    assert [a.claim for a in distiller.distill(docs, context)] == [docs]
    page = "Subscribe to our newsletter for weekly updates on the markets."
    atoms, dropped = distiller.distill_counted(page, ChunkContext("Markets", (), "en"))
    assert atoms == [] and sum(dropped.values()) == 1
