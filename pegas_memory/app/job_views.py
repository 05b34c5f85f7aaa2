"""What the job-backed tools return: a job as an agent follows it, with its result typed by kind.

`JobInfo.result` is the JSON a handler recorded; here it is read back into the result model of
its kind (an ingest batch, a code index, a rebuild, a research run), so every tool's output
schema says what each field holds. `memory_ingest` and `memory_store_code` return the job
behind the call plus, once it finished, its result; the message says what is done so far and
how to follow it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from pegas_memory.code_memory.index import StoreCodeResult
from pegas_memory.jobs import JobInfo, JobProgress
from pegas_memory.models import IngestResult, JobKind, JobState


class SourceFailure(BaseModel):
    """A source of a batch that could not be ingested (the others were)."""

    source: str
    error: str


class IngestBatchResult(BaseModel):
    """What an ingest job did: one result per ingested source, in order, and the failures."""

    results: list[IngestResult] = Field(default_factory=list)
    failures: list[SourceFailure] = Field(default_factory=list)
    atoms_new: int = 0


class RebuildResult(BaseModel):
    """What a rebuild job recreated from PostgreSQL."""

    target: str = ""
    counts: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    set_aside: list[str] = Field(
        default_factory=list, description="damaged collections moved aside, if any"
    )


class GapResearched(BaseModel):
    """What a research run did for one gap: the URLs it ingested and whether they answered it."""

    gap_id: int
    question: str
    status: str = Field(description="filled (verified new atoms answer it) or open again")
    urls_tried: list[str] = Field(default_factory=list)
    atoms_new: int = 0
    answered_by: list[int] = Field(default_factory=list, description="atoms that answer it")
    errors: list[str] = Field(default_factory=list)


class ResearchResult(BaseModel):
    """What a research job did: one entry per gap researched, and why nothing was done."""

    gaps: list[GapResearched] = Field(default_factory=list)
    filled: int = 0
    note: str | None = Field(default=None, description="why nothing was researched, if so")


class JobView(BaseModel):
    """A background job: its state, progress, and (once done) its typed result or its error."""

    model_config = ConfigDict(frozen=True)

    id: int
    kind: JobKind
    state: JobState = Field(description="queued, running, done, failed or cancelled")
    progress: JobProgress
    error: str | None = None
    attempts: int = Field(description="how many times a worker started it")
    cancel_requested: bool = False
    worker: str | None = Field(default=None, description="host:pid/slot of its worker")
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    ingest: IngestBatchResult | None = Field(default=None, description="result of an ingest job")
    code: StoreCodeResult | None = Field(default=None, description="result of an index_code job")
    rebuild: RebuildResult | None = Field(default=None, description="result of a rebuild job")
    research: ResearchResult | None = Field(default=None, description="result of a research job")


class JobList(BaseModel):
    """memory_job: the jobs asked for, newest first, and what to do next."""

    jobs: list[JobView]
    message: str


class IngestCall(BaseModel):
    """memory_ingest: done inline when quick, else the job to follow (memory_job op=get/wait)."""

    job_id: int
    state: JobState
    finished: bool = Field(description="false: still queued or running; follow job_id")
    message: str = Field(description="what is done so far and how to follow it")
    progress: JobProgress
    atoms_new: int = Field(description="new atoms over every source ingested so far")
    results: list[IngestResult] = Field(default_factory=list)
    failures: list[SourceFailure] = Field(default_factory=list)


class StoreCodeCall(BaseModel):
    """memory_store_code: done inline when quick, else the job to follow (memory_job)."""

    job_id: int
    state: JobState
    finished: bool = Field(description="false: still queued or running; follow job_id")
    message: str = Field(description="what is done so far and how to follow it")
    progress: JobProgress
    result: StoreCodeResult | None = None


def view(info: JobInfo) -> JobView:
    """The job with its recorded result read into the model of its kind."""
    result = info.result if info.state == JobState.DONE else None
    return JobView(
        id=info.id,
        kind=info.kind,
        state=info.state,
        progress=info.progress,
        error=info.error,
        attempts=info.attempts,
        cancel_requested=info.cancel_requested,
        worker=info.worker,
        created_at=info.created_at,
        started_at=info.started_at,
        finished_at=info.finished_at,
        ingest=IngestBatchResult.model_validate(result)
        if result and info.kind == "ingest"
        else None,
        code=StoreCodeResult.model_validate(result)
        if result and info.kind == "index_code"
        else None,
        rebuild=RebuildResult.model_validate(result) if result and info.kind == "rebuild" else None,
        research=ResearchResult.model_validate(result)
        if result and info.kind == "research"
        else None,
    )


def follow_message(info: JobInfo) -> str:
    """What a caller is told about a job: its outcome, or how far it got and how to follow it."""
    p = info.progress
    so_far = f"{p.done} of {p.total}" if p.total else f"{p.done}"
    step = f" ({p.message})" if p.message else ""
    if info.state == JobState.DONE and info.kind == JobKind.RESEARCH and info.result is not None:
        done = ResearchResult.model_validate(info.result)
        return f"job {info.id} (research) is done: " + (
            done.note or f"{len(done.gaps)} gap(s) researched, {done.filled} filled"
        )
    if info.state == JobState.DONE:
        return f"job {info.id} ({info.kind}) is done"
    if info.state == JobState.FAILED:
        return f"job {info.id} ({info.kind}) failed: {info.error}"
    if info.state == JobState.CANCELLED:
        return f"job {info.id} ({info.kind}) was cancelled: {info.error or 'on request'}"
    if info.state == JobState.QUEUED:
        retry = f" after: {info.error}" if info.error and info.attempts else ""
        return (
            f"job {info.id} ({info.kind}) is queued (attempt {info.attempts + 1}{retry}); it runs "
            "in the background in a pegas-memory serve or worker process. Follow it with "
            f"memory_job op=wait job_id={info.id}, or stop it with op=cancel."
        )
    return (
        f"job {info.id} ({info.kind}) is still running in the background: {so_far} done"
        f"{step}. Follow it with memory_job op=wait job_id={info.id} (or op=get); stop it "
        "with op=cancel."
    )


def ingest_call(info: JobInfo) -> IngestCall:
    batch = view(info).ingest or IngestBatchResult()
    return IngestCall(
        job_id=info.id,
        state=info.state,
        finished=info.finished,
        message=follow_message(info),
        progress=info.progress,
        atoms_new=batch.atoms_new,
        results=batch.results,
        failures=batch.failures,
    )


def store_code_call(info: JobInfo) -> StoreCodeCall:
    return StoreCodeCall(
        job_id=info.id,
        state=info.state,
        finished=info.finished,
        message=follow_message(info),
        progress=info.progress,
        result=view(info).code,
    )
