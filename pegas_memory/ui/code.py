"""The code pages of `pegas-memory ui`: the indexed repositories with a symbol search, a file's
symbols, and a symbol with its source, its callers and its callees, each linked.

They show what the code-memory tools return, through the same service calls: memory_code_read
(op=repos, file, source), memory_search_code and memory_code_graph (relation=callers and
callees), so a person sees what an agent sees. Only the symbol's own row and the atoms citing
it are read here (`code.sql`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pegas_memory.app.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.code_memory.model import SymbolKind
from pegas_memory.code_memory.query import MAX_OFFSET
from pegas_memory.code_memory.query_ops import MAX_SOURCE_CHARS, MAX_SOURCE_LINES
from pegas_memory.code_memory.requests import CodeReadRequest
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import NotFound, PegasMemoryError
from pegas_memory.ui.host import PageHost

SEARCH_PER_PAGE = 30
EDGES_PER_SYMBOL = 100
FILE_PER_PAGE = 200
CITING_ATOMS = 50
KINDS: tuple[str, ...] = SymbolKind.values()


@dataclass(frozen=True)
class CodeQueries:
    symbol: LiteralString
    citing_atoms: LiteralString


Q = load_queries(CodeQueries, "pegas_memory.ui", "code.sql")


def _offset(request: Request) -> int:
    raw = request.query_params.get("offset") or ""
    return min(MAX_OFFSET, int(raw)) if raw.isdigit() else 0


def numbered(text: str, first: int) -> list[tuple[int, str]]:
    """The lines of a symbol's source with their numbers in the file."""
    return [(first + i, line) for i, line in enumerate(text.split("\n"))]


class CodePages:
    """`/code`, `/code/file` and `/code/symbol/{id}` of one UI."""

    def __init__(self, ui: PageHost):
        self.ui = ui

    def index(self, request: Request) -> Response:
        svc = self.ui.service
        q = request.query_params
        query = (q.get("q") or "").strip()
        repo = (q.get("repo") or "").strip() or None
        kinds = tuple(k for k in q.getlist("kind") if k in KINDS)
        offset = _offset(request)
        repos = svc.code_read(CodeReadRequest(op="repos")).repos or []
        found = None
        if query:
            found = svc.search_code(
                CodeSearchRequest(
                    query=query, repo=repo, kinds=kinds, limit=SEARCH_PER_PAGE, offset=offset
                )
            )
        return self.ui.render(
            request,
            "code.html",
            repos=repos,
            query=query,
            repo=repo,
            kinds=kinds,
            all_kinds=KINDS,
            found=found,
            offset=offset,
            per_page=SEARCH_PER_PAGE,
        )

    def file(self, request: Request) -> Response:
        q = request.query_params
        repo, path = q.get("repo") or "", q.get("path") or ""
        offset = _offset(request)
        listing = self.ui.service.code_read(
            CodeReadRequest(
                op="file", repo=repo, path=path, limit=FILE_PER_PAGE, offset=offset, detail=True
            )
        ).file
        assert listing is not None  # op=file answers with a file or raises
        return self.ui.render(
            request, "code_file.html", repo=repo, listing=listing, per_page=FILE_PER_PAGE
        )

    def symbol(self, request: Request) -> Response:
        svc = self.ui.service
        symbol_id = int(request.path_params["symbol_id"])
        with svc.db.connection() as conn:
            sym = conn.execute(Q.symbol, {"id": symbol_id}).fetchone()
            if sym is None:
                raise NotFound(
                    f"code symbol {symbol_id} not found (removed by a re-index, or its "
                    "repository dropped); search for it again"
                )
            citing = conn.execute(Q.citing_atoms, {"id": symbol_id, "limit": CITING_ATOMS})
            atoms = citing.fetchall()
        from_line = request.query_params.get("from_line") or ""
        source, source_problem = None, None
        try:
            source = svc.code_read(
                CodeReadRequest(
                    op="source",
                    repo=sym["repo"],
                    symbol_id=symbol_id,
                    from_line=int(from_line) if from_line.isdigit() else None,
                    max_lines=MAX_SOURCE_LINES,
                    max_chars=MAX_SOURCE_CHARS,
                )
            )
        except PegasMemoryError as exc:  # the file moved or went away: the rest still shows
            source_problem = str(exc)
        walks: dict[str, Any] = {}
        for relation in ("callers", "callees"):
            walks[relation] = svc.code_graph(
                CodeGraphRequest(
                    repo=sym["repo"],
                    symbol_id=symbol_id,
                    relation=relation,  # type: ignore[arg-type]
                    limit=EDGES_PER_SYMBOL,
                )
            )
        src = source.source if source is not None else None
        return self.ui.render(
            request,
            "code_symbol.html",
            sym=sym,
            source=src,
            lines=numbered(src.text, src.start_line) if src is not None else [],
            source_warnings=source.warnings if source is not None else [],
            source_problem=source_problem,
            callers=walks["callers"],
            callees=walks["callees"],
            atoms=atoms,
        )

    def routes(self) -> list[Route]:
        return [
            Route("/code", self.ui.page(self.index)),
            Route("/code/file", self.ui.page(self.file)),
            Route("/code/symbol/{symbol_id:int}", self.ui.page(self.symbol)),
        ]
