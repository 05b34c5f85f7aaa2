"""The outbox worker against real engines: embedded Postgres, Qdrant's engine (qdrant-edge),
FalkorDB, and an Ollama speaking HTTP on loopback for embeddings."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.db.repo import AtomInput, add_link, insert_atom
from pegas_memory.errors import BackendUnavailable
from pegas_memory.outbox.projection import Projector
from pegas_memory.outbox.reconcile import reconcile
from pegas_memory.qdrant_store.client import ClientVectorIndex
from pegas_memory.qdrant_store.index import VectorIndex, VectorPoint
from tests.conftest import fake_model_settings, projection_runtime
from tests.fake_ollama import FakeOllama


@pytest.fixture
def psettings(database_url: str, tmp_path: Path, fake_ollama: FakeOllama) -> Settings:
    return fake_model_settings(database_url, tmp_path / "data", fake_ollama, outbox_max_attempts=3)


@pytest.fixture
def runtime(psettings: Settings) -> Iterator[ProjectionRuntime]:
    with projection_runtime(psettings) as rt:
        yield rt


def seed(db: Database, n: int, *, links: bool = True) -> list[int]:
    ids = []
    with db.transaction() as conn:
        for i in range(n):
            atom_id, _ = insert_atom(
                conn, AtomInput(type="fact", claim=f"Fact number {i} about rivers and lakes")
            )
            ids.append(atom_id)
        if links:
            for a, b in itertools.pairwise(ids):
                add_link(conn, a, b, "reference")
    return ids


def assert_converged(rt: ProjectionRuntime) -> None:
    report = reconcile(rt)
    assert report.drift == 0, report


def test_worker_projects_inserts_updates_and_deletes(runtime: ProjectionRuntime) -> None:
    ids = seed(runtime.db, 5)
    report = runtime.worker().drain()
    assert report.processed == 9 and report.parked == 0
    assert_converged(runtime)
    with runtime.db.transaction() as conn:
        conn.execute("UPDATE pm_atom SET status = 'verified' WHERE id = %s", (ids[0],))
        conn.execute("DELETE FROM pm_atom WHERE id = %s", (ids[1],))  # cascades two links
    runtime.worker().drain()
    assert_converged(runtime)
    graph = runtime.graph.get()
    assert graph.node_counts().get("Atom") == 4
    index = runtime.vectors.get()
    name = runtime.projector.collection("atom")
    assert index.count(name) == 4
    (record,) = index.retrieve(name, [ids[0]])
    assert record.payload["status"] == "verified"


def test_slice_unavailable_then_recovers(runtime: ProjectionRuntime) -> None:
    real_graph = runtime.projector._graph
    down = True

    def flaky_graph() -> Any:
        if down:
            raise BackendUnavailable("graph slice: engine stopped for the test")
        return real_graph()

    runtime.projector._graph = flaky_graph
    seed(runtime.db, 4)
    report = runtime.worker().drain()
    assert report.processed == 0 and report.parked == 0 and report.retried == 7
    with runtime.db.transaction() as conn:
        rows = conn.execute("SELECT attempts, applied FROM pm_outbox").fetchall()
    # outages do not use up attempts; the vector slice was reached already
    assert all(r["attempts"] == 0 for r in rows)
    assert all(r["applied"] == ["vector"] for r in rows if r["applied"])
    seed(runtime.db, 2, links=False)  # writes to Postgres keep succeeding meanwhile
    down = False
    runtime.worker().drain(include_delayed=True)
    assert_converged(runtime)


def parked_and_done(db: Database) -> tuple[list[dict[str, Any]], int]:
    """The parked outbox events (entity_id, attempts, applied, last_error) and how many events
    were processed."""
    with db.transaction() as conn:
        parked = conn.execute(
            "SELECT entity_id, attempts, applied, last_error FROM pm_outbox "
            "WHERE parked_at IS NOT NULL"
        ).fetchall()
        done = conn.execute(
            "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NOT NULL"
        ).fetchone()
    assert done is not None
    return [dict(r) for r in parked], int(done["n"])


def test_poison_event_is_parked_while_others_pass(runtime: ProjectionRuntime) -> None:
    ids = seed(runtime.db, 6, links=False)
    poison = ids[3]
    real_apply = Projector.apply

    def apply(self: Projector, target: Any, entity_type: str, rows: Any) -> None:
        if any(int(r["id"]) == poison for r in rows.present):
            raise ValueError("cannot project this atom")
        real_apply(self, target, entity_type, rows)

    runtime.projector.apply = apply.__get__(runtime.projector)  # type: ignore[method-assign]
    for _ in range(4):
        runtime.worker().drain(include_delayed=True)
    parked, done = parked_and_done(runtime.db)
    assert [r["entity_id"] for r in parked] == [poison]
    assert parked[0]["attempts"] == 3 and "cannot project" in parked[0]["last_error"]
    assert done == 5


class PoisonPayload:
    """A real vector index behind one that gives one atom a payload no engine can store (a
    value that is not JSON): the engine itself rejects that point, our checks let it through."""

    def __init__(self, inner: VectorIndex, poison: int) -> None:
        self._inner = inner
        self._poison = poison

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def upsert(self, name: str, points: Any) -> None:
        self._inner.upsert(
            name,
            [
                VectorPoint(p.id, p.vector, {**p.payload, "note": object()})
                if p.id == self._poison
                else p
                for p in points
            ],
        )


@pytest.mark.parametrize("backend", ["edge", "client"])
def test_a_point_the_engine_rejects_is_parked_on_every_back_end(
    runtime: ProjectionRuntime, backend: str
) -> None:
    """A rejection counts attempts and parks, it is no outage: before, the embedded engine
    reported it as unavailable and the event was retried for ever."""
    inner = runtime.vectors.get() if backend == "edge" else ClientVectorIndex.local()
    ids = seed(runtime.db, 6, links=False)
    poison = ids[2]
    wrapped = PoisonPayload(inner, poison)
    runtime.projector._vectors = lambda: wrapped  # type: ignore[assignment,return-value]
    try:
        for _ in range(4):
            runtime.worker().drain(include_delayed=True)
        parked, done = parked_and_done(runtime.db)
        assert [r["entity_id"] for r in parked] == [poison]
        assert parked[0]["attempts"] == 3 and parked[0]["applied"] == ["graph"]
        assert "rejected the request to upsert points" in parked[0]["last_error"]
        assert done == 5
        name = runtime.projector.collection("atom")
        assert sorted(inner.iter_ids(name)) == sorted(set(ids) - {poison})
    finally:
        if backend == "client":
            inner.close()


def test_two_workers_at_once_lose_and_double_nothing(runtime: ProjectionRuntime) -> None:
    seed(runtime.db, 120)
    applied: dict[tuple[str, int], int] = {}
    lock = threading.Lock()
    real_apply = Projector.apply

    def counting(self: Projector, target: Any, entity_type: str, rows: Any) -> None:
        real_apply(self, target, entity_type, rows)
        with lock:
            for r in rows.present:
                key = (f"{entity_type}:{target}", int(r["id"]))
                applied[key] = applied.get(key, 0) + 1

    runtime.projector.apply = counting.__get__(runtime.projector)  # type: ignore[method-assign]
    workers = [runtime.worker(f"w{i}") for i in range(2)]
    for w in workers:
        w.settings = w.settings.model_copy(update={"outbox_batch_size": 16})
    threads = [threading.Thread(target=w.drain) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    runtime.worker().drain()
    assert set(applied.values()) == {1}  # every entity projected exactly once per slice
    assert len(applied) == 120 * 2 + 119
    assert_converged(runtime)


WORKER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pegas_memory.config import load_settings
    from pegas_memory.db.pool import Database
    from pegas_memory.outbox.worker import OutboxWorker
    from pegas_memory.app.runtime import ProjectionRuntime
    settings = load_settings(data_dir=sys.argv[1], database_url=sys.argv[2],
                             ollama_url=sys.argv[3], embedding_dim=64, outbox_batch_size=20)
    db = Database(settings).open()
    rt = ProjectionRuntime(settings, db)
    class SlowCommit(OutboxWorker):
        # Lingers between projecting a batch and committing it, so a kill lands there.
        def _record(self, *args, **kwargs):
            super()._record(*args, **kwargs)
            print("batch-projected", flush=True)
            time.sleep(0.3)
    worker = SlowCommit(settings, db, rt.projector)
    worker.drain(timeout=600)
    print("drained", flush=True)
    """
)


