"""The promote stage's labelled cases (`cases/promote.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.pointers import is_pointer
from pegas_memory.distill.steps_en import announces_what_follows
from tests.distill.cases import Case, load_cases
from tests.distill.test_type_rules import agree

CHECKS: dict[str, Callable[..., Any]] = {
    "announces_what_follows": lambda sentence: bool(announces_what_follows(sentence)),
    "announces_what_follows_and_is_pointer": lambda sentence: agree(
        announces_what_follows(sentence), is_pointer(sentence)
    ),
}


@pytest.mark.parametrize("case", load_cases("promote"))
def test_promote_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
