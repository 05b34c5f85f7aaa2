"""Fault tests of the outbox worker against real engines while a writer keeps producing events.

- SIGKILL: a worker subprocess is killed at random points of an event stream (mid-batch, after
  projecting and before committing, or at any moment), many times, while a writer thread keeps
  committing atoms, links, status changes and deletes. After the last restart and a drain,
  nothing is lost (every event processed, none parked) and nothing is orphaned (reconcile finds
  no drift between Postgres and the slices).
- Slice outages: the graph engine (embedded FalkorDB, a separate redis-server process) is stopped
  with `stop_embedded_graph` and kept from restarting for a while (a directory where its log file
  goes makes redis-server refuse to start, as a real misconfiguration or full disk would); the
  vector engine (qdrant-edge) runs inside the process, so its outage is the index being closed
  under the running worker (every operation then raises BackendUnavailable) until
  `runtime.vectors.reset()` reopens it from disk. During either outage Postgres writes keep
  succeeding; afterwards the backlog drains and drift is zero.

The small versions run by default; the 10k-event stream with 20 kills and the long outages are
marked slow. Each test prints what it survived (kills, outage seconds) for the hardening report.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.db.repo import AtomInput, add_link, insert_atom, set_status
from pegas_memory.errors import BackendUnavailable
from pegas_memory.memgraph_store.falkor import graph_server_paths, stop_embedded_graph
from pegas_memory.outbox.reconcile import reconcile
from pegas_memory.outbox.worker import UNAVAILABLE_RETRY_SECONDS
from tests.conftest import fake_model_settings
from tests.fake_ollama import FakeOllama

WORDS = ("river", "lake", "glacier", "delta", "canyon", "marsh", "basin", "spring", "fjord")


@pytest.fixture
def fsettings(database_url: str, tmp_path: Path, fake_ollama: FakeOllama) -> Iterator[Settings]:
    settings = fake_model_settings(
        database_url,
        tmp_path / "data",
        fake_ollama,
        outbox_batch_size=100,
        outbox_poll_seconds=0.5,
    )
    yield settings
    # A killed worker never releases the shared graph server: stop it whatever happened.
    stop_embedded_graph(settings.data_dir)


def outbox_counts(db: Database) -> dict[str, int]:
    with db.connection() as conn:
        row = conn.execute(
            """SELECT count(*) AS total,
                      count(*) FILTER (WHERE processed_at IS NULL AND parked_at IS NULL) AS pending,
                      count(*) FILTER (WHERE parked_at IS NOT NULL) AS parked
                 FROM pm_outbox"""
        ).fetchone()
    assert row is not None
    return {k: int(v) for k, v in row.items()}


class Writer(threading.Thread):
    """Commits a mixed stream (inserts, links, status changes, deletes) until `target` outbox
    events exist or it is stopped; every transaction must succeed."""

    def __init__(self, db: Database, target: int, *, pause: float = 0.02, seed: int = 0):
        super().__init__(name="writer", daemon=True)
        self.db = db
        self.target = target
        self.pause = pause
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.commits = 0
        self.errors: list[str] = []
        self.live: list[int] = []

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            try:
                with self.db.transaction() as conn:
                    fresh = []
                    for _ in range(4):
                        n += 1
                        words = " ".join(self.rng.sample(WORDS, 3))
                        atom_id, _ = insert_atom(
                            conn, AtomInput(type="fact", claim=f"Observation {n}: the {words}")
                        )
                        fresh.append(atom_id)
                    pool = self.live[-50:] + fresh
                    for _ in range(2):
                        src, dst = self.rng.sample(pool, 2)
                        add_link(conn, src, dst, self.rng.choice(("reference", "cause")))
                    if self.live:
                        status = self.rng.choice(("verified", "stale", "contested"))
                        set_status(
                            conn,
                            self.rng.choice(self.live),
                            status,
                            reason="fault test",
                            check_name="fault_test",
                        )
                        doomed = self.live.pop(self.rng.randrange(len(self.live)))
                        conn.execute("DELETE FROM pm_atom WHERE id = %s", (doomed,))
                    self.live += fresh
                    total = conn.execute("SELECT max(id) AS m FROM pm_outbox").fetchone()
                self.commits += 1
                if total is not None and (total["m"] or 0) >= self.target:
                    return
            except Exception as exc:  # the test asserts there are none
                self.errors.append(f"{type(exc).__name__}: {exc}")
            time.sleep(self.pause)


WORKER_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    from pegas_memory.config import load_settings
    from pegas_memory.db.pool import Database
    from pegas_memory.app.runtime import ProjectionRuntime
    settings = load_settings(data_dir=sys.argv[1], database_url=sys.argv[2],
                             ollama_url=sys.argv[3], embedding_dim=64, outbox_batch_size=100,
                             outbox_poll_seconds=0.5)
    db = Database(settings).open()
    from pegas_memory.outbox.worker import OutboxWorker
    class Announcing(OutboxWorker):
        def _record(self, *args, **kwargs):
            super()._record(*args, **kwargs)
            print("batch", flush=True)  # projected, not yet committed
    runtime = ProjectionRuntime(settings, db)
    worker = Announcing(settings, db, runtime.projector, name="victim")
    print("ready", flush=True)
    worker.run(threading.Event())
    """
)


