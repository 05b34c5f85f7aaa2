"""Semantic deduplication by embedding cosine.

Exact duplicates are caught by the content-hash unique key in Postgres; this module catches the
near ones: a new atom whose vector is within the dedup threshold of an existing atom (or of an
earlier atom of the same batch) is not stored again: the caller adds its citation to the one it
repeats, unless the two claim different things (ingest.claims: another number, date, negation,
entity, quantifier, antonym or defined term): then both are kept and the decision lists the
conflict, so the pipeline can supersede or contest (ingest.versions). A claim on its own also
repeats a joined atom one of whose sentences says it (vectors of the joined claim's sentences,
`parts`; signatures' `parts`, ingest.claims.matching_part): "The Danube flows through ten
countries ..." elsewhere is cited by the atom that says it and "It is Europe's second-longest
river." (never the other way round: a joined claim merged into one of its sentences would lose
the rest). Thresholds belong to an
embedding space: a model whose cosines are compressed (all text looks alike) needs a higher one
than the configured default, so the embedder may say its own.

Embedding the new atoms is the slow part of the stage on the embedded default (the local model on
CPU): `embed_in_timed_batches` sizes each call by the time the last one took per atom, so a call
lasts about `EMBED_TARGET_SECONDS` and the stage reports progress at that pace however loaded the
machine is; `decide` reports its neighbour searches every `DECIDE_REPORT_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from pegas_memory.errors import BackendUnavailable
from pegas_memory.ingest.claims import ClaimSignature, differences
from pegas_memory.qdrant_store.index import VectorHit, VectorIndex

# Calibrated thresholds for local models whose similarity scale differs from EmbeddingGemma's
# (docs/decisions/0002-dedup-threshold.md). Keys are model ids.
MODEL_THRESHOLDS: dict[str, float] = {
    "local/multilingual-e5-small-q4": 0.955,
}


def threshold_for(model_id: str, default: float) -> float:
    return MODEL_THRESHOLDS.get(model_id, default)


# How many stored neighbours above the threshold are looked at: the nearest may be a different
# claim (another year) while the second is the same one.
NEIGHBOURS = 5


# Embedding calls are sized so that one takes about this long: a fixed 64 atoms per call went 91 s
# without a report on a loaded 2-core machine, and a fixed 16 still 40 s (GeoTopo through
# memory_ingest, bench/user_path_jobs.py); an unloaded machine embeds 64 in well under that.
EMBED_TARGET_SECONDS = 4.0
EMBED_FIRST_BATCH = 2  # nothing measured yet: start small, the next call is sized by this one
EMBED_MAX_BATCH = 64
# A batch grows at most this much per call (one fast call on a cold cache is no promise).
EMBED_GROWTH = 2
DECIDE_REPORT_SECONDS = 2.0
# A call still running after this long is reported as running, and again each time this long
# passes: sizing cannot foresee a load spike (a call sized for 4 s took 28 s, GeoTopo on a machine
# at load 13).
EMBED_HEARTBEAT_SECONDS = 4.0

log = logging.getLogger(__name__)

Clock = Callable[[], float]


def next_batch_size(
    size: int,
    seconds: float,
    *,
    target: float = EMBED_TARGET_SECONDS,
    high: int = EMBED_MAX_BATCH,
) -> int:
    """How many items the next call should take, after `size` items took `seconds` (pure):
    as many as fit in `target` at the measured time per item, at least one, at most `high`,
    and at most `EMBED_GROWTH` times this call's size."""
    grown = max(1, size) * EMBED_GROWTH
    if seconds <= 0:
        return max(1, min(high, grown))
    fits = int(target * max(1, size) / seconds)
    return max(1, min(high, grown, fits))


