"""The job vocabulary: kinds and states (`JobKind`, `JobState`, declared in `models` beside the
other enumerations of the schema, mirroring the CHECKs of migrations/0004_jobs.sql), the
`JobInfo` a tool returns, and the advisory-lock key of a running job.

Kinds and what their `args` hold (the handlers that the service registers decide the details):
- ``ingest``: ``{"sources": [source, ...]}`` (one source is a list of one);
- ``index_code``: a repository to index;
- ``research``: a gap or question for the research loop;
- ``rebuild``: a slice to rebuild from PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any, LiteralString

from pydantic import BaseModel, ConfigDict, Field

from pegas_memory.db.sql import load_queries
from pegas_memory.models import JobKind, JobState

JOB_KINDS: tuple[str, ...] = JobKind.values()

# Session-level advisory locks of running jobs use the two-int form (class, object), a key space
# of its own that never meets the single-bigint locks of migrations and the outbox.
LOCK_CLASS = 0x6A6F6262  # "jobb"


def lock_key(job_id: int) -> int:
    """The advisory lock object of a job (ids past 2^31 wrap: two such jobs never run together)."""
    return int(job_id) & 0x7FFFFFFF


class JobProgress(BaseModel):
    """How far a running job got, as its handler last reported."""

    model_config = ConfigDict(frozen=True)

    done: int = 0
    total: int | None = None
    message: str = ""


class JobInfo(BaseModel):
    """A job as a tool reports it: poll it with memory_job_status, or wait for it."""

    model_config = ConfigDict(frozen=True)

    id: int
    kind: JobKind
    state: JobState
    progress: JobProgress = Field(default_factory=JobProgress)
    result: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = 0
    cancel_requested: bool = False
    worker: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None

    @property
    def finished(self) -> bool:
        return self.state.finished


def job_from_row(row: dict[str, Any]) -> JobInfo:
    """The view of a `pm_job` row. A running job whose worker's lock no live session holds
    (`worker_alive` false: its process died) is shown queued, waiting to be taken over, never
    as running under a dead worker."""
    state, worker, message = JobState(row["state"]), row["worker"], row["progress_message"]
    if state is JobState.RUNNING and row.get("worker_alive") is False:
        state = JobState.QUEUED
        message = f"its worker {worker} is gone; waiting to be taken over (last: {message})"
        worker = None
    return JobInfo(
        id=row["id"],
        kind=JobKind(row["kind"]),
        state=state,
        progress=JobProgress(
            done=row["progress_done"], total=row["progress_total"], message=message
        ),
        result=row["result"],
        error=row["error"],
        attempts=row["attempts"],
        cancel_requested=row["cancel_requested"],
        worker=worker,
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        heartbeat_at=row["heartbeat_at"],
    )


@dataclasses.dataclass(frozen=True)
class JobQueries:
    insert_job: LiteralString
    active_by_key: LiteralString
    listen: LiteralString
    get_job: LiteralString
    list_recent: LiteralString
    cancel_job: LiteralString
    claim_job: LiteralString
    unlock: LiteralString
    report_progress: LiteralString
    finish_job: LiteralString
    requeue_job: LiteralString
    heartbeat: LiteralString


Q = load_queries(JobQueries, "pegas_memory.jobs", "queries.sql")