@dataclass
class KillReport:
    kills: int = 0
    mid_batch: int = 0
    anytime: int = 0


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line.strip())
        out.put("")

    threading.Thread(target=pump, daemon=True).start()
    return out


def _wait_for(lines: queue.Queue[str], word: str, count: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    seen = 0
    while seen < count:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if line == "":
            return False  # the worker exited
        seen += line == word
    return True


def kill_workers(settings: Settings, kills: int, rng: random.Random) -> KillReport:
    """Start a worker subprocess and SIGKILL it, `kills` times, at random points."""
    report = KillReport()
    argv = [
        sys.executable,
        "-c",
        WORKER_SCRIPT,
        str(settings.data_dir),
        settings.database_url or "",
        settings.ollama_url or "",
    ]
    for _ in range(kills):
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env={**os.environ})
        try:
            lines = _lines(proc)
            assert _wait_for(lines, "ready", 1, 120), "the worker did not start"
            if rng.random() < 0.5:
                # Right after a batch was projected into both slices, before its commit.
                _wait_for(lines, "batch", rng.randint(1, 4), 30)
                report.mid_batch += 1
            else:
                time.sleep(rng.uniform(0.05, 1.5))
                report.anytime += 1
            assert proc.poll() is None, "the worker died on its own"
            proc.send_signal(signal.SIGKILL)
            report.kills += 1
        finally:
            proc.kill()
            proc.wait(30)
    return report


def drain_and_check(settings: Settings, db: Database, min_events: int) -> dict[str, int]:
    rt = ProjectionRuntime(settings, db)
    try:
        deadline = time.monotonic() + 600
        while outbox_counts(db)["pending"] and time.monotonic() < deadline:
            rt.worker("final").drain(include_delayed=True, timeout=300)
        counts = outbox_counts(db)
        assert counts["total"] >= min_events
        assert counts["pending"] == 0 and counts["parked"] == 0, counts
        drift = reconcile(rt)
        assert drift.drift == 0, drift.summary()
        return counts
    finally:
        rt.close()


def run_kill_stream(settings: Settings, events: int, kills: int, seed: int) -> None:
    db = Database(settings).open()
    try:
        writer = Writer(db, events, seed=seed)
        writer.start()
        report = kill_workers(settings, kills, random.Random(seed))
        writer.join(300)
        assert not writer.is_alive(), "the writer did not reach its target"
        assert writer.errors == []
        counts = drain_and_check(settings, db, events)
        print(
            f"\nSIGKILL stream: {counts['total']} events, {report.kills} kills survived "
            f"({report.mid_batch} after projecting before commit, {report.anytime} at random "
            f"moments), {writer.commits} writer commits, 0 lost, 0 parked, drift 0"
        )
    finally:
        db.close()


