"""Clean lifecycle (issue 18): `serve` stops within 5 s of SIGTERM (stdin left open) or of stdin
closing, and an embedded FalkorDB whose every user was killed (kill -9) is stopped by the next
pegas-memory process to start, even one that never touches the graph."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.memgraph_store.falkor import EmbeddedFalkorServer, stop_embedded_graph
from pegas_memory.procs import pid_alive
from tests.conftest import make_settings
from tests.fake_ollama import FakeOllama
from tests.holders import start_graph_user
from tests.mcp_sessions import RawServer


def _serve_env(database_url: str, data_dir: Path, fake: FakeOllama) -> dict[str, str]:
    return {
        "PEGAS_DATABASE_URL": database_url,
        "PEGAS_DATA_DIR": str(data_dir),
        "PEGAS_OLLAMA_URL": fake.url,
        "PEGAS_EMBEDDING_DIM": "64",
        "PEGAS_OUTBOX_POLL_SECONDS": "2",
    }


def _ready_server(env: dict[str, str], stderr: Path) -> RawServer:
    server = RawServer(env, stderr)
    server.initialize()
    answer = server.call_tool("memory_stats", {}, timeout=120)
    assert "result" in answer, answer
    return server


def _exit_seconds(server: RawServer, timeout: float = 30.0) -> float:
    started = time.monotonic()
    try:
        server.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.monotonic() - started


def _sigterm(server: RawServer) -> None:
    server.proc.send_signal(signal.SIGTERM)  # stdin stays open: the client did not close it


def _close_stdin(server: RawServer) -> None:
    assert server.proc.stdin is not None
    server.proc.stdin.close()


@pytest.mark.parametrize(
    ("end", "exit_codes"),
    [(_sigterm, (0, 143)), (_close_stdin, (0,))],
    ids=["SIGTERM with stdin open", "stdin closed"],
)
def test_serve_exits_soon_after(
    database_url: str,
    tmp_path: Path,
    fake_ollama: FakeOllama,
    end: Callable[[RawServer], None],
    exit_codes: tuple[int, ...],
) -> None:
    env = _serve_env(database_url, tmp_path / "data", fake_ollama)
    server = _ready_server(env, tmp_path / "stderr.txt")
    try:
        end(server)
        took = _exit_seconds(server)
        assert took < 5.0, f"serve took {took:.1f} s to exit\n{server.stderr()}"
        assert server.proc.returncode in exit_codes, server.stderr()
    finally:
        server.close()
        stop_embedded_graph(tmp_path / "data")


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_orphan_graph_server_is_stopped_by_the_next_start(
    database_url: str, tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    settings: Settings = make_settings(
        tmp_path / "data", database_url=database_url, ollama_url=fake_ollama.url, embedding_dim=64
    )
    user = start_graph_user(settings.data_dir)
    server = EmbeddedFalkorServer(settings.data_dir)
    try:
        redis_pid = server.server_pid()
        assert redis_pid is not None
        user.kill()  # SIGKILL: it cannot release the server
        user.wait(timeout=10)
        time.sleep(0.5)
        assert pid_alive(redis_pid), "the graph server should outlive its killed user"

        # A second user still alive keeps it running: pruning only forgets the dead.
        survivor = start_graph_user(settings.data_dir)
        try:
            MemoryService(settings).open().close()
            assert pid_alive(redis_pid) and server.server_pid() == redis_pid
        finally:
            survivor.kill()
            survivor.wait(timeout=10)

        # Every user dead: a session that never touches the graph stops it when it starts.
        service = MemoryService(settings).open()
        try:
            assert _wait_gone(redis_pid, 15.0), "the orphaned graph server is still running"
            assert not service.runtime.graph.ready
        finally:
            service.close()
    finally:
        for proc in (user,):
            if proc.poll() is None:
                proc.kill()
        stop_embedded_graph(settings.data_dir)
