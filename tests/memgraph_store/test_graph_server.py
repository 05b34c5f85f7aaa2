"""The embedded FalkorDB server's life: data across a clean restart and a SIGKILL, one server
shared by processes, crashed users pruned, stale files recovered, short sockets, and a server
that cannot start reported as unavailable."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pegas_memory.config import load_settings
from pegas_memory.errors import BackendUnavailable
from pegas_memory.memgraph_store import build_graph_store
from pegas_memory.memgraph_store.falkor import (
    EmbeddedFalkorServer,
    graph_server_paths,
    open_embedded_graph,
    stop_embedded_graph,
)
from tests.memgraph_store.embedded_graph import (
    REPO_ROOT,
    atom_node,
    link_edge,
    node_props,
    wait_until,
)

# --- server lifecycle -----------------------------------------------------------------------


def test_data_survives_clean_restart_and_sigkill(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir)
    s.ensure_schema()
    s.upsert_atoms([atom_node(1, "kept")])
    s.upsert_links([link_edge(10, 1, 2)])
    s.close()  # last user: the server is shut down
    assert EmbeddedFalkorServer(data_dir).server_pid() is None
    s = open_embedded_graph(data_dir)
    assert node_props(data_dir, "Atom", 1)["claim"] == "kept"
    s.upsert_atoms([atom_node(3, "after restart")])
    pid = EmbeddedFalkorServer(data_dir).server_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    # the live store notices the lost connection and restarts the server from its AOF
    assert sorted(s.iter_node_ids("Atom")) == [1, 2, 3]
    assert EmbeddedFalkorServer(data_dir).server_pid() not in (None, pid)
    s.close()


_CHILD = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from pegas_memory.memgraph_store.falkor import EmbeddedFalkorServer, open_embedded_graph
    from pegas_memory.memgraph_store.cypher import AtomNode
    data_dir = Path(sys.argv[1])
    store = open_embedded_graph(data_dir)
    store.ensure_schema()
    store.upsert_atoms([AtomNode(777, "fact", "candidate", 0.1, "from child")])
    print(EmbeddedFalkorServer(data_dir).server_pid(), flush=True)
    line = sys.stdin.readline().strip()
    if line == "crash":
        os._exit(3)
    store.close()
    print("closed", flush=True)
    """
)


def _spawn_child(data_dir: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def _read_line(proc: subprocess.Popen[str], timeout: float = 30.0) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "child process did not answer in time"
    return proc.stdout.readline().strip()


def _finish(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def test_two_processes_share_one_server(data_dir: Path) -> None:
    child = _spawn_child(data_dir)
    try:
        child_pid = int(_read_line(child))
        s = open_embedded_graph(data_dir)
        assert EmbeddedFalkorServer(data_dir).server_pid() == child_pid  # reused, not restarted
        assert node_props(data_dir, "Atom", 777)["claim"] == "from child"
        s.close()  # the child still uses it
        assert EmbeddedFalkorServer(data_dir).server_pid() == child_pid
        _finish(child, "close")
        assert _read_line(child) == "closed"
        assert child.wait(timeout=30) == 0
        assert wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    finally:
        child.kill()
        child.wait(timeout=30)


def test_crashed_user_is_pruned(data_dir: Path) -> None:
    child = _spawn_child(data_dir)
    try:
        server_pid = int(_read_line(child))
        _finish(child, "crash")
        assert child.wait(timeout=30) == 3
    finally:
        child.kill()
        child.wait(timeout=30)
    users = graph_server_paths(data_dir).users.read_text().split()
    assert str(child.pid) in users  # the crash left its registration behind
    s = open_embedded_graph(data_dir)
    assert EmbeddedFalkorServer(data_dir).server_pid() == server_pid
    s.close()  # the dead user does not count: the server stops
    assert wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    assert graph_server_paths(data_dir).users.read_text() == ""


def test_stale_pid_socket_and_users_files_are_recovered(data_dir: Path) -> None:
    paths = graph_server_paths(data_dir)
    paths.directory.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait(timeout=30)
    paths.pidfile.write_text(f"{os.getpid()}\n")  # a live process that is not our server
    paths.users.write_text(f"{dead.pid} stale-token\n")
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(str(paths.socket))  # a socket file nobody listens on, as after a crash
    leftover.close()
    s = open_embedded_graph(data_dir)
    try:
        s.ensure_schema()
        s.upsert_atoms([atom_node(1)])
        assert s.node_counts()["Atom"] == 1
        assert EmbeddedFalkorServer(data_dir).server_pid() not in (None, os.getpid())
        assert paths.users.read_text().split()[0] == str(os.getpid())
    finally:
        s.close()


def test_long_data_dir_uses_a_private_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    paths = graph_server_paths(deep)
    assert len(str(paths.socket)) <= 100 and paths.socket.parent != paths.directory
    try:
        s = open_embedded_graph(deep)
        s.upsert_atoms([atom_node(1)])
        assert s.node_counts()["Atom"] == 1
        assert paths.socket.parent.stat().st_mode & 0o777 == 0o700
        s.close()
    finally:
        stop_embedded_graph(deep)


def test_build_graph_store_uses_embedded_falkor(data_dir: Path) -> None:
    s = build_graph_store(load_settings(data_dir=data_dir))
    try:
        s.upsert_atoms([atom_node(1)])
        assert list(s.iter_node_ids("Atom")) == [1]
    finally:
        s.close()


def test_unstartable_server_is_backend_unavailable(data_dir: Path) -> None:
    paths = graph_server_paths(data_dir)
    paths.directory.mkdir(parents=True)
    (paths.directory / "appendonlydir").write_text("not a directory")  # redis cannot use it
    with pytest.raises(BackendUnavailable, match="log"):
        open_embedded_graph(data_dir, start_timeout=10)
