"""The segment stage's labelled cases (`cases/segment.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.agree_ru import continues_relative
from tests.distill.cases import Case, load_cases

CHECKS: dict[str, Callable[..., Any]] = {
    "continues_relative": continues_relative,
}


@pytest.mark.parametrize("case", load_cases("segment"))
def test_segment_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
