"""The promote stage gives every soft rule's verdict on a draft, not only the first one that
decides it (`distill.promote.soft_verdicts`, read by the gate probe `bench/standalone_gate.py`);
the hard rules (blocks, layout) are not among them."""

from __future__ import annotations

from pegas_memory.distill.promote import Chunk, soft_verdicts, verdict
from pegas_memory.distill.types import ChunkContext, DraftAtom


def _draft(text: str, quote: str, kind: str = "fact") -> DraftAtom:
    start = text.index(quote)
    return DraftAtom(kind, quote, quote, 0.8, quote, start, start + len(quote), "en")  # type: ignore[arg-type]


def test_a_draft_flagged_by_two_soft_rules_has_both_verdicts_and_the_first_decides() -> None:
    text = "Graphs are everywhere. They are described in Section 5."
    chunk = Chunk(text, ChunkContext(language="en"))
    draft = _draft(text, "They are described in Section 5.")
    soft = soft_verdicts(draft, chunk)
    assert [(v.rule, v.reason) for v in soft] == [
        ("pointer", "pointer"),
        ("unresolved reference", "needs context"),
    ]
    assert verdict(draft, chunk) == soft[0]


def test_a_draft_no_soft_rule_flags_has_no_soft_verdict() -> None:
    text = "Graph neural networks pass messages along edges."
    chunk = Chunk(text, ChunkContext(language="en"))
    draft = _draft(text, text)
    assert soft_verdicts(draft, chunk) == []
    assert verdict(draft, chunk).rule == "stands alone: fact"


def test_a_code_block_is_decided_by_a_hard_rule_not_a_soft_one() -> None:
    text = "x = 1\ny = x + 1"
    chunk = Chunk(text, ChunkContext(language="en"))
    draft = _draft(text, text, "code")
    assert verdict(draft, chunk).rule == "block"
