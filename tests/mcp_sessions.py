"""A real `pegas-memory serve` over stdio, driven from synchronous tests.

- `McpSession`: the SDK client behind a synchronous facade (an anyio blocking portal), so one
  server process can serve a whole test module and hypothesis can drive it with plain @given;
  `session_with_a_slow_model` serves one whose Ollama answers slowly.
- `RawServer`: the server as a bare subprocess speaking JSON lines, for bytes no well-behaved
  client would send (garbage, invalid UTF-8, lone surrogates), with its stderr kept in a file.
- `result_text`: the text of a tool's answer.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, Tool

from tests.mcp_harness import REPO, server_params


def result_text(result: CallToolResult) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


class McpSession:
    """One `pegas-memory serve` subprocess and an SDK client session, used synchronously.

    Every call is bounded: `call()` cancels the request after `timeout` seconds and raises
    TimeoutError. The server's stderr goes to `stderr_path`.
    """

    def __init__(self, env: Mapping[str, str], stderr_path: Path, *, start_timeout: float = 120):
        self.env = dict(env)
        self.stderr_path = stderr_path
        self.start_timeout = start_timeout
        self._stack = ExitStack()
        self._portal: BlockingPortal | None = None
        self._client: Client | None = None

    def __enter__(self) -> McpSession:
        try:
            errlog: TextIO = self._stack.enter_context(
                open(self.stderr_path, "w", encoding="utf-8")
            )
            portal = self._stack.enter_context(start_blocking_portal("asyncio"))
            self._portal = portal
            ready = threading.Event()
            stops: list[anyio.Event] = []

            async def hold_session() -> None:
                # The session lives in one task from handshake to close, as anyio requires.
                stop = anyio.Event()
                stops.append(stop)
                async with Client(stdio_client(server_params(self.env), errlog=errlog)) as client:
                    self._client = client
                    ready.set()
                    await stop.wait()

            future = portal.start_task_soon(hold_session)
            self._stack.callback(lambda: future.result(timeout=60))
            self._stack.callback(lambda: [portal.call(s.set) for s in stops if not future.done()])
            # Bounded: a server that never completes the handshake fails the test, not hangs it.
            deadline = time.monotonic() + self.start_timeout
            while not ready.wait(0.2):
                if future.done():
                    future.result()  # raises what ended the session
                    raise RuntimeError("the MCP session ended during the handshake")
                if time.monotonic() > deadline:
                    future.cancel()
                    raise TimeoutError(
                        f"the MCP server did not finish the handshake in {self.start_timeout} s"
                    )
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _run(self, coro_fn: Any, *args: Any) -> Any:
        assert self._portal is not None, "use McpSession as a context manager"
        return self._portal.call(coro_fn, *args)

    def list_tools(self, timeout: float = 30) -> list[Tool]:
        async def go() -> list[Tool]:
            assert self._client is not None
            with anyio.fail_after(timeout):
                return list((await self._client.list_tools()).tools)

        return list(self._run(go))

    def call(self, name: str, arguments: Mapping[str, Any], timeout: float = 60) -> CallToolResult:
        async def go() -> CallToolResult:
            assert self._client is not None
            with anyio.fail_after(timeout):
                return await self._client.call_tool(name, dict(arguments))

        result = self._run(go)
        assert isinstance(result, CallToolResult)
        return result

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", errors="replace")


@contextmanager
def session_with_a_slow_model(database_url: str, folder: Path) -> Iterator[McpSession]:
    """A serve on `folder/data` (its stderr in `folder/stderr`) whose model, a fake Ollama,
    answers after 30 s: past the tool limit (2 s) and the ingest limit (3 s), short of its own
    timeout (60 s)."""
    from tests.fake_ollama import FakeOllama

    with FakeOllama(delay=30) as slow:
        env = {
            "PEGAS_DATA_DIR": str(folder / "data"),
            "PEGAS_DATABASE_URL": database_url,
            "PEGAS_OLLAMA_URL": slow.url,
            "PEGAS_MODEL_TIMEOUT": "60",
            "PEGAS_TOOL_TIMEOUT": "2",
            "PEGAS_INGEST_TIMEOUT": "3",
        }
        with McpSession(env, folder / "stderr") as server:
            yield server


class RawServer:
    """`python -m pegas_memory.cli serve` with bare pipes: we write JSON lines (or anything else)
    and read what comes back, every wait bounded."""

    def __init__(self, env: Mapping[str, str], stderr_path: Path):
        base = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
        self.stderr_path = stderr_path
        self._err = open(stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pegas_memory.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            env={**base, **env},
            cwd=str(REPO),
        )
        self.messages: queue.Queue[dict[str, Any] | bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 1000
        self.seen: list[dict[str, Any] | bytes] = []

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                self.messages.put(line)  # not JSON on stdout: kept so a test can fail on it
                continue
            self.messages.put(msg if isinstance(msg, dict) else line)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._err.close()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Mapping[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.send_bytes(text.encode("utf-8", errors="surrogatepass") + b"\n")

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def wait_for(self, request_id: Any, timeout: float) -> dict[str, Any]:
        """The response to `request_id`; other messages seen meanwhile are kept in `self.seen`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no response to request {request_id!r} within {timeout} s")
            try:
                msg = self.messages.get(timeout=min(left, 0.5))
            except queue.Empty:
                if not self.alive():
                    raise RuntimeError(
                        f"the server exited with {self.proc.returncode}; stderr:\n"
                        + self.stderr_path.read_text("utf-8", errors="replace")[-3000:]
                    ) from None
                continue
            if isinstance(msg, dict) and msg.get("id") == request_id and "method" not in msg:
                return msg
            self.seen.append(msg)

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 60
    ) -> dict[str, Any]:
        request_id = self.new_id()
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            body["params"] = dict(params)
        self.send(body)
        return self.wait_for(request_id, timeout)

    def initialize(self, timeout: float = 120) -> dict[str, Any]:
        """The legacy handshake by hand: initialize, then notifications/initialized."""
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-hardening-test", "version": "0"},
            },
            timeout=timeout,
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout: float = 60
    ) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": dict(arguments)}, timeout)

    def stderr(self) -> str:
        self._err.flush()
        return self.stderr_path.read_text("utf-8", errors="replace")
