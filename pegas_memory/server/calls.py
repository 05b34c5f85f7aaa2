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
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from pegas_memory.errors import PegasMemoryError
from pegas_memory.service import MemoryService

log = logging.getLogger("pegas_memory.server.tools")

T = TypeVar("T")

# The lifespan yields the MemoryService; the SDK hands it to each tool as the lifespan context.
ServiceContext = Context[MemoryService, Any]
Server = MCPServer[MemoryService]
Progress = Callable[[float, float, str], None]

OPEN_WORLD_WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, open_world_hint=True
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


async def run(ctx: ServiceContext, call: Callable[[MemoryService], T], *, slow: bool = False) -> T:
    """Run `call(service)` in a worker thread, bounded in time, and map its failures to tool
    errors. A call that times out is abandoned: its transaction either commits whole or not at
    all, never half."""
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
            f"the call took longer than {timeout:.0f} s and was abandoned; its work either "
            "finishes whole in the background or leaves nothing behind. Retry with a smaller "
            "input, or check memory_stats later."
        ) from exc
    except PegasMemoryError as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:  # a bug: keep the server up, keep the traceback in the log
        log.exception("internal error in %s", getattr(call, "__qualname__", call))
        raise ToolError(
            f"internal error ({type(exc).__name__}); nothing was changed by this call. "
            "The details are in the server log; retry, or report it if it persists."
        ) from exc


def progress_reporter(ctx: ServiceContext) -> Progress:
    """A progress callback usable from the worker thread: it hops back to the event loop to send
    an MCP progress notification (a no-op when the client asked for none)."""

    def report(done: float, total: float, message: str) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done, total, message)
        except Exception:  # progress is best effort; never fail the work for it
            log.debug("progress notification failed", exc_info=True)

    return report
