"""How a tool calls the service: in a worker thread, bounded in time, failures mapped.

A tool passes a typed callable of the service (`lambda service: service.search(request)`), so
mypy checks the call and its result type end to end; no method is looked up by name. Expected
failures (PegasMemoryError) become ToolError with a message an agent can act on; any other
exception is logged with its traceback on stderr and reported as an internal error, and the
server stays up.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput, LimitExceeded, PegasMemoryError
from pegas_memory.jobs import JobInfo
from pegas_memory.models import JobState

log = logging.getLogger("pegas_memory.server.tools")

T = TypeVar("T")

# The lifespan yields the MemoryService; the SDK hands it to each tool as the lifespan context.
ServiceContext = Context[MemoryService, Any]
Server = MCPServer[MemoryService]

OPEN_WORLD_WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, open_world_hint=True
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class CallProgress:
    """The progress callback of one call, usable from its worker thread: it hops back to the
    event loop to send an MCP progress notification (a no-op when the client asked for none).

    It is also the call's brake: once the call is abandoned (its time limit passed, or the
    client cancelled it) the next report raises LimitExceeded in the worker thread, so the work
    stops at its next step and its transaction rolls back instead of running on unseen."""

    def __init__(self, ctx: ServiceContext):
        self._ctx = ctx
        self.abandoned = threading.Event()

    def __call__(self, done: float, total: float | None, message: str) -> None:
        if self.abandoned.is_set():
            raise LimitExceeded(
                "this call was abandoned (its time limit passed or the client cancelled it); "
                "the work stopped here and its open transaction was rolled back"
            )
        try:
            anyio.from_thread.run(self._ctx.report_progress, done, total, message)
        except Exception:  # progress is best effort; never fail the work for it
            log.debug("progress notification failed", exc_info=True)


async def run(
    ctx: ServiceContext,
    call: Callable[[MemoryService], T],
    *,
    slow: bool = False,
    progress: CallProgress | None = None,
) -> T:
    """Run `call(service)` in a worker thread, bounded in time, and map its failures to tool
    errors. A call that times out is abandoned: its `progress` (if it reports any) stops it at
    its next step, and its transaction either commits whole or not at all, never half."""
    service = ctx.request_context.lifespan_context
    timeout = service.settings.ingest_timeout if slow else service.settings.tool_timeout
    try:
        service.check_settings()  # invalid settings: every call says which and how to fix it
        with anyio.fail_after(timeout):
            return await anyio.to_thread.run_sync(
                functools.partial(call, service), abandon_on_cancel=True
            )
    except TimeoutError as exc:
        raise ToolError(
            f"the call took longer than {timeout:.0f} s and was stopped at its next step; its "
            "work either finished whole or left nothing behind. Retry with a smaller input, or "
            "check memory_stats later."
        ) from exc
    except PegasMemoryError as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:  # a bug: keep the server up, keep the traceback in the log
        log.exception("internal error in %s", getattr(call, "__qualname__", call))
        raise ToolError(
            f"internal error ({type(exc).__name__}); nothing was changed by this call. "
            "The details are in the server log; retry, or report it if it persists."
        ) from exc
    finally:
        if progress is not None:  # done, timed out or cancelled: the worker must not go on
            progress.abandoned.set()


def progress_reporter(ctx: ServiceContext) -> CallProgress:
    return CallProgress(ctx)


def wait_bound(default: float, tool_timeout: float, wait_seconds: float | None) -> float:
    """How long a call waits for its job: `wait_seconds`, or the server's default. A call answers
    before the server's time limit for a tool (`PEGAS_TOOL_TIMEOUT`), so a longer wait is refused
    with the maximum, never cut silently."""
    most = 0.9 * tool_timeout
    if wait_seconds is None:
        return max(0.0, min(default, most))
    if wait_seconds > most:
        raise InvalidInput(
            f"wait_seconds is {wait_seconds:g}, but this server answers a call within {most:g} s "
            f"(0.9 x PEGAS_TOOL_TIMEOUT={tool_timeout:g} s): ask for at most {most:g} s, then "
            "follow the job with memory_job op=wait"
        )
    return max(0.0, wait_seconds)


async def follow(
    ctx: ServiceContext,
    submit: Callable[[MemoryService], JobInfo],
    wait_seconds: float | None = None,
) -> JobInfo:
    """Submit a job and wait for it a bounded time (`tool_wait_seconds` unless given), sending
    its progress as MCP progress notifications: the finished job, or the job as it stands.

    Only the waiting runs in the call's thread (no transaction); the work runs in a job runner.
    A job that failed within the wait is a tool error with the job's message."""
    started = time.monotonic()
    settings = ctx.request_context.lifespan_context.settings
    try:
        seconds = wait_bound(settings.tool_wait_seconds, settings.tool_timeout, wait_seconds)
    except InvalidInput as exc:  # refused before anything is submitted
        raise ToolError(str(exc)) from exc
    job = await run(ctx, submit)
    # The bound covers the submit, and keeps a margin for the answer itself: reading the job and
    # sending it took 1.6 s past a 20 s bound while a CPU-heavy job ran in this process.
    margin = min(2.0, 0.1 * seconds)
    seconds = max(0.0, seconds - margin - (time.monotonic() - started))
    report = progress_reporter(ctx)

    def on_progress(info: JobInfo) -> None:
        report(info.progress.done, info.progress.total, info.progress.message)

    info = await run(
        ctx, lambda service: service.jobs.wait(job.id, seconds, on_progress), progress=report
    )
    if info.state == JobState.FAILED:
        raise ToolError(f"{info.error} (job {info.id} failed)")
    return info
