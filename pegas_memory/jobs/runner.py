"""The job runner: N worker threads that claim jobs from `pm_job`, run their handlers and record
the outcome, plus one monitor thread for heartbeats, cancel requests and wake-ups.

A job is claimed in one statement (`claim_job` here, the SQL in queries.sql): it picks a running
job whose worker is gone or the oldest due queued one, row-locked FOR UPDATE SKIP LOCKED, takes
its advisory lock on the slot's lease and marks it running, or finishes it when it cannot run
again. Concurrent claimers never take the same job (tests/jobs/test_job_claim.py).

Each worker thread ("slot") has a connection of its own, its *lease*: while a job runs, the
lease holds a session-level advisory lock on it. If the process dies (SIGKILL, out of memory) or
the connection drops, PostgreSQL releases the lock, and any runner that finds the job still
`running` with a stale heartbeat and its lock free takes it over: the lock says for sure that
its worker is gone, so a slow but live worker is never doubled. The heartbeat is written by the
monitor only for jobs whose lock the slot's session still holds; a job missing from the answer is
lost, and its handler stops at its next check.

Handlers own their transactions (see `jobs.context` for the contract: atomic or idempotent per
step). `close()` asks running handlers to stop, waits a bounded time, and releases their jobs
back to the queue; a handler that does not check in time has its lease dropped instead, so
another runner takes the job over.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Database
from pegas_memory.errors import BackendUnavailable, InvalidInput, PegasMemoryError
from pegas_memory.jobs.context import JobCancelled, JobContext, JobReleased
from pegas_memory.jobs.model import JOB_KINDS, LOCK_CLASS, Q, lock_key
from pegas_memory.models import JobState

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], JobContext], dict[str, Any]]
LeaseConn = psycopg.Connection[dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """How a run ended: a finished job state, or requeue (handed back to the queue: released by a
    closing runner, or retried after an outage), or lost (another runner owns the job now)."""

    state: JobState | Literal["requeue", "lost"]
    result: dict[str, Any] | None = None
    error: str | None = None
    uncount: int = 0  # 1: the attempt does not count (released by a closing runner)
    delay: float = 0.0


@dataclass(frozen=True)
class _Active:
    slot: str
    pid: int
    attempts: int
    ctx: JobContext


def _connect(db: Database) -> LeaseConn:
    return psycopg.connect(
        db.url,
        autocommit=True,
        connect_timeout=10,
        row_factory=dict_row,
        application_name="pegas-memory-job",
    )


def claim_job(conn: LeaseConn, kinds: Sequence[str], worker: str) -> dict[str, Any] | None:
    """Take one job of `kinds` for `worker` on its lease `conn` (autocommit), or None.

    One statement (`claim_job` in queries.sql) picks the job, a running one whose worker is gone
    first, then the oldest queued one that is due, and takes its advisory lock on `conn`. A job
    that cannot run again (taken over with a cancel requested, or out of attempts) is finished
    by that statement; then the next one is claimed. Raises psycopg.Error: the caller drops the
    connection, and with it any lock the failed statement took.
    """
    params = {"kinds": list(kinds), "worker": worker, "ns": LOCK_CLASS}
    while True:
        row = conn.execute(Q.claim_job, params).fetchone()
        if row is None:
            return None
        if row["state"] == JobState.RUNNING:
            if row["was"] == JobState.RUNNING:
                log.warning("%s: took over job %s (%s)", worker, row["id"], row["previous_worker"])
            return row
        log.warning("%s: job %s %s: %s", worker, row["id"], row["state"], row["error"])


class JobRunner:
    """Runs the jobs of the kinds in `handlers`, `workers` at a time, until `close()`."""

    def __init__(
        self,
        db: Database,
        handlers: Mapping[str, Handler],
        *,
        workers: int = 2,
        name: str | None = None,
        lease_seconds: float = 30.0,
        heartbeat_seconds: float | None = None,
        poll_seconds: float = 2.0,
        time_limit: float | None = None,
        retry_delay: float = 5.0,
    ):
        unknown = set(handlers) - set(JOB_KINDS)
        if unknown:
            raise InvalidInput(f"no such job kinds: {sorted(unknown)}; use {JOB_KINDS}")
        if workers < 1:
            raise InvalidInput("a job runner needs at least one worker")
        self.db = db
        self.handlers = dict(handlers)
        self.workers = workers
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.lease_seconds = lease_seconds
        self.heartbeat_seconds = heartbeat_seconds or max(0.1, min(5.0, lease_seconds / 3))
        self.poll_seconds = poll_seconds
        self.time_limit = time_limit
        self.retry_delay = retry_delay
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._active: dict[int, _Active] = {}
        self._active_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._slots: dict[str, _Slot] = {}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> JobRunner:
        if self._threads:
            return self
        for i in range(self.workers):
            slot = _Slot(self, f"{self.name}/{i}")
            self._slots[slot.name] = slot
            self._threads.append(
                threading.Thread(target=slot.loop, name=f"pm-job-{i}", daemon=True)
            )
        self._threads.append(threading.Thread(target=self._monitor, name="pm-job-mon", daemon=True))
        for t in self._threads:
            t.start()
        return self

    def close(self, timeout: float = 10.0) -> None:
        """Stop claiming, release running jobs back to the queue, and return within `timeout`
        (plus a heartbeat) even if a handler does not check."""
        self._stop.set()
        self._wake.set()
        with self._active_lock:
            for active in self._active.values():
                active.ctx.request_release()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        for slot in self._slots.values():
            if slot.thread_alive():
                log.warning(
                    "%s: a handler did not stop within %.0f s; dropping its lease so another "
                    "runner takes the job over",
                    slot.name,
                    timeout,
                )
            slot.drop()
        self._threads.clear()

    def __enter__(self) -> JobRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running_jobs(self) -> list[int]:
        with self._active_lock:
            return sorted(self._active)

    # ------------------------------------------------------------------ bookkeeping
    def _register(self, job_id: int, active: _Active) -> None:
        with self._active_lock:
            self._active[job_id] = active
            if self._stop.is_set():
                active.ctx.request_release()

    def _unregister(self, job_id: int) -> None:
        with self._active_lock:
            self._active.pop(job_id, None)

    # ------------------------------------------------------------------ monitor
    def _monitor(self) -> None:
        """LISTEN for job changes: wake idle slots for new jobs, beat for running ones, pass on
        cancel requests, write held-back progress. Beats every `heartbeat_seconds` and at every
        change of a running job."""
        listener: LeaseConn | None = None
        last_beat = 0.0
        while not self._stop.is_set():
            try:
                if listener is None:
                    listener = _connect(self.db)
                    listener.execute(Q.listen)
                urgent = False
                wait = min(1.0, self.heartbeat_seconds)
                for note in listener.notifies(timeout=wait, stop_after=1):
                    job_id, _, state = note.payload.partition(":")
                    if state == JobState.QUEUED:
                        self._wake.set()
                    elif job_id.isdigit() and int(job_id) in self._active:
                        urgent = True
                if urgent or time.monotonic() - last_beat >= self.heartbeat_seconds:
                    self._beat(listener)
                    last_beat = time.monotonic()
                self._flush_held_progress()
            except psycopg.Error as exc:
                log.warning("%s: job monitor error (%s); reconnecting", self.name, exc)
                if listener is not None:
                    listener.close()
                    listener = None
                self._stop.wait(1.0)
            except Exception:
                log.exception("%s: unexpected error in the job monitor", self.name)
                self._stop.wait(1.0)
        if listener is not None:
            listener.close()

    def _flush_held_progress(self) -> None:
        """Write the progress reports that the rate limit held back (see JobContext)."""
        with self._active_lock:
            contexts = [a.ctx for a in self._active.values()]
        for ctx in contexts:
            ctx.flush_if_due()

    def _beat(self, conn: LeaseConn) -> None:
        with self._active_lock:
            items = dict(self._active)
        if not items:
            return
        rows = conn.execute(
            Q.heartbeat,
            {
                "ids": list(items),
                "attempts": [a.attempts for a in items.values()],
                "pids": [a.pid for a in items.values()],
                "workers": [a.slot for a in items.values()],
                "ns": LOCK_CLASS,
            },
        ).fetchall()
        alive = {int(r["id"]): bool(r["cancel_requested"]) for r in rows}
        for job_id, active in items.items():
            if job_id not in alive:
                with self._active_lock:
                    still = self._active.get(job_id) is active
                if still:
                    log.warning("%s: job %s is no longer ours; stopping it", active.slot, job_id)
                    active.ctx.mark_lost()
            elif alive[job_id]:
                active.ctx.request_cancel()


class _Slot:
    """One worker thread and its lease connection."""

    def __init__(self, runner: JobRunner, name: str):
        self.runner = runner
        self.name = name
        self.conn: LeaseConn | None = None
        self._thread: threading.Thread | None = None

    def thread_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def drop(self) -> None:
        """Close the lease: PostgreSQL releases every lock it held."""
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing from another thread while it is in use
                log.debug("%s: closing the lease failed", self.name, exc_info=True)

    def lease(self) -> LeaseConn:
        if self.conn is None or self.conn.closed:
            self.conn = _connect(self.runner.db)
        return self.conn

    # ------------------------------------------------------------------ loop
    def loop(self) -> None:
        self._thread = threading.current_thread()
        runner = self.runner
        failures = 0
        try:
            while not runner._stop.is_set():
                try:
                    row = self.claim()
                    failures = 0
                except (psycopg.Error, PegasMemoryError) as exc:
                    failures += 1
                    wait = min(30.0, 0.5 * 2**failures)
                    log.warning("%s: claiming failed (%s); retry in %.1f s", self.name, exc, wait)
                    self.drop()
                    runner._stop.wait(wait)
                    continue
                if row is None:
                    if runner._wake.wait(runner.poll_seconds) and not runner._stop.is_set():
                        runner._wake.clear()
                    continue
                self.run(row)
        finally:
            self.drop()

    # ------------------------------------------------------------------ claim
    def claim(self) -> dict[str, Any] | None:
        return claim_job(self.lease(), list(self.runner.handlers), self.name)

    # ------------------------------------------------------------------ run
    def run(self, row: dict[str, Any]) -> None:
        runner = self.runner
        conn = self.lease()
        job_id, attempts = int(row["id"]), int(row["attempts"])
        fence = {"id": job_id, "worker": self.name, "attempts": attempts}
        time_limit = row["time_limit_s"] or runner.time_limit
        ctx: JobContext

        def flush(done: int, total: int | None, message: str) -> None:
            try:
                conn.execute(
                    Q.report_progress, {**fence, "done": done, "total": total, "message": message}
                )
            except psycopg.Error:
                log.warning("%s: lost the lease of job %s", self.name, job_id)
                ctx.mark_lost()

        ctx = JobContext(job_id, row["kind"], attempts, time_limit=time_limit, flush=flush)
        runner._register(job_id, _Active(self.name, conn.info.backend_pid, attempts, ctx))
        try:
            outcome = self.execute(row, ctx)
        finally:
            runner._unregister(job_id)
        try:
            self.record(conn, fence, ctx, outcome)
        except psycopg.Error as exc:
            log.warning("%s: could not record job %s (%s)", self.name, job_id, exc)
            self.drop()

    def execute(self, row: dict[str, Any], ctx: JobContext) -> Outcome:
        handler = self.runner.handlers[row["kind"]]
        try:
            ctx.check()
            result = handler(dict(row["args"] or {}), ctx)
            if result is None:
                result = {}
            if not isinstance(result, dict):
                error = f"the {row['kind']} handler returned no dict"
                return Outcome(JobState.FAILED, error=error)
            json.dumps(result)
            return Outcome(JobState.DONE, result=result)
        except JobReleased:
            return Outcome("lost") if ctx.lost else Outcome("requeue", uncount=1)
        except JobCancelled as exc:
            return Outcome(JobState.CANCELLED, error=str(exc))
        except BackendUnavailable as exc:
            if ctx.attempt < int(row["max_attempts"]):
                delay = self.runner.retry_delay * ctx.attempt
                return Outcome("requeue", error=str(exc), delay=delay)
            return Outcome(JobState.FAILED, error=str(exc))
        except PegasMemoryError as exc:
            return Outcome(JobState.FAILED, error=str(exc))
        except Exception as exc:
            log.exception("job %s (%s) failed", row["id"], row["kind"])
            return Outcome(JobState.FAILED, error=f"{type(exc).__name__}: {exc}"[:4000])

    def record(
        self, conn: LeaseConn, fence: dict[str, Any], ctx: JobContext, outcome: Outcome
    ) -> None:
        """Write the outcome and release the lease's lock in one statement (fenced: a job that is
        no longer ours is left alone, and the lock released on its own)."""
        done, total, message = ctx.progress
        progress = {"done": done, "total": total, "message": message}
        lock = {"ns": LOCK_CLASS}
        row = None
        if outcome.state == "requeue":
            row = conn.execute(
                Q.requeue_job,
                {
                    **fence,
                    **progress,
                    **lock,
                    "error": outcome.error,
                    "uncount": outcome.uncount,
                    "delay": outcome.delay,
                },
            ).fetchone()
        elif outcome.state != "lost":
            result = None if outcome.result is None else Jsonb(outcome.result)
            row = conn.execute(
                Q.finish_job,
                {**fence, **progress, **lock, "state": outcome.state, "result": result}
                | {"error": outcome.error},
            ).fetchone()
        if row is None:
            conn.execute(Q.unlock, {**lock, "key": lock_key(fence["id"])})