def test_worker_sigkilled_during_stream(fsettings: Settings) -> None:
    run_kill_stream(fsettings, events=400, kills=3, seed=7)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_worker_sigkilled_twenty_times_during_10k_stream(fsettings: Settings) -> None:
    run_kill_stream(fsettings, events=10_000, kills=20, seed=20)


# ---------------------------------------------------------------------- slice outages
def wait_drained(db: Database, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while outbox_counts(db)["pending"] and time.monotonic() < deadline:
        time.sleep(0.25)
    assert outbox_counts(db)["pending"] == 0, "the backlog did not drain after the outage"


def stop_slice(rt: ProjectionRuntime, settings: Settings, slice_name: str) -> None:
    if slice_name == "graph":
        log_path = graph_server_paths(settings.data_dir).log
        stop_embedded_graph(settings.data_dir)
        log_path.unlink(missing_ok=True)
        log_path.mkdir()  # redis-server now refuses to start: the engine stays down
    else:
        rt.vectors.get().close()  # the in-process engine stops under the worker


def assert_down(rt: ProjectionRuntime, slice_name: str) -> None:
    """The engine really is down, for readers as for the worker."""
    with pytest.raises(BackendUnavailable):
        if slice_name == "graph":
            rt.graph.get().node_counts()
        else:
            rt.vectors.get().count(rt.projector.collection("atom"))


def restart_slice(rt: ProjectionRuntime, settings: Settings, slice_name: str) -> None:
    if slice_name == "graph":
        graph_server_paths(settings.data_dir).log.rmdir()  # the next use restarts the server
    else:
        rt.vectors.reset()  # the next use reopens the engine from disk


def run_outages(settings: Settings, outages: list[tuple[str, float]]) -> None:
    """Stop each slice in turn for its seconds while the writer and the embedded worker run."""
    db = Database(settings).open()
    rt = ProjectionRuntime(settings, db)
    writer = Writer(db, 10**9, pause=0.05)
    try:
        rt.graph.get()  # both engines are up and in use before the outages
        rt.projector.collection("atom")
        rt.start_worker_thread()
        writer.start()
        for slice_name, seconds in outages:
            time.sleep(1.0)
            before = writer.commits
            stop_slice(rt, settings, slice_name)
            started = time.monotonic()
            time.sleep(seconds)
            assert_down(rt, slice_name)
            pending = outbox_counts(db)["pending"]
            restart_slice(rt, settings, slice_name)
            outage = time.monotonic() - started
            written = writer.commits - before
            assert writer.errors == [] and written > 0, "Postgres writes must go on meanwhile"
            assert pending > 0, "the outage should have left a backlog"
            print(
                f"\n{slice_name} slice outage: {outage:.1f} s survived, {written} transactions "
                f"committed meanwhile, backlog of {pending} events"
            )
        writer.stop.set()
        writer.join(30)
        wait_drained(db, 120)
        rt.stop_worker_thread()
        counts = outbox_counts(db)
        assert counts["parked"] == 0, counts
        drift = reconcile(rt)
        assert drift.drift == 0, drift.summary()
        print(f"after the outages: {counts['total']} events, backlog drained, drift 0")
    finally:
        writer.stop.set()
        rt.close()
        db.close()


def test_slice_outages_then_backlog_drains(fsettings: Settings) -> None:
    run_outages(fsettings, [("graph", 2.0), ("vector", 2.0)])


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("slice_name", ["graph", "vector"])
def test_long_slice_outage_then_backlog_drains(fsettings: Settings, slice_name: str) -> None:
    # Long enough for the worker to find the slice down, wait and retry twice over.
    run_outages(fsettings, [(slice_name, 2.5 * UNAVAILABLE_RETRY_SECONDS)])
