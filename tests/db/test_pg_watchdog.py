"""The embedded PostgreSQL stops itself (issue 18): when every process using it was killed
(no atexit ran, no later start prunes them) and when its data dir is deleted under it, its
watchdog stops the server instead of leaving a postmaster running for good."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pegas_memory.db import pg_watchdog
from tests.holders import (
    WatchedServer,
    assert_the_server_stops_when_its_data_dir_is_deleted,
    assert_the_server_stops_with_its_last_user,
    start_holder,
    watchdog_log,
)

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


POSTGRES = WatchedServer("postgres", _holder, _postmaster, pg_watchdog)


def test_the_server_stops_when_its_last_user_was_killed(tmp_path: Path) -> None:
    assert_the_server_stops_with_its_last_user(POSTGRES, tmp_path)
    # Stopped cleanly (a fast shutdown): no lock file left, the next start needs no recovery.
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()
    log = watchdog_log(tmp_path / "postgres-watchdog.log")  # written as the watchdog exits
    assert "last user gone: server stopped" in log


def test_the_server_stops_when_its_data_dir_is_deleted(tmp_path: Path) -> None:
    assert_the_server_stops_when_its_data_dir_is_deleted(POSTGRES, tmp_path)
