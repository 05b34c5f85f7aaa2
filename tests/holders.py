"""Other users of an embedded engine: a Python child (`python -c SCRIPT DATA_DIR`, run from the
repository) that opens the engine, prints one line once it holds it, and sleeps until killed;
and the checks, alike for every engine, that its watchdog stops the server they leave behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pegas_memory.locks import is_locked
from pegas_memory.procs import process_state

REPO = Path(__file__).resolve().parent.parent


def start_holder(script: str, data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """The child running `script` on `data_dir`, and the first line it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(REPO),
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


GRAPH_USER = """
import sys, time
from pathlib import Path
from pegas_memory.memgraph_store.falkor import open_embedded_graph
graph = open_embedded_graph(Path(sys.argv[1]))
graph.ensure_schema()
print("ready", flush=True)
time.sleep(600)
"""


def start_graph_user(data_dir: Path) -> subprocess.Popen[str]:
    """A child using the embedded graph server of `data_dir` (its schema made) until killed."""
    proc, line = start_holder(GRAPH_USER, data_dir)
    assert line == "ready", line
    return proc


def kill_holder(proc: subprocess.Popen[str]) -> None:
    """SIGKILL for the child if it still runs (no release, no atexit), and wait for it."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)


def watchdog_log(path: Path, timeout: float = 30.0) -> str:
    """The text of the log a watchdog writes as it exits, once it exists (polled, bounded)."""
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return path.read_text()


class Watchdog(Protocol):
    """What a watchdog module (db.pg_watchdog, memgraph_store.falkor_watchdog) answers about
    the engine folder it guards."""

    def live_users(self, directory: Path, /) -> bool | None: ...

    def watchdog_lock_path(self, directory: Path, /) -> Path: ...


@dataclass(frozen=True)
class WatchedServer:
    """An embedded engine's server, which its watchdog stops: how a test starts a user of it,
    finds the server's pid and asks the watchdog's questions, all by the data dir."""

    folder: str  # the engine's folder under a data dir ("postgres", "graph")
    start_user: Callable[[Path], subprocess.Popen[str]]
    server_pid: Callable[[Path], int]
    watchdog: Watchdog
    # Whether a live pid is still that server, not a pid the system gave to another process.
    is_server: Callable[[int], bool] = lambda pid: True
    grace: float = 0.0  # seconds past which a live user is seen to keep the server

    def wait_gone(self, pid: int, timeout: float = 90.0) -> bool:
        """Whether the server `pid` is gone within `timeout` (a bound, not a measurement)."""
        deadline = time.monotonic() + timeout
        while process_state(pid) == "alive" and self.is_server(pid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        return True


def assert_the_server_stops_with_its_last_user(server: WatchedServer, data_dir: Path) -> int:
    """Two users of the server of `data_dir`, each killed with SIGKILL (no release, no atexit):
    one watchdog runs, the second user keeps the server, and the server stops once the last user
    is gone. The stopped server's pid."""
    first, second = server.start_user(data_dir), server.start_user(data_dir)
    engine = data_dir / server.folder
    pid = server.server_pid(data_dir)
    try:
        assert is_locked(server.watchdog.watchdog_lock_path(engine))  # one watchdog runs
        first.kill()
        first.wait(30)
        time.sleep(server.grace)
        assert server.watchdog.live_users(engine)  # the second user still uses it
        assert process_state(pid) == "alive"
        second.kill()  # the last one dies without releasing the server
        second.wait(30)
        assert server.watchdog.live_users(engine) is False
        assert server.wait_gone(pid), f"the {server.folder} server outlived its last user"
    finally:
        kill_holder(first)
        kill_holder(second)
    return pid


def assert_the_server_stops_when_its_data_dir_is_deleted(
    server: WatchedServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    user = server.start_user(data)
    try:
        pid = server.server_pid(data)
        shutil.rmtree(data / server.folder, ignore_errors=True)
        assert server.wait_gone(pid), f"the {server.folder} server outlived its deleted data dir"
    finally:
        kill_holder(user)
