"""The embedded PostgreSQL's watchdog: stops the server when its data dir vanishes or its last
user is gone, the way the engine host exits when idle.

The library stops the server when its last handle is released, at exit of the last process
using it. A process killed by SIGKILL never gets there, nor does one whose temporary data dir
is deleted under the running server (a test's tmp dir): the server then runs until the next
start on that data dir prunes the dead, and that start may never come. Two postmasters were
found still running after the e2e tests that way. So whoever starts the server also starts this
small process (one per cluster: it holds a flock beside the cluster, and a second one exits at
once). Every `POLL_SECONDS` it looks at the cluster:

- its directory is gone or replaced (another inode): the server is stopped at once (immediate
  shutdown; there is nothing left to keep), then the watchdog exits;
- no process of the cluster's user list (`.handle_pids.json`) is alive (zombies count as dead)
  for `GRACE_SECONDS`: under the cluster's start lock, so that no process is joining meanwhile,
  the list is read again and the server is stopped with a fast shutdown (clients cut, a
  checkpoint written: the next start needs no recovery);
- the server is not running and nobody uses the cluster: nothing to watch, it exits.

It imports only the standard library and two leaf modules, and is started by file path (see
`spawn`), so it costs a few megabytes, not the service's imports.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from pegas_memory.host.locks import is_locked, try_lock, unlock
from pegas_memory.procs import process_state

POLL_SECONDS = 1.0
GRACE_SECONDS = 3.0  # users gone this long before the server is stopped
STOP_WAIT_SECONDS = 30.0  # a fast shutdown's checkpoint; then SIGKILL


def cluster_lock_path(pgdata: Path) -> Path:
    """The flock that serialises starts, restarts and stops of one cluster between processes.
    Beside the cluster, not in it: initdb wants an empty directory."""
    return pgdata.parent / ".postgres.lock"


def watchdog_lock_path(pgdata: Path) -> Path:
    return pgdata.parent / ".postgres-watchdog.lock"


def live_users(pgdata: Path) -> bool | None:
    """Whether a process of the cluster's user list is alive; None if the list is unreadable
    (being rewritten, say), which the caller takes as "maybe"."""
    try:
        pids = json.loads((pgdata / ".handle_pids.json").read_text())
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return None
    return any(isinstance(p, int) and process_state(p) == "alive" for p in pids)


def postmaster_pid(pgdata: Path) -> int | None:
    try:
        return int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def stop_server(pid: int, *, immediate: bool) -> None:
    """Shut the postmaster down (immediate: SIGQUIT, else fast: SIGINT); SIGKILL if it is still
    there after STOP_WAIT_SECONDS."""
    try:
        os.kill(pid, signal.SIGQUIT if immediate else signal.SIGINT)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while process_state(pid) == "alive":
        if time.monotonic() > deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return
        time.sleep(0.05)


def watch(pgdata: Path, *, poll: float = POLL_SECONDS, grace: float = GRACE_SECONDS) -> str:
    """Watch the cluster until there is nothing left to watch; why it ended."""
    inode = _inode(pgdata)
    pid = postmaster_pid(pgdata)
    idle_since: float | None = None
    while True:
        if inode is None or _inode(pgdata) != inode:
            if pid is not None and process_state(pid) == "alive":
                stop_server(pid, immediate=True)
                return "data directory vanished: server stopped"
            return "data directory vanished"
        pid = postmaster_pid(pgdata) or pid
        running = pid is not None and process_state(pid) == "alive"
        users = live_users(pgdata)
        if users is not False:
            idle_since = None
        elif not running:
            return "server stopped and no user left"
        else:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since >= grace and pid is not None:
                fd = try_lock(cluster_lock_path(pgdata))
                if fd is not None:
                    try:
                        if live_users(pgdata) is False and postmaster_pid(pgdata) == pid:
                            stop_server(pid, immediate=False)
                            return "last user gone: server stopped"
                    finally:
                        unlock(fd)
                idle_since = None  # someone is starting or joining: look again later
        time.sleep(poll)


def spawn(pgdata: Path) -> None:
    """Start the cluster's watchdog unless one runs. It is detached (own session, no inherited
    descriptors: a client waiting for a server's stdout to close is not held up by it) and
    reaped by a thread here if it exits before this process."""
    if is_locked(watchdog_lock_path(pgdata)):
        return
    root = str(Path(__file__).resolve().parents[2])
    boot = (
        "import runpy, sys; sys.path.insert(0, sys.argv[1]); "
        "runpy.run_path(sys.argv[2], run_name='__main__')"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", boot, root, str(Path(__file__).resolve()), str(pgdata)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
        start_new_session=True,
        close_fds=True,
    )
    threading.Thread(target=proc.wait, name="pegas-pg-watchdog-reaper", daemon=True).start()


def main(argv: list[str]) -> int:
    pgdata = Path(argv[-1])
    lock = watchdog_lock_path(pgdata)
    try:
        fd = try_lock(lock)
    except OSError:
        return 0  # the data dir is gone already
    if fd is None:
        return 0  # another watchdog watches this cluster
    try:
        reason = watch(pgdata)
    finally:
        unlock(fd)
    try:
        with (pgdata.parent / "postgres-watchdog.log").open("a") as log:
            log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {reason}\n")
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