@contextmanager
def heartbeat(every: float, beat: Callable[[float], None]) -> Iterator[None]:
    """While the block runs, `beat(seconds running)` from a thread of its own every `every`
    seconds. Best effort: what a beat raises (a cancelled job's check) is logged and dropped, the
    stage's own next report raises it in the stage's thread."""
    stop = threading.Event()
    began = time.monotonic()

    def run() -> None:
        while not stop.wait(every):
            try:
                beat(time.monotonic() - began)
            except Exception as exc:  # the stage's own next report raises it again
                log.debug("progress heartbeat dropped: %s", exc)

    thread = threading.Thread(target=run, name="pm-progress-beat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def embed_in_timed_batches(
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    texts: Sequence[str],
    report: Callable[..., None],
    *,
    target: float | None = None,
    first: int = EMBED_FIRST_BATCH,
    high: int = EMBED_MAX_BATCH,
    clock: Clock = time.monotonic,
    beat_every: float | None = None,
) -> list[list[float]]:
    """Vectors for `texts` in order, embedded in calls sized by `next_batch_size`; `report(done,
    total)` before the first call and after each one, so reports come about every `target`
    seconds (`EMBED_TARGET_SECONDS` unless given; or per item, when one item takes longer).
    A call that runs past `beat_every` seconds (`EMBED_HEARTBEAT_SECONDS`) is reported as
    running, `report(done, total, note)`, from a heartbeat thread, each time that passes."""
    target = EMBED_TARGET_SECONDS if target is None else target
    every = EMBED_HEARTBEAT_SECONDS if beat_every is None else beat_every
    vectors: list[list[float]] = []
    total = len(texts)
    report(0, total)
    size = max(1, min(first, high))
    start = 0
    while start < total:
        batch = texts[start : start + size]
        began = clock()

        def beat(seconds: float, done: int = start, n: int = len(batch)) -> None:
            report(done, total, f" (a call of {n} running for {seconds:.0f} s)")

        with heartbeat(every, beat):
            vectors += [list(v) for v in embed(batch)]
        size = next_batch_size(len(batch), clock() - began, target=target, high=high)
        start += len(batch)
        report(start, total)
    return vectors


@dataclass(frozen=True)
class Conflict:
    """A near-duplicate (cosine at or above the threshold) that claims something else."""

    reasons: tuple[str, ...]
    score: float
    existing_id: int | None = None
    batch_index: int | None = None


@dataclass(frozen=True)
class DedupDecision:
    """For one new item: the existing atom it repeats, or the earlier batch item, or neither;
    and the near-duplicates it was not merged with because they claim something else."""

    existing_id: int | None = None
    batch_index: int | None = None
    score: float = 0.0
    conflicts: tuple[Conflict, ...] = ()

    @property
    def duplicate(self) -> bool:
        return self.existing_id is not None or self.batch_index is not None


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    raw = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return raw / np.where(norms == 0, 1.0, norms)  # type: ignore[no-any-return]


def within_batch(vectors: Sequence[Sequence[float]], threshold: float) -> list[int | None]:
    """For each vector, the index of an earlier vector at cosine >= threshold, else None."""
    return [d.batch_index for d in guarded_batch(vectors, None, threshold)]


Vectors = Sequence[Sequence[float]]


def part_match(
    vector: Sequence[float],
    signature: ClaimSignature,
    theirs: ClaimSignature,
    part_vectors: Vectors,
    threshold: float,
) -> float | None:
    """Pure: the cosine of `vector` with the sentence of a joined claim (`theirs`, its sentences'
    vectors `part_vectors`) that says the same as `signature` (ingest.claims.matching_part), when
    at or above the threshold; else None."""
    if not theirs.parts or len(part_vectors) != len(theirs.parts) or signature.parts:
        return None
    scores = (_unit_rows(part_vectors) @ _unit_rows([vector])[0]).tolist()
    for k in sorted(range(len(scores)), key=lambda k: -scores[k]):
        if scores[k] < threshold:
            return None
        if not differences(theirs.parts[k], signature):
            return min(1.0, float(scores[k]))
    return None


