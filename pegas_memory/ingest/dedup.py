"""Semantic deduplication by embedding cosine.

Exact duplicates are caught by the content-hash unique key in Postgres; this module catches the
near ones: a new atom whose vector is within the dedup threshold of an existing atom (or of an
earlier atom of the same batch) is not stored again: the caller adds its citation to the one it
repeats. Thresholds belong to an embedding space: a model whose cosines are compressed (all text
looks alike) needs a higher one than the configured default, so the embedder may say its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pegas_memory.errors import BackendUnavailable
from pegas_memory.qdrant_store.index import VectorIndex

# Calibrated thresholds for local models whose similarity scale differs from EmbeddingGemma's
# (docs/decisions/0002-dedup-threshold.md). Keys are model ids.
MODEL_THRESHOLDS: dict[str, float] = {
    "local/multilingual-e5-small-q4": 0.955,
}


def threshold_for(model_id: str, default: float) -> float:
    return MODEL_THRESHOLDS.get(model_id, default)


@dataclass(frozen=True)
class DedupDecision:
    """For one new item: the existing atom it repeats, or the earlier batch item, or neither."""

    existing_id: int | None = None
    batch_index: int | None = None
    score: float = 0.0

    @property
    def duplicate(self) -> bool:
        return self.existing_id is not None or self.batch_index is not None


def within_batch(vectors: Sequence[Sequence[float]], threshold: float) -> list[int | None]:
    """For each vector, the index of an earlier vector at cosine >= threshold, else None."""
    if not vectors:
        return []
    raw = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    m = raw / np.where(norms == 0, 1.0, norms)
    sims = m @ m.T
    out: list[int | None] = []
    kept: list[int] = []
    for i in range(len(m)):
        match = next((j for j in kept if sims[i, j] >= threshold), None)
        out.append(match)
        if match is None:
            kept.append(i)
    return out


def decide(
    vectors: Sequence[Sequence[float]],
    *,
    index: VectorIndex | None,
    collection: str | None,
    threshold: float,
) -> tuple[list[DedupDecision], str | None]:
    """Dedup decisions for a batch; the note says when existing atoms could not be checked."""
    batch = within_batch(vectors, threshold)
    decisions: list[DedupDecision] = []
    note = None
    for vector, earlier in zip(vectors, batch, strict=True):
        if earlier is not None:
            decisions.append(DedupDecision(batch_index=earlier))
            continue
        if index is None or collection is None:
            decisions.append(DedupDecision())
            continue
        try:
            hits = index.search(collection, vector, k=1)
        except BackendUnavailable as exc:
            note = f"semantic dedup against stored atoms skipped: {exc}"
            index = None
            decisions.append(DedupDecision())
            continue
        if hits and hits[0].score >= threshold:
            decisions.append(DedupDecision(existing_id=hits[0].id, score=hits[0].score))
        else:
            decisions.append(DedupDecision())
    return decisions, note
