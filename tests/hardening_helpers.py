"""Helpers for the hardening tests: drive a real `pegas-memory serve` over stdio.

- `McpSession`: the SDK client behind a synchronous facade (an anyio blocking portal), so one
  server process can serve a whole test module and hypothesis can drive it with plain @given.
- `RawServer`: the server as a bare subprocess speaking JSON lines, for bytes no well-behaved
  client would send (garbage, invalid UTF-8, lone surrogates), with its stderr kept in a file.
- `fingerprint`: what the database holds, to prove a failed call wrote nothing.
- `arguments_for`: hypothesis strategies from a tool's inputSchema (hypothesis-jsonschema 0.23.1
  breaks on objects with the installed hypothesis 6.170: it calls a removed internal API).
- `stop_cluster` / `start_cluster`: take a Debian PostgreSQL cluster down and up again.
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
import psycopg
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, Tool

from tests.mcp_harness import REPO, server_params
from tests.pgcluster import DEBIAN_BIN, DebianCluster

# The domain tables a tool call may write. pm_outbox is counted, not hashed: the worker updates
# its rows (processed_at, attempts) on its own, but only a tool call inserts one.
DOMAIN_TABLES = (
    "pm_document",
    "pm_chunk",
    "pm_atom",
    "pm_status_change",
    "pm_atom_link",
    "pm_citation",
    "pm_code_symbol",
    "pm_code_dependency",
    "pm_code_repo",
    "pm_code_file",
    "pm_episodic_trace",
    "pm_research_gap",
    "pm_gap_atom",
    "pm_feedback_event",
    "pm_atom_feedback",
    "pm_passage_feedback",
)
# Columns that reads may legitimately touch (access statistics) or that are derived.
_VOLATILE = ("access_count", "last_access_at", "tsv")


def fingerprint(database_url: str) -> dict[str, str]:
    """Row count and a content hash per domain table, plus the number of outbox events."""
    out: dict[str, str] = {}
    drop = " ".join(f"- '{c}'" for c in _VOLATILE)
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        for table in DOMAIN_TABLES:
            row = conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg((to_jsonb(t) {drop})::text, '|' "
                f"ORDER BY (to_jsonb(t) {drop})::text), '')) FROM {table} t"
            ).fetchone()
            assert row is not None
            out[table] = f"{row[0]}:{row[1]}"
        events = conn.execute("SELECT count(*) FROM pm_outbox").fetchone()
        assert events is not None
        out["pm_outbox"] = str(events[0])
    return out


def row_counts(database_url: str) -> dict[str, int]:
    return {t: int(v.split(":")[0]) for t, v in fingerprint(database_url).items()}


def result_text(result: CallToolResult) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


# --- strategies from JSON Schema ---------------------------------------------------------------

JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


def arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for `schema`: the subset pydantic emits for tool arguments ($ref/$defs,
    anyOf/oneOf, enum, const, string with length and date-time format, integer and number with
    bounds, boolean, null, array, object with required and optional properties)."""
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        return _strategy(defs[str(schema["$ref"]).rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(option, defs) for option in schema[key]])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, defs) for k in kind])
    if kind == "string":
        if schema.get("format") == "date-time":
            return st.datetimes(timezones=st.timezones() | st.none()).map(lambda d: d.isoformat())
        return st.text(
            min_size=int(schema.get("minLength", 0)), max_size=int(schema.get("maxLength", 60))
        )
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -(2**70) - 1) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", 2**70 + 1) - 1)
        return st.integers(int(low), int(high))
    if kind == "number":
        return st.floats(
            min_value=schema.get("minimum", schema.get("exclusiveMinimum")),
            max_value=schema.get("maximum", schema.get("exclusiveMaximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = _strategy(schema.get("items", {}), defs)
        return st.lists(
            items, min_size=int(schema.get("minItems", 0)), max_size=int(schema.get("maxItems", 5))
        )
    if kind == "object" or "properties" in schema:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed = {k: _strategy(v, defs) for k, v in properties.items() if k in required}
        optional = {k: _strategy(v, defs) for k, v in properties.items() if k not in required}
        if not properties and schema.get("additionalProperties", True) is not False:
            return st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=4)
        return st.fixed_dictionaries(fixed, optional=optional)
    return JSON_VALUES


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


# --- a Debian cluster taken down and up (pgcluster.DebianCluster only restarts) --------------


def _pg_ctl(cluster: DebianCluster, *args: str) -> None:
    cmd = [str(DEBIAN_BIN / "pg_ctl"), "-D", str(cluster.pgdata), *args]
    if cluster.as_user:
        cmd = ["runuser", "-u", cluster.as_user, "--", *cmd]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def stop_cluster(cluster: DebianCluster) -> None:
    """Stop the server the way an outage does: connections are cut, nothing answers the port."""
    _pg_ctl(cluster, "-m", "fast", "-w", "-t", "60", "stop")


def start_cluster(cluster: DebianCluster) -> None:
    _pg_ctl(
        cluster,
        "-w",
        "-t",
        "60",
        "-l",
        str(cluster.dir / "log"),
        "-o",
        f"-p {cluster.port} -k {cluster.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
        "start",
    )


def settle_jobs(database_url: str, timeout: float = 180.0) -> None:
    """Wait until no job is queued or running: a call that answered with a job id leaves its
    work running in the background, and its writes must not be blamed on the next call."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        while True:
            row = conn.execute(
                "SELECT count(*) FROM pm_job WHERE state IN ('queued', 'running')"
            ).fetchone()
            if row is None or row[0] == 0:
                return
            assert time.monotonic() < deadline, f"{row[0]} jobs still running after {timeout} s"
            time.sleep(0.1)
