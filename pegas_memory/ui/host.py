"""What a family of UI pages needs from the application that serves them (`ui/app.py`'s
`UiApp`): the service, rendering a template, and wrapping a handler as a GET page (token,
errors). The graph and code pages ask for this Protocol, not for the app, so nothing imports
upward or in a circle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

from pegas_memory.app.service import MemoryService


class PageHost(Protocol):
    service: MemoryService

    def render(self, request: Request, name: str, status_code: int = 200, **ctx: Any) -> Response:
        """The template `name` rendered with `ctx` and what every page shows."""
        ...

    def page(self, handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """`handler` as a GET page: the session token checks and the service's errors as
        pages."""
        ...
