"""The embedded PostgreSQL's watchdog: stops the server when its data dir vanishes or its last
user is gone (kill -9 included), the way the engine host exits when idle.

The library stops the server when its last handle is released, at exit of the last process
using it; a process killed by SIGKILL never gets there, and two postmasters were found still
running after the e2e tests that way. Whoever starts the server also starts this process (one
per cluster). The loop is the shared `pegas_memory.watchdog`; this module says where the
cluster's user list (`.handle_pids.json`) and postmaster pid are, and how it is stopped: an
immediate shutdown (SIGQUIT) when the data dir is gone, else a fast one (SIGINT: clients cut, a
checkpoint written, so the next start needs no recovery), under the cluster's start lock.

It imports only the standard library and leaf modules, and is started by file path (see
`spawn`), so it costs a few megabytes, not the service's imports.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pegas_memory.watchdog as watchdog
from pegas_memory.watchdog import GRACE_SECONDS, POLL_SECONDS

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
    return watchdog.any_alive(pids if isinstance(pids, list) else [])


def postmaster_pid(pgdata: Path) -> int | None:
    try:
        return int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop_server(pid: int, *, immediate: bool) -> None:
    """Shut the postmaster down (immediate: SIGQUIT, else fast: SIGINT); SIGKILL if it is still
    there after STOP_WAIT_SECONDS."""
    watchdog.signal_and_wait(pid, signal.SIGQUIT if immediate else signal.SIGINT, STOP_WAIT_SECONDS)


def watched(pgdata: Path) -> watchdog.Watched:
    return watchdog.Watched(
        directory=pgdata,
        start_lock=cluster_lock_path(pgdata),
        users_alive=lambda: live_users(pgdata),
        server_pid=lambda: postmaster_pid(pgdata),
        stop=lambda pid, immediate: stop_server(pid, immediate=immediate),
    )


def watch(pgdata: Path, *, poll: float = POLL_SECONDS, grace: float = GRACE_SECONDS) -> str:
    """Watch the cluster until there is nothing left to watch; why it ended."""
    return watchdog.watch(watched(pgdata), poll=poll, grace=grace)


def spawn(pgdata: Path) -> None:
    """Start the cluster's watchdog unless one runs (`watchdog.spawn`)."""
    watchdog.spawn(Path(__file__), pgdata, watchdog_lock_path(pgdata), "pg", postmaster_pid(pgdata))


def main(argv: list[str]) -> int:
    pgdata, inode, pid = watchdog.parse_args(argv)
    log = pgdata.parent / "postgres-watchdog.log"
    return watchdog.run(watched(pgdata), watchdog_lock_path(pgdata), log, inode=inode, pid=pid)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
