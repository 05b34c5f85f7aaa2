"""How one store's arms become its ranking, and the ranking its head (pure composition).

`arm_weights` turns each arm's evidence weight into its share of the fusion (a preset without
`adaptive` counts every arm that found something alike; score fusion splits the text arms by
`LEXICAL_SHARE`). `fuse` combines the arms' lists by the preset's fusion: normalised scores
(`fusion.score_fusion`, which keeps how far ahead an arm's best hit is) or weighted RRF, with
document support (`fusion.document_support`: a document that answers in several sentences beats
one stray sentence). `finish` weighs the fetched rows' status, the agent's feedback and age
(`fusion.adjust`) and diversifies the head (`fusion.mmr`). No I/O: rows and vectors come from
the caller (search/hydrate.py, search/arms.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pegas_memory.search.arms import ArmResult
from pegas_memory.search.fusion import (
    FEEDBACK_PRIOR,
    Feedback,
    Fused,
    Support,
    adjust,
    document_support,
    half_lives_of,
    mmr,
    score_fusion,
    weighted_rrf,
)
from pegas_memory.search.hits import feedback_of
from pegas_memory.search.lexical import Entity
from pegas_memory.search.presets import LEXICAL_SHARE, Preset

# The stored vectors of these ids (for MMR); an empty answer skips the diversity penalty.
VectorsOf = Callable[[list[int]], Mapping[int, Sequence[float]]]


@dataclass
class Ranked:
    """The fused ranking of one entity kind, before rows are fetched."""

    entity: Entity
    fused: list[Fused]
    arms: dict[str, ArmResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Weighing:
    """What `finish` weighs beside status: the agent's feedback (a weight, 0 = off, and the
    Beta prior) and decay (profile -> half-life in days; empty: decay profiles off)."""

    feedback_weight: float = 0.0
    feedback_prior: tuple[float, float] = FEEDBACK_PRIOR
    decay_half_lives: Mapping[str, float] = field(default_factory=dict)


def arm_weights(preset: Preset, arms: Mapping[str, ArmResult]) -> dict[str, float]:
    """Each arm's weight in the fusion: its evidence weight (or 1 for any hit without
    `adaptive`); a single arm is used as is; score fusion splits the two text arms."""
    weights = {
        arm: (res.weight if preset.adaptive else (1.0 if res.hits else 0.0))
        for arm, res in arms.items()
    }
    if len(arms) == 1:  # a single arm is used as is
        weights = {arm: 1.0 for arm in arms}
    elif preset.fusion == "score":
        weights = {
            arm: w * (LEXICAL_SHARE if arm == "lexical" else 1.0 - LEXICAL_SHARE)
            for arm, w in weights.items()
        }
    return weights


def fuse(
    preset: Preset,
    arms: Mapping[str, ArmResult],
    weights: dict[str, float],
    support: Support | None = None,
) -> list[Fused]:
    lists = {a: r.hits for a, r in arms.items()}
    if preset.fusion == "rrf":
        fused = weighted_rrf(lists, weights)
        if support is None:
            return fused
        # ranks have no scale to lift within an arm: the fused scores get the support
        return document_support(
            fused, support.doc_of, share=support.share, siblings=support.siblings
        )
    # Min-max per arm: cosines sit in a narrow band far from 0, and the weakest BM25 hit of
    # the pool is as good as a miss (LoCoMo recall@10 0.725 dividing BM25 by its best, 0.734
    # min-max). Document support acts within the text arms (fusion.score_fusion).
    return score_fusion(lists, weights, minmax=("dense", "lexical"), support=support)


def finish(
    ranked: Ranked,
    rows: Mapping[int, Mapping[str, Any]],
    preset: Preset,
    *,
    limit: int,
    half_life_days: float | None,
    weighing: Weighing,
    vectors_of: VectorsOf,
    now: datetime | None = None,
) -> list[Fused]:
    """Drop what the filters excluded, weigh status, feedback and age, diversify.

    Age counts from each row's reference time: the time its claim is about when recorded
    (a perishable atom's or passage's publication date), else when it was recorded. The
    call's `half_life_days` applies to every row; without it each row's decay profile gives
    its half-life (`weighing.decay_half_lives`), timeless rows none. `vectors_of` is asked
    only when MMR has more candidates than `limit`."""
    fused = [f for f in ranked.fused if f.id in rows]
    weigh_feedback = preset.status and ranked.entity != "trace" and weighing.feedback_weight > 0
    feedback: dict[int, Feedback] = {}
    if weigh_feedback:
        feedback = {i: fb for i, r in rows.items() if (fb := feedback_of(r)) is not None}
    reference = {i: r.get("about_at") or r["created_at"] for i, r in rows.items()}
    half_life_of = (
        {}
        if half_life_days
        else half_lives_of(
            {i: r["decay"] for i, r in rows.items() if r.get("decay")},
            weighing.decay_half_lives,
        )
    )
    if preset.status and ranked.entity == "atom":
        fused = adjust(
            fused,
            status={i: r["status"] for i, r in rows.items()},
            created_at=reference,
            half_life_days=half_life_days,
            unsourced={i for i, r in rows.items() if r.get("unsourced")},
            feedback=feedback,
            feedback_weight=weighing.feedback_weight,
            feedback_prior=weighing.feedback_prior,
            half_life_of=half_life_of,
            now=now,
        )
    elif half_life_days or half_life_of or feedback:
        fused = adjust(
            fused,
            status={},
            created_at=reference,
            half_life_days=half_life_days,
            feedback=feedback,
            feedback_weight=weighing.feedback_weight,
            feedback_prior=weighing.feedback_prior,
            half_life_of=half_life_of,
            now=now,
        )
    if preset.mmr and len(fused) > limit:
        pool = fused[: max(limit * 3, 20)]
        fused = mmr(pool, vectors_of([f.id for f in pool]), k=limit)
    return fused[:limit]
