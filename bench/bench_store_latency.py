"""memory_store latency behind a deep outbox (issue 18, finding 7): one store is timed from the
call to its return (the atom then in the vector slice, read your writes), with 0 and with
5,000 events pending in the outbox while the embedded worker drains them, with the store
projecting its own event (the default) and, for comparison, waiting for the worker as before
(`service_store.DIRECT_MAX_IDS = 0` and the local model's plain lock instead of its turns, so
a single text queues behind the worker's batches again). Also counted: how many of the
stores' atoms a dense search found right after the call.

    python bench/bench_store_latency.py [--stores 20] [--pending 5000]
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from collections.abc import Iterator

from _common import embedded_service, log, md_table, ms, percentile

import pegas_memory.app.store as service_store
from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.embedding import embedders
from pegas_memory.embedding.turns import TurnLock
from pegas_memory.outbox.worker import pending_events

BULK_ATOMS = """
INSERT INTO pm_atom (type, claim, content, content_hash, confidence, status, language,
                     ts_config, source)
SELECT 'fact', 'Backlog fact ' || i || ' of run ' || %(run)s || ': the granite block ' || i
       || ' weighs ' || (i * 7) || ' kilograms', '', md5(%(run)s || ' backlog ' || i), 0.5,
       'candidate', 'en', 'english'::regconfig, 'bench'
  FROM generate_series(1, %(n)s) AS i
"""


class PlainLock:
    """The model lock as it was: no turns, whoever grabs it first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def turn(self, *, urgent: bool) -> Iterator[None]:
        with self._lock:
            yield


def _mode(direct: bool) -> None:
    service_store.DIRECT_MAX_IDS = 64 if direct else 0
    for shared in embedders._shared.values():
        shared.lock = TurnLock() if direct else PlainLock()  # type: ignore[assignment]


def _pending(service: MemoryService) -> int:
    with service.db.connection() as conn:
        return pending_events(conn)


def _row(service: MemoryService, label: str, stores: int, run: str) -> list[object]:
    before = _pending(service)
    times: list[float] = []
    found = 0
    for i in range(stores):
        claim = f"Store bench {run} fact {i}: the lake {i} freezes in November"
        started = time.monotonic()
        result = service.store(StoreRequest(claim=claim))
        times.append(time.monotonic() - started)
        hits = service.search(SearchRequest(query=claim, preset="dense", limit=5)).hits
        found += result.id in [h.id for h in hits]
    after = _pending(service)
    log(f"{label}: pending {before} -> {after}, p50 {percentile(times, 50) * 1000:.0f} ms")
    return [
        label,
        before,
        after,
        stores,
        ms(percentile(times, 50)),
        ms(percentile(times, 90)),
        ms(max(times)),
        f"{found}/{stores}",
    ]


def _deep(service: MemoryService, n: int, run: str) -> None:
    with service.db.transaction() as conn:
        conn.execute(BULK_ATOMS, {"n": n, "run": run})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=int, default=20)
    parser.add_argument("--pending", type=int, default=5000)
    args = parser.parse_args()
    rows = []
    with embedded_service(outbox_poll_seconds=0.5) as service:
        service.store(
            StoreRequest(claim="warm-up: the model and the collections open on first use")
        )
        service.runtime.start_worker_thread()
        while not service.runtime.projecting_here:
            time.sleep(0.05)
        cases = (
            ("projects its own event", 64, "direct"),
            ("waits for the worker (before)", 0, "worker"),
        )
        for how, direct, run in cases:  # an empty outbox
            _mode(direct)
            rows.append(_row(service, f"0 pending, {how}", args.stores, f"{run}-0"))
        # A deep outbox, drained by the worker meanwhile (at the local model's pace it stays
        # deep for the whole measurement: the pending columns say how deep).
        _deep(service, args.pending, "deep")
        for how, direct, run in cases:
            _mode(direct)
            label = f"{args.pending} pending, {how}"
            rows.append(_row(service, label, args.stores, f"{run}-deep"))
    print(
        md_table(
            [
                "case",
                "pending before",
                "pending after",
                "stores",
                "p50 ms",
                "p90 ms",
                "max ms",
                "found by dense right after",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
