"""Pure ranking logic: fusion, evidence weights, status/recency adjustment, MMR."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pegas_memory.search.fusion import (
    ArmHit,
    Fused,
    adjust,
    dense_weight,
    lexical_weight,
    mmr,
    score_fusion,
    weighted_rrf,
)


def hits(*pairs: tuple[int, float]) -> list[ArmHit]:
    return [ArmHit(i, s) for i, s in pairs]


def test_weighted_rrf_adds_rank_contributions() -> None:
    fused = weighted_rrf(
        {"a": hits((1, 9), (2, 8)), "b": hits((2, 0.9), (3, 0.5))}, {"a": 1.0, "b": 1.0}, k=60
    )
    assert [f.id for f in fused] == [2, 1, 3]
    assert fused[0].ranks == {"a": 2, "b": 1}
    silenced = weighted_rrf({"a": hits((1, 9)), "b": hits((3, 1))}, {"a": 1.0, "b": 0.0})
    assert [f.id for f in silenced] == [1]


def test_score_fusion_keeps_margins() -> None:
    # arm a: 1 far ahead of 2; arm b: 2 barely ahead of 1 -> 1 wins on margin
    fused = score_fusion(
        {"a": hits((1, 10.0), (2, 1.0), (4, 0.5)), "b": hits((2, 0.81), (1, 0.80), (4, 0.1))},
        {"a": 0.5, "b": 0.5},
        minmax=("a", "b"),
    )
    assert fused[0].id == 1


def test_evidence_weights() -> None:
    assert lexical_weight(0.0) == pytest.approx(0.1) and lexical_weight(1.0) == 1.0
    assert lexical_weight(0.05) < lexical_weight(0.2) < lexical_weight(0.35)
    assert dense_weight(0.1) < dense_weight(0.35) < dense_weight(0.9) == 1.0


def test_adjust_status_and_recency() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    fused = [Fused(1, 1.0), Fused(2, 0.9), Fused(3, 0.8)]
    out = adjust(fused, status={1: "stale", 2: "candidate", 3: "verified"}, now=now)
    assert [f.id for f in out] == [3, 2, 1]
    aged = adjust(
        [Fused(1, 1.0), Fused(2, 0.9)],
        status={},
        created_at={1: now - timedelta(days=30), 2: now},
        half_life_days=10,
        now=now,
    )
    assert [f.id for f in aged] == [2, 1] and abs(aged[1].score - 0.125) < 1e-9


def test_mmr_diversifies() -> None:
    cands = [Fused(1, 1.0), Fused(2, 0.99), Fused(3, 0.8)]
    vectors = {1: [1.0, 0.0], 2: [1.0, 0.01], 3: [0.0, 1.0]}
    assert [f.id for f in mmr(cands, vectors, k=2, lambda_=0.5)] == [1, 3]
    assert [f.id for f in mmr(cands, {}, k=2)] == [1, 2]  # no vectors: fused order


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.floats(0, 10)),
        min_size=1,
        max_size=20,
        unique_by=lambda t: t[0],
    ),
    st.lists(st.tuples(st.integers(1, 30), st.floats(0, 1)), max_size=20, unique_by=lambda t: t[0]),
)
def test_fusions_are_permutations_of_the_union(
    a: list[tuple[int, float]], b: list[tuple[int, float]]
) -> None:
    arms = {"a": hits(*a), "b": hits(*b)}
    union = {i for i, _ in a} | {i for i, _ in b}
    for fused in (
        weighted_rrf(arms, {"a": 1.0, "b": 0.5}),
        score_fusion(arms, {"a": 0.5, "b": 0.5}, minmax=("a", "b")),
    ):
        assert {f.id for f in fused} == union and len(fused) == len(union)
        assert all(x.score >= y.score for x, y in itertools.pairwise(fused))
        picked = mmr(fused, {}, k=5)
        assert picked == fused[:5]
