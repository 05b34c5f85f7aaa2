"""The UI's web application: routes, page assembly and the checks every request passes.

Pages are rendered on the server from Jinja2 templates with autoescaping on (atoms come from
untrusted documents: their words are only ever text). No build step, nothing fetched from the
network: stylesheets and scripts are files of the package (the vendored Cytoscape.js and
`graph.js` for the graph page, a few lines of plain JavaScript for the jobs' live progress,
`static/jobs.js`); no inline script runs (the Content-Security-Policy says so). Reads go through
the `MemoryService` the MCP tools use (memory_stats, memory_search with its filters, the gap and
job lists) and the SQL of `ui/queries.sql`; changes through `ui/curation.py`, after
`ui/auth.py`'s checks. The overview's slice health is the latest check kept by `ui/health.py`.
The document page, the review queue, the gaps page, the jobs' JSON, the graph and the code pages
are in `ui/documents.py`, `ui/review.py`, `ui/gaps.py`, `ui/jobs.py`, `ui/graph.py` and
`ui/code.py`, registered here.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import pegas_memory.ui.queries as uq
from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput, NotFound, PegasMemoryError
from pegas_memory.models import ATOM_STATUSES, ATOM_TYPES, GapStatus, JobState
from pegas_memory.search.filters import SearchFilter
from pegas_memory.ui.auth import COOKIE, CSRF_FIELD, TOKEN_PARAM, Guard
from pegas_memory.ui.code import CodePages
from pegas_memory.ui.curation import CLOSED_GAP, UNDOABLE, Curator
from pegas_memory.ui.documents import DocumentPages
from pegas_memory.ui.gaps import GapPages
from pegas_memory.ui.graph import GraphPages
from pegas_memory.ui.health import KeptCheck
from pegas_memory.ui.highlight import citation_view as _citation_view
from pegas_memory.ui.jobs import JobPages, job_link
from pegas_memory.ui.review import ReviewPages

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STORES = ("both", "atoms", "passages")
AUDIT_PER_PAGE = 50
SEARCH_LIMIT = 30
MAX_SEARCH_DOCS = 20  # documents one search may be kept to
MAX_TOPICS_LISTED = 200
MAX_TOPIC_CHARS = 200
DEFAULT_LANGUAGES = ("en", "ru")  # offered even before a document in them is ingested
LANGUAGE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8})?")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template, whatever its name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda x: f"{float(x):.2f}"
    env.globals["undoable"] = UNDOABLE  # the audit table's macro offers undo for these
    return env


def _int(value: str | None, default: int, lo: int = 0, hi: int = 10**9) -> int:
    try:
        return max(lo, min(hi, int(value))) if value not in (None, "") else default
    except ValueError:
        return default


def search_filters(q: QueryParams) -> SearchFilter:
    """The search page's filters from its query string, as memory_search takes them; a value
    that is not one of them (an unknown type, a malformed id or language) is left out."""
    docs = []
    for value in q.getlist("doc"):
        try:
            docs.append(int(value))
        except ValueError:
            continue
    topics = [t.strip() for t in q.getlist("topic") if t.strip()]
    return SearchFilter(
        types=tuple(t for t in q.getlist("type") if t in ATOM_TYPES),
        statuses=tuple(s for s in q.getlist("status") if s in ATOM_STATUSES),
        doc_ids=tuple(dict.fromkeys(d for d in docs if d > 0))[:MAX_SEARCH_DOCS],
        topics=tuple(dict.fromkeys(t for t in topics if len(t) <= MAX_TOPIC_CHARS)),
        languages=tuple(
            dict.fromkeys(
                x for x in (v.strip().lower() for v in q.getlist("lang")) if LANGUAGE.fullmatch(x)
            )
        ),
    )


def _local_path(value: str | None, default: str) -> str:
    """A redirect target from a form: a path of this server only (never `//host` or a URL)."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return default


