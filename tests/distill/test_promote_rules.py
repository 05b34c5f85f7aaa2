"""The promote stage's labelled cases (`cases/promote.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.discourse import narration, pointer, question
from pegas_memory.distill.following_en import presents_what_follows
from pegas_memory.distill.layout import glyph_debris
from pegas_memory.distill.pointers import is_pointer
from pegas_memory.distill.predicate import no_predicate
from pegas_memory.distill.reference import unresolved
from pegas_memory.distill.steps_en import announces_what_follows
from tests.distill.cases import Case, load_cases
from tests.distill.test_type_rules import agree

CHECKS: dict[str, Callable[..., Any]] = {
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
