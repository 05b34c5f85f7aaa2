"""The stretch between the dedup embedding and the neighbour checks (issue 17): GeoTopo's ingest
went 10.7 s without a report there. The claim signatures now report on the clock (and claims
memoises its per-token antonym scan, 80% of a signature); the within-batch comparison picks its
candidates with numpy instead of a Python loop over every kept item, with the same decisions;
the neighbour checks announce their start.

Reports are counted on the test's terms (progress.REPORT_SECONDS set to 0: every look at the
clock is a report), never timed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pegas_memory.progress as progress
from pegas_memory.app.requests import IngestRequest
from pegas_memory.ingest.claims import ClaimSignature, claim_signature, differences
from pegas_memory.ingest.dedup import Conflict, DedupDecision, decide, guarded_batch
from pegas_memory.ingest.pipeline import SIGNATURES_CHECK_EVERY
from tests.conftest import offline_memory
from tests.example_facts import GEOGRAPHY


def _reference(
    vectors: np.ndarray, signatures: list[ClaimSignature] | None, threshold: float
) -> list[DedupDecision]:
    """The within-batch rule as it was written before, a loop over every kept item."""
    raw = vectors.astype(np.float32)  # as dedup computes it
    m = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    sims = m @ m.T
    out: list[DedupDecision] = []
    kept: list[int] = []
    for i in range(len(m)):
        match, conflicts = None, []
        for j in kept:
            score = float(sims[i, j])
            if score < threshold:
                continue
            reasons = differences(signatures[j], signatures[i]) if signatures else ()
            if reasons:
                conflicts.append(Conflict(reasons, score, batch_index=j))
                continue
            match = j
            break
        # the cosine with the item it repeats (recorded with the merge, pm_merge)
        score = float(min(1.0, sims[i, match])) if match is not None else 0.0
        out.append(DedupDecision(batch_index=match, score=score, conflicts=tuple(conflicts)))
        if match is None:
            kept.append(i)
    return out


def test_within_batch_decisions_are_those_of_the_loop_over_kept_items() -> None:
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(12, 32))
    vectors = centres[rng.integers(0, 12, size=300)] + 0.08 * rng.normal(size=(300, 32))
    # Claims that differ in their year within a cluster: conflicts, not merges, for some pairs.
    texts = [f"The bridge opened in {1900 + (i % 3)} after a long delay." for i in range(300)]
    signatures = [claim_signature(t) for t in texts]
    got = guarded_batch(vectors.tolist(), signatures, 0.9)
    assert got == _reference(vectors, signatures, 0.9)
    assert any(d.conflicts for d in got) and any(d.batch_index is not None for d in got)
    assert guarded_batch(vectors.tolist(), None, 0.9) == _reference(vectors, None, 0.9)


def test_the_neighbour_checks_announce_their_start() -> None:
    reports: list[tuple[int, int]] = []
    vectors = [[1.0, float(i)] for i in range(5)]
    decide(
        vectors,
        index=None,
        collection=None,
        threshold=0.999,
        report=lambda k, n: reports.append((k, n)),
        clock=lambda: 0.0,  # never due: only the opening report
    )
    assert reports == [(0, 5)]


def test_the_claim_signatures_report_between_embedding_and_the_checks(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "REPORT_SECONDS", 0.0)  # every look at the clock reports
    messages: list[str] = []
    with offline_memory(database_url, tmp_path / "data", embedded_worker="off") as service:
        service.ingest(
            IngestRequest(source="\n\n".join(GEOGRAPHY), kind="text", title="Facts"),
            progress=lambda d, t, m: messages.append(m),
        )
    claims = [m for m in messages if m.startswith("reading the atoms' claims")]
    embedded = [m for m in messages if m.startswith("embedding atoms for deduplication")]
    total = int(embedded[-1].split(" of ")[1])
    assert total > 2 * SIGNATURES_CHECK_EVERY, embedded
    assert claims == [
        f"reading the atoms' claims for the claim guard: {k} of {total}"
        for k in range(SIGNATURES_CHECK_EVERY, total, SIGNATURES_CHECK_EVERY)
    ]
    checks = f"checking atoms against the stored ones: 0 of {total}"
    order = [messages.index(embedded[-1]), messages.index(claims[0]), messages.index(checks)]
    assert order == sorted(order)
