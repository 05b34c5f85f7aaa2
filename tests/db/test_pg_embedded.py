"""The embedded PostgreSQL cluster: first start, reuse by another process, crash recovery."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psycopg

from pegas_memory.config import load_settings
from pegas_memory.db.embedded import start_embedded_postgres
from pegas_memory.db.pool import Database
from tests.holders import start_holder

HOLDER = """
import signal, sys, time
from pathlib import Path
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # as pegas-memory's CLI does
from pegas_memory.config import load_settings
from pegas_memory.db.pool import Database
from pegas_memory.db.embedded import start_embedded_postgres
pg = start_embedded_postgres(Path(sys.argv[1]))
print(pg.uri, flush=True)
time.sleep(600)
"""


def _postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postgres" / "postmaster.pid").read_text().splitlines()[0])


def _holder(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    proc, uri = start_holder(HOLDER, data_dir)
    assert uri.startswith("postgresql://"), uri
    return proc, uri


def test_start_reuse_and_stop_with_last_user(tmp_path: Path) -> None:
    proc, uri = _holder(tmp_path)
    try:
        first_pid = _postmaster_pid(tmp_path)
        pg = start_embedded_postgres(tmp_path)  # joins the running server
        assert _postmaster_pid(tmp_path) == first_pid
        with psycopg.connect(pg.uri) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        pg.close()  # another user remains: the server keeps running
        with psycopg.connect(uri) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        proc.terminate()
        proc.wait(30)
    deadline = time.monotonic() + 30
    while (tmp_path / "postgres" / "postmaster.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()  # the last user stopped it


def test_survives_a_killed_user_and_a_crashed_server(tmp_path: Path) -> None:
    proc, _ = _holder(tmp_path)
    proc.send_signal(signal.SIGKILL)  # dies without releasing its claim
    proc.wait(30)
    handles = tmp_path / "postgres" / ".handle_pids.json"
    assert proc.pid in json.loads(handles.read_text())

    pg = start_embedded_postgres(tmp_path)
    assert proc.pid not in json.loads(handles.read_text())  # the ghost was pruned
    with psycopg.connect(pg.uri) as conn:
        conn.execute("CREATE TABLE kept (x int)")
        conn.execute("INSERT INTO kept VALUES (42)")
        conn.commit()
    # Crash the server itself: postmaster.pid stays behind, stale.
    os.kill(_postmaster_pid(tmp_path), signal.SIGKILL)
    time.sleep(1)
    pg.close()

    again = start_embedded_postgres(tmp_path)
    try:
        with psycopg.connect(again.uri) as conn:
            assert conn.execute("SELECT x FROM kept").fetchone() == (42,)
    finally:
        again.close()


def test_a_running_database_starts_its_killed_server_again(tmp_path: Path) -> None:
    """The server dies under a running pegas-memory (OOM killer, crash): the next call starts
    it again in place, and every committed row is still there."""
    db = Database(load_settings(data_dir=tmp_path, database_url=None)).open(migrate=False)
    try:
        with db.transaction() as conn:
            conn.execute("CREATE TABLE kept (x int)")
            conn.execute("INSERT INTO kept VALUES (7)")
        first = _postmaster_pid(tmp_path)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait until the process is really gone
            try:
                os.kill(first, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        time.sleep(1.1)  # past the once-a-second liveness check
        with db.connection() as conn:
            assert conn.execute("SELECT x FROM kept").fetchone() == {"x": 7}
        assert _postmaster_pid(tmp_path) != first
    finally:
        db.close()
