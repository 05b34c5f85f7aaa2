"""No runaway work in a tool call: once a call is abandoned (its time limit passed, or the client
cancelled it), the worker thread stops at its next progress report instead of running on.

The call layer only needs the service's settings here, so the service is a plain namespace; the
work is a loop that reports progress the way verify and ingest do."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from pegas_memory.errors import LimitExceeded
from pegas_memory.server.calls import CallProgress, run

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Ctx:
    """The part of an MCP Context that `run` and CallProgress use."""

    def __init__(self, timeout: float) -> None:
        settings = SimpleNamespace(tool_timeout=timeout, ingest_timeout=timeout)
        self.request_context = SimpleNamespace(
            lifespan_context=SimpleNamespace(settings=settings, check_settings=lambda: None)
        )
        self.reports: list[float] = []

    async def report_progress(self, done: float, total: float | None, message: str) -> None:
        self.reports.append(done)


async def test_an_abandoned_call_stops_at_its_next_report() -> None:
    ctx: Any = _Ctx(timeout=0.5)
    progress = CallProgress(ctx)
    outcome: dict[str, Any] = {}
    stopped = threading.Event()

    def work(_service: object) -> int:
        try:
            for step in range(1000):  # 100 s of work unless stopped
                progress(step, 1000, f"step {step}")
                time.sleep(0.1)
            return 1000
        except LimitExceeded as exc:
            outcome["error"] = str(exc)
            raise
        finally:
            stopped.set()

    started = time.monotonic()
    with pytest.raises(ToolError, match="stopped at its next step"):
        await run(ctx, work, progress=progress)
    assert time.monotonic() - started < 2
    assert await anyio.to_thread.run_sync(stopped.wait, 2.0), "the worker thread ran on"
    assert "abandoned" in outcome["error"] and "rolled back" in outcome["error"]
    assert ctx.reports  # it did report while the call was alive


async def test_a_finished_call_is_left_alone() -> None:
    ctx: Any = _Ctx(timeout=5)
    progress = CallProgress(ctx)

    def work(_service: object) -> str:
        progress(1, 1, "done")
        return "ok"

    assert await run(ctx, work, progress=progress) == "ok"
    assert ctx.reports == [1]
