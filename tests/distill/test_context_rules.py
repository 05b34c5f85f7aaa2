"""The context stage's labelled cases (`cases/context.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.agree_ru import verb_disagrees
from pegas_memory.distill.context import leans_back
from pegas_memory.distill.lean_en import bare_this, contrasts, leans, speaker_it
from tests.distill.cases import Case, load_cases
from tests.distill.offline_chunk import claims


def carries_heading(text: str, heading: str, language: str | None) -> bool:
    """Whether the one claim of `text` under a section `heading` carries it ("heading: ...")."""
    (claim,) = claims(text, None, (heading,), language)
    return claim.startswith(f"{heading}: ")


def bare_this_and_leans(sentence: str, before: str) -> bool:
    """Whether `sentence` holds a bare "this" and, for it, leans on the sentence `before`."""
    return bool(bare_this(sentence)) and bool(leans(sentence, before))


CHECKS: dict[str, Callable[..., Any]] = {
    "bare_this": bare_this,
    "bare_this_and_leans": bare_this_and_leans,
    "carries_heading": carries_heading,
    "contrasts": contrasts,
    "leans_back": leans_back,
    "speaker_it": speaker_it,
    "verb_disagrees": verb_disagrees,
}


@pytest.mark.parametrize("case", load_cases("context"))
def test_context_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
