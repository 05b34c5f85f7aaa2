"""Pure ranking logic: weighted Reciprocal Rank Fusion, document support, status, feedback and
recency adjustment (decay profiles), MMR.

No I/O here: every function takes ranked lists or scored candidates and returns new ones, so each
can be tested and tuned on its own (the arms that produce the lists live in search/arms.py).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np

from pegas_memory.models import AtomStatus, AtomType, DecayProfile, DocumentKind

RRF_K = 60

# Multipliers of the fused score by status: verified knowledge first, disputed and outdated last.
# An atom stored with no provenance ranks below a sourced one of the same relevance.
UNSOURCED_WEIGHT = 0.8
STATUS_WEIGHT: Mapping[str, float] = {
    AtomStatus.VERIFIED: 1.25,
    AtomStatus.CANDIDATE: 1.0,
    AtomStatus.CONTESTED: 0.45,
    AtomStatus.STALE: 0.25,
}


# The Beta prior of feedback (pseudo-counts of helped, misled): with nothing reported an atom's
# feedback confidence is the prior mean, 0.5.
FEEDBACK_PRIOR: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class Feedback:
    """What the agent reported about one atom or passage (memory_feedback): how many times it
    helped, misled, or was used without a verdict."""

    helped: int = 0
    misled: int = 0
    used: int = 0

    def confidence(self, prior: tuple[float, float] = FEEDBACK_PRIOR) -> float:
        return feedback_posterior(self.helped, self.misled, prior)


def feedback_posterior(
    helped: int, misled: int, prior: tuple[float, float] = FEEDBACK_PRIOR
) -> float:
    """The mean of the Beta posterior of "this helps": (helped + a) / (helped + misled + a + b).

    `used` reports (no verdict) do not move it."""
    a, b = prior
    if a <= 0 or b <= 0 or helped < 0 or misled < 0:
        raise ValueError("the prior's pseudo-counts must be positive and the counts not negative")
    return (helped + a) / (helped + misled + a + b)


def feedback_multiplier(
    posterior: float, weight: float, prior: tuple[float, float] = FEEDBACK_PRIOR
) -> float:
    """The factor feedback applies to a score: (1 - w) + w * posterior / prior mean.

    Monotone in the posterior; exactly 1 with w = 0 (ranking untouched) and for an atom nobody
    reported on (its posterior is the prior mean), whatever the weight, so unrated atoms,
    passages and traces keep their relative order. With the default prior (1, 1) this is
    (1 - w) + 2 w posterior: from 1 - w (misled every time) to 1 + w (helped every time)."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the feedback weight must be within [0, 1], got {weight}")
    if weight == 0.0:
        return 1.0
    a, b = prior
    return (1.0 - weight) + weight * posterior * (a + b) / a


# How a kind of memory ages (`models.DecayProfile`, migrations/0015_decay_profiles.sql): timeless
# knowledge does not decay; perishable knowledge (news, web pages) ages from the time it is about
# (its publication date), conversational memory (the agent's notes and traces) from when it was
# said.
DECAY_PROFILES: tuple[DecayProfile, ...] = tuple(DecayProfile)
# Atom types that state what does not age with the news: a definition, a rule, code, a table.
TIMELESS_TYPES: frozenset[str] = frozenset(
    {AtomType.DEFINITION, AtomType.LOGICAL_RULE, AtomType.CODE, AtomType.TABLE}
)


def default_decay(
    atom_type: str | None,
    source_kind: str | None,
    *,
    document_default: DecayProfile = DecayProfile.TIMELESS,
) -> DecayProfile:
    """The profile a memory gets when nobody chose one, from its atom type and the kind of its
    source: `source_kind` is a document kind (web, pdf, epub, text, agent, code), "code" for an
    atom resting on a code symbol, "trace" for an episodic trace, None for a memory_store note
    without any source. Passages have no atom type (None).

    definition / logical_rule / code / table -> timeless; a trace or a note without a source ->
    conversational; anything from a web page -> perishable; other documents -> `document_default`
    (PEGAS_DECAY_DOCUMENT_DEFAULT, timeless unless configured).
    """
    if source_kind == "trace":
        return DecayProfile.CONVERSATIONAL
    if atom_type in TIMELESS_TYPES or source_kind == "code":
        return DecayProfile.TIMELESS
    if source_kind is None:
        return DecayProfile.CONVERSATIONAL
    if source_kind == DocumentKind.WEB:
        return DecayProfile.PERISHABLE
    return DecayProfile(document_default)