def test_worker_killed_mid_batch_then_restarted(psettings: Settings) -> None:
    db = Database(psettings).open()
    try:
        seed(db, 100, links=False)
        for round_ in range(3):
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER_SCRIPT,
                    str(psettings.data_dir),
                    psettings.database_url or "",
                    psettings.ollama_url or "",
                ],
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ},
            )
            assert proc.stdout is not None
            seen = 0
            deadline = time.monotonic() + 120
            while seen < round_ + 1 and time.monotonic() < deadline:
                line = proc.stdout.readline()
                if line.startswith("batch-projected"):
                    seen += 1
                if not line:
                    break
            proc.send_signal(signal.SIGKILL)  # mid-batch: projected, not committed
            proc.wait(30)
        rt = ProjectionRuntime(psettings, db)
        try:
            rt.worker().drain()
            with db.transaction() as conn:
                pending = conn.execute(
                    "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL"
                ).fetchone()
            assert pending["n"] == 0
            assert_converged(rt)
        finally:
            rt.close()
    finally:
        db.close()


def test_model_change_never_mixes_collections(
    runtime: ProjectionRuntime, psettings: Settings
) -> None:
    seed(runtime.db, 3, links=False)
    runtime.worker().drain()
    first = runtime.projector.collection("atom")
    runtime.close()
    with FakeOllama(dim=32, models=("other-model",)) as other:
        settings2 = psettings.model_copy(
            update={"ollama_url": other.url, "embedding_model": "other-model", "embedding_dim": 32}
        )
        rt2 = ProjectionRuntime(settings2, runtime.db)
        try:
            from pegas_memory.outbox.reconcile import rebuild

            rebuild(rt2, "qdrant")
            second = rt2.projector.collection("atom")
            assert first != second
            index = rt2.vectors.get()
            assert index.count(second) == 3 and index.count(first) == 3
            hits = index.search(second, [1.0] + [0.0] * 31, k=10)
            assert {h.id for h in hits} <= set(range(1, 10_000)) and len(hits) == 3
            with pytest.raises(Exception):  # noqa: B017 - a 64-d query cannot hit the 32-d space
                index.search(second, [1.0] * 64, k=3)
        finally:
            rt2.close()