class UiApp:
    """The pages of one memory, served by Starlette; `guard` holds the session token."""

    def __init__(self, service: MemoryService, guard: Guard):
        self.service = service
        self.guard = guard
        self.curator = Curator(service)
        self.env = _environment()
        # The slices' health, checked at most once a self-check period (ui/health.py).
        self.health = KeptCheck(service.slice_stats, service.settings.slice_check_seconds)

    # ------------------------------------------------------------------ plumbing
    def render(self, request: Request, name: str, status_code: int = 200, **ctx: Any) -> Response:
        ctx |= {
            "csrf": self.guard.csrf,
            "csrf_field": CSRF_FIELD,
            "path": request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            "has_token": self.guard.token_ok(request.cookies.get(COOKIE)),
        }
        html = self.env.get_template(name).render(**ctx)
        return HTMLResponse(html, status_code=status_code)

    def problem(self, request: Request, status: int, message: str) -> Response:
        return self.render(request, "problem.html", status_code=status, message=message)

    def page(self, handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """A GET page: a `?token=` is turned into the session cookie (and dropped from the
        address); a non-loopback server wants the cookie for reading too; errors of the
        service become pages saying what went wrong."""

        def endpoint(request: Request) -> Response:
            presented = request.query_params.get(TOKEN_PARAM)
            if presented is not None:
                if not self.guard.token_ok(presented):
                    return self.problem(request, 403, "that token is not this server's token")
                query = urlencode(
                    [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
                )
                response = RedirectResponse(
                    request.url.path + (f"?{query}" if query else ""), status_code=303
                )
                response.set_cookie(
                    COOKIE, self.guard.token, httponly=True, samesite="strict", path="/"
                )
                return response
            if self.guard.reads_need_token and not self.guard.token_ok(request.cookies.get(COOKIE)):
                return self.problem(
                    request,
                    403,
                    "this server wants its token for reading too: open the link "
                    "`pegas-memory ui` printed (…/?token=…)",
                )
            return self._answer(request, handler)

        return endpoint

    def change(self, handler: Callable[[Request, dict[str, str]], str]) -> Callable[..., Any]:
        """A POST that changes the memory: refused with 403 (before anything runs) unless the
        session cookie, the CSRF field and the Origin/Referer all hold; then the handler runs
        and the browser is sent back to the form's `next` page."""

        async def endpoint(request: Request) -> Response:
            form = await request.form()
            fields = {k: v for k, v in form.items() if isinstance(v, str)}
            why = self.guard.why_refused(
                cookie=request.cookies.get(COOKIE),
                csrf=fields.get(CSRF_FIELD),
                origin=request.headers.get("origin"),
                referer=request.headers.get("referer"),
                host=request.headers.get("host"),
            )
            if why is not None:
                log.warning("UI change refused (%s %s): %s", request.method, request.url.path, why)
                return self.problem(request, 403, why)

            def run() -> Response:
                target = handler(request, fields)
                return RedirectResponse(_local_path(fields.get("next"), target), status_code=303)

            return await run_in_threadpool(self._answer, request, lambda _r: run())

        return endpoint

    def _answer(self, request: Request, handler: Callable[[Request], Response]) -> Response:
        try:
            return handler(request)
        except NotFound as exc:
            return self.problem(request, 404, str(exc))
        except InvalidInput as exc:
            return self.problem(request, 400, str(exc))
        except PegasMemoryError as exc:
            return self.problem(request, 503, str(exc))

    # ------------------------------------------------------------------ pages
    def overview(self, request: Request) -> Response:
        svc = self.service
        slices = self.health.get()
        stats = svc.stats(slices=slices.value or [])
        with svc.db.connection() as conn:
            repos = uq.code_repos(conn)
            docs = uq.recent_documents(conn, limit=30)
            audit = uq.audit_lines(conn, limit=10)
        gaps = svc.list_gaps(status=GapStatus.OPEN, limit=50)
        running = svc.jobs.list_recent(state=JobState.RUNNING, limit=20)
        queued = svc.jobs.list_recent(state=JobState.QUEUED, limit=20)
        jobs = running + queued
        asked = request.query_params.get("job", "")
        if asked.isdigit() and int(asked) not in {j.id for j in jobs}:
            # A job just cancelled from this page: shown with its final state, not dropped.
            with contextlib.suppress(NotFound):
                jobs.append(svc.jobs.get(int(asked)))
        return self.render(
            request,
            "overview.html",
            stats=stats,
            repos=repos,
            docs=docs,
            gaps=gaps,
            jobs=jobs,
            job_links={j.id: link for j in jobs if (link := job_link(j))},
            audit=audit,
            closed_gap=CLOSED_GAP,
            slices_age=slices.age,
            slices_error=slices.error,
        )

    def search(self, request: Request) -> Response:
        """memory_search with the filters its MCP tool takes: type, status, document, topic,
        language, and the store (atoms, passages or both)."""
        q = request.query_params
        query = (q.get("q") or "").strip()
        chosen = search_filters(q)
        store = q.get("store") if q.get("store") in STORES else "both"
        with self.service.db.connection() as conn:
            docs = [
                {"id": d, "doc": uq.document(conn, d)} for d in chosen.doc_ids[:MAX_SEARCH_DOCS]
            ]
            topics = uq.search_topics(conn, limit=MAX_TOPICS_LISTED)
            languages = sorted({*uq.search_languages(conn), *DEFAULT_LANGUAGES, *chosen.languages})
        result = None
        if query:
            result = self.service.search(
                SearchRequest(
                    query=query,
                    limit=SEARCH_LIMIT,
                    flt=chosen if chosen != SearchFilter() else None,
                    store=store,  # type: ignore[arg-type]
                )
            )
        return self.render(
            request,
            "search.html",
            query=query,
            flt=chosen,
            docs=docs,
            store=store,
            all_types=ATOM_TYPES,
            all_statuses=ATOM_STATUSES,
            all_topics=topics,
            all_languages=languages,
            stores=STORES,
            result=result,
        )

    def atom(self, request: Request) -> Response:
        atom_id = int(request.path_params["atom_id"])
        with self.service.db.connection() as conn:
            atom = uq.atom(conn, atom_id)
            if atom is None:
                raise NotFound(f"atom {atom_id} not found (never stored, or erased)")
            history = uq.status_history(conn, atom_id)
            cites = uq.citations(conn, atom_id)
            out, into = uq.links(conn, atom_id)
            audit = uq.audit_lines(conn, target="atom", target_id=atom_id, limit=100)
        return self.render(
            request,
            "atom.html",
            atom=atom,
            history=history,
            citations=[_citation_view(c, atom_id) for c in cites],
            links_out=out,
            links_in=into,
            audit=audit,
        )

    def audit(self, request: Request) -> Response:
        offset = _int(request.query_params.get("offset"), 0)
        with self.service.db.connection() as conn:
            lines = uq.audit_lines(conn, limit=AUDIT_PER_PAGE, offset=offset)
        total = int(lines[0]["total"]) if lines else 0
        return self.render(
            request, "audit.html", audit=lines, offset=offset, total=total, per_page=AUDIT_PER_PAGE
        )

    # ------------------------------------------------------------------ changes
    def verify(self, request: Request, form: dict[str, str]) -> str:
        atom_id = int(request.path_params["atom_id"])
        self.curator.verify(atom_id, form.get("reason", ""))
        return f"/atom/{atom_id}"

    def retract(self, request: Request, form: dict[str, str]) -> str:
        atom_id = int(request.path_params["atom_id"])
        self.curator.retract(atom_id, form.get("reason", ""))
        return f"/atom/{atom_id}"

    def close_gap(self, request: Request, form: dict[str, str]) -> str:
        gap_id = int(request.path_params["gap_id"])
        self.curator.close_gap(
            gap_id, form.get("status", GapStatus.ABANDONED), form.get("reason", "")
        )
        return "/"

    def undo(self, request: Request, form: dict[str, str]) -> str:
        audit_id = int(request.path_params["audit_id"])
        self.curator.undo(audit_id, form.get("reason", ""))
        return "/audit"

    def starlette(self) -> Starlette:
        routes = [
            Route("/", self.page(self.overview)),
            Route("/search", self.page(self.search)),
            Route("/atom/{atom_id:int}", self.page(self.atom)),
            Route("/audit", self.page(self.audit)),
            Route("/atom/{atom_id:int}/verify", self.change(self.verify), methods=["POST"]),
            Route("/atom/{atom_id:int}/retract", self.change(self.retract), methods=["POST"]),
            Route("/gap/{gap_id:int}/close", self.change(self.close_gap), methods=["POST"]),
            Route("/audit/{audit_id:int}/undo", self.change(self.undo), methods=["POST"]),
            *DocumentPages(self).routes(),
            *ReviewPages(self).routes(),
            *GapPages(self).routes(),
            *JobPages(self).routes(),
            *GraphPages(self).routes(),
            *CodePages(self).routes(),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
        app = Starlette(routes=routes)
        app.add_middleware(_Headers)
        return app


class _Headers:
    """Headers on every answer: no framing by other sites, no sniffing, no resources from
    anywhere but this server, no referrer sent elsewhere."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (
                        b"content-security-policy",
                        b"default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; "
                        b"connect-src 'self'; "
                        b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
                    ),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                ]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def build_app(service: MemoryService, guard: Guard) -> Starlette:
    return UiApp(service, guard).starlette()
