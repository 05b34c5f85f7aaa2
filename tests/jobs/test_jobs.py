"""Durable background jobs against the real embedded PostgreSQL: the queue, the runner's leases
(SKIP LOCKED, advisory locks), cancellation, deadlines, and a worker that dies mid-job."""

from __future__ import annotations

import signal
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pegas_memory import jobs
from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.errors import BackendUnavailable, IngestError, InvalidInput, NotFound
from pegas_memory.jobs import JobContext, JobInfo, JobRunner
from pegas_memory.jobs.model import LOCK_CLASS
from tests.jobs.worker_process import worker_process

FAST = {"lease_seconds": 0.5, "heartbeat_seconds": 0.2, "poll_seconds": 0.2}


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings).open()
    with database.transaction() as conn:
        conn.execute("CREATE TABLE t_job_write (job bigint NOT NULL, note text NOT NULL)")
    yield database
    database.close()


def runner(db: Database, handler: Callable[..., Any], **kw: Any) -> JobRunner:
    return JobRunner(db, {"ingest": handler}, **{**FAST, **kw}).start()


def written(db: Database) -> list[tuple[int, str]]:
    with db.connection() as conn:
        rows = conn.execute("SELECT job, note FROM t_job_write ORDER BY job, note").fetchall()
    return [(r["job"], r["note"]) for r in rows]


