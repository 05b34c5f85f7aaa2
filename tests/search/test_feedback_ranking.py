"""The agent's feedback in ranking (pure): the Beta posterior of its counts, the multiplier it
gives a score, and `fusion.adjust` with it. At weight 0 ranking is exactly as without feedback."""

from __future__ import annotations

import pytest

from pegas_memory.search.fusion import (
    Feedback,
    Fused,
    adjust,
    feedback_multiplier,
    feedback_posterior,
)


def test_the_posterior_is_the_beta_mean_of_helped_against_misled() -> None:
    assert feedback_posterior(0, 0) == 0.5  # the default prior (1, 1): nothing known
    assert feedback_posterior(3, 1) == pytest.approx(4 / 6)
    assert feedback_posterior(0, 3) == pytest.approx(1 / 5)
    assert feedback_posterior(3, 1, prior=(2.0, 8.0)) == pytest.approx(5 / 14)


def test_uses_without_a_verdict_do_not_move_the_posterior() -> None:
    assert Feedback(used=7).confidence() == Feedback().confidence() == 0.5
    assert Feedback(helped=2, used=9).confidence() == Feedback(helped=2).confidence()


def test_a_prior_without_mass_or_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        feedback_posterior(1, 0, prior=(0.0, 1.0))
    with pytest.raises(ValueError):
        feedback_posterior(-1, 0)


@pytest.mark.parametrize("posterior", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_weight_zero_is_the_identity(posterior: float) -> None:
    assert feedback_multiplier(posterior, 0.0) == 1.0
    assert feedback_multiplier(posterior, 0.0, prior=(1.0, 9.0)) == 1.0


def test_the_multiplier_grows_with_the_posterior_from_one_minus_w_to_one_plus_w() -> None:
    values = [feedback_multiplier(p / 10, 0.3) for p in range(11)]
    assert values == sorted(values) and len(set(values)) == 11
    assert values[0] == pytest.approx(0.7) and values[-1] == pytest.approx(1.3)
    assert feedback_multiplier(0.5, 0.3) == pytest.approx(1.0)


@pytest.mark.parametrize("prior", [(1.0, 1.0), (2.0, 5.0), (9.0, 1.0)])
def test_an_item_nobody_reported_on_keeps_its_score_at_any_weight(
    prior: tuple[float, float],
) -> None:
    unrated = Feedback().confidence(prior)
    for weight in (0.1, 0.5, 1.0):
        assert feedback_multiplier(unrated, weight, prior) == pytest.approx(1.0)


def test_a_weight_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError):
        feedback_multiplier(0.5, 1.5)


# Three atoms of the same relevance, and one a little ahead of them.
FUSED = [Fused(4, 0.9), Fused(1, 0.5), Fused(2, 0.5), Fused(3, 0.5)]
STATUS = {1: "candidate", 2: "candidate", 3: "verified", 4: "candidate"}
REPORTS = {1: Feedback(misled=3), 2: Feedback(helped=4, used=1), 4: Feedback(misled=1)}


def test_at_weight_zero_feedback_leaves_scores_and_order_exactly_as_without() -> None:
    without = adjust(FUSED, status=STATUS)
    with_reports = adjust(FUSED, status=STATUS, feedback=REPORTS, feedback_weight=0.0)
    assert with_reports == without  # same ids, same scores to the last bit


def test_with_weight_a_helped_atom_passes_an_equal_one() -> None:
    equal = [Fused(1, 0.5), Fused(2, 0.5)]
    before = adjust(equal, status={})
    assert [f.id for f in before] == [1, 2]  # the tie keeps id order
    after = adjust(equal, status={}, feedback={2: Feedback(helped=1)}, feedback_weight=0.3)
    assert [f.id for f in after] == [2, 1]
    assert after[1].score == before[0].score  # the unrated one is untouched


def test_an_atom_reported_misleading_three_times_falls_below_an_equal_one() -> None:
    equal = [Fused(1, 0.5), Fused(2, 0.5)]
    reports: dict[int, Feedback] = {}
    order = []
    for misled in range(4):
        reports[1] = Feedback(misled=misled)
        ranked = adjust(equal, status={}, feedback=reports, feedback_weight=0.3)
        order.append([f.id for f in ranked])
    # with no report the tie keeps id order; one report is enough to drop it
    assert order == [[1, 2], [2, 1], [2, 1], [2, 1]]


def test_feedback_weighs_with_status_not_instead_of_it() -> None:
    ranked = adjust(FUSED, status=STATUS, feedback=REPORTS, feedback_weight=0.3)
    scores = {f.id: f.score for f in ranked}
    assert scores[3] == pytest.approx(0.5 * 1.25)  # verified, unrated: status only
    assert scores[2] == pytest.approx(0.5 * (0.7 + 0.6 * 5 / 6))
    assert scores[1] == pytest.approx(0.5 * (0.7 + 0.6 * 1 / 5))
    assert [f.id for f in ranked] == [4, 3, 2, 1]
