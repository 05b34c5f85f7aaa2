"""The promote stage's labelled cases (`cases/promote.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.dialogue import outburst
from pegas_memory.distill.discourse import narration, pointer, question
from pegas_memory.distill.following_en import presents_what_follows
from pegas_memory.distill.items import dated_entries, nominal_list
from pegas_memory.distill.layout import glyph_debris
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.pointers import is_pointer
from pegas_memory.distill.predicate import no_predicate
from pegas_memory.distill.reference import unresolved
from pegas_memory.distill.standalone import DAMAGED, NEEDS_CONTEXT
from pegas_memory.distill.steps_en import announces_what_follows
from pegas_memory.distill.types import ChunkContext, DraftAtom
from tests.distill.cases import Case, load_cases
from tests.distill.offline_chunk import distil
from tests.distill.verdicts import agree


def _distil(
    text: str, language: str, title: str | None = None, heading: tuple[str, ...] = ()
) -> tuple[list[DraftAtom], dict[str, int]]:
    return distil(text, title, heading, language)


def dropped_alone(reason: str) -> Callable[..., bool]:
    """A check: the chunk gives no atom and one draft dropped, for `reason`."""

    def check(text: str, language: str, title: str | None = None) -> bool:
        atoms, dropped = _distil(text, language, title)
        return atoms == [] and dropped == {reason: 1}

    return check


def kept_whole_and_needing_no_context(text: str, language: str) -> bool:
    """The chunk is one atom quoting it whole, and nothing is dropped as needing context."""
    atoms, dropped = _distil(text, language)
    return [a.quote for a in atoms] == [text] and NEEDS_CONTEXT not in dropped


def kept_with_no_damage(text: str, language: str, title: str) -> bool:
    """Nothing is dropped as damaged and the first atom quotes from the chunk's first word."""
    atoms, dropped = _distil(text, language, title)
    return DAMAGED not in dropped and bool(atoms) and atoms[0].quote.startswith(text.split(" ")[0])


def lead_in_cut_off(text: str, language: str, claim: str) -> bool:
    """`claim` is an atom's, and no atom's claim is a sentence with an empty lead-in after it."""
    atoms = _distil(text, language)[0]
    return claim in [a.claim for a in atoms] and not any(
        a.claim.endswith(":") and "." in a.claim for a in atoms
    )


def no_dated_list(lang: str, text: str, heading: str) -> bool:
    """No run of dated entries, and the chunk's claims are kept, none of them a list."""
    atoms, dropped = _distil(text, lang, None, (heading,))
    return (
        not dated_entries(text, lang)
        and bool(atoms)
        and "list line" not in dropped
        and all(a.metadata.get("kind") != "list" for a in atoms)
    )


def no_nominal_list(sentence: str, heading: str) -> bool:
    """No ";" list of noun phrases: the English sentence is one atom, nothing dropped as a list."""
    atoms, dropped = _distil(sentence, "en", None, (heading,))
    return not nominal_list(sentence, "en") and len(atoms) == 1 and "list line" not in dropped


def claims_include(text: str, language: str, claims: list[str]) -> bool:
    """Every one of `claims` is the claim of an atom of the chunk."""
    atoms = OfflineDistiller().distill(text, ChunkContext(language=language))
    return all(claim in [a.claim for a in atoms] for claim in claims)


CHECKS: dict[str, Callable[..., Any]] = {
    "claims_include": claims_include,
    "dropped_as_needing_context": dropped_alone(NEEDS_CONTEXT),
    "dropped_as_damaged": dropped_alone(DAMAGED),
    "dropped_as_an_exclamation": dropped_alone("exclamation"),
    "outburst": lambda text: outburst(text) or False,
    "kept_whole_and_needing_no_context": kept_whole_and_needing_no_context,
    "kept_with_no_damage": kept_with_no_damage,
    "lead_in_cut_off": lead_in_cut_off,
    "no_dated_list": no_dated_list,
    "no_nominal_list": no_nominal_list,
    "is_pointer": lambda sentence: bool(is_pointer(sentence)),
    "pointer": lambda claim, language: bool(pointer(claim, language)),
    "narration": lambda claim, language: bool(narration(claim, language)),
    "presents_what_follows": lambda sentence: bool(presents_what_follows(sentence)),
    "presents_what_follows_and_is_pointer": lambda sentence: agree(
        presents_what_follows(sentence), is_pointer(sentence)
    ),
    # a pronoun or demonstrative of the claim that finds nothing to stand for in it
    "unresolved": lambda claim, language: unresolved(claim, language) is not None,
    "no_predicate": no_predicate,
    "unresolved_under_a_carried_subject": lambda claim, language: (
        unresolved(claim, language, personal=False) is not None
    ),
    "question": lambda claim: bool(question(claim)),
    "glyph_debris": lambda claim: bool(glyph_debris(claim)),
    "announces_what_follows": lambda sentence: bool(announces_what_follows(sentence)),
    "announces_what_follows_and_is_pointer": lambda sentence: agree(
        announces_what_follows(sentence), is_pointer(sentence)
    ),
}


@pytest.mark.parametrize("case", load_cases("promote"))
def test_promote_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
