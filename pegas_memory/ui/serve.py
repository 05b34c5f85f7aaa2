"""Starting the UI: the bind policy, the session token, the HTTP server (uvicorn on a socket
bound here, so port 0 works and the printed address is the real one)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.ui.app import build_app
from pegas_memory.ui.auth import TOKEN_PARAM, Guard, check_bind, is_loopback, session_token
from pegas_memory.ui.auth import write_token as keep_token

START_SECONDS = 30.0


class UiServer:
    """The UI of `service` on `host:port`, run in the foreground (`run`) or in a thread."""

    def __init__(
        self,
        service: MemoryService,
        guard: Guard,
        host: str,
        port: int,
        *,
        app: ASGIApp | None = None,
    ):
        """`app`: serve this application (with its lifespan) instead of the UI's own pages;
        `serve --http` passes the MCP endpoint with the pages beside it."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.create_server((host.strip("[]"), port), family=family)
        self.host = host
        self.port = int(self.sock.getsockname()[1])
        self.guard = guard
        config = uvicorn.Config(
            app or build_app(service, guard),
            log_level="warning",
            access_log=False,
            lifespan="off" if app is None else "on",
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host.strip('[]')}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def login_url(self) -> str:
        """The address that hands the browser its session token (printed at start)."""
        return f"{self.url}/?{TOKEN_PARAM}={self.guard.token}"

    def run(self) -> None:
        self.server.run(sockets=[self.sock])

    def start(self) -> UiServer:
        self._thread = threading.Thread(target=self.run, name="pegas-ui", daemon=True)
        self._thread.start()
        done = threading.Event()
        while not self.server.started and self._thread.is_alive():
            done.wait(0.02)
        if not self.server.started:
            raise RuntimeError("the UI server did not start (see the log)")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(START_SECONDS)
        self.sock.close()


def serve_ui(
    settings: Settings,
    host: str,
    port: int,
    *,
    say: Callable[[str], None] = lambda line: print(line, flush=True),
) -> int:
    """`pegas-memory ui`: check the bind, make and keep the token, open the memory, serve until
    Ctrl-C or SIGTERM. Raises `auth.BindRefused` before anything opens when the bind is unsafe."""
    check_bind(host, settings.ui_token)
    token = session_token(settings.ui_token)
    kept: Path = keep_token(settings.data_dir, token)
    guard = Guard(token, reads_need_token=not is_loopback(host))
    with MemoryService(settings) as service:
        service.start_background()  # a process of the data dir like serve: outbox, jobs
        ui = UiServer(service, guard, host, port)
        say(f"pegas-memory ui on {ui.url} (data dir {settings.data_dir})")
        say(f"open {ui.login_url} to allow changes in this browser")
        say(f"the session token is kept in {kept} (owner only)")
        ui.run()
    return 0
