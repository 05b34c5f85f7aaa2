"""`pegas-memory serve --http`: the MCP streamable HTTP endpoint and, on the same port, the
person's pages of `pegas-memory ui` over the same `MemoryService`, so a person sees the memory
live beside the agents that use it (issue 31).

One token guards both, as `pegas-memory ui` does (`ui/auth.py`): `PEGAS_UI_TOKEN`, or a random
one made at start, printed and kept 0600 in `data_dir/ui/token`. Binding to anything but
loopback without a configured token refuses to start. On loopback the MCP endpoint stays open
(the SDK's DNS-rebinding check guards it) and the pages want the token for changes; elsewhere
the MCP endpoint wants it as `Authorization: Bearer <token>` and the pages want it for reading
too.
"""

from __future__ import annotations

import hmac
import sys
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.errors import SettingsProblem
from pegas_memory.server.app import build_server
from pegas_memory.ui.app import build_app
from pegas_memory.ui.auth import Guard, check_bind, is_loopback, session_token, write_token
from pegas_memory.ui.serve import UiServer


class BearerGate:
    """The MCP endpoint behind the session token (`Authorization: Bearer <token>`): anything
    else is answered 401 before the MCP layer sees the request."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.token = token.encode()

    def allows(self, header: bytes | None) -> bool:
        scheme, _, presented = (header or b"").partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(presented.strip(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if not self.allows(headers.get(b"authorization")):
                body = (
                    b'{"error": "this MCP endpoint wants the session token: '
                    b'Authorization: Bearer <token> (PEGAS_UI_TOKEN)"}'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="pegas-memory"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(
    settings: Settings,
    problem: SettingsProblem | None,
    *,
    host: str,
    path: str,
    guard: Guard,
    service: MemoryService | None = None,
) -> tuple[Starlette, MemoryService]:
    """The MCP endpoint at `path` and the UI's pages at every other path, sharing one service
    (opened and closed by the application's lifespan). Raises ValueError for a `path` the
    pages would shadow."""
    if path.rstrip("/") == "":
        raise ValueError("the MCP endpoint path must not be / (the pages are served there)")
    service = service or MemoryService(settings)
    app = build_server(settings, problem, service=service).streamable_http_app(
        streamable_http_path=path, host=host
    )
    if guard.reads_need_token:
        app.router.routes = [
            Route(r.path, endpoint=BearerGate(r.endpoint, guard.token))
            if isinstance(r, Route) and r.path == path
            else r
            for r in app.router.routes
        ]
    app.router.routes.append(Mount("/", app=build_app(service, guard)))
    return app, service


def serve_http(
    settings: Settings,
    problem: SettingsProblem | None,
    host: str,
    port: int,
    path: str,
    *,
    say: Callable[[str], Any] = lambda line: print(line, file=sys.stderr, flush=True),
) -> int:
    """Serve until SIGTERM or Ctrl-C. Raises `ui.auth.BindRefused` before anything opens when
    the bind is unsafe, OSError when the address cannot be bound."""
    check_bind(host, settings.ui_token)
    token = session_token(settings.ui_token)
    kept = write_token(settings.data_dir, token)
    guard = Guard(token, reads_need_token=not is_loopback(host))
    app, service = http_app(settings, problem, host=host, path=path, guard=guard)
    server = UiServer(service, guard, host, port, app=app)
    say(f"pegas-memory MCP (streamable HTTP) on {server.url}{path}; pages on {server.url}/")
    say(f"open {server.login_url} to allow changes in this browser")
    if guard.reads_need_token:
        say(f"MCP clients send the token as Authorization: Bearer (kept in {kept}, owner only)")
    else:
        say(f"the session token is kept in {kept} (owner only)")
    server.run()
    return 0
