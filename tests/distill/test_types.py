"""Which type the offline distiller gives a sentence or a block (issue 15, "types that mean
something"): Wikipedia leads are definitions with their term; findings are facts; aims, scope,
method narrative, open questions and speculation are text; a capitalised word makes no fact;
theorem, lemma, proposition and corollary blocks are `fact` atoms of kind theorem (en, ru, de).
Each rule is tested on both sides: what must match and what must not.

The labelled sentences of these rules are rows of `cases/type.toml` (run by
`test_type_rules.py`); what stays here distils whole chunks or asserts more than one answer.
"""

from __future__ import annotations

import pytest

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom


def distill(text: str, language: str) -> list[DraftAtom]:
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    for atom in atoms:
        assert text[atom.quote_start : atom.quote_end] == atom.quote
    return atoms


def only(text: str, language: str) -> DraftAtom:
    atoms = distill(text, language)
    assert len(atoms) == 1, [(a.type, a.claim) for a in atoms]
    return atoms[0]


# --- definitions: leads and the other patterns, with the term ----------------------------------


def test_lead_atom_is_a_definition_and_the_superlative_a_fact() -> None:
    lead = only("Иван Петров (1900—1970) — советский писатель.", "ru")
    assert lead.type == "definition" and lead.term == "Иван Петров"
    assert lead.metadata["pattern"] == "lead"
    assert only("The Volga is the longest river in Europe.", "en").type == "fact"
    assert only("The Volga is a river in Russia.", "en").type == "definition"


# --- fact or text --------------------------------------------------------------------------------


def test_german_aim_is_text_and_a_relation_a_fact() -> None:
    assert not is_fact(
        "Ziel dieser Arbeit ist es, die Konvergenz von 3 Folgen zu untersuchen.", "de"
    )
    assert is_fact("Jede stetige Funktion auf einem Kompaktum besitzt ein Maximum.", "de")


def test_a_finding_clause_keeps_a_scope_sentence_a_fact() -> None:
    # "we examined ..." is method narrative, "... and found that ..." reports what came of it.
    assert not is_fact("We examined the tibia of the mice in detail.", "en")
    assert is_fact("We examined the tibia and found that cortical porosity rose.", "en")
    # A method sentence with a quantity is a finding ("performed in 40% of the patients").
    assert not is_fact("Biopsies were performed before and after the treatment.", "en")
    assert is_fact("Biopsies were performed in 40 % of the patients.", "en")


def test_a_capitalised_word_alone_makes_no_fact() -> None:
    # The old rule made any sentence with a capitalised word after the first a fact.
    assert not is_fact("A long afternoon at the Hatter's table, with tea and cake.", "en")
    assert not is_fact("Цель работы — сравнить Москву и Петербург.", "ru")
    assert not is_fact("We aimed to compare Spain and Croatia in the final.", "en")
    # A named thing doing or being something is one; so is a relation or a number.
    assert is_fact("Spain will be back in action on Wednesday against Croatia.", "en")
    assert is_fact("The Hatter owned a shop.", "en")
    assert is_fact("the river contains 12 dams.", "en")


# --- labelled blocks: theorems, definitions, proofs (en, ru, de) --------------------------------


@pytest.mark.parametrize(
    ("text", "language", "term"),
    [
        ("Definition 2.3. Eine Teilmenge U heißt offen, wenn sie mit jedem Punkt eine Kugel "
         "enthält.", "de", "offen"),
        ("Definition 1. A metric space is complete if every Cauchy sequence converges.", "en",
         None),
        ("Определение 1. Метрикой называется функция двух аргументов со свойствами ниже.", "ru",
         "Метрикой"),
    ],
)  # fmt: skip
def test_definition_blocks_are_definitions(text: str, language: str, term: str | None) -> None:
    atom = only(text, language)
    assert atom.type == "definition" and atom.metadata["kind"] == "definition"
    if term is not None:
        assert atom.term == term


def test_a_bare_word_satz_is_no_theorem_label() -> None:
    # "Satz" alone at a line start is a German word ("sentence"), not a numbered statement.
    atoms = distill("Satz und Gegensatz bilden in der Rhetorik eine Figur mit 2 Teilen.", "de")
    assert atoms and all(a.metadata.get("kind") != "theorem" for a in atoms)


def test_a_presented_result_is_a_fact_and_presented_scope_is_text() -> None:
    # "We present/describe X" is scope; with its result in the same sentence it is a finding
    result = (
        "We present a fine-scale map of the reef, based on aerial surveys, and identify more "
        "than 120 bleaching sites, together with the currents that feed them."
    )
    assert only(result, "en").type == "fact"
    assert only("We present the survey design and the sampling grid of the reef.", "en").type == (
        "text"
    )
    ru = "В данной работе представлена карта рифа и обнаружены 12 новых видов кораллов."
    assert only(ru, "ru").type == "fact"
    assert only("В данной работе представлена карта рифа и методы съёмки.", "ru").type == "text"
