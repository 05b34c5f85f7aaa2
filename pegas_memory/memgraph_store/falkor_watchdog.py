"""The embedded FalkorDB's watchdog: stops a data dir's redis-server when its graph directory
vanishes or when every process of its user list (`graph/users`) has been dead for 3 s, however
they died (kill -9 included), so no redis-server outlives its users.

The counterpart of `db.pg_watchdog`, on the shared loop of `pegas_memory.watchdog`: whoever
starts or joins the server (`falkor.EmbeddedFalkorServer.acquire`, a restart) makes sure one
runs. A graceful stop is the one `falkor` itself does on the last release, written here once for
both: fold the AOF into its RDB base (so the next start loads at disk speed instead of replaying
queries), SIGTERM (redis's SHUTDOWN: fsync the AOF, remove pid file and socket), and SIGKILL once
the socket is gone (the FalkorDB module spends about 2 s joining its thread pools after that,
with nothing left to persist). When the directory is gone there is nothing to keep: SIGKILL.

Like the PostgreSQL one it imports only the standard library and leaf modules (it speaks the
two redis commands it needs over the unix socket itself) and is started by file path.
"""

from __future__ import annotations

import contextlib
import signal
import socket as sockets
import sys
import time
from pathlib import Path

import pegas_memory.watchdog as watchdog
from pegas_memory.procs import process_state, socket_path

STOP_WAIT_SECONDS = 30.0  # SIGTERM until the socket is gone; then SIGKILL
COMPACT_WAIT_SECONDS = 120.0


def server_socket(directory: Path) -> Path:
    """The graph server's unix socket (a short path under /tmp for a deep data dir)."""
    return socket_path(directory, "redis.sock", "graph")


def watchdog_lock_path(directory: Path) -> Path:
    return directory / "watchdog.lock"


def is_redis_process(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def read_pid(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None


def live_users(directory: Path) -> bool | None:
    """Whether a process of the server's user list ("<pid> <token>" lines) is alive; None if
    the list is unreadable right now."""
    try:
        lines = (directory / "users").read_text().splitlines()
    except FileNotFoundError:
        return False
    except OSError:
        return None
    pids = [int(text) for text, _, _ in (line.partition(" ") for line in lines) if text.isdigit()]
    return watchdog.any_alive(pids)


def server_pid(directory: Path) -> int | None:
    """The redis-server the pid file names (None if it names nothing, or another program)."""
    pid = read_pid(directory / "redis.pid")
    return pid if pid is not None and is_redis_process(pid) else None


def _command(socket: Path, *words: str, timeout: float = 10.0) -> bytes:
    """One redis command over the unix socket; its reply (a status line or a bulk string)."""
    request = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(socket))
        conn.sendall(request.encode())
        reply = b""
        while b"\r\n" not in reply:
            chunk = conn.recv(65536)
            if not chunk:
                raise OSError("the graph server closed the connection")
            reply += chunk
        head, _, rest = reply.partition(b"\r\n")
        if head.startswith(b"-"):
            raise OSError(head[1:].decode(errors="replace"))
        if not head.startswith(b"$"):
            return head[1:]
        size = int(head[1:])
        while len(rest) < size + 2:
            chunk = conn.recv(65536)
            if not chunk:
                raise OSError("the graph server closed the connection")
            rest += chunk
        return rest[:size]


def compact_aof(socket: Path, timeout: float = COMPACT_WAIT_SECONDS) -> bool:
    """Fold the AOF into its RDB base (FalkorDB replays logged queries about ten times slower
    than it ran them; an RDB base loads at disk speed). Whether it finished within `timeout`."""
    try:
        _command(socket, "BGREWRITEAOF")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = _command(socket, "INFO", "persistence").decode(errors="replace")
            if "aof_rewrite_in_progress:0" in info and "aof_rewrite_scheduled:0" in info:
                return True
            time.sleep(0.05)
    except (OSError, ValueError):
        pass
    return False


def stop_server(
    pid: int, socket: Path, *, immediate: bool, timeout: float = STOP_WAIT_SECONDS
) -> None:
    """Stop the graph server `pid` listening on `socket`; returns once it is gone (or killed)."""
    if not is_redis_process(pid):
        return  # gone already, its pid taken by another program
    if immediate:
        watchdog.signal_and_wait(pid, signal.SIGKILL, timeout)
        with contextlib.suppress(OSError):
            socket.unlink()
        return
    compact_aof(socket)
    watchdog.signal_and_wait(pid, signal.SIGTERM, timeout, done=lambda: not socket.exists())
    if is_redis_process(pid) and process_state(pid) == "alive":
        watchdog.signal_and_wait(pid, signal.SIGKILL, 10.0)


def watched(directory: Path) -> watchdog.Watched:
    socket = server_socket(directory)
    return watchdog.Watched(
        directory=directory,
        start_lock=directory / "lock",
        users_alive=lambda: live_users(directory),
        server_pid=lambda: server_pid(directory),
        stop=lambda pid, immediate: stop_server(pid, socket, immediate=immediate),
    )


def spawn(directory: Path) -> None:
    """Start the graph server's watchdog unless one runs (`watchdog.spawn`)."""
    lock = watchdog_lock_path(directory)
    watchdog.spawn(Path(__file__), directory, lock, "graph", server_pid(directory))


def main(argv: list[str]) -> int:
    directory, inode, pid = watchdog.parse_args(argv)
    lock, log = watchdog_lock_path(directory), directory / "watchdog.log"
    return watchdog.run(watched(directory), lock, log, inode=inode, pid=pid)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