def guarded_batch(
    vectors: Sequence[Sequence[float]],
    signatures: Sequence[ClaimSignature] | None,
    threshold: float,
    parts: Sequence[Vectors] | None = None,
) -> list[DedupDecision]:
    """Within one batch: each item's earlier kept item at cosine >= threshold that claims the
    same (`signatures`; None: similarity alone, the behaviour before the claim guard), or a
    joined earlier item one of whose sentences (their vectors: `parts`) says the same."""
    if not vectors:
        return []
    m = _unit_rows(vectors)
    sims = m @ m.T
    out: list[DedupDecision] = []
    kept = np.zeros(len(m), dtype=bool)
    for i in range(len(m)):
        match: int | None = None
        conflicts: list[Conflict] = []
        # The earlier kept items at or above the threshold, ascending, picked by numpy: a loop
        # over every kept item is n**2/2 Python steps (12 million for a book of 5,000 atoms).
        for j in np.flatnonzero((sims[i, :i] >= threshold) & kept[:i]).tolist():
            score = float(sims[i, j])
            reasons = differences(signatures[j], signatures[i]) if signatures else ()
            if reasons:
                conflicts.append(Conflict(reasons, score, batch_index=j))
                continue
            match = j
            break
        if match is None and signatures and parts:
            match = next(
                (
                    j
                    for j in np.flatnonzero(kept[:i]).tolist()
                    if signatures[j].parts
                    and part_match(vectors[i], signatures[i], signatures[j], parts[j], threshold)
                ),
                None,
            )
            conflicts = [c for c in conflicts if c.batch_index != match]
        score = float(min(1.0, sims[i, match])) if match is not None else 0.0
        out.append(DedupDecision(batch_index=match, score=score, conflicts=tuple(conflicts)))
        if match is None:
            kept[i] = True
    return out


# With the stored atoms' claim vectors at hand (`decide(claim_vectors=...)`), this many nearest
# points of the slice are candidates, re-scored by their claim vectors: the slice ranks by search
# vectors (claim + context, embedding.search_vector), so the nearest claim may come a little later.
CANDIDATES = 2 * NEIGHBOURS
CANDIDATE_BLOCK = 256  # items whose candidates are re-scored with one read of claim vectors


def rescored(
    vector: Sequence[float],
    hits: Sequence[VectorHit],
    claims: Mapping[int, Sequence[float]],
) -> list[VectorHit]:
    """Pure: the hits scored by the cosine of `vector` with each one's claim vector, best first,
    within [-1, 1] (a hit without one, erased meanwhile, is left out)."""
    have = [h for h in hits if h.id in claims]
    if not have:
        return []
    mine = _unit_rows([vector])[0]
    theirs = _unit_rows([claims[h.id] for h in have])
    scores = (theirs @ mine).tolist()
    # float32 rounding can put a cosine a hair past 1: scores become confidences downstream
    out = [replace(h, score=min(1.0, max(-1.0, sc))) for h, sc in zip(have, scores, strict=True)]
    return sorted(out, key=lambda h: -h.score)


