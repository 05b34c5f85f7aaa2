"""The self-check's content sweep: a window of vector points compared with PostgreSQL one by one.

A count says nothing about *which* points a slice holds: a slice restored from an old backup,
or one where a point was overwritten with another's vector, can hold exactly as many points as
PostgreSQL has rows and still answer wrongly. So each check also takes the next window of ids
of the table (ascending, wrapping at the end: every row is visited once per `rows / window`
checks, a few hundred ids per check at most) and compares each with its point: present, the
payload fields searches filter on equal to the row's, the vector finite and not zero, and equal
(cosine) to the one the embedding cache holds for the row's text (an ingested atom's search
vector: its claim's and its context's cached vectors combined, embedding.search_vector). Rows
with an event still in the outbox are left out, since their point may rightly lag. The cost is
one indexed range read, one retrieve of the window from the slice and one cache lookup: cheap
enough to run with every check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, LiteralString

import numpy as np

import pegas_memory.embedding.search_vector as search_vector
from pegas_memory.db.sql import compose, load_queries
from pegas_memory.outbox.projection import (
    MAX_EMBED_CHARS,
    TABLE_OF,
    atom_contexts,
    atom_embed_text,
    load_rows,
    passage_embed_text,
    payload_of,
)
from pegas_memory.outbox.slices import SliceOwner
from pegas_memory.text import raw_hash

if TYPE_CHECKING:
    from pegas_memory.qdrant_store.index import VectorEntity, VectorIndex, VectorRecord

SWEEP_POINTS = 256  # ids compared per slice and check
SAME_VECTOR = 0.999  # cosine at or above which the stored vector is the cached one
_COMPARED = ("type", "status", "doc_id", "topic", "language")


@dataclass(frozen=True)
class SweepQueries:
    window_of_ids: LiteralString
    pending_among: LiteralString


Q = load_queries(SweepQueries, "pegas_memory.outbox", "sweep.sql")


@dataclass(frozen=True)
class SweepResult:
    """One window compared: how many rows, which ids differ (and how), where the next starts."""

    checked: int
    differing: tuple[int, ...]
    reasons: Mapping[int, str]
    next_after: int

    def describe(self, slice_name: str, what: str = "points") -> str:
        shown = ", ".join(f"{i} ({self.reasons[i]})" for i in self.differing[:5])
        more = f" and {len(self.differing) - 5} more" if len(self.differing) > 5 else ""
        return (
            f"{slice_name}: {len(self.differing)} of {self.checked} {what} checked differ from "
            f"PostgreSQL although the count fits: {shown}{more}"
        )


@dataclass(frozen=True)
class Window:
    """The settled rows of one window (no event of theirs still in the outbox), and where the
    next window starts (0: over again from the first id)."""

    rows: list[dict[str, Any]]
    next_after: int


def read_window(rt: SliceOwner, entity: str, after: int, limit: int) -> Window:
    """The window of `limit` ids of `entity`'s table after `after` (from the start when that
    is past the end), rows with a pending outbox event left out: shared by the vector sweep
    and the graph sweep (`outbox.graph_sweep`). One range read, one outbox read, one load."""
    with rt.db.connection() as conn:
        statement = compose(Q.window_of_ids, table=TABLE_OF[entity])
        ids = [int(r["id"]) for r in conn.execute(statement, {"after": after, "n": limit})]
        if not ids and after > 0:
            ids = [int(r["id"]) for r in conn.execute(statement, {"after": 0, "n": limit})]
        if not ids:
            return Window([], 0)
        pending = {
            int(r["entity_id"]) for r in conn.execute(Q.pending_among, {"type": entity, "ids": ids})
        }
        settled = [i for i in ids if i not in pending]
        rows = load_rows(conn, entity, settled).present if settled else []
    return Window(rows, ids[-1] if len(ids) == limit else 0)


def _embed_text(entity: str, row: Mapping[str, Any]) -> str:
    if entity == "atom":
        return atom_embed_text(row["claim"], row["content"])
    if entity == "passage":
        return passage_embed_text(str(row["content"]))
    return str(row["content"])[:MAX_EMBED_CHARS]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Pure: the cosine of two vectors (0 for a zero vector or different lengths)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        return 0.0
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0


def vector_defect(vector: Sequence[float]) -> str | None:
    """Pure: what makes a stored vector unusable whatever its text (None if nothing): NaN or
    infinity (its cosine with anything is NaN, so no search ever returns it, and a comparison
    `cosine(...) < SAME_VECTOR` is False for it) or all zeros (no direction)."""
    values = np.asarray(vector, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        return "a vector holding NaN or infinity"
    if not np.any(values):
        return "a zero vector"
    return None


def compare_point(
    want_payload: Mapping[str, Any],
    cached_vector: Sequence[float] | None,
    stored: VectorRecord | None,
) -> str | None:
    """Pure: why a stored point does not match its row (None if it does). The vector is only
    compared when the cache holds the row's vector."""
    if stored is None:
        return "missing"
    for key in _COMPARED:
        if key in want_payload and stored.payload.get(key) != want_payload[key]:
            return f"{key} {stored.payload.get(key)!r} instead of {want_payload[key]!r}"
    vector = stored.vector
    if vector is not None:
        broken = vector_defect(vector)
        if broken is not None:
            return broken
    if cached_vector is None or vector is None:
        return None
    return "another text's vector" if not cosine(cached_vector, vector) >= SAME_VECTOR else None