def decay_factor(age_days: float, half_life_days: float | None) -> float:
    """The multiplier of a score `age_days` old under a half-life: 1 at age 0 (or in the
    future), 0.5 after one half-life; 1 without a half-life (timeless)."""
    if not half_life_days or half_life_days <= 0:
        return 1.0
    return math.exp(-math.log(2) * max(0.0, age_days) / half_life_days)


def half_lives_of(profiles: Mapping[int, str], policy: Mapping[str, float]) -> dict[int, float]:
    """Each id's half-life in days under `policy` (profile -> days); ids whose profile has
    none (timeless, or decay off: an empty policy) are left out."""
    return {i: policy[p] for i, p in profiles.items() if policy.get(p)}


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


@dataclass(frozen=True)
class Support:
    """Document support inside score fusion (`document_support` on each listed arm's normalised
    scores): the candidates' documents, the share and how many siblings count."""

    doc_of: Mapping[int, int]
    share: float
    siblings: int = 2
    arms: Collection[str] = ("dense", "lexical")


def score_fusion(
    arms: Mapping[str, Sequence[ArmHit]],
    weights: Mapping[str, float],
    *,
    minmax: Collection[str] = (),
    support: Support | None = None,
) -> list[Fused]:
    """Convex combination of the arms' normalised scores: sum over arms of weight x norm(score).

    Ranks throw away how far apart the hits are; scores keep it, so a hit that one arm finds far
    ahead of the rest keeps its lead. Each arm's scores are brought to 0..1 within its own list:
    divided by the best score for arms whose score has a natural zero (BM25, propagated graph
    scores), or min-max scaled for arms in `minmax` (cosines, which live in a narrow band well
    above zero for any text). A hit an arm did not return gets 0 from it.

    With `support`, each of its arms' normalised scores get document support (an ingested
    atom's sibling hits of its document in that arm lend it part of theirs) and are brought back
    to 0..1 (min-max), so the arm weights keep their meaning. Within an arm, because each arm
    is where a document's sentences match the query in its own way (its words, its meaning):
    measured better than support over the fused scores (bench/results/ingest-retrieval.md).
    """
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for arm, hits in arms.items():
        w = weights.get(arm, 0.0)
        if w <= 0 or not hits:
            continue
        normed = _normalised(hits, arm in minmax)
        if support is not None and arm in support.arms and support.share > 0:
            lifted = document_support(
                normed, support.doc_of, share=support.share, siblings=support.siblings
            )
            normed = _normalised([ArmHit(f.id, f.score) for f in lifted], True)
        for rank, f in enumerate(normed, start=1):
            scores[f.id] = scores.get(f.id, 0.0) + w * f.score
            ranks.setdefault(f.id, {})[arm] = rank
    fused = [Fused(i, s, ranks[i]) for i, s in scores.items()]
    fused.sort(key=lambda f: (-f.score, f.id))
    return fused


def _normalised(hits: Sequence[ArmHit], minmax: bool) -> list[Fused]:
    """An arm's scores in 0..1 within its list, in its order: min-max, or over the best."""
    values = [h.score for h in hits]
    hi = max(values)
    lo = min(values) if minmax else 0.0
    span = hi - lo
    return [Fused(h.id, (h.score - lo) / span if span > 0 else 1.0) for h in hits]


def document_support(
    fused: Sequence[Fused],
    doc_of: Mapping[int, int],
    *,
    share: float,
    siblings: int = 2,
) -> list[Fused]:
    """Each atom's score plus `share` times the scores of its best `siblings` other candidates
    distilled from the same document; re-sorted.

    Why: an ingested document becomes many atoms, each one sentence of it, while a passage an
    agent stored whole is one atom. A query about what a paper found matches several of its
    sentences a little (its aim, its method, its result), and the stored passage sums all of
    that in one score; ranked one sentence at a time, the paper loses to a passage that matches
    one of its words. An atom whose sibling sentences also answer the query is better evidence
    than an isolated sentence of an unrelated text that happens to score the same, so the
    document's other matches lend it part of their score. Only the best `siblings` count, so a
    long document cannot win by volume. Atoms without a document (`doc_of` has no entry:
    memory_store atoms, traces) are left as they are: a corpus of stored atoms ranks exactly as
    without this. The result is still atoms with their own scores' order within a document.
    """
    if share <= 0 or not doc_of:
        return list(fused)
    by_doc: dict[int, list[float]] = {}
    for f in fused:
        doc = doc_of.get(f.id)
        if doc is not None:
            by_doc.setdefault(doc, []).append(f.score)
    for scores in by_doc.values():
        scores.sort(reverse=True)
        del scores[siblings + 1 :]
    out: list[Fused] = []
    for f in fused:
        doc = doc_of.get(f.id)
        if doc is None:
            out.append(f)
            continue
        top = list(by_doc[doc])
        if f.score in top:
            top.remove(f.score)  # the atom itself: only its siblings support it
        support = sum(top[:siblings])
        out.append(replace(f, score=f.score + share * support) if support else f)
    out.sort(key=lambda f: (-f.score, f.id))
    return out


