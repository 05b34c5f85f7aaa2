"""Decay profiles, pure: the default profile of each kind of memory, the half-life arithmetic,
and `fusion.adjust` applying each hit's own half-life (or the call's) from its reference time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pegas_memory.config import load_settings
from pegas_memory.search.fusion import (
    DECAY_PROFILES,
    Fused,
    adjust,
    decay_factor,
    default_decay,
    half_lives_of,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("atom_type", "source_kind", "expected"),
    [
        ("definition", "web", "timeless"),  # a definition in a news page does not age
        ("logical_rule", None, "timeless"),  # nor does a rule the agent stored
        ("code", "pdf", "timeless"),
        ("table", "web", "timeless"),
        ("fact", "web", "perishable"),
        ("text", "web", "perishable"),
        (None, "web", "perishable"),  # a web page's passages
        ("fact", None, "conversational"),  # a memory_store note without a source
        ("text", None, "conversational"),
        ("fact", "trace", "conversational"),  # an episodic trace, whatever its kind
        ("definition", "trace", "conversational"),
        ("fact", "pdf", "timeless"),  # other documents: the configured default
        ("fact", "epub", "timeless"),
        (None, "text", "timeless"),
        ("fact", "agent", "timeless"),  # a note citing a named, non-web source
        ("fact", "code", "timeless"),  # a note resting on a code symbol
    ],
)
def test_default_profile_by_type_and_source(
    atom_type: str | None, source_kind: str | None, expected: str
) -> None:
    assert default_decay(atom_type, source_kind) == expected


def test_default_for_other_documents_is_a_setting() -> None:
    assert default_decay("fact", "pdf", document_default="perishable") == "perishable"
    # the setting never overrides what the type or the source decides
    assert default_decay("definition", "pdf", document_default="perishable") == "timeless"
    assert default_decay("fact", None, document_default="perishable") == "conversational"
    assert default_decay("fact", "web", document_default="conversational") == "perishable"


def test_half_life_arithmetic() -> None:
    assert decay_factor(0, 30) == 1.0
    assert decay_factor(30, 30) == pytest.approx(0.5)
    assert decay_factor(90, 30) == pytest.approx(0.125)
    assert decay_factor(-5, 30) == 1.0  # a time in the future does not lift a score
    assert decay_factor(10_000, None) == 1.0  # timeless
    assert decay_factor(10_000, 0) == 1.0


def test_settings_switch_profiles_on_and_off() -> None:
    off = load_settings(decay_ranking=False)
    assert off.decay_half_lives == {}
    on = load_settings(decay_ranking=True, decay_conversational_days=7, decay_perishable_days=90)
    assert on.decay_half_lives == {"conversational": 7, "perishable": 90}
    assert "timeless" not in on.decay_half_lives
    assert set(on.decay_half_lives) < set(DECAY_PROFILES)


def test_each_hit_ages_by_its_own_profile_from_its_reference_time() -> None:
    profiles = {1: "conversational", 2: "timeless", 3: "perishable", 4: "conversational"}
    half = half_lives_of(profiles, {"conversational": 30, "perishable": 365})
    assert half == {1: 30, 3: 365, 4: 30}
    old = NOW - timedelta(days=60)
    out = adjust(
        [Fused(1, 1.0), Fused(2, 1.0), Fused(3, 1.0), Fused(4, 0.9)],
        status={},
        created_at={1: old, 2: old, 3: old, 4: NOW},
        half_life_of=half,
        now=NOW,
    )
    score = {f.id: f.score for f in out}
    assert score[1] == pytest.approx(0.25)  # two half-lives
    assert score[2] == pytest.approx(1.0)  # timeless: as old, not decayed
    assert score[3] == pytest.approx(0.5 ** (60 / 365))
    assert score[4] == pytest.approx(0.9)  # fresh
    assert [f.id for f in out] == [2, 4, 3, 1]


def test_the_calls_half_life_overrides_every_profile() -> None:
    old = NOW - timedelta(days=10)
    out = adjust(
        [Fused(1, 1.0), Fused(2, 1.0)],
        status={},
        created_at={1: old, 2: old},
        half_life_days=10,
        half_life_of={1: 1000.0},  # ignored for this call; 2 (timeless) decays too
        now=NOW,
    )
    assert [f.score for f in out] == [pytest.approx(0.5), pytest.approx(0.5)]


def test_no_profile_policy_changes_nothing() -> None:
    old = NOW - timedelta(days=400)
    fused = [Fused(1, 1.0), Fused(2, 0.5)]
    out = adjust(fused, status={}, created_at={1: old, 2: NOW}, half_life_of={}, now=NOW)
    assert out == fused