def decide(
    vectors: Sequence[Sequence[float]],
    *,
    index: VectorIndex | None,
    collection: str | None,
    threshold: float,
    signatures: Sequence[ClaimSignature] | None = None,
    stored: Callable[[Sequence[int]], Mapping[int, ClaimSignature]] | None = None,
    claim_vectors: Callable[[Sequence[int]], Mapping[int, Sequence[float]]] | None = None,
    parts: Sequence[Vectors] | None = None,
    part_vectors: Callable[[Sequence[int]], Mapping[int, Vectors]] | None = None,
    blocked: Collection[tuple[int, int]] = (),
    report: Callable[[int, int], None] | None = None,
    every: float = DECIDE_REPORT_SECONDS,
    clock: Clock = time.monotonic,
) -> tuple[list[DedupDecision], str | None]:
    """Dedup decisions for a batch; the note says when existing atoms could not be checked.

    With `signatures` (one per vector) and `stored` (signatures of existing atoms by id), a
    near-duplicate counts only when it claims the same (ingest.claims); the others become
    `conflicts`. Without them, similarity alone decides (the previous behaviour).
    With `claim_vectors` (stored atoms' claim vectors by id), the slice's `CANDIDATES` nearest
    points are re-scored with them, so the threshold compares claim with claim even where the
    slice holds search vectors; without it, the slice's own scores decide.
    `parts` (the vectors of each item's claim sentences, empty for a claim of one sentence) and
    `part_vectors` (the same of stored atoms by id) let a claim on its own repeat a joined one
    that says it (module docstring).
    `blocked` holds (item index, stored atom id) pairs never merged: a merge of that claim into
    that atom was split by the user (pm_merge_block, curation.merges).
    `report(done, total)`, when given, is called once `every` seconds have passed since the last
    report, between two items (one search per item over the engine host can add up to minutes
    for a book on a loaded machine)."""
    batch = guarded_batch(vectors, signatures, threshold, parts)
    decisions: list[DedupDecision] = []
    note = None
    if report is not None:
        report(0, len(vectors))  # the within-batch comparison is over: the searches begin
    last = clock()
    k = CANDIDATES if claim_vectors else NEIGHBOURS if signatures else 1
    for block in range(0, len(vectors), CANDIDATE_BLOCK):
        found: list[list[VectorHit] | None] = []
        for i in range(block, min(len(vectors), block + CANDIDATE_BLOCK)):
            if report is not None and clock() - last >= every:
                report(i, len(vectors))
                last = clock()
            if batch[i].duplicate or index is None or collection is None:
                found.append(None)
                continue
            try:
                found.append(index.search(collection, vectors[i], k=k))
            except BackendUnavailable as exc:
                note = f"semantic dedup against stored atoms skipped: {exc}"
                index = None
                found.append(None)
        claims: Mapping[int, Sequence[float]] = {}
        if claim_vectors is not None:
            ids = sorted({h.id for hits in found if hits for h in hits})
            claims = claim_vectors(ids) if ids else {}
        for offset, hits in enumerate(found):
            i = block + offset
            if hits is None:
                decisions.append(batch[i])
                continue
            if claim_vectors is not None:
                hits = rescored(vectors[i], hits, claims)
            if blocked:
                hits = [h for h in hits if (i, h.id) not in blocked]
            decision = _against_stored(i, hits, batch[i], threshold, signatures, stored)
            if not decision.duplicate and signatures and stored and part_vectors:
                decision = _against_joined(vectors[i], hits, decision, threshold, signatures[i],
                                           stored, part_vectors)  # fmt: skip
            decisions.append(decision)
    return decisions, note


def _against_joined(
    vector: Sequence[float],
    hits: Sequence[VectorHit],
    earlier: DedupDecision,
    threshold: float,
    signature: ClaimSignature,
    stored: Callable[[Sequence[int]], Mapping[int, ClaimSignature]],
    part_vectors: Callable[[Sequence[int]], Mapping[int, Vectors]],
) -> DedupDecision:
    """An item that repeats no whole stored claim, against the joined ones among its stored
    candidates: the first one a sentence of which says what it says (`part_match`)."""
    if signature.parts or not hits:
        return earlier
    known = stored([h.id for h in hits])
    joined = [h.id for h in hits if h.id in known and known[h.id].parts]
    if not joined:
        return earlier
    vectors = part_vectors(joined)
    for atom_id in joined:
        score = part_match(vector, signature, known[atom_id], vectors.get(atom_id, ()), threshold)
        if score is not None:  # what the whole joined claim said otherwise is no conflict
            rest = tuple(c for c in earlier.conflicts if c.existing_id != atom_id)
            return replace(earlier, existing_id=atom_id, score=score, conflicts=rest)
    return earlier


def _against_stored(
    i: int,
    hits: Sequence[VectorHit],
    earlier: DedupDecision,
    threshold: float,
    signatures: Sequence[ClaimSignature] | None,
    stored: Callable[[Sequence[int]], Mapping[int, ClaimSignature]] | None,
) -> DedupDecision:
    """Item `i`'s decision from its stored neighbours (best first): the first at or above the
    threshold that claims the same, the others kept as conflicts."""
    near = [h for h in hits if h.score >= threshold]
    known = stored([h.id for h in near]) if (signatures and stored and near) else {}
    conflicts = list(earlier.conflicts)
    match = None
    for hit in near:
        if signatures and stored:
            theirs = known.get(hit.id)
            if theirs is None:  # erased meanwhile: no evidence either way
                continue
            reasons = differences(theirs, signatures[i])
            if reasons:
                conflicts.append(Conflict(reasons, hit.score, existing_id=hit.id))
                continue
        match = hit
        break
    return DedupDecision(
        existing_id=match.id if match else None,
        score=match.score if match else 0.0,
        conflicts=tuple(conflicts),
    )
