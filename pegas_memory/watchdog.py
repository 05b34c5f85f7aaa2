"""The watchdog of an embedded server: stops it when its data dir vanishes or its last user is
gone, whoever the server is (PostgreSQL in `db.pg_watchdog`, FalkorDB in
`memgraph_store.falkor_watchdog`).

An embedded server is shared by the processes of one data dir and stopped by the last of them
on a clean exit. A user killed by SIGKILL never gets there, nor does one whose temporary data
dir is deleted under the running server (a test's tmp dir): the server then runs until a later
start on that data dir prunes the dead, and that start may never come. So whoever starts the
server also starts a small watchdog process (one per server: it holds a flock, and a second one
exits at once). Every `POLL_SECONDS` it looks at the server:

- its directory is gone or replaced (another inode): the server is stopped at once (nothing is
  left to keep), then the watchdog exits;
- no process of the server's user list is alive (zombies count as dead) for `GRACE_SECONDS`:
  under the server's start lock, so that no process joins meanwhile, the list is read again and
  the server is stopped gracefully;
- the server is not running and nobody uses it: nothing to watch, it exits.

What differs between servers (where the user list and the pid are, how to stop one) is a
`Watched`; the loop, the process lifecycle and the lock handling are here. Only the standard
library and two leaf modules are imported, and a watchdog is started by its module's file path
(see `spawn`), so it costs a few megabytes, not the service's imports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pegas_memory.locks import is_locked, try_lock, unlock
from pegas_memory.procs import process_state

POLL_SECONDS = 1.0
GRACE_SECONDS = 3.0  # users gone this long before the server is stopped


@dataclass(frozen=True, slots=True)
class Watched:
    """One embedded server as its watchdog sees it.

    `users_alive()`: whether a process of its user list lives (None: the list is unreadable
    right now, taken as "maybe"); `server_pid()`: the pid its pid file names, if any;
    `stop(pid, immediate)`: stop it (immediate when its files are gone), return once it is."""

    directory: Path
    start_lock: Path
    users_alive: Callable[[], bool | None]
    server_pid: Callable[[], int | None]
    stop: Callable[[int, bool], None]


def any_alive(pids: Iterable[object]) -> bool:
    """Whether one of these (int) pids is a live process; zombies and non-ints count as dead."""
    return any(isinstance(p, int) and p > 0 and process_state(p) == "alive" for p in pids)


def signal_and_wait(
    pid: int,
    sig: int,
    timeout: float,
    *,
    done: Callable[[], bool] = lambda: False,
) -> None:
    """Send `sig` to pid and wait until it is gone; SIGKILL it if it is still there once
    `done()` holds (nothing left that it must finish) or after `timeout`."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while process_state(pid) == "alive" and not done():
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if process_state(pid) == "alive":
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def watch(
    target: Watched,
    *,
    poll: float = POLL_SECONDS,
    grace: float = GRACE_SECONDS,
    inode: int | None = None,
    pid: int | None = None,
) -> str:
    """Watch the server until there is nothing left to watch; why it ended. `inode` and `pid`
    are what the spawner saw (its directory's inode, the server): a directory deleted before
    this process first looks is still noticed, and its server still found."""
    inode = inode or _inode(target.directory)
    pid = target.server_pid() or pid
    idle_since: float | None = None
    while True:
        if inode is None or _inode(target.directory) != inode:
            if pid is not None and process_state(pid) == "alive":
                target.stop(pid, True)
                return "data directory vanished: server stopped"
            return "data directory vanished"
        pid = target.server_pid() or pid
        running = pid is not None and process_state(pid) == "alive"
        users = target.users_alive()
        if users is not False:
            idle_since = None
        elif not running:
            return "server stopped and no user left"
        else:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since >= grace and pid is not None:
                fd = try_lock(target.start_lock)
                if fd is not None:
                    try:
                        if target.users_alive() is False and target.server_pid() == pid:
                            target.stop(pid, False)
                            return "last user gone: server stopped"
                    finally:
                        unlock(fd)
                idle_since = None  # someone is starting or joining: look again later
        time.sleep(poll)


def spawn(script: Path, directory: Path, lock: Path, name: str, server_pid: int | None) -> None:
    """Run `script` (a watchdog module's file) on `directory` unless a watchdog holds `lock`;
    it is told the directory's inode and the server's pid as seen now (see `watch`).

    Detached (own session, no inherited descriptors: a client waiting for a server's stdout to
    close is not held up by it) and reaped by a thread here if it exits before this process."""
    if is_locked(lock):
        return
    inode = _inode(directory) or 0
    root = str(Path(__file__).resolve().parents[1])
    boot = (
        "import runpy, sys; sys.path.insert(0, sys.argv[1]); "
        "runpy.run_path(sys.argv[2], run_name='__main__')"
    )
    proc = subprocess.Popen(
        [
            # -I -S: no site-packages, no user environment; the boot is a third cheaper.
            *(sys.executable, "-I", "-S", "-c", boot, root, str(Path(script).resolve())),
            str(directory),
            *(str(inode), str(server_pid or 0)),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
        start_new_session=True,
        close_fds=True,
    )
    threading.Thread(target=proc.wait, name=f"pegas-{name}-watchdog-reaper", daemon=True).start()


def parse_args(argv: list[str]) -> tuple[Path, int | None, int | None]:
    """A watchdog's command line: its directory, then the inode and pid `spawn` saw (0: none)."""
    if len(argv) >= 4 and argv[-1].isdigit() and argv[-2].isdigit():
        return Path(argv[-3]), int(argv[-2]) or None, int(argv[-1]) or None
    return Path(argv[-1]), None, None


def run(
    target: Watched, lock: Path, log: Path, *, inode: int | None = None, pid: int | None = None
) -> int:
    """A watchdog process's body: hold `lock` (or leave: another one watches), watch, and
    append why it ended to `log`."""
    try:
        fd = try_lock(lock)
    except OSError:
        if inode is None:
            return 0  # the data dir is gone already, and what it held was never seen
        fd = None  # gone since `spawn` saw it: no lock to take, its server still to stop
    else:
        if fd is None:
            return 0  # another watchdog watches this server
    try:
        reason = watch(target, inode=inode, pid=pid)
    finally:
        unlock(fd)
    try:
        with log.open("a") as out:
            out.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {reason}\n")
    except OSError:
        pass
    return 0
