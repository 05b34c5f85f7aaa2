"""The engine host process: serves one data dir's engines on a unix socket, with a warm standby.

Roles (see docs/decisions/0005-shared-engines.md):

- Every host process first takes `standby.lock` (a process spawned *as* standby gives up at once
  if another standby holds it, so there is at most one), loads the model, then waits for
  `active.lock`.
- The holder of `active.lock` is the *active* host: it opens the vector store, binds the socket
  and serves; it keeps a standby alive (spawns one whenever `standby.lock` is free).
- A standby that gets `active.lock` took over from a host that died (SIGKILL, OOM): it already
  has the model in memory, so the others are served again within a fraction of a second. If the
  active host left a `stopped` marker, it exited cleanly (no users left) and the standby exits
  too.
- Users hold a *lease*: one connection per process, kept open for the life of its client. The
  kernel closes it when the user dies, so the count is right without pid files. With no lease
  for `idle_seconds` (<= 0: never) the active host exits cleanly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from typing import Any

from pegas_memory import locks
from pegas_memory.errors import InvalidInput, PegasMemoryError
from pegas_memory.host import wire
from pegas_memory.host.engines import HostEngines
from pegas_memory.host.paths import HostConfig, HostPaths, host_paths

log = logging.getLogger(__name__)

STANDBY_CHECK_SECONDS = 1.0


def spawn_host(config: HostConfig, paths: HostPaths, *, standby: bool) -> subprocess.Popen[bytes]:
    """Start a host process in its own session (it outlives whoever started it)."""
    paths.directory.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, "-m", "pegas_memory.host", *config.to_args()]
    if standby:
        args.append("--standby")
    with open(paths.log, "ab") as logfile:
        return subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )


class _Handler(socketserver.BaseRequestHandler):
    server: _UnixServer

    def handle(self) -> None:
        host = self.server.host
        sock: socket.socket = self.request
        while True:
            try:
                request = wire.recv_frame(sock)
            except (OSError, wire.ConnectionLost, ValueError):
                return
            op = str(request.get("op"))
            if op == "lease":
                host.hold_lease(sock)
                return
            answer = host.answer(op, request.get("args") or {})
            try:
                wire.send_frame(sock, answer)
            except (OSError, PegasMemoryError):
                return


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, path: str, host: ActiveHost) -> None:
        self.host = host
        super().__init__(path, _Handler)


class ActiveHost:
    """The serving half: socket, leases, idle exit, the standby."""

    def __init__(self, config: HostConfig, paths: HostPaths, engines: HostEngines) -> None:
        self.config = config
        self.paths = paths
        self.engines = engines
        self.stop = threading.Event()
        self._leases = 0
        self._lease_lock = threading.Lock()
        self._idle_since = time.monotonic()
        self._server: _UnixServer | None = None
        self._standby: subprocess.Popen[bytes] | None = None
        self.final = False  # told to stop for good (`pegas-memory host --stop`)

    @property
    def leases(self) -> int:
        with self._lease_lock:
            return self._leases

    def hold_lease(self, sock: socket.socket) -> None:
        with self._lease_lock:
            self._leases += 1
        try:
            sock.settimeout(None)
            while sock.recv(64):  # a user never sends on its lease; EOF means it left
                pass
        except OSError:
            pass
        finally:
            with self._lease_lock:
                self._leases -= 1
                if self._leases == 0:
                    self._idle_since = time.monotonic()

    def answer(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "shutdown":
            self.final = True
            self.stop.set()
            return {"ok": True}
        if op == "leases":
            return {"ok": self._leases}
        try:
            return {"ok": self.engines.call(op, args)}
        except PegasMemoryError as exc:
            return wire.error_answer(exc)
        except (KeyError, TypeError, ValueError) as exc:
            return wire.error_answer(InvalidInput(f"malformed request to {op}: {exc!r}"))
        except Exception as exc:  # a bug: logged here, an outage for the caller
            log.exception("engine host op %s failed", op)
            return {"error": {"kind": "BackendUnavailable", "message": f"{op} failed: {exc!r}"}}

    def serve(self) -> None:
        self.engines.index()  # open the store before anyone is told we serve
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.paths.socket)  # a dead host's; we hold active.lock
        self.paths.socket.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._server = _UnixServer(str(self.paths.socket), self)
        os.chmod(self.paths.socket, 0o600)
        self.paths.pidfile.write_text(str(os.getpid()))
        thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # shutdown() waits one interval
            name="host-accept",
        )
        thread.start()
        log.info(
            "engine host %d serving %s on %s", os.getpid(), self.config.data_dir, self.paths.socket
        )
        try:
            self._watch()
        finally:
            # Stop accepting first, so a newcomer starts a fresh host instead of reaching us.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.paths.socket)
            self._server.shutdown()
            self._server.server_close()
            thread.join(5)

    def stop_standby(self, seconds: float = 10.0) -> None:
        """Stop the standby this host spawned and wait for it (told to stop for good: a standby
        still starting would otherwise outlive `pegas-memory host --stop`, which waits for this
        process only)."""
        standby = self._standby
        if standby is None or standby.poll() is not None:
            return
        standby.terminate()  # its SIGTERM handler stops it at the next wait
        try:
            standby.wait(seconds)
        except subprocess.TimeoutExpired:
            standby.kill()
            standby.wait()

    def _keep_standby(self) -> None:
        """Spawn a standby unless one waits (holds standby.lock) or the last one is starting."""
        starting = self._standby is not None and self._standby.poll() is None
        if starting or locks.is_locked(self.paths.directory / "standby.lock"):
            return
        self._standby = spawn_host(self.config, self.paths, standby=True)

    def _watch(self) -> None:
        next_standby_check = 0.0
        while not self.stop.wait(0.1):
            now = time.monotonic()
            if now >= next_standby_check:
                next_standby_check = now + STANDBY_CHECK_SECONDS
                self._keep_standby()
            idle = self.config.idle_seconds
            with self._lease_lock:
                gone = self._leases == 0 and idle > 0 and now - self._idle_since > idle
            if gone:
                log.info("engine host %d: no users for %.0f s, exiting", os.getpid(), idle)
                return


def run_host(config: HostConfig, *, standby: bool) -> int:
    """The host process's main: wait for its turn, then serve until idle or told to stop."""
    paths = host_paths(config.data_dir)
    paths.directory.mkdir(parents=True, exist_ok=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    standby_path = paths.directory / "standby.lock"
    standby_fd = locks.try_lock(standby_path) if standby else locks.wait_lock(standby_path, stop)
    if standby_fd is None:
        return 0  # another standby is already waiting (or we were stopped)
    engines = HostEngines(config)
    active_fd: int | None = None
    try:
        engines.warm_up()
        active_fd = locks.wait_lock(paths.active_lock, stop)
        if active_fd is None:
            return 0
        locks.unlock(standby_fd)
        standby_fd = None
        marker = paths.directory / "stopped"
        if standby and marker.exists():
            log.info(
                "engine host %d: the active host stopped cleanly; not taking over", os.getpid()
            )
            return 0
        with contextlib.suppress(FileNotFoundError):
            marker.unlink()
        active = ActiveHost(config, paths, engines)
        active.stop = stop
        active.serve()
        if active.final or active.leases == 0:  # a clean exit: the standby must not take over
            marker.write_text(str(os.getpid()))
        if active.final:
            active.stop_standby()
        return 0
    finally:
        engines.close()
        locks.unlock(standby_fd)
        locks.unlock(active_fd)
