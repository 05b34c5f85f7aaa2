"""Every session on a data dir gets the whole memory (issue 17, scope 1).

Real engines and the real MCP stdio transport: several `pegas-memory serve` processes on one
data dir share the engine host (the embedded vector store and the local model), each finds by
meaning what the others stored, and killing any one of them, or the host, leaves the others
fully working within 2 s. A CLI command beside a running serve has the dense arm too.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pegas_memory import locks
from pegas_memory.config import load_settings
from pegas_memory.host.control import host_status, stop_host
from pegas_memory.host.paths import host_paths
from pegas_memory.procs import pid_alive, process_state
from tests.mcp_harness import REPO, server_params, structured

pytestmark = pytest.mark.anyio

# Each fact is stored by one session and searched by a paraphrase that shares almost no word
# with it, so only the dense arm can find it.
FACTS: Sequence[tuple[str, str]] = (
    (
        "The Eiffel Tower was completed in 1889 for the World's Fair.",
        "When was the famous iron landmark in Paris finished?",
    ),
    (
        "Honeybees communicate the location of flowers with a waggle dance.",
        "How do insects that make honey tell each other where food is?",
    ),
    (
        "Mount Kilimanjaro is the highest peak on the African continent.",
        "Which mountain is tallest in Africa?",
    ),
    (
        "Penicillin was discovered by Alexander Fleming in 1928.",
        "Who found the first antibiotic drug?",
    ),
)


SEARCH_ARGS = ("--preset", "dense", "--json", "--limit", "3")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def data_dir(tmp_path: Path) -> Any:
    data = tmp_path / "data"
    yield data
    stop_host(load_settings(data_dir=data))  # returns once the host has exited
    paths = host_paths(data)
    with contextlib.suppress(OSError, ValueError):  # a host left behind by a failed test
        pid = int(paths.pidfile.read_text())
        if pid_alive(pid) and b"pegas_memory.host" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)


def _env(data: Path) -> dict[str, str]:
    return {"PEGAS_DATA_DIR": str(data), "PEGAS_HOST_IDLE_SECONDS": "2"}


class Session:
    """One `pegas-memory serve` subprocess driven by the SDK client, and its pid."""

    def __init__(self, client: Client, pid: int) -> None:
        self.client = client
        self.pid = pid

    async def store(self, claim: str) -> int:
        result = structured(await self.client.call_tool("memory_store", {"claim": claim}))
        return int(result["id"])

    async def dense(self, query: str) -> dict[str, Any]:
        return structured(
            await self.client.call_tool(
                "memory_search", {"query": query, "preset": "dense", "limit": 3}
            )
        )


def _processes() -> Iterator[tuple[int, list[bytes], Path]]:
    """Every process's pid, command line and /proc entry (one gone meanwhile is skipped)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            yield int(entry.name), (entry / "cmdline").read_bytes().split(b"\0"), entry


def _serve_pids(data: Path) -> set[int]:
    """The `serve` processes on this data dir (others may run tests beside us)."""
    mark = f"PEGAS_DATA_DIR={data}".encode()
    pids = set()
    for pid, cmd, entry in _processes():
        serve = b"pegas_memory.cli" in cmd and b"serve" in cmd
        with contextlib.suppress(OSError):
            if serve and mark in (entry / "environ").read_bytes().split(b"\0"):
                pids.add(pid)
    # A serve forking a helper (the engine host, PostgreSQL) shows its own cmdline and
    # environment in the child until the child execs: that child is not a session.
    return {pid for pid in pids if _parent(pid) not in pids}


def _host_pids(data: Path) -> set[int]:
    """The live engine host processes (active or standby) of this data dir."""
    return {
        pid
        for pid, cmd, _ in _processes()
        if b"pegas_memory.host" in cmd
        and str(data).encode() in cmd
        and process_state(pid) == "alive"
    }