def until(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def looping_writer(db: Database, started: threading.Event) -> Callable[..., dict[str, Any]]:
    """A handler that writes in its transaction, then checks forever (until stopped)."""

    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        with db.transaction() as conn:
            conn.execute("INSERT INTO t_job_write VALUES (%s, 'half-written')", (ctx.job_id,))
            started.set()
            while True:
                ctx.check()
                time.sleep(0.02)

    return handler


def test_submit_runs_and_records_the_result(db: Database) -> None:
    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        for i, _source in enumerate(args["sources"], 1):
            ctx.report(i, len(args["sources"]), f"source {i}")
        return {"ingested": len(args["sources"])}

    job = jobs.submit(db, "ingest", {"sources": ["a.txt", "b.txt"]})
    assert job.state == "queued" and job.attempts == 0 and job.started_at is None
    with runner(db, handler):
        info = jobs.wait(db, job.id, 15)
    assert info.state == "done" and info.result == {"ingested": 2}
    assert info.progress.done == 2 and info.progress.total == 2
    assert info.progress.message == "source 2"
    assert info.attempts == 1 and info.error is None
    assert info.started_at is not None and info.finished_at is not None
    assert [j.id for j in jobs.list_recent(db, 5)] == [job.id]
    assert jobs.list_recent(db, 5, state="queued") == []
    JobInfo.model_validate(info.model_dump(mode="json"))  # serialisable as an MCP result


def test_submit_validates_and_get_reports_unknown_ids(db: Database) -> None:
    with pytest.raises(InvalidInput, match="unknown job kind"):
        jobs.submit(db, "bake", {})
    with pytest.raises(InvalidInput, match="JSON"):
        jobs.submit(db, "ingest", {"x": object()})
    with pytest.raises(NotFound):
        jobs.get(db, 12345)
    with pytest.raises(NotFound):
        jobs.cancel(db, 12345)


def test_failures_are_recorded_with_their_error(db: Database) -> None:
    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        if args["how"] == "ingest":
            raise IngestError("the PDF is encrypted; pass its password")
        raise ValueError("boom")

    a = jobs.submit(db, "ingest", {"how": "ingest"})
    b = jobs.submit(db, "ingest", {"how": "bug"})
    with runner(db, handler):
        ia, ib = jobs.wait(db, a.id, 15), jobs.wait(db, b.id, 15)
    assert ia.state == "failed" and ia.error == "the PDF is encrypted; pass its password"
    assert ib.state == "failed" and ib.error == "ValueError: boom"
    assert ia.result is None and ia.finished_at is not None


def test_an_outage_is_retried_then_succeeds(db: Database) -> None:
    seen: list[int] = []

    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        seen.append(ctx.attempt)
        if ctx.attempt == 1:
            raise BackendUnavailable("the vector slice is unreachable")
        return {"ok": True}

    job = jobs.submit(db, "ingest", {})
    with runner(db, handler, retry_delay=0.0):
        info = jobs.wait(db, job.id, 15)
    assert info.state == "done" and info.attempts == 2 and seen == [1, 2]


def test_cancel_a_queued_job_at_once(db: Database) -> None:
    calls: list[int] = []
    job = jobs.submit(db, "ingest", {})
    cancelled = jobs.cancel(db, job.id)
    assert cancelled.state == "cancelled" and cancelled.finished_at is not None
    with runner(db, lambda args, ctx: calls.append(ctx.job_id) or {}):
        time.sleep(0.6)
    assert calls == [] and jobs.get(db, job.id).state == "cancelled"
    assert jobs.cancel(db, job.id).state == "cancelled"  # a finished job is left alone


def test_cancel_a_running_job_rolls_its_step_back(db: Database) -> None:
    started = threading.Event()
    job = jobs.submit(db, "ingest", {})
    with runner(db, looping_writer(db, started)):
        assert started.wait(15)
        asked = jobs.cancel(db, job.id)
        assert asked.state == "running" and asked.cancel_requested
        t0 = time.monotonic()
        info = jobs.wait(db, job.id, 15)
        assert time.monotonic() - t0 < 3.0
    assert info.state == "cancelled" and "cancelled on request" in (info.error or "")
    assert written(db) == []  # the handler's open transaction rolled back


def test_past_its_deadline_a_job_fails_and_rolls_back(db: Database) -> None:
    started = threading.Event()
    job = jobs.submit(db, "ingest", {}, time_limit=0.5)
    with runner(db, looping_writer(db, started)):
        info = jobs.wait(db, job.id, 15)
    assert info.state == "failed"
    assert "time limit of 0.5 s" in (info.error or "")
    assert written(db) == []


def test_the_runner_default_deadline_applies(db: Database) -> None:
    started = threading.Event()
    job = jobs.submit(db, "ingest", {})
    with runner(db, looping_writer(db, started), time_limit=0.3):
        info = jobs.wait(db, job.id, 15)
    assert info.state == "failed" and "time limit of 0.3 s" in (info.error or "")


def test_two_runners_never_run_the_same_job(db: Database) -> None:
    running: set[int] = set()
    overlaps: list[int] = []
    guard = threading.Lock()
    # Each runner's first job waits (up to 10 s) until the other runner runs one too, so both take
    # part however the scheduler orders their start (a fast runner "a" once took all 24 jobs
    # before "b" polled, on a loaded CI machine); a runner that never claims fails the test.
    took = {"a": threading.Event(), "b": threading.Event()}

    def make(name: str) -> Callable[..., dict[str, Any]]:
        other = took["b" if name == "a" else "a"]

        def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
            with guard:
                if ctx.job_id in running:
                    overlaps.append(ctx.job_id)
                running.add(ctx.job_id)
            took[name].set()
            other.wait(10)
            try:
                with db.transaction() as conn:
                    conn.execute("INSERT INTO t_job_write VALUES (%s, %s)", (ctx.job_id, name))
                time.sleep(0.02)
            finally:
                with guard:
                    running.discard(ctx.job_id)
            return {"by": name}

        return handler

    ids = [jobs.submit(db, "ingest", {"n": i}).id for i in range(24)]
    with runner(db, make("a"), workers=3), runner(db, make("b"), workers=3):
        infos = [jobs.wait(db, i, 30) for i in ids]
    assert overlaps == []
    assert all(i.state == "done" and i.attempts == 1 for i in infos)
    rows = written(db)
    assert sorted(job for job, _ in rows) == sorted(ids)  # each job ran exactly once
    assert {note for _, note in rows} == {"a", "b"}  # both runners took part


WORKER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pegas_memory.config import load_settings
    from pegas_memory.db.pool import Database
    from pegas_memory.jobs import JobRunner

    db = Database(load_settings(data_dir=sys.argv[1], database_url=sys.argv[2])).open()

    def handler(args, ctx):
        with db.transaction() as conn:
            conn.execute("INSERT INTO t_job_write VALUES (%s, 'dead worker')", (ctx.job_id,))
            print("running", ctx.job_id, flush=True)
            while True:
                ctx.check()
                time.sleep(0.02)

    JobRunner(db, {"ingest": handler}, workers=1, lease_seconds=0.5, heartbeat_seconds=0.2,
              poll_seconds=0.2).start()
    time.sleep(600)
    """
)


def finishing(db: Database, note: str) -> Callable[..., dict[str, Any]]:
    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        with db.transaction() as conn:
            conn.execute("INSERT INTO t_job_write VALUES (%s, %s)", (ctx.job_id, note))
        return {"by": note, "attempt": ctx.attempt}

    return handler


def test_a_killed_worker_process_loses_the_job_to_another_runner(
    db: Database, settings: Settings
) -> None:
    job = jobs.submit(db, "ingest", {"sources": ["big.pdf"]})
    with worker_process(WORKER_SCRIPT, settings, job.id) as proc:
        assert jobs.get(db, job.id).state == "running"
        # A live worker keeps its job: another runner does not take it while it beats.
        with runner(db, finishing(db, "rival")):
            time.sleep(1.5)
            assert jobs.get(db, job.id).state == "running"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    with runner(db, finishing(db, "survivor")):
        info = jobs.wait(db, job.id, 20)
    assert info.state == "done" and info.result == {"by": "survivor", "attempt": 2}
    assert info.attempts == 2
    assert written(db) == [(job.id, "survivor")]  # the dead worker's write never committed


def test_a_dropped_connection_stops_the_handler_and_another_runner_finishes(
    db: Database,
) -> None:
    started = threading.Event()
    job = jobs.submit(db, "ingest", {})
    first = runner(db, looping_writer(db, started))
    try:
        assert started.wait(15)
        with db.connection() as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
                "AND classid = %s::oid AND objid = %s::oid AND objsubid = 2",
                (LOCK_CLASS, job.id),
            )
        # The heartbeat saw the lease gone, or the first runner's other slot already took the
        # job over: its lock is free at once, so it does not wait for the lease (correct).
        # Closing the runner hands any such run back to the queue without counting the
        # attempt, so the second runner finishes it.
        until(lambda: first.running_jobs == [] or jobs.get(db, job.id).attempts == 2)
        first.close()
        with runner(db, finishing(db, "second")):
            info = jobs.wait(db, job.id, 20)
    finally:
        first.close()
    # The second runner finishes it. Its attempt is 2, or 3 when the first runner's other slot
    # had re-claimed it and its lease heartbeat, slowed by a loaded machine, read the close as
    # a lost lease (counted) rather than a release (not counted): seen once in CI under load.
    assert info.state == "done" and info.result is not None
    assert info.result["by"] == "second" and info.result["attempt"] in (2, 3)
    assert written(db) == [(job.id, "second")]


def test_progress_is_visible_while_it_runs(db: Database) -> None:
    go = threading.Event()

    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        for i in range(1, 4):
            ctx.report(i, 10, f"page {i}")
            time.sleep(0.6)  # past the throttle: every report is written
        assert go.wait(15)
        return {}

    job = jobs.submit(db, "ingest", {})
    updates: list[JobInfo] = []
    final: list[JobInfo] = []
    with runner(db, handler):
        until(lambda: jobs.get(db, job.id).progress.done >= 2)
        mid = jobs.get(db, job.id)
        assert mid.state == "running" and mid.progress.total == 10
        assert mid.progress.message.startswith("page ")
        waiter = threading.Thread(
            target=lambda: final.append(jobs.wait(db, job.id, 15, updates.append))
        )
        waiter.start()
        time.sleep(1.5)
        go.set()
        waiter.join(20)
    assert any(u.progress.done == 3 and u.state == "running" for u in updates)
    assert [f.state for f in final] == ["done"]


def test_reports_are_throttled(db: Database) -> None:
    def handler(args: dict[str, Any], ctx: JobContext) -> dict[str, Any]:
        for i in range(1, 20_001):
            ctx.report(i, 20_000)
        return {}

    job = jobs.submit(db, "ingest", {})
    with runner(db, handler):
        t0 = time.monotonic()
        info = jobs.wait(db, job.id, 30)
    assert info.state == "done" and info.progress.done == 20_000  # the last report is kept
    assert time.monotonic() - t0 < 10  # 20k reports did not cost 20k round trips


def test_wait_returns_early_on_completion_and_on_timeout(db: Database) -> None:
    queued = jobs.submit(db, "ingest", {})
    t0 = time.monotonic()
    info = jobs.wait(db, queued.id, 0.5)
    assert info.state == "queued" and 0.45 <= time.monotonic() - t0 < 2.0

    with runner(db, lambda args, ctx: time.sleep(0.2) or {"ok": 1}):
        t0 = time.monotonic()
        info = jobs.wait(db, queued.id, 30)
        assert info.state == "done" and time.monotonic() - t0 < 5.0


def test_idempotency_key_returns_the_active_job(db: Database) -> None:
    a = jobs.submit(db, "ingest", {"sources": ["x"]}, key="ingest:x")
    b = jobs.submit(db, "ingest", {"sources": ["x"]}, key="ingest:x")
    other = jobs.submit(db, "ingest", {"sources": ["y"]}, key="ingest:y")
    assert a.id == b.id and other.id != a.id
    with runner(db, lambda args, ctx: {}):
        assert jobs.wait(db, a.id, 15).state == "done"
    again = jobs.submit(db, "ingest", {"sources": ["x"]}, key="ingest:x")
    assert again.id != a.id and again.state == "queued"  # a finished job does not block


def test_close_releases_running_jobs_back_to_the_queue(db: Database) -> None:
    started = threading.Event()
    job = jobs.submit(db, "ingest", {})
    first = runner(db, looping_writer(db, started))
    assert started.wait(15)
    t0 = time.monotonic()
    first.close(timeout=5)
    assert time.monotonic() - t0 < 3.0
    info = jobs.get(db, job.id)
    assert info.state == "queued" and info.attempts == 0 and info.worker is None
    assert written(db) == []
    with runner(db, finishing(db, "next")):
        assert jobs.wait(db, job.id, 15).state == "done"


def test_a_job_whose_worker_keeps_dying_is_given_up(db: Database) -> None:
    job = jobs.submit(db, "ingest", {}, max_attempts=2)
    with db.transaction() as conn:  # as if two workers had died running it
        conn.execute(
            "UPDATE pm_job SET state = 'running', attempts = 2, worker = 'gone', "
            "heartbeat_at = now() - interval '1 hour' WHERE id = %s",
            (job.id,),
        )
    with runner(db, finishing(db, "never")):
        info = jobs.wait(db, job.id, 15)
    assert info.state == "failed" and "started 2 times" in (info.error or "")
    assert written(db) == []
