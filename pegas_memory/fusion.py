"""Pure ranking logic: weighted Reciprocal Rank Fusion, status and recency adjustment, MMR.

No I/O here: every function takes ranked lists or scored candidates and returns new ones, so each
can be tested and tuned on its own (the arms that produce the lists live in search.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np

RRF_K = 60

# Multipliers of the fused score by status: verified knowledge first, disputed and outdated last.
STATUS_WEIGHT: Mapping[str, float] = {
    "verified": 1.25,
    "candidate": 1.0,
    "contested": 0.45,
    "stale": 0.25,
}


@dataclass(frozen=True)
class ArmHit:
    id: int
    score: float  # the arm's own score (cosine, BM25, propagated), for explanation only


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    ranks: Mapping[str, int] = field(default_factory=dict)  # arm -> 1-based rank


def weighted_rrf(
    arms: Mapping[str, Sequence[ArmHit]], weights: Mapping[str, float], *, k: int = RRF_K
) -> list[Fused]:
    """score(d) = sum over arms of weight / (k + rank of d in that arm)."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for arm, hits in arms.items():
        w = weights.get(arm, 0.0)
        if w <= 0:
            continue
        for rank, hit in enumerate(hits, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + w / (k + rank)
            ranks.setdefault(hit.id, {})[arm] = rank
    fused = [Fused(i, s, ranks[i]) for i, s in scores.items()]
    fused.sort(key=lambda f: (-f.score, f.id))
    return fused


def lexical_weight(coverage: float, base: float = 1.0, floor: float = 0.05) -> float:
    """Weight of the lexical arm from how much of the query it could match at all.

    coverage is the idf mass of the query terms the best lexical hit contains over the idf mass of
    all query terms: near 0 when the arm is blind (an English question over Russian text), 1
    when its best hit contains every term. Squared, so a half-blind arm counts for a quarter.
    """
    c = min(1.0, max(0.0, coverage))
    return base * max(floor, c * c)


def dense_weight(top_score: float, base: float = 1.0, low: float = 0.2, high: float = 0.5) -> float:
    """Weight of the dense arm from its best cosine: below `low` it has found nothing."""
    if top_score <= low:
        return base * 0.1
    if top_score >= high:
        return base
    return base * (0.1 + 0.9 * (top_score - low) / (high - low))


def adjust(
    fused: Sequence[Fused],
    *,
    status: Mapping[int, str],
    created_at: Mapping[int, datetime] | None = None,
    half_life_days: float | None = None,
    status_weights: Mapping[str, float] = STATUS_WEIGHT,
    now: datetime | None = None,
) -> list[Fused]:
    """Apply status multipliers and optional exponential recency decay; re-sort."""
    now = now or datetime.now(UTC)
    out = []
    for f in fused:
        score = f.score * status_weights.get(status.get(f.id, "candidate"), 1.0)
        if half_life_days and created_at and f.id in created_at:
            age = max(0.0, (now - created_at[f.id]).total_seconds() / 86400.0)
            score *= math.exp(-math.log(2) * age / half_life_days)
        out.append(replace(f, score=score))
    out.sort(key=lambda f: (-f.score, f.id))
    return out


def mmr(
    candidates: Sequence[Fused],
    vectors: Mapping[int, Sequence[float]],
    *,
    k: int,
    lambda_: float = 0.75,
) -> list[Fused]:
    """Maximal Marginal Relevance: trade relevance (the fused score, rescaled to 0..1) against
    similarity to what was already picked. Candidates without a vector are never penalised."""
    if len(candidates) <= 1 or not vectors:
        return list(candidates[:k])
    top = max(c.score for c in candidates) or 1.0
    rel = {c.id: c.score / top for c in candidates}
    mat = {i: np.asarray(v, dtype=np.float32) for i, v in vectors.items()}
    for i, v in mat.items():
        n = float(np.linalg.norm(v))
        if n > 0:
            mat[i] = v / n
    picked: list[Fused] = []
    rest = list(candidates)
    while rest and len(picked) < k:
        best, best_val = 0, -math.inf
        for idx, c in enumerate(rest):
            sim = 0.0
            if c.id in mat and picked:
                sims = [float(mat[c.id] @ mat[p.id]) for p in picked if p.id in mat]
                sim = max(sims) if sims else 0.0
            val = lambda_ * rel[c.id] - (1 - lambda_) * sim
            if val > best_val:
                best, best_val = idx, val
        picked.append(rest.pop(best))
    return picked
