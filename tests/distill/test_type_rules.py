"""The type stage's labelled cases (`cases/type.toml`): each row runs the rule it names. A check
that pairs two verdicts (a step and no fact) answers yes when both hold, no when neither does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.leads import match_lead_definition
from pegas_memory.distill.mood import (
    about_the_text,
    generic_present,
    instructs,
    presents_result,
    ru_adjective_predicate,
    verbless,
)
from pegas_memory.distill.norms_ru import ru_instructs
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.patterns import match_definition
from pegas_memory.distill.steps_en import imperative_step
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.distill.cases import Case, load_cases
from tests.distill.offline_chunk import distil
from tests.distill.verdicts import agree


def drafts(
    text: str, language: str, title: str | None = None, heading: tuple[str, ...] = ()
) -> list[DraftAtom]:
    """The offline distiller's atoms of one chunk."""
    return OfflineDistiller().distill(text, ChunkContext(title, heading, language))


def only_type(text: str, language: str, *, quotes_checked: bool = False) -> str | None:
    """The type of the one atom of `text` (its quote checked verbatim when asked); None unless
    there is one."""
    atoms = distil(text, language=language)[0] if quotes_checked else drafts(text, language)
    return atoms[0].type if len(atoms) == 1 else None


def lead_stays_a_fact(sentence: str) -> bool:
    """Whether the sentence, the lead of a document titled with its subject, is no lead definition
    and the distiller makes it one fact."""
    subject = sentence.split(" is ")[0].split(" was ")[0]
    if match_lead_definition(sentence, (subject,)) is not None:
        return False
    return [a.type for a in drafts(sentence, "en", subject)] == ["fact"]


def theorem_label(text: str, language: str) -> str | None:
    """The label of the one atom of `text` when it is a fact of kind theorem."""
    atoms = distil(text, language=language)[0]
    if len(atoms) != 1 or (atoms[0].type, atoms[0].metadata.get("kind")) != ("fact", "theorem"):
        return None
    return str(atoms[0].metadata["label"])


def proof_block(text: str, language: str) -> bool:
    """Whether `text` is one atom, text of kind proof."""
    atoms = distil(text, language=language)[0]
    return [(a.type, a.metadata.get("kind")) for a in atoms] == [("text", "proof")]


def one_fact_carrying_its_heading(text: str, heading: str) -> bool:
    """Whether the Russian `text` under `heading` is one fact whose claim opens on the heading."""
    found = drafts(text, "ru", "Doc", (heading,))
    return [(a.type, a.claim.startswith(f"{heading}: ")) for a in found] == [("fact", True)]


def typed(text: str, language: str) -> list[tuple[str, str | None]]:
    return [(a.type, a.term) for a in drafts(text, language)]


def defined_term(sentence: str) -> str | bool:
    """The term the sentence defines, or False when it defines nothing."""
    found = match_definition(sentence)
    return found[0] if found is not None else False


CHECKS: dict[str, Callable[..., Any]] = {
    "is_fact": lambda sentence, language="en": bool(is_fact(sentence, language)),
    "is_fact_ru": lambda sentence: bool(is_fact(sentence, "ru")),
    "imperative_step": lambda sentence: bool(imperative_step(sentence)),
    "imperative_step_and_no_fact": lambda sentence: agree(
        imperative_step(sentence), not is_fact(sentence, "en")
    ),
    "instructs": lambda sentence, language="en": bool(instructs(sentence, language)),
    "instructs_and_no_fact": lambda sentence, language="en": agree(
        instructs(sentence, language), not is_fact(sentence, language)
    ),
    "ru_instructs_and_no_fact": lambda sentence: agree(
        ru_instructs(sentence), not is_fact(sentence, "ru")
    ),
    "generic_present_and_fact": lambda sentence: agree(
        generic_present(sentence), is_fact(sentence, "en")
    ),
    "about_the_text": lambda sentence, language: bool(about_the_text(sentence, language)),
    "about_the_text_and_no_fact": lambda sentence, language: agree(
        about_the_text(sentence, language), not is_fact(sentence, language)
    ),
    # the sentence is a fact and the distiller makes it one fact atom (quotes checked verbatim)
    "fact_atom": lambda sentence, language: agree(
        is_fact(sentence, language), only_type(sentence, language, quotes_checked=True) == "fact"
    ),
    # the sentence is no fact and the distiller makes it one text atom
    "text_atom": lambda sentence, language: agree(
        not is_fact(sentence, language),
        only_type(sentence, language, quotes_checked=True) == "text",
    ),
    "no_definition_and_one_fact_atom_with_no_term": lambda sentence, language: agree(
        match_definition(sentence) is None, typed(sentence, language) == [("fact", None)]
    ),
    "fact_and_one_fact_atom_with_no_term": lambda sentence: agree(
        is_fact(sentence, "ru"), typed(sentence, "ru") == [("fact", None)]
    ),
    "verbless_and_no_fact": lambda sentence: agree(verbless(sentence), not is_fact(sentence, "en")),
    "ru_adjective_predicate_and_fact": lambda sentence: agree(
        ru_adjective_predicate(sentence), is_fact(sentence, "ru")
    ),
    "no_definition_and_one_fact_atom_ru": lambda sentence: agree(
        match_definition(sentence) is None, only_type(sentence, "ru") == "fact"
    ),
    "presents_result_and_one_fact_atom": lambda sentence, language: agree(
        presents_result(sentence, language), only_type(sentence, language) == "fact"
    ),
    "presents_no_result_and_one_text_atom": lambda sentence, language: agree(
        not presents_result(sentence, language), only_type(sentence, language) == "text"
    ),
    "lead_stays_a_fact": lead_stays_a_fact,
    "defined_term": defined_term,
    "theorem_label": theorem_label,
    "proof_block": proof_block,
    "one_fact_carrying_its_heading": one_fact_carrying_its_heading,
}


@pytest.mark.parametrize("case", load_cases("type"))
def test_type_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