def _parent(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("PPid:"):
                return int(line.split()[1])
    return None


@asynccontextmanager
async def sessions(data: Path, n: int, **env: str) -> AsyncIterator[list[Session]]:
    async with AsyncExitStack() as stack:
        out: list[Session] = []
        for _ in range(n):
            before = _serve_pids(data)
            client = await stack.enter_async_context(Client(server_params({**_env(data), **env})))
            (pid,) = _serve_pids(data) - before
            out.append(Session(client, pid))
        yield out


async def _finds(session: Session, query: str, atom_id: int) -> bool:
    result = await session.dense(query)
    assert not any("unavailable" in w for w in result["warnings"]), result["warnings"]
    return atom_id in [hit["id"] for hit in result["hits"]]


async def _each_finds_the_others(group: list[Session]) -> None:
    stored = [await s.store(FACTS[i % len(FACTS)][0]) for i, s in enumerate(group)]
    for i, session in enumerate(group):
        for j, atom_id in enumerate(stored):
            if i != j:
                assert await _finds(session, FACTS[j % len(FACTS)][1], atom_id), (i, j)


async def _recovers_within(group: list[Session], atom_id: int, query: str, seconds: float) -> None:
    """Every session answers a dense search correctly within `seconds` of now."""
    start = time.monotonic()
    for session in group:
        while True:
            result = await session.dense(query)
            healthy = not result["warnings"] and atom_id in [h["id"] for h in result["hits"]]
            if healthy:
                break
            assert time.monotonic() - start < seconds, result
            await anyio.sleep(0.05)
    assert time.monotonic() - start < seconds


async def test_two_sessions_each_find_the_others_facts_by_meaning(data_dir: Path) -> None:
    with anyio.fail_after(240):
        async with sessions(data_dir, 2) as group:
            await _each_finds_the_others(group)
            status = host_status(load_settings(data_dir=data_dir))
            assert status is not None and status["users"] == 2
            assert status["embedder"] == "e5-small"  # the model is loaded once, in the host
            assert not any(pid == status["pid"] for pid in (s.pid for s in group))


@pytest.mark.slow
async def test_four_sessions_and_killing_any_one_leaves_the_others_working(
    data_dir: Path,
) -> None:
    with anyio.fail_after(400):
        async with sessions(data_dir, 4) as group:
            await _each_finds_the_others(group)
            fact, query = FACTS[0]
            atom_id = await group[0].store(fact)
            settings = load_settings(data_dir=data_dir)

            # The session that started the host dies: the host lives on (its own session).
            os.kill(group[0].pid, signal.SIGKILL)
            survivors = group[1:]
            await _recovers_within(survivors, atom_id, query, 2.0)

            # The host itself dies: its standby takes over.
            info = host_status(settings)
            assert info is not None
            os.kill(int(info["pid"]), signal.SIGKILL)
            await _recovers_within(survivors, atom_id, query, 2.0)
            after = host_status(settings)
            assert after is not None and after["pid"] != info["pid"]
            # writes keep flowing through the new host too
            new_id = await survivors[0].store(FACTS[3][0])
            assert await _finds(survivors[1], FACTS[3][1], new_id)

            # And the new host's standby is back, so a second host kill also recovers.
            await anyio.sleep(3.0)
            os.kill(int(after["pid"]), signal.SIGKILL)
            await _recovers_within(survivors, atom_id, query, 2.0)

            # A plain session dies too: the rest carry on.
            os.kill(survivors[0].pid, signal.SIGKILL)
            await _recovers_within(survivors[1:], atom_id, query, 2.0)


async def test_a_store_on_a_cold_host_is_found_by_meaning_at_once(data_dir: Path) -> None:
    """Read your writes with the host: on a fresh data dir the serve starts the host, a store
    made at once waits for it and for its own projection, so the very next dense search (in
    another language) finds it, with no warning."""
    with anyio.fail_after(240):
        async with sessions(data_dir, 1) as (session,):
            atom_id = await session.store("Эйфелева башня была построена в 1889 году в Париже.")
            found = await session.dense("When was the Eiffel Tower in Paris built?")
            assert found["warnings"] == []
            assert atom_id in [hit["id"] for hit in found["hits"]]


async def test_stopping_the_host_returns_once_it_and_its_standby_have_exited(
    data_dir: Path,
) -> None:
    """`pegas-memory host --stop` returns when the host and its standby have closed their engines
    and exited, a standby still starting included: the data dir can be copied or removed at once
    (a stop that only asked raced a removal of the directory)."""
    paths = host_paths(data_dir)
    with anyio.fail_after(240):
        # the host outlives its last user by a minute, so it is the stop that ends it
        async with sessions(data_dir, 1, PEGAS_HOST_IDLE_SECONDS="60") as (session,):
            await session.store("The Eiffel Tower was completed in 1889.")
            pid = int(paths.pidfile.read_text())
        assert process_state(pid) == "alive"
        assert stop_host(load_settings(data_dir=data_dir))
        assert process_state(pid) != "alive"
        standby = paths.directory / "standby.lock"
        assert not locks.is_locked(paths.active_lock) and not locks.is_locked(standby)
        assert _host_pids(data_dir) == set()


async def test_stats_and_search_do_not_wait_for_a_host_that_is_starting(data_dir: Path) -> None:
    """Only the engines need the host: while it cannot start (this test holds `start.lock`, as
    a process busy starting it would), memory_stats answers at once with the vector slice
    'starting', and a search answers within the tool's limit with the dense arm 'starting'
    in its warnings. Once the lock is free the host starts and both are whole again."""
    paths = host_paths(data_dir)
    paths.directory.mkdir(parents=True)
    env = {**_env(data_dir), "PEGAS_TOOL_TIMEOUT": "6"}
    with anyio.fail_after(240):
        fd = locks.try_lock(paths.start_lock)
        assert fd is not None
        try:
            async with Client(server_params(env)) as client:
                stats = structured(await client.call_tool("memory_stats", {}))
                (vector,) = [s for s in stats["slices"] if s["name"] == "vector"]
                assert not vector["available"] and "starting" in vector["detail"], vector
                start = time.monotonic()
                found = structured(await client.call_tool("memory_search", {"query": "anything"}))
                assert time.monotonic() - start < 6
                assert any("starting" in w for w in found["warnings"]), found
                assert "lexical" in found["arms"]["atom"]

                locks.unlock(fd)
                fd = None
                for _ in range(600):
                    stats = structured(await client.call_tool("memory_stats", {}))
                    (vector,) = [s for s in stats["slices"] if s["name"] == "vector"]
                    if vector["available"]:
                        break
                    await anyio.sleep(0.1)
                assert vector["available"], vector
                found = structured(await client.call_tool("memory_search", {"query": "x"}))
                assert found["warnings"] == []
        finally:
            locks.unlock(fd)


async def test_cli_search_beside_a_running_serve_has_the_dense_arm(data_dir: Path) -> None:
    fact, query = FACTS[1]
    with anyio.fail_after(240):
        async with sessions(data_dir, 1) as (session,):
            atom_id = await session.store(fact)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
            run = await anyio.to_thread.run_sync(
                lambda: subprocess.run(
                    [sys.executable, "-m", "pegas_memory.cli", "search", query, *SEARCH_ARGS],
                    env={**env, **_env(data_dir)},
                    cwd=str(REPO),
                    capture_output=True,
                    text=True,
                    timeout=180,
                )
            )
            assert run.returncode == 0, run.stderr
            result = json.loads(run.stdout)
            assert result["warnings"] == []
            assert atom_id in [hit["id"] for hit in result["hits"]]


async def test_serve_http_offers_the_same_tools(data_dir: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEGAS_")}
    args = ["serve", "--http", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pegas_memory.cli", *args],
        env={**env, **_env(data_dir)},
        cwd=str(REPO),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with anyio.fail_after(180):
            while True:  # until uvicorn listens
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                    break
                assert proc.poll() is None, "serve --http exited"
                await anyio.sleep(0.2)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert {"memory_store", "memory_search", "memory_stats"} <= tools
                fact, query = FACTS[2]
                stored = structured(await client.call_tool("memory_store", {"claim": fact}))
                # The store waits for the host and for its own projection: no polling.
                found = structured(
                    await client.call_tool("memory_search", {"query": query, "preset": "dense"})
                )
                assert found["warnings"] == []
                assert stored["id"] in [hit["id"] for hit in found["hits"]]
    finally:
        proc.terminate()
        proc.wait(30)
