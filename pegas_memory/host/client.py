"""A process's connection to its data dir's engine host: the lease, calls, and recovery.

One `HostClient` per data dir per process (`acquire` / `release` count its users: the remote
vector index and the remote embedder share it). It holds a *lease*, a connection it never
writes to, which keeps the host alive while this process lives and which a thread watches: when
the host dies, the thread sees EOF at once and reconnects, waiting up to
`host_takeover_seconds` for the standby to take over and starting a new host otherwise (under
`start.lock`, so concurrent survivors start one). Calls use a small pool of other connections; a
call whose connection broke is sent again after the reconnect, within the takeover window
(every op is idempotent: an upsert, a delete, a read).

Reaching the host happens in that thread too, never in the caller: `open` returns at once, so
building a remote index or embedder (and a process-wide lock around it) never waits for a cold
host (2 to 5 s, more on a busy machine). A call made before the host answers waits at most
`wait_seconds` (half a tool's time limit, so the tool still answers in time) and then raises
`BackendUnavailable` saying the host is *starting*: the search reports its dense arm, the stats
their vector slice, as starting instead of the whole call failing.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import threading
import time
from typing import Any

from pegas_memory import locks
from pegas_memory.config import Settings
from pegas_memory.errors import BackendUnavailable
from pegas_memory.host import wire
from pegas_memory.host.paths import HostConfig, HostPaths, host_paths
from pegas_memory.procs import log_tail

log = logging.getLogger(__name__)

_CONNECT_TIMEOUT = 2.0
_POLL = 0.02
_RETRY_START_SECONDS = 1.0  # after a failed start, the background thread tries again this soon


def call_wait_seconds(settings: Settings) -> float:
    """How long a call waits for a host that is still starting: half a tool's time limit (the
    tool then still answers, with that engine reported as starting), at most the start timeout."""
    return max(0.0, min(settings.host_start_timeout, settings.tool_timeout / 2))


class HostClient:
    """Calls into the engine host of `settings.data_dir`, starting it when needed."""

    def __init__(self, settings: Settings) -> None:
        self.paths: HostPaths = host_paths(settings.data_dir)
        self.config = HostConfig.from_settings(settings)
        self._start_timeout = settings.host_start_timeout
        self._takeover = settings.host_takeover_seconds
        self._call_timeout = settings.host_call_timeout
        self.wait_seconds = call_wait_seconds(settings)
        self._ready = threading.Event()  # a lease is held: the host serves
        self._error: str | None = None  # why the last attempt to reach the host failed
        self._opened_at = time.monotonic()
        self._pool: list[socket.socket] = []
        self._pool_lock = threading.Lock()
        self._reconnect_lock = threading.Lock()
        self._closed = threading.Event()
        self._lease: socket.socket | None = None
        self._users = 0
        self._lease_thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def open(self) -> HostClient:
        """Start reaching the host (starting it if none runs) in the background; returns at once."""
        self._opened_at = time.monotonic()
        self._lease_thread = threading.Thread(
            target=self._run, name="pegas-host-lease", daemon=True
        )
        self._lease_thread.start()
        return self

    def _run(self) -> None:
        while not self.closed:
            try:
                self._reconnect()
                break
            except (BackendUnavailable, OSError) as exc:
                self._error = str(exc)
                log.warning("could not reach the engine host: %s; retrying", exc)
                self._closed.wait(_RETRY_START_SECONDS)
        self._watch_lease()

    @property
    def ready(self) -> bool:
        """Whether the host serves this process now (a lease is held)."""
        return self._ready.is_set()

    def wait_ready(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the host to serve; whether it does."""
        return self._ready.wait(max(0.0, timeout))

    def settled(self, grace: float = 0.5) -> bool:
        """Whether the host serves, giving a client opened under `grace` seconds ago the rest
        of that time to connect to a host that already runs (milliseconds), never longer."""
        left = grace - (time.monotonic() - self._opened_at)
        return self.wait_ready(left) if left > 0 else self.ready

    def state(self) -> str:
        """One line for the stats and warnings: serving, starting (for how long), or why not."""
        if self.ready:
            return f"the engine host of {self.config.data_dir} is serving"
        return self._not_ready_message()

    def _not_ready_message(self) -> str:
        elapsed = time.monotonic() - self._opened_at
        if self._error:
            return (
                f"the engine host of {self.config.data_dir} is starting again after a failed "
                f"start ({self._error}); try again in a few seconds"
            )
        return (
            f"the engine host of {self.config.data_dir} is starting ({elapsed:.1f} s so far; a "
            f"cold start loads the engines in 2 to 5 s): try again in a few seconds, "
            f"its log is {self.paths.log}"
        )

    def close(self) -> None:
        self._closed.set()
        with self._pool_lock:
            pool, self._pool = self._pool, []
        for sock in pool:
            sock.close()
        lease, self._lease = self._lease, None
        if lease is not None:
            with contextlib.suppress(OSError):
                lease.shutdown(socket.SHUT_RDWR)
            lease.close()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # ------------------------------------------------------------------ calls
    def call(
        self,
        op: str,
        args: dict[str, Any],
        *,
        timeout: float | None = -1.0,
        wait: float | None = None,
    ) -> Any:
        """Run `op` in the host; raises what the host raised, BackendUnavailable if unreachable.

        `timeout` -1 means `host_call_timeout`; None waits for ever (optimize). A host that is
        still starting is waited for `wait` seconds (None: `wait_seconds`), then this raises
        BackendUnavailable saying it is starting."""
        if self.closed:
            raise BackendUnavailable(
                "the connection to the engine host was closed; build a new index or embedder"
            )
        if not self.wait_ready(self.wait_seconds if wait is None else wait):
            raise BackendUnavailable(self._not_ready_message())
        limit = self._call_timeout if timeout == -1.0 else timeout
        # A broken connection is retried (every op is idempotent) until the takeover window
        # ends: right after a kill the old host's socket may still accept for a moment, and its
        # lease still look alive, so one retry was not enough (the first search after a host
        # kill lost its dense arm).
        retry_until = time.monotonic() + self._takeover + 1.0
        for attempt in itertools.count(1):
            sock: socket.socket | None = None
            try:
                sock = self._checkout()
                sock.settimeout(limit)
                wire.send_frame(sock, {"op": op, "args": args})
                answer = wire.recv_frame(sock)
            except TimeoutError as exc:
                if sock is not None:
                    sock.close()
                raise BackendUnavailable(
                    f"the engine host did not answer {op} within {limit} s; it may be building "
                    f"an index (see {self.paths.log}); try again"
                ) from exc
            except (OSError, wire.ConnectionLost) as exc:
                if sock is not None:
                    sock.close()
                self._drop_pool()
                if attempt > 1 and time.monotonic() > retry_until:
                    raise BackendUnavailable(
                        f"the engine host of {self.config.data_dir} went away during {op} "
                        f"({exc}); see {self.paths.log}"
                    ) from exc
                log.info("engine host connection lost during %s; reconnecting", op)
                if attempt > 1:
                    time.sleep(min(0.25, _POLL * attempt))  # let the kill finish, the lease see it
                self._reconnect()
                self.wait_ready(max(0.0, retry_until - time.monotonic()))
                continue
            self._checkin(sock)
            wire.raise_error(answer)
            return answer.get("ok")
        raise AssertionError("unreachable")

    def _checkout(self) -> socket.socket:
        with self._pool_lock:
            if self._pool:
                return self._pool.pop()
        return self._connect()

    def _checkin(self, sock: socket.socket) -> None:
        with self._pool_lock:
            if not self.closed and len(self._pool) < 8:
                self._pool.append(sock)
                return
        sock.close()

    def _drop_pool(self) -> None:
        with self._pool_lock:
            pool, self._pool = self._pool, []
        for sock in pool:
            sock.close()

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(_CONNECT_TIMEOUT)
        try:
            sock.connect(str(self.paths.socket))
        except OSError:
            sock.close()
            raise
        return sock

    # ------------------------------------------------------------------ the host's life
    def _reconnect(self) -> None:
        """Take a fresh lease: from the live host, its standby once it took over, or a new host."""
        with self._reconnect_lock:
            if self.closed:
                return
            if self._lease is not None and self._lease_alive(self._lease):
                return
            self._ready.clear()
            # Wait for a takeover only when a host or its standby is there to take over: on a
            # cold start nothing holds their locks and the host is started at once.
            lease = self._wait_for_host(self._takeover if self._host_expected() else 0)
            if lease is None:
                self._start_host()
                lease = self._wait_for_host(self._start_timeout)
            if lease is None and self.closed:
                return  # closed while the host was starting: nobody waits for it any more
            if lease is None:
                raise BackendUnavailable(
                    f"the engine host of {self.config.data_dir} did not start within "
                    f"{self._start_timeout:.0f} s; its log ({self.paths.log}) ends: "
                    f"{log_tail(self.paths.log, lines=6) or '(empty)'}"
                )
            old, self._lease = self._lease, lease
            if old is not None:  # shutdown wakes the watcher blocked in recv; close alone does not
                with contextlib.suppress(OSError):
                    old.shutdown(socket.SHUT_RDWR)
                old.close()
            self._error = None
            self._ready.set()

    def _host_expected(self) -> bool:
        """Whether a host serves or is about to: the active host or a standby holds its lock.
        (The kernel releases a dead holder's flock, so this cannot be fooled by a crash.)"""
        if not self.paths.directory.is_dir():
            return False  # no host ever ran on this data dir
        return locks.is_locked(self.paths.active_lock) or locks.is_locked(
            self.paths.directory / "standby.lock"
        )

    def _wait_for_host(self, seconds: float) -> socket.socket | None:
        deadline = time.monotonic() + seconds
        while not self.closed:
            try:
                sock = self._connect()
                wire.send_frame(sock, {"op": "lease", "args": {"pid": os.getpid()}})
                return sock
            except OSError:
                pass
            if time.monotonic() > deadline:
                return None
            time.sleep(_POLL)
        return None

    def _start_host(self) -> None:
        from pegas_memory.host.server import spawn_host

        self.paths.directory.mkdir(parents=True, exist_ok=True)
        with locks.held(self.paths.start_lock, self._start_timeout):
            probe = self._wait_for_host(0)  # someone else may have started it meanwhile
            if probe is not None:
                probe.close()
                return
            log.info("starting the engine host of %s", self.config.data_dir)
            proc = spawn_host(self.config, self.paths, standby=False)
            deadline = time.monotonic() + self._start_timeout
            while time.monotonic() < deadline and not self.closed:
                if self.paths.socket.exists():
                    probe = self._wait_for_host(0)
                    if probe is not None:
                        probe.close()
                        return
                if proc.poll() is not None and not locks.is_locked(self.paths.active_lock):
                    raise BackendUnavailable(
                        f"the engine host exited with status {proc.returncode}; its log "
                        f"({self.paths.log}) ends: {log_tail(self.paths.log, lines=6)}"
                    )
                time.sleep(_POLL)

    @staticmethod
    def _lease_alive(sock: socket.socket) -> bool:
        try:
            sock.setblocking(False)
            try:
                return sock.recv(1, socket.MSG_PEEK) != b""
            finally:
                sock.setblocking(True)
        except BlockingIOError:
            return True
        except OSError:
            return False

    def _watch_lease(self) -> None:
        while not self.closed:
            lease = self._lease
            if lease is None:
                time.sleep(_POLL)
                continue
            try:
                lease.settimeout(None)
                data = lease.recv(64)
            except OSError:
                data = b""
            if self.closed:
                return
            if data:
                continue
            log.info("the engine host went away; reconnecting")
            self._ready.clear()
            self._drop_pool()
            try:
                self._reconnect()
            except BackendUnavailable:
                log.warning("could not reach a new engine host; retrying", exc_info=True)
                time.sleep(1.0)


_clients: dict[str, tuple[HostClient, int]] = {}
_clients_lock = threading.Lock()


def acquire(settings: Settings) -> HostClient:
    """The process's client of `settings.data_dir`'s host, opened on first use. Never waits for
    the host (the client reaches it in its own thread), so this lock is held only briefly."""
    key = str(settings.data_dir)
    with _clients_lock:
        entry = _clients.get(key)
        if entry is not None and not entry[0].closed:
            _clients[key] = (entry[0], entry[1] + 1)
            return entry[0]
        client = HostClient(settings).open()
        _clients[key] = (client, 1)
        return client


def current(settings: Settings) -> HostClient | None:
    """The process's open client of `settings.data_dir`'s host, if something acquired it."""
    with _clients_lock:
        entry = _clients.get(str(settings.data_dir))
    return entry[0] if entry is not None and not entry[0].closed else None


def release(client: HostClient) -> None:
    """One user fewer; the last one closes the client (and so drops this process's lease)."""
    key = str(client.config.data_dir)
    with _clients_lock:
        entry = _clients.get(key)
        if entry is None or entry[0] is not client:
            client.close()
            return
        if entry[1] <= 1:
            del _clients[key]
            client.close()
        else:
            _clients[key] = (client, entry[1] - 1)
