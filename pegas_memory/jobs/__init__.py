"""Durable background jobs: long work (ingest, code indexing, research, rebuilds) queued in
PostgreSQL (`pm_job`) and run by a `JobRunner` in whichever process runs one.

The tools call `submit`, `wait` (finish inline when quick, else return the job id), `get`,
`list_recent` and `cancel`; the service registers one handler per kind on a runner.
"""

from pegas_memory.jobs.api import cancel, get, list_recent, submit, wait
from pegas_memory.jobs.context import JobCancelled, JobContext, JobReleased
from pegas_memory.jobs.model import JOB_KINDS, JobInfo, JobKind, JobProgress, JobState
from pegas_memory.jobs.runner import Handler, JobRunner

__all__ = [
    "JOB_KINDS",
    "Handler",
    "JobCancelled",
    "JobContext",
    "JobInfo",
    "JobKind",
    "JobProgress",
    "JobReleased",
    "JobRunner",
    "JobState",
    "cancel",
    "get",
    "list_recent",
    "submit",
    "wait",
]
