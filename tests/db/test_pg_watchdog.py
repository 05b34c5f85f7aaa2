"""The embedded PostgreSQL stops itself (issue 18): when every process using it was killed
(no atexit ran, no later start prunes them) and when its data dir is deleted under it, its
watchdog stops the server instead of leaving a postmaster running for good."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

from pegas_memory.db.pg_watchdog import live_users, watchdog_lock_path
from pegas_memory.locks import is_locked
from pegas_memory.procs import process_state
from tests.holders import kill_holder, start_holder, watchdog_log

HOLDER = """
import sys, time
from pathlib import Path
from pegas_memory.db.embedded import start_embedded_postgres
pg = start_embedded_postgres(Path(sys.argv[1]))
print(pg.uri, flush=True)
time.sleep(600)
"""


def _holder(data_dir: Path) -> subprocess.Popen[str]:
    proc, line = start_holder(HOLDER, data_dir)
    assert line.startswith("postgresql://"), line
    return proc


def _postmaster(data_dir: Path) -> int:
    return int((data_dir / "postgres" / "postmaster.pid").read_text().splitlines()[0])


def _wait_gone(pid: int, timeout: float = 90.0) -> str:
    deadline = time.monotonic() + timeout
    while process_state(pid) == "alive" and time.monotonic() < deadline:
        time.sleep(0.2)
    return process_state(pid)


def test_the_server_stops_when_its_last_user_was_killed(tmp_path: Path) -> None:
    first, second = _holder(tmp_path), _holder(tmp_path)
    pid = _postmaster(tmp_path)
    try:
        assert is_locked(watchdog_lock_path(tmp_path / "postgres"))  # one watchdog runs
        first.kill()
        first.wait(30)
        assert live_users(tmp_path / "postgres")  # the second user still uses it
        second.kill()  # the last one dies without releasing the cluster
        second.wait(30)
        assert live_users(tmp_path / "postgres") is False
        assert _wait_gone(pid) != "alive"
    finally:
        kill_holder(first)
        kill_holder(second)
    # Stopped cleanly (a fast shutdown): no lock file left, the next start needs no recovery.
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()
    log = watchdog_log(tmp_path / "postgres-watchdog.log")  # written as the watchdog exits
    assert "last user gone: server stopped" in log


def test_the_server_stops_when_its_data_dir_is_deleted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    holder = _holder(data)
    try:
        pid = _postmaster(data)
        shutil.rmtree(data / "postgres", ignore_errors=True)
        assert _wait_gone(pid) != "alive"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