def sweep_vectors(
    rt: SliceOwner,
    entity: VectorEntity,
    index: VectorIndex,
    collection: str,
    after: int,
    limit: int | None = None,
) -> SweepResult:
    """Compare the window of ids after `after` (from the start when that is past the end) of
    `limit` ids (SWEEP_POINTS)."""
    window = read_window(rt, entity, after, limit or SWEEP_POINTS)
    next_after, present = window.next_after, window.rows
    if not present:
        return SweepResult(0, (), {}, next_after)
    reasons = compare_rows(rt, entity, index, collection, present)
    return SweepResult(len(present), tuple(sorted(reasons)), reasons, next_after)


def compare_rows(
    rt: SliceOwner,
    entity: VectorEntity,
    index: VectorIndex,
    collection: str,
    present: Sequence[dict[str, Any]],
) -> dict[int, str]:
    """Each row's point read back (payload and vector) and compared with it (`compare_point`,
    vectors from the embedding cache): the ids that differ and why. Shared by the sweep and
    `reconcile`."""
    wanted = [int(r["id"]) for r in present]
    stored = {r.id: r for r in index.retrieve(collection, wanted, with_vectors=True)}
    texts = [_embed_text(entity, r) for r in present]
    contexts = atom_contexts(present) if entity == "atom" else [""] * len(present)
    weight = rt.projector.context_weight
    cached = rt.embedder.get().cached([*texts, *(c for c in contexts if c)])
    reasons: dict[int, str] = {}
    for row, text, context in zip(present, texts, contexts, strict=True):
        want = payload_of(entity, row)
        vector = expected_vector(cached, text, context, weight)
        why = compare_point(want, vector, stored.get(int(row["id"])))
        if why is not None:
            reasons[int(row["id"])] = why
    return reasons


def expected_vector(
    cached: Mapping[str, Sequence[float]], text: str, context: str, weight: float
) -> list[float] | None:
    """Pure: the vector a point should hold, from the cached vectors of its text and context
    (an ingested atom's search vector, embedding.search_vector); None when the cache lacks one
    of them (nothing to compare then)."""
    claim = cached.get(raw_hash(text))
    if claim is None:
        return None
    if not context or weight <= 0:
        return list(claim)
    around = cached.get(raw_hash(context))
    return None if around is None else search_vector.search_vector(claim, around, weight)
