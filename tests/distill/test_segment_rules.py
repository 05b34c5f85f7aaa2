"""The segment stage's labelled cases (`cases/segment.toml`): each row runs the rule it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pegas_memory.distill.agree_ru import continues_relative
from pegas_memory.distill.continues_en import continues_before
from pegas_memory.distill.labels_ru import legend_line, period_only
from pegas_memory.distill.sentences import prose_sentences
from pegas_memory.sentences import split_sentences
from tests.distill.cases import Case, load_cases
from tests.distill.offline_chunk import claims, grouped


def one_group(first: str, second: str) -> bool:
    """Whether the two sentences, one after the other, are cut as one group (joined)."""
    text = f"{first} {second}"
    return grouped(text) == [text]


def group_count(first: str, second: str) -> int:
    """How many sentence groups the two sentences, one after the other, are cut into."""
    return len(grouped(f"{first} {second}"))


def cut_between(first: str, second: str) -> bool:
    """Whether the two sentences, one after the other, are split into exactly those two."""
    return [s.text for s in split_sentences(f"{first} {second}")] == [first, second]


def sentence_count(text: str) -> int:
    """How many sentences `text` is split into."""
    return len(split_sentences(text))


def first_sentence_and_count(text: str) -> list[object]:
    """The first sentence `text` is split into, and how many sentences there are."""
    sentences = [s.text for s in split_sentences(text)]
    return [sentences[0], len(sentences)]


def paragraph_claims(paragraphs: list[str]) -> list[str]:
    """The offline distiller's claims of the paragraphs, one after the other."""
    return claims("\n\n".join(paragraphs) + "\n", title="Notes")


def prose_sentence_texts(text: str) -> list[str]:
    """The sentences the distiller cuts prose `text` into (inline code and quotations kept)."""
    return [s.text for s in prose_sentences(text)]


def prose_sentence_count(text: str) -> int:
    """How many sentences the distiller cuts prose `text` into."""
    return len(prose_sentences(text))


# Each check is known by its function's name: a table names the function it runs.
CHECKS: dict[str, Callable[..., Any]] = {
    check.__name__: check
    for check in (
        continues_before,
        continues_relative,
        cut_between,
        first_sentence_and_count,
        group_count,
        legend_line,
        one_group,
        paragraph_claims,
        period_only,
        prose_sentence_count,
        prose_sentence_texts,
        sentence_count,
    )
}


@pytest.mark.parametrize("case", load_cases("segment"))
def test_segment_rule(case: Case) -> None:
    case.assert_answered(CHECKS)
