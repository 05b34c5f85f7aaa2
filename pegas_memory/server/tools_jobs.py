"""The MCP tool of background jobs: follow, list and cancel what memory_ingest and
memory_store_code (or the CLI) left running, and start the two jobs no other tool starts:
research of the open gaps and a rebuild of the search slices.

One tool with an `op` rather than several: an agent that got a job id back needs one name to
learn, and the operations share their arguments. Jobs live in PostgreSQL, so any session on the
memory sees and cancels any job, whichever process runs it. `research` and `rebuild` answer like
memory_ingest: done within the call when quick, else within the wait with the job to follow.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from pegas_memory.app.job_views import JobList, follow_message, view
from pegas_memory.app.research import DEFAULT_MAX_GAPS, DEFAULT_URLS_PER_GAP
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput
from pegas_memory.jobs import JobInfo, JobState
from pegas_memory.server.calls import (
    WRITES,
    Server,
    ServiceContext,
    follow,
    progress_reporter,
    run,
    wait_bound,
)


def register(mcp: Server) -> None:
    """memory_job."""

    @mcp.tool(annotations=WRITES)
    async def memory_job(
        ctx: ServiceContext,
        op: Annotated[
            Literal["get", "wait", "list", "cancel", "research", "rebuild"],
            Field(
                description="get: one job now. wait: until it finishes or wait_seconds pass "
                "(progress is reported meanwhile). list: recent jobs. cancel: stop one (its "
                "step in progress rolls back; a cancelled ingest or research erases what it "
                "added). research: start researching the open gaps on the web (max_gaps, "
                "urls_per_gap). rebuild: recreate the search slices from PostgreSQL (target)."
            ),
        ] = "list",
        job_id: Annotated[
            int | None, Field(ge=1, description="The job (for get, wait, cancel).")
        ] = None,
        state: Annotated[
            JobState | None, Field(description="list: only jobs in this state.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="list: at most this many.")] = 20,
        wait_seconds: Annotated[
            float | None,
            Field(
                ge=0,
                le=600,
                description="wait, research, rebuild: answer after at most this long (server "
                "default 20 s); the job goes on in the background.",
            ),
        ] = None,
        max_gaps: Annotated[
            int, Field(ge=1, le=50, description="research: at most this many open gaps.")
        ] = DEFAULT_MAX_GAPS,
        urls_per_gap: Annotated[
            int, Field(ge=1, le=10, description="research: web results ingested per gap.")
        ] = DEFAULT_URLS_PER_GAP,
        target: Annotated[
            Literal["qdrant", "graph", "all"], Field(description="rebuild: which slice.")
        ] = "all",
    ) -> JobList:
        """Follow the background jobs of the memory (ingest, code indexing, rebuilds): their
        state (queued, running, done, failed, cancelled), progress, result or error. Use it with
        the job_id that memory_ingest or memory_store_code returned when the work did not
        finish within the call. op=research starts the research of open gaps (web search,
        ingest, verify) and op=rebuild a rebuild of the search slices, both as jobs."""
        if op in ("research", "rebuild"):

            def start(service: MemoryService) -> JobInfo:
                if op == "research":
                    return service.jobs.submit_research(
                        max_gaps=max_gaps, urls_per_gap=urls_per_gap
                    )
                return service.jobs.submit_rebuild(target)

            started = await follow(ctx, start, wait_seconds)
            return JobList(jobs=[view(started)], message=follow_message(started))
        report = progress_reporter(ctx)

        def on_progress(info: JobInfo) -> None:
            report(info.progress.done, info.progress.total, info.progress.message)

        def call(service: MemoryService) -> JobList:
            if op == "list":
                found = service.jobs.list_recent(state=state, limit=limit)
                return JobList(jobs=[view(j) for j in found], message=f"{len(found)} job(s)")
            if job_id is None:
                raise InvalidInput(f"op={op} needs job_id; list jobs with op=list")
            if op == "get":
                info = service.jobs.get(job_id)
            elif op == "cancel":
                info = service.jobs.cancel(job_id)
            else:
                settings = service.settings
                seconds = wait_bound(
                    settings.tool_wait_seconds, settings.tool_timeout, wait_seconds
                )
                info = service.jobs.wait(job_id, seconds, on_progress)
            message = follow_message(info)
            if op == "cancel" and not info.finished:
                message = (
                    f"job {info.id}: cancel requested; it stops at its next step and rolls "
                    "back (follow it with op=wait)"
                )
            return JobList(jobs=[view(info)], message=message)

        return await run(ctx, call, progress=report)
