"""The design card's name for `pegas_memory.ingest.dedup` (re-exports its public names)."""

from pegas_memory.ingest.dedup import DedupDecision, decide, threshold_for, within_batch

__all__ = ["DedupDecision", "decide", "threshold_for", "within_batch"]
