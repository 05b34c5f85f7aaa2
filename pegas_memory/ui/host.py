"""What a family of pages (`ui/documents.py`, `ui/review.py`, `ui/gaps.py`, `ui/jobs.py`, ...)
needs of the UI application (`ui/app.py`): the service, the curator, rendering, and the two
wrappers every route goes through (a read, a change with its checks). A Protocol, so the
families never import the application that registers them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

from pegas_memory.app.service import MemoryService
from pegas_memory.ui.curation import Curator


class PageHost(Protocol):
    service: MemoryService
    curator: Curator

    def render(self, request: Request, name: str, status_code: int = 200, **ctx: Any) -> Response:
        """A template rendered with the session's context (CSRF field, token state, path)."""
        ...

    def page(self, handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """A GET route: the token and read checks, errors as pages."""
        ...

    def change(self, handler: Callable[[Request, dict[str, str]], str]) -> Callable[..., Any]:
        """A POST route that changes the memory, behind the token, CSRF and Origin checks."""
        ...
