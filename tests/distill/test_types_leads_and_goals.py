"""Types by position and grammar: leads, goals and pointers (issue 15, "types that mean
something"): a document's or section's lead "X is a/the N ..." whose X is its subject is a
definition (`distill/leads.py`, the offline distiller passes the chunk's first sentence); goals,
aims and purposes, advice with "you could", pointers, descriptions of a document and placeholder
text are `text` (`distill/mood.py`). Each rule on both sides, in English, Russian and German where
it applies.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

from pegas_memory.distill.fact_rules import _VERBS, is_fact
from pegas_memory.distill.mood import instructs, verbless
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.types import ChunkContext, DraftAtom

SQLA = (
    "SQLAlchemy is the Python SQL toolkit and Object Relational Mapper that gives application "
    "developers the full power and flexibility of SQL."
)


def distilled(text: str, language: str = "en", title: str | None = None,
              heading: tuple[str, ...] = ()) -> list[DraftAtom]:  # fmt: skip
    return OfflineDistiller().distill(text, ChunkContext(title, heading, language))


# --- a lead that says what the document's subject is: a definition ---


def test_a_lead_naming_the_documents_title_is_a_definition_with_its_term() -> None:
    (atom,) = distilled(SQLA, title="SQLAlchemy", heading=("Introduction",))
    assert (atom.type, atom.term) == ("definition", "SQLAlchemy")
    assert atom.metadata["pattern"] == "lead_is"
    assert atom.content.startswith("the Python SQL toolkit")


def test_a_lead_naming_its_sections_heading_is_a_definition() -> None:
    text = "Flask-Login is the Flask extension that provides user session management."
    (atom,) = distilled(text, title="Extensions", heading=("Flask-Login",))
    assert (atom.type, atom.term) == ("definition", "Flask-Login")


def test_a_lead_naming_the_titles_name_before_its_tagline_is_a_definition() -> None:
    text = "Flask is the lightweight WSGI web application framework that Werkzeug powers."
    (atom,) = distilled(text, title="Flask: web development, one drop at a time")
    assert (atom.type, atom.term) == ("definition", "Flask")
    (atom,) = distilled(text, title="Flaskr — a tutorial blog application")
    assert atom.type == "fact"


def test_the_same_sentence_past_the_lead_or_under_another_title_is_no_definition() -> None:
    # Not the chunk's first sentence: a statement about its subject.
    text = "SQLAlchemy is a large project. " + SQLA
    atoms = distilled(text, title="SQLAlchemy")
    assert [a.type for a in atoms if a.claim == SQLA] == ["fact"]
    # The chunk's first sentence, but X is not what the document is about.
    (atom,) = distilled(SQLA, title="Database toolkits compared", heading=("Python",))
    assert atom.type == "fact"


def test_a_body_risk_factor_is_no_definition_but_a_genus_still_is() -> None:
    assert match_definition("Aspirin is a risk factor for bleeding in the elderly.") is None
    assert match_definition("Smoking is a cause of lung cancer in most patients.") is None
    assert match_definition("A field is a commutative ring in which every element is invertible.")


def test_a_russian_dash_lead_stays_a_definition_and_a_relational_one_does_not() -> None:
    (atom,) = distilled("Алеу́ты — коренное население Алеутских островов.", "ru", title="Алеуты")
    assert (atom.type, atom.term) == ("definition", "Алеуты")
    (atom,) = distilled("Автор монумента — скульптор Андрей Ковальчук.", "ru", title="Пересвет")
    assert atom.type != "definition"


# --- goal bullets and labelled imperatives: text ---


GOALS = """### Goals
  * Provide simple `toJson()` and `fromJson()` methods to convert Java objects to JSON
  * Allow pre-existing unmodifiable objects to be converted to and from JSON
  * Support arbitrarily complex objects (with deep inheritance hierarchies and generic types)
"""


def test_goal_bullets_in_the_imperative_are_text() -> None:
    atoms = distilled(GOALS, title="Gson", heading=("Goals",))
    assert len(atoms) == 3
    assert {a.type for a in atoms} == {"text"}


def test_a_bullet_stating_what_happened_stays_a_fact() -> None:
    text = "### Changes\n  * Support for Java 8 was added in Gson 2.9.\n"
    (atom,) = distilled(text, title="Gson", heading=("Changes",))
    assert atom.type == "fact"


def test_a_third_person_bullet_without_its_subject_stays_text() -> None:
    # The graders' convention: a feature bullet whose subject is not in its claim means nothing
    # alone ("HTTP helpers (...)", "typed fact" was their error); so is "Supports X" with no name.
    text = "## Features\n  * Supports arbitrary Java objects including pre-existing ones\n"
    (atom,) = distilled(text, title="Gson", heading=("Features",))
    assert (atom.type, atom.claim) == (
        "text",
        "Features: Supports arbitrary Java objects including pre-existing ones",
    )


def test_a_russian_label_before_an_imperative_leaves_it_an_instruction() -> None:
    assert instructs("Установка: сначала установите пакет через pip.", "ru")
    assert not instructs("Дунай: берёт исток в горах Шварцвальда в Германии.", "ru")


# --- advice with a modal of possibility ---


def test_you_could_is_advice_and_a_subjects_could_is_not() -> None:
    advice = (
        "If you can not use Gson directly, you could use org.json to hand-code a toJson method in "
        "each object."
    )
    assert instructs(advice, "en") and not is_fact(advice, "en")
    assert instructs("Sometimes you might want to set a cookie before the response exists.", "en")
    assert instructs("If this is the case you may prefer to GenMarkdown instead.", "en")
    assert is_fact("The patients could walk unaided six weeks after the operation.", "en")
    # "you" in a relative clause, and a "may" of what the reader will meet: statements.
    assert not instructs("They are specific to certain things you might use in a request.", "en")
    assert not instructs("Usage Message: You may recognize this from the help above.", "en")
    assert is_fact("Wenn man will, kann man das Programm auch offline benutzen.", "de") is not None


# --- the verbless check: pronoun subjects and adverbs ---


def test_a_pronoun_subject_has_its_verb_and_an_adverb_is_no_verb() -> None:
    assert not verbless("We also handle the primitive types, enums and maps as a special case.")
    assert is_fact("We also handle the primitive types, enums and maps as a special case.", "en")
    assert verbless("Executable for generating applications quickly", _VERBS)
    assert not verbless("Cells quickly divide under these conditions.", _VERBS)


# --- open questions and findings ---


def test_an_open_question_after_although_is_text_and_after_but_the_first_clause_stands() -> None:
    assert not is_fact(
        "Although a developmental role for Hippo signaling in organ size control is well "
        "appreciated, how this pathway functions in tissue regeneration is largely unknown.",
        "en",
    )
    assert is_fact("The drug is known to reduce pain, but how it acts is unclear.", "en")


def test_results_that_emphasize_are_a_finding_and_we_emphasize_is_not() -> None:
    assert is_fact(
        "Our results emphasize the role of microbiota in the network that links genotype to "
        "phenotype and have potential implications for obesity.",
        "en",
    )
    assert not is_fact("We emphasize the importance of early diagnosis in these patients.", "en")