def lexical_weight(
    coverage: float, base: float = 1.0, low: float = 0.1, high: float = 0.3, floor: float = 0.1
) -> float:
    """Weight of the lexical arm from how much of the query it could match at all.

    coverage is the idf mass of the query terms the best lexical hit contains over the idf mass of
    all query terms: near 0 when the arm is blind (an English question over Russian text, where
    only names and numbers match: 90% of XQuAD's English questions over Russian paragraphs stay
    under 0.12), higher when its best hit shares the query's words. Below `low` the arm keeps a
    tenth of its weight (`floor`, as a dense arm that found nothing does): enough for a name it
    matched across scripts to break a tie among the dense arm's hits (XQuAD en->ru 0.908 with a
    floor of 0.02, 0.909 with 0.1; chosen on that set), too little to drag a good arm down. Above
    `high` it is fully trusted, linear in between. A squared coverage, used before, also turned
    the arm down on ordinary paraphrased questions, whose best hit holds a third of their words
    (70% of LoCoMo's questions cover under 0.3).
    """
    c = min(1.0, max(0.0, coverage))
    return base * max(floor, min(1.0, (c - low) / (high - low)))


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
    unsourced: Collection[int] = (),
    feedback: Mapping[int, Feedback] | None = None,
    feedback_weight: float = 0.0,
    feedback_prior: tuple[float, float] = FEEDBACK_PRIOR,
    half_life_of: Mapping[int, float] | None = None,
) -> list[Fused]:
    """Apply status multipliers, the unsourced weight, the feedback multiplier
    (`feedback_multiplier` of each reported item's posterior; none at weight 0) and exponential
    decay; re-sort.

    `created_at` is the time each hit ages from (its reference time: for a perishable atom the
    time its claim is about, else when it was recorded). `half_life_days` applies one half-life
    to every hit (memory_search's argument); without it, `half_life_of` gives each hit its
    profile's half-life (`half_lives_of`), and a hit it leaves out does not decay."""
    now = now or datetime.now(UTC)
    out = []
    for f in fused:
        score = f.score * status_weights.get(status.get(f.id, AtomStatus.CANDIDATE), 1.0)
        if f.id in unsourced:
            score *= UNSOURCED_WEIGHT
        if feedback_weight > 0 and feedback and f.id in feedback:
            posterior = feedback[f.id].confidence(feedback_prior)
            score *= feedback_multiplier(posterior, feedback_weight, feedback_prior)
        half_life = half_life_days or (half_life_of or {}).get(f.id)
        if half_life and created_at and f.id in created_at:
            age = (now - created_at[f.id]).total_seconds() / 86400.0
            score *= decay_factor(age, half_life)
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
    similarity to what was already picked. Candidates without a vector are never penalised.

    The similarity matrix is computed once and the running maximum similarity to the picked set
    is updated per pick, so choosing k of n costs O(k * n) after one n x n product (a pool of
    300 picks 100 in milliseconds)."""
    if len(candidates) <= 1 or not vectors:
        return list(candidates[:k])
    top = max(c.score for c in candidates) or 1.0
    rel = np.asarray([c.score / top for c in candidates], dtype=np.float64)
    dim = len(next(iter(vectors.values())))
    has = np.asarray([c.id in vectors for c in candidates])
    mat = np.zeros((len(candidates), dim), dtype=np.float64)
    for row, c in enumerate(candidates):
        if c.id in vectors:
            mat[row] = np.asarray(vectors[c.id], dtype=np.float64)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    mat /= norms
    sims = mat @ mat.T
    # Max similarity to the picked set; -inf until a picked candidate has a vector (penalty 0).
    max_sim = np.full(len(candidates), -np.inf)
    free = np.ones(len(candidates), dtype=bool)
    picked: list[Fused] = []
    while free.any() and len(picked) < k:
        penalty = np.where(has & np.isfinite(max_sim), max_sim, 0.0)
        value = np.where(free, lambda_ * rel - (1 - lambda_) * penalty, -np.inf)
        best = int(np.argmax(value))  # the first maximum: ties keep the fused order
        picked.append(candidates[best])
        free[best] = False
        if has[best]:
            max_sim = np.maximum(max_sim, sims[best])
    return picked
