"""Serve MCP over stdio so that every request the client sent gets an answer.

The SDK's stdio transport decodes each line with a strict JSON-RPC model. A line it cannot decode
is dropped with a debug log line, even when it is a request with an id: a lone UTF-16 surrogate
in a string (valid JSON text that JavaScript clients do send), nesting deeper than the parser's
limit, or params of the wrong JSON type. The client then waits for an answer that never comes,
and an agent hangs until its own timeout. Here such lines are answered with a JSON-RPC error
carrying the request's id; lines without a readable id are logged as warnings and skipped, as
JSON-RPC prescribes for notifications.

It also bounds how long the process takes to stop. The SDK reads stdin in a worker thread that
cannot be cancelled, so after SIGTERM a client that kept stdin open held the process for as long
as it stayed silent (over 25 s measured). Here stdin is read by a daemon thread, and SIGTERM or
SIGINT cancels the session: the lifespan closes the service and `serve_stdio` returns; then
`leave_process` ends the process without the interpreter's finalization (see there).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import math
import os
import re
import signal
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from pydantic import ValidationError

log = logging.getLogger(__name__)

EXIT_DEADLINE_SECONDS = 3.5  # after SIGTERM or EOF, the process is gone within this (and a bit)
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# The id among the leading scalar members of an object, for lines no parser can read whole.
_LEADING_ID = re.compile(
    r'\s*\{(?:\s*"[^"\\]*"\s*:\s*(?:"[^"\\]*"|-?\d+(?:\.\d+)?|true|false|null)\s*,)*'
    r'\s*"id"\s*:\s*(-?\d+|"[^"\\]*")\s*[,}]'
)


def _request_of(line: str) -> dict[str, Any] | None:
    """The request object a line carries, as far as it can be read (Python's json module takes
    lone surrogates; a regex finds a leading id when nesting defeats every parser)."""
    try:
        parsed = json.loads(line)
    except RecursionError:
        match = _LEADING_ID.match(line)
        if not match:
            return None
        return {"id": json.loads(match.group(1)), "method": "?", "_too_deep": True}
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def error_reply(exc: Exception) -> JSONRPCError | None:
    """The JSON-RPC error answering an undecodable request, or None when nothing asked (a
    notification, a response, garbage without an id)."""
    if not isinstance(exc, ValidationError):
        return None
    errors = exc.errors()
    request: dict[str, Any] | None = None
    for error in errors:
        value = error.get("input")
        if isinstance(value, dict) and "method" in value:
            request = value
            break
        if isinstance(value, str) and error.get("type") == "json_invalid":
            request = _request_of(value)
            break
    if request is None or "method" not in request:
        return None
    request_id = request.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    detail = str(errors[0].get("msg", "invalid")) if errors else "invalid"
    if request.get("_too_deep") or "recursion" in detail.lower():
        code, message = (
            INVALID_REQUEST,
            "the request nests JSON deeper than the server's parser allows (about 200 "
            "levels); flatten the arguments",
        )
    elif any(e.get("type") == "json_invalid" for e in errors):
        code, message = (
            PARSE_ERROR,
            f"the request is not valid JSON text ({detail}); strings must be valid Unicode "
            "(no lone UTF-16 surrogates such as \\ud800)",
        )
    else:
        code, message = (
            INVALID_PARAMS,
            f"the request does not have the JSON-RPC shape MCP expects ({detail}); params "
            "must be an object",
        )
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


class DaemonStdin:
    """stdin as async lines, read by a daemon thread: a blocked read never holds up the exit
    (the SDK's `anyio.wrap_file` reads in a thread that cancellation has to wait for)."""

    def __init__(self) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[str](math.inf)
        self._token = anyio.lowlevel.current_token()
        threading.Thread(target=self._pump, name="pegas-stdin", daemon=True).start()

    def _pump(self) -> None:
        # os.read on the descriptor, not sys.stdin: a daemon thread blocked inside a buffered
        # reader holds its lock, and the interpreter aborts when it finalizes that reader.
        pending = b""
        try:
            while True:
                chunk = os.read(0, 1 << 16)
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", errors="replace") + "\n"
                    anyio.from_thread.run_sync(self._send.send_nowait, line, token=self._token)
            if pending:
                text = pending.decode("utf-8", errors="replace")
                anyio.from_thread.run_sync(self._send.send_nowait, text, token=self._token)
        except (OSError, RuntimeError, anyio.ClosedResourceError):
            pass  # stdin unreadable, or the loop is gone: either way the session is over
        finally:
            arm_exit_deadline(0)
            try:
                anyio.from_thread.run_sync(self._send.close, token=self._token)
            except RuntimeError:
                pass

    def __aiter__(self) -> AsyncIterator[str]:
        return self._receive.__aiter__()


async def _cancel_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("received %s: closing the session", signal.Signals(signum).name)
            # The last resort if closing the engines hangs: a stop must stay a stop.
            arm_exit_deadline(128 + signum)
            scope.cancel()
            return


def arm_exit_deadline(code: int) -> None:
    """Exit with `code` in EXIT_DEADLINE_SECONDS whatever is still running: the session is
    over (SIGTERM, or stdin closed) and closing the engines must not hold the process."""
    watchdog = threading.Timer(EXIT_DEADLINE_SECONDS, _hard_exit, (code,))
    watchdog.daemon = True
    watchdog.start()


def _hard_exit(code: int) -> None:
    log.error(
        "the service did not close within %.1f s of the signal; exiting", EXIT_DEADLINE_SECONDS
    )
    logging.shutdown()
    os._exit(code)


def leave_process(code: int = 0) -> NoReturn:
    """End the process once the session is over and the service closed: the atexit handlers
    run (libraries' own cleanup), stdout and stderr are flushed, logging is shut down, and the
    process exits. Skipped is the interpreter's finalization, which has nothing left to do
    here: after every engine had closed, its garbage collection over the heap (the model, the
    parsers, the engines' clients) took 1.1-2 s (py-spy: gc_collect_main, measured) while
    holding the GIL, so even the exit deadline's timer could not fire."""
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        logging.shutdown()
        os._exit(code)


async def serve_stdio(server: MCPServer) -> None:
    """What `server.run("stdio")` does, with undecodable requests answered instead of dropped,
    stdin read by a daemon thread, and SIGTERM/SIGINT ending the session cleanly."""
    async with anyio.create_task_group() as outer:
        outer.start_soon(_cancel_on_signal, outer.cancel_scope)
        await _session(server)
        outer.cancel_scope.cancel()


async def _session(server: MCPServer) -> None:
    lowlevel = server._lowlevel_server
    stdin: Any = DaemonStdin()  # duck-types the async line iterator the SDK reads
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def screen() -> None:
            async with send, read_stream:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        reply = error_reply(item)
                        if reply is None:
                            log.warning("ignored an undecodable line on stdin: %.300s", item)
                            continue
                        log.warning("answered an undecodable request %r", reply.id)
                        try:
                            await write_stream.send(SessionMessage(reply))
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return
                        continue
                    await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(screen)
            await lowlevel.run(receive, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
