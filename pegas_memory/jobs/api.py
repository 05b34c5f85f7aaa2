"""What the tools call: submit a job, read it, list, cancel, and wait for it a bounded time.

A tool that may take long submits a job and waits a little (`wait(db, id, 20)`): quick work
finishes inline and its result goes back in the same call; slow work returns the job id, and the
agent polls or waits again. The job keeps running in whichever process runs a `JobRunner`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Database
from pegas_memory.errors import InvalidInput, NotFound, PegasMemoryError
from pegas_memory.jobs.model import (
    JOB_KINDS,
    LOCK_CLASS,
    JobInfo,
    JobProgress,
    Q,
    job_from_row,
)

# LISTEN/NOTIFY wakes `wait` at once; this poll is the safety net (a lost connection, a missed
# notification).
WAIT_POLL_SECONDS = 1.0


def submit(
    db: Database,
    kind: str,
    args: dict[str, Any],
    *,
    key: str | None = None,
    max_attempts: int = 3,
    time_limit: float | None = None,
) -> JobInfo:
    """Queue a job; with `key`, the same request while one is queued or running is that job.

    `time_limit` (seconds, per attempt) overrides the runner's default deadline.
    """
    if kind not in JOB_KINDS:
        raise InvalidInput(f"unknown job kind {kind!r}; use one of {', '.join(JOB_KINDS)}")
    if not isinstance(args, dict):
        raise InvalidInput("job arguments must be a JSON object (a dict)")
    if max_attempts < 1:
        raise InvalidInput("max_attempts must be at least 1")
    if time_limit is not None and time_limit <= 0:
        raise InvalidInput("time_limit must be a positive number of seconds, or None")
    params = {
        "kind": kind,
        "args": Jsonb(args),
        "key": key,
        "max_attempts": max_attempts,
        "time_limit": time_limit,
    }
    for _ in range(5):  # the active job of this key may finish between the two statements
        try:
            with db.transaction() as conn:
                row = conn.execute(Q.insert_job, params).fetchone()
                if row is None:
                    row = conn.execute(Q.active_by_key, {"key": key}).fetchone()
        except TypeError as exc:
            raise InvalidInput(f"job arguments are not JSON-serialisable: {exc}") from exc
        if row is not None:
            return job_from_row(row)
    raise PegasMemoryError(f"could not submit a job for key {key!r}; retry")


def get(db: Database, job_id: int) -> JobInfo:
    with db.connection() as conn:
        row = conn.execute(Q.get_job, {"id": job_id, "ns": LOCK_CLASS}).fetchone()
    if row is None:
        raise NotFound(f"no job has id {job_id}; list recent ones with list_recent")
    return job_from_row(row)


def list_recent(db: Database, limit: int = 20, state: str | None = None) -> list[JobInfo]:
    """The newest jobs first, optionally only those in one state."""
    if limit < 1:
        raise InvalidInput("limit must be at least 1")
    with db.connection() as conn:
        rows = conn.execute(
            Q.list_recent, {"limit": limit, "state": state, "ns": LOCK_CLASS}
        ).fetchall()
    return [job_from_row(r) for r in rows]


def cancel(db: Database, job_id: int) -> JobInfo:
    """Cancel a queued job at once; ask a running one to stop (at its handler's next check).

    A finished job is returned unchanged.
    """
    with db.transaction() as conn:
        row = conn.execute(Q.cancel_job, {"id": job_id}).fetchone()
    if row is None:
        raise NotFound(f"no job has id {job_id}; list recent ones with list_recent")
    return job_from_row(row)


def wait(
    db: Database,
    job_id: int,
    timeout: float,
    on_progress: Callable[[JobInfo], object] | None = None,
) -> JobInfo:
    """The job once it finished, or as it stands when `timeout` seconds passed.

    `on_progress` is called with the job whenever its progress changed (a tool forwards it as an
    MCP progress notification).
    """
    deadline = time.monotonic() + max(0.0, timeout)
    listener = _listen(db)
    try:
        info = get(db, job_id)  # after LISTEN: no change between the two is missed
        seen: JobProgress | None = info.progress
        while not info.finished:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            _await_notice(listener, job_id, min(left, WAIT_POLL_SECONDS))
            info = get(db, job_id)
            if on_progress is not None and info.progress != seen:
                seen = info.progress
                on_progress(info)
        return info
    finally:
        if listener is not None:
            listener.close()


def _listen(db: Database) -> psycopg.Connection[dict[str, Any]] | None:
    """A connection of its own that LISTENs for job changes; None degrades `wait` to polling."""
    try:
        conn = psycopg.connect(db.url, autocommit=True, connect_timeout=10, row_factory=dict_row)
        conn.execute(Q.listen)
    except psycopg.Error:
        return None
    return conn


def _await_notice(
    listener: psycopg.Connection[dict[str, Any]] | None, job_id: int, seconds: float
) -> None:
    """Sleep until this job changes (a NOTIFY naming it) or `seconds` pass."""
    if listener is None:
        time.sleep(seconds)
        return
    prefix = f"{job_id}:"
    end = time.monotonic() + seconds
    try:
        while (left := end - time.monotonic()) > 0:
            for note in listener.notifies(timeout=left, stop_after=1):
                if note.payload.startswith(prefix):
                    return
    except psycopg.Error:  # the listener broke: poll for the rest of the wait
        time.sleep(max(0.0, end - time.monotonic()))
