"""Progress of the dedup stage when embedding is slow (issue 17): calls are sized by the measured
time per atom, so a report comes about every `EMBED_TARGET_SECONDS` however slow the model is,
and the neighbour searches report on a clock too.

The sizing is checked on a clock the test drives (no timed assertions); the wiring through the
real pipeline with an embedder that is slow per text, over loopback HTTP (the fake Ollama), on the
real engines. What is asserted is the structure of the reports (atoms per call), which a slower
machine can only make finer.
"""

from __future__ import annotations

import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest

import pegas_memory.ingest.dedup as dedup
from pegas_memory.app.requests import IngestRequest
from pegas_memory.ingest.dedup import (
    decide,
    embed_in_timed_batches,
    heartbeat,
    next_batch_size,
)
from tests.conftest import offline_memory
from tests.example_facts import GEOGRAPHY
from tests.fake_ollama import hashed_embedding


class Clock:
    """Time that moves only when the test's embedder says its work took time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_slow_items_give_small_calls_and_a_report_per_target() -> None:
    clock = Clock()
    per_item = 1.5  # seconds per text: a loaded CPU model

    def embed(batch: list[str]) -> list[list[float]]:
        clock.now += per_item * len(batch)
        return [[1.0, 0.0]] * len(batch)

    reports: list[tuple[float, int]] = []
    vectors = embed_in_timed_batches(
        embed, ["t"] * 20, lambda k, n: reports.append((clock.now, k)), target=4.0, clock=clock
    )
    assert len(vectors) == 20 and reports[0] == (0.0, 0) and reports[-1][1] == 20
    calls = [b - a for (_, a), (_, b) in pairwise(reports)]
    # The first call has 2 texts (nothing measured yet), then as many as fit in 4 s: 2.
    assert calls == [2] * 10, calls
    gaps = [b - a for (a, _), (b, _) in pairwise(reports)]
    assert max(gaps) == 3.0


def test_fast_items_grow_the_calls_up_to_the_cap() -> None:
    clock = Clock()

    def embed(batch: list[str]) -> list[list[float]]:
        clock.now += 0.01 * len(batch)
        return [[1.0]] * len(batch)

    reports: list[int] = []
    embed_in_timed_batches(embed, ["t"] * 300, lambda k, n: reports.append(k), clock=clock)
    calls = [b - a for a, b in pairwise(reports)]
    assert calls[:6] == [2, 4, 8, 16, 32, 64] and max(calls) == dedup.EMBED_MAX_BATCH
    assert sum(calls) == 300


def test_one_item_slower_than_the_target_is_a_call_of_its_own() -> None:
    assert next_batch_size(8, 80.0, target=4.0) == 1
    assert next_batch_size(1, 0.0) == 2  # nothing measurable: grow, never more than double
    assert next_batch_size(4, 1.0, target=4.0, high=10) == 8
    assert next_batch_size(40, 1.0, target=4.0, high=64) == 64


def test_a_call_that_runs_long_is_reported_while_it_runs() -> None:
    # The embedder blocks until the heartbeat has reported it twice: no timing is asserted,
    # only that a call in progress is reported (from the heartbeat's thread) while it runs.
    beats = threading.Semaphore(0)
    reports: list[tuple[int, int, str]] = []

    def report(done: int, total: int, note: str = "") -> None:
        reports.append((done, total, note))
        if note:
            beats.release()

    def embed(batch: list[str]) -> list[list[float]]:
        assert beats.acquire(timeout=120) and beats.acquire(timeout=120)
        return [[1.0]] * len(batch)

    vectors = embed_in_timed_batches(embed, ["a", "b", "c"], report, first=2, beat_every=0.05)
    assert len(vectors) == 3
    notes = [r for r in reports if r[2]]
    assert len(notes) >= 4  # two per call, each blocked until reported twice
    assert {r[:2] for r in notes} == {(0, 3), (2, 3)}
    assert all(r[2].startswith(" (a call of ") and "running for" in r[2] for r in notes)
    assert [r for r in reports if not r[2]] == [(0, 3, ""), (2, 3, ""), (3, 3, "")]


def test_a_beat_that_raises_is_dropped_and_the_heartbeat_goes_on() -> None:
    calls: list[float] = []
    second = threading.Event()

    def beat(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) == 1:
            raise RuntimeError("job 1 was cancelled on request")  # the stage's report raises it
        second.set()

    with heartbeat(0.01, beat):
        assert second.wait(120), "the heartbeat died with the first beat's exception"
    assert len(calls) >= 2


def test_the_neighbour_checks_report_on_the_clock() -> None:
    clock = Clock()
    reports: list[int] = []

    def ticking() -> float:
        clock.now += 1.0  # every look at the clock is a second later
        return clock.now

    vectors = [[1.0, float(i)] for i in range(10)]
    decisions, _ = decide(
        vectors,
        index=None,
        collection=None,
        threshold=0.999,
        report=lambda k, n: reports.append(k),
        every=3.0,
        clock=ticking,
    )
    assert len(decisions) == 10
    # The opening report (0) says the within-batch comparison is over; then on the clock.
    assert reports[0] == 0 and reports == sorted(reports) and all(0 < k < 10 for k in reports[1:])
    assert len(reports) > 1
    silent, _ = decide(vectors, index=None, collection=None, threshold=0.999)
    assert [d.batch_index for d in silent] == [d.batch_index for d in decisions]


def test_a_slow_embedder_over_http_gets_small_calls_and_many_reports(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0.3 s per text and a 0.5 s target: every dedup call holds at most 2 atoms (a slower run only
    # makes the calls smaller); the fixed 16 per call before would have been one call.
    monkeypatch.setattr(dedup, "EMBED_TARGET_SECONDS", 0.5)

    def slow(texts: list[str], model: str) -> list[list[float]]:
        time.sleep(0.3 * len(texts))
        return [hashed_embedding(t, 64) for t in texts]

    messages: list[str] = []
    with offline_memory(database_url, tmp_path / "data", embed=slow, embedded_worker="off") as svc:
        result = svc.ingest(
            IngestRequest(source="\n\n".join(GEOGRAPHY[:10]), kind="text", title="Facts"),
            progress=lambda d, t, m: messages.append(m),
        )
    embedded = [
        m
        for m in messages
        if m.startswith("embedding atoms for deduplication") and "running for" not in m
    ]
    done = [int(m.split(": ")[1].split(" of ")[0]) for m in embedded]
    total = int(embedded[-1].split(" of ")[1])
    assert result.atoms_new >= 8 and total >= 8, (result, embedded)
    assert done[0] == 0 and done[-1] == total
    calls = [b - a for a, b in pairwise(done)]
    assert calls and all(1 <= c <= 2 for c in calls), calls
    assert len(embedded) >= total // 2 + 1
