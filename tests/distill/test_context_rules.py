"""The context stage's labelled cases (`cases/context.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.agree_ru import verb_disagrees
from pegas_memory.distill.context import leans_back
from tests.distill.cases import Case, load_cases

CHECKS: dict[str, Callable[..., Any]] = {
    "leans_back": leans_back,
    "verb_disagrees": verb_disagrees,
}


@pytest.mark.parametrize("case", load_cases("context"))
def test_context_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
