"""Reading code memory: lexical symbol search, and callers / callees / imports / inheritance.

Search runs in Postgres over the identifier-aware text index of migrations/0002_code.sql: a query
is split like the symbols are (`getUser`, `get_user` and `get user` are the same words), matched as
word prefixes and stemmed docstring words (Russian and English), plus trigram similarity for near
misses such as `get_usr`, then ranked: exact name, whole words, all words, text rank, similarity.

Graph questions are answered from the graph slice (the outbox projection of the code tables);
when that slice is down or has not projected the symbol yet, the same walk runs over
`pm_code_dependency` in Postgres and the answer says so. Both give simple paths ordered by hops,
then end node, so pages are stable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, Literal, LiteralString

from psycopg import sql

import pegas_memory.code_memory.query_ops as query_ops
from pegas_memory.code_memory.model import DepKind, Provenance, SymbolKind
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.query_budget import (
    derived_paths,
    describe_derived,
    file_page,
    fit_budget,
    self_lines,
)
from pegas_memory.code_memory.requests import (
    CodeGraphRequest,
    CodeReadRequest,
    CodeSearchRequest,
    Relation,
)
from pegas_memory.code_memory.results import (
    CodeEdgeOut,
    CodeGraphResult,
    CodePathOut,
    CodeReadResult,
    CodeSearchHit,
    CodeSearchResult,
    CodeSymbolOut,
    ExternalRefOut,
    identifier_words,
    like_escape,
    text_arg,
)
from pegas_memory.db.pool import Conn, Database
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.memgraph_store.cypher import Direction, GraphPath, PathEdge
from pegas_memory.memgraph_store.model import GraphStore
from pegas_memory.outbox.projection import chunks, load_rows
from pegas_memory.outbox.slices import Engines
from pegas_memory.outbox.worker import pending_events
from pegas_memory.validation import bounded_int

# Re-exported: the service, the tools and the tests import the results from here.
__all__ = [
    "MAX_DEPTH",
    "MAX_GRAPH_LIMIT",
    "MAX_OFFSET",
    "MAX_SEARCH_LIMIT",
    "RELATIONS",
    "CodeEdgeOut",
    "CodeGraphResult",
    "CodePathOut",
    "CodeQuery",
    "CodeSearchHit",
    "CodeSearchResult",
    "CodeSymbolOut",
    "ExternalRefOut",
    "Relation",
    "identifier_words",
    "like_escape",
]

RELATIONS: dict[str, tuple[tuple[str, ...], Direction]] = {
    "callers": ((DepKind.CALLS,), "in"),
    "callees": ((DepKind.CALLS,), "out"),
    "imports": ((DepKind.IMPORTS,), "out"),
    "imported_by": ((DepKind.IMPORTS,), "in"),
    "inherits": ((DepKind.INHERITS,), "out"),
    "inherited_by": ((DepKind.INHERITS,), "in"),
    "neighbourhood": ((), "both"),
    # Derived by rules (memory_infer), read from pm_code_inferred: already transitive, one hop.
    "derived": ((), "out"),
    "derived_by": ((), "in"),
}
DERIVED = frozenset({"derived", "derived_by"})
# Edges a walk follows when the relation names no kind; ``may_call`` only when asked.
WRITTEN_KINDS: tuple[str, ...] = (DepKind.CALLS, DepKind.IMPORTS, DepKind.INHERITS)


def with_candidates(kinds: tuple[str, ...], candidates: bool) -> tuple[str, ...]:
    """The edge kinds a relation walks: ``may_call`` candidates join the calls when asked."""
    kinds = kinds or WRITTEN_KINDS
    return (*kinds, DepKind.MAY_CALL) if candidates and DepKind.CALLS in kinds else kinds


SYMBOL_KINDS: frozenset[str] = frozenset(SymbolKind.values())
MAX_QUERY_CHARS = 1_000
MAX_WORDS = 16
MAX_SEARCH_LIMIT = 100
MAX_OFFSET = 10_000
MAX_DEPTH = 5
MAX_GRAPH_LIMIT = 200
MIN_CHARS, MAX_CHARS = 1_000, 200_000
MAX_FALLBACK_PATHS = 50_000
MAX_EXTERNAL = 50
BUILD_DRAIN_SECONDS = 300.0


class CodeQuery:
    """Search and graph walks over code memory (read-only, except `build`, which projects)."""

    def __init__(self, db: Database, runtime: Engines) -> None:
        self.db = db
        self.runtime = runtime

    # ------------------------------------------------------------------ search
    def search(self, request: CodeSearchRequest) -> CodeSearchResult:
        """Ranked symbols whose names, qualified names, signatures or docstrings match `query`.

        Raises InvalidInput for an empty query, unknown kinds or out-of-range limit/offset."""
        query, repo, path_prefix = request.query, request.repo, request.path_prefix
        language, kinds = request.language, request.kinds
        limit, offset = request.limit, request.offset
        query = text_arg(query, "query", MAX_QUERY_CHARS).strip()
        words = list(dict.fromkeys(identifier_words(query)))[:MAX_WORDS]
        if not words:
            raise InvalidInput(
                "query has no letters or digits; search for an identifier (get_user, getUser) "
                "or words of a docstring"
            )
        limit = bounded_int(limit, "limit", 1, MAX_SEARCH_LIMIT)
        offset = bounded_int(offset, "offset", 0, MAX_OFFSET)
        unknown = sorted(set(kinds) - SYMBOL_KINDS)
        if unknown:
            raise InvalidInput(f"unknown kinds {unknown}; use some of {sorted(SYMBOL_KINDS)}")
        filters: list[LiteralString] = []
        params: dict[str, Any] = {
            "any": " | ".join(f"{w}:*" for w in words),
            "stem": " | ".join(words),
            "all": " & ".join(f"{w}:*" for w in words),
            "ident": query,
            "exact": like_escape(query),
            "prefix": like_escape(query) + "%",
            "limit": limit,
            "offset": offset,
        }
        if repo is not None:
            filters.append(Q.search_filter_repo)
            params["repo"] = text_arg(repo, "repo", 200)
        if path_prefix:
            filters.append(Q.search_filter_path)
            params["path"] = like_escape(text_arg(path_prefix, "path_prefix", 4096)) + "%"
        if language:
            filters.append(Q.search_filter_language)
            params["language"] = text_arg(language, "language", 50).lower()
        if kinds:
            filters.append(Q.search_filter_kinds)
            params["kinds"] = list(kinds)
        statement = sql.SQL(Q.search_symbols).format(
            filters=sql.SQL(" ").join(sql.SQL(f) for f in filters)
        )
        with self.db.connection() as conn:
            rows = conn.execute(statement, params).fetchall()
        warnings = []
        if not rows and offset == 0 and repo is not None and not self._repo_exists(repo):
            warnings.append(f"repo {repo!r} is not indexed; use memory_store_code first")
        return CodeSearchResult(
            query=query,
            total=int(rows[0]["total"]) if rows else 0,
            offset=offset,
            hits=[
                CodeSearchHit(
                    **{k: v for k, v in r.items() if k not in ("total", "score")},
                    score=round(float(r["score"]), 4),
                )
                for r in rows
            ],
            warnings=warnings,
        )

    def _repo_exists(self, repo: str) -> bool:
        with self.db.connection() as conn:
            row = conn.execute(Q.repo_exists, (repo,)).fetchone()
        return row is not None

    # ------------------------------------------------------------------ graph
    def graph(self, request: CodeGraphRequest) -> CodeGraphResult:
        """Paths of 1..depth dependency edges around one symbol (see the module doc).

        Raises InvalidInput (bad arguments), NotFound (unknown repo or symbol)."""
        repo, symbol, symbol_id = request.repo, request.symbol, request.symbol_id
        relation = request.relation
        depth, limit, offset, build = request.depth, request.limit, request.offset, request.build
        repo = text_arg(repo, "repo", 200)
        if relation not in RELATIONS:
            raise InvalidInput(f"relation must be one of {', '.join(RELATIONS)}; got {relation!r}")
        depth = bounded_int(depth, "depth", 1, MAX_DEPTH)
        max_chars = bounded_int(request.max_chars, "max_chars", MIN_CHARS, MAX_CHARS)
        limit = bounded_int(limit, "limit", 1, MAX_GRAPH_LIMIT)
        offset = bounded_int(offset, "offset", 0, MAX_OFFSET)
        if (symbol is None) == (symbol_id is None):
            raise InvalidInput("give exactly one of symbol (a name or qualified name) or symbol_id")
        kinds, direction = RELATIONS[relation]
        kinds = with_candidates(kinds, request.candidates)
        warnings: list[str] = []
        if not self._repo_exists(repo):
            raise NotFound(f"repo {repo!r} is not indexed; use memory_store_code to index it first")
        with self.db.connection() as conn:
            focal, alternatives = self._find_symbol(conn, repo, symbol, symbol_id)
        if alternatives:
            count = f"{len(alternatives) + 1}{'+' if len(alternatives) >= 10 else ''}"
            warnings.append(
                f"{symbol!r} matches {count} symbols; answered for {focal.qualified_name} "
                f"({focal.path}:{focal.start_line}); pass symbol_id or a qualified name "
                "for another"
            )
        if build:
            warnings.extend(self.build(repo))
        source: Literal["graph", "postgres"]
        if relation in DERIVED:
            paths, source = self._derived_walk(focal.id, direction, limit + 1, offset, warnings)
        else:
            paths, source = self._walk(
                focal.id, kinds, direction, depth, limit + 1, offset, warnings
            )
        has_more = len(paths) > limit
        with self.db.connection() as conn:
            if relation in DERIVED:
                out = describe_derived(conn, paths[:limit])
            else:
                out = self._describe(conn, paths[:limit], warnings)
            external = []
            if offset == 0 and direction != "in" and relation not in DERIVED:
                external = self._external(conn, focal.id, kinds)
            recursion = [] if relation in DERIVED else self_lines(conn, focal.id, kinds)
        result = CodeGraphResult(
            repo=repo,
            symbol=focal,
            relation=relation,
            depth=depth,
            offset=offset,
            paths=out,
            recursion=recursion,
            has_more=has_more,
            external=external,
            alternatives=alternatives,
            source=source,
            warnings=warnings,
        )
        return fit_budget(result, detail=request.detail, max_chars=max_chars)

    # ------------------------------------------------------------------ read
    def read(self, request: CodeReadRequest) -> CodeReadResult:
        """A symbol's source (bounded), a file's symbols, or the indexed repositories.

        Raises InvalidInput (missing arguments), NotFound (unknown repo, symbol or file)."""
        warnings: list[str] = []
        with self.db.connection() as conn:
            if request.op == "repos":
                return CodeReadResult(op="repos", repos=query_ops.list_repos(conn))
            if request.repo is None:
                raise InvalidInput(f"op={request.op} needs repo; op=repos lists them")
            repo = text_arg(request.repo, "repo", 200)
            if not self._repo_exists(repo):
                raise NotFound(f"repo {repo!r} is not indexed; op=repos lists the indexed ones")
            if request.op == "file":
                if not request.path:
                    raise InvalidInput("op=file needs path (relative to the repository root)")
                listing = query_ops.file_symbols(
                    conn,
                    repo,
                    request.path,
                    limit=request.limit,
                    offset=request.offset,
                    detail=request.detail,
                )
                max_chars = bounded_int(request.max_chars, "max_chars", MIN_CHARS, MAX_CHARS)
                return file_page(listing, max_chars)
            if (request.symbol is None) == (request.symbol_id is None):
                raise InvalidInput("op=source needs exactly one of symbol or symbol_id")
            focal, alternatives = self._find_symbol(conn, repo, request.symbol, request.symbol_id)
            if alternatives:
                warnings.append(
                    f"{request.symbol!r} matches several symbols; showing {focal.qualified_name} "
                    f"({focal.path}:{focal.start_line}); others: "
                    + ", ".join(f"{a.id} {a.qualified_name}" for a in alternatives[:5])
                )
            text = query_ops.symbol_source(
                conn,
                focal,
                max_lines=request.max_lines,
                max_chars=request.max_chars,
                from_line=request.from_line,
                warnings=warnings,
            )
        return CodeReadResult(op="source", source=text, warnings=warnings)

    def _find_symbol(
        self, conn: Conn, repo: str, symbol: str | None, symbol_id: int | None
    ) -> tuple[CodeSymbolOut, list[CodeSymbolOut]]:
        """The symbol asked about, and the others its name also matches when it is ambiguous."""
        if symbol_id is not None:
            bounded_int(symbol_id, "symbol_id", 1, 2**63 - 1)
            row = conn.execute(Q.symbol_in_repo, (symbol_id, repo)).fetchone()
            if row is None:
                raise NotFound(
                    f"symbol id {symbol_id} is not in repo {repo!r}; use memory_search_code to "
                    "find symbol ids"
                )
            return CodeSymbolOut.model_validate(row), []
        assert symbol is not None
        name = text_arg(symbol, "symbol", 2_000).strip()
        if not name:
            raise InvalidInput("symbol is empty; give a name such as 'invoke' or 'pkg.mod.Class'")
        rows = conn.execute(
            Q.find_symbol,
            {
                "repo": repo,
                "q": name,
                "suffix": "%." + like_escape(name),
                "isuffix": "%." + like_escape(name),
                "iexact": like_escape(name),
            },
        ).fetchall()
        if not rows:
            near = (
                self.search(CodeSearchRequest(query=name, repo=repo, limit=5)).hits
                if identifier_words(name)
                else []
            )
            hint = f"; similar: {', '.join(h.qualified_name for h in near)}" if near else ""
            raise NotFound(
                f"symbol {name!r} not found in repo {repo!r}{hint}; use memory_search_code to "
                "find the exact qualified name or id"
            )
        found = [CodeSymbolOut.model_validate(r) for r in rows]  # tier & co. are ignored
        # Alternatives only when the best match is ambiguous: an exact qualified name is not.
        if rows[0]["tier"] == 0 and (len(rows) == 1 or rows[1]["tier"] != 0):
            return found[0], []
        return found[0], found[1:]

    def _walk(
        self,
        start: int,
        kinds: Sequence[str],
        direction: Direction,
        depth: int,
        limit: int,
        offset: int,
        warnings: list[str],
    ) -> tuple[list[GraphPath], Literal["graph", "postgres"]]:
        return self._slice_or_postgres(
            lambda graph: graph.neighbours(
                "CodeSymbol",
                start,
                kinds=kinds,
                direction=direction,
                depth=depth,
                limit=limit,
                offset=offset,
            ),
            lambda conn: self._sql_paths(
                conn, start, kinds, direction, depth, limit, offset, warnings
            ),
            warnings,
        )

    def _derived_walk(
        self, start: int, direction: Direction, limit: int, offset: int, warnings: list[str]
    ) -> tuple[list[GraphPath], Literal["graph", "postgres"]]:
        """The derived edges of `start`: DERIVED edges of the graph slice (one hop: rules already
        made them transitive), or pm_code_inferred when the slice cannot answer."""
        return self._slice_or_postgres(
            lambda graph: graph.neighbours(
                "CodeSymbol",
                start,
                rels=("DERIVED",),
                direction=direction,
                depth=1,
                limit=limit,
                offset=offset,
            ),
            lambda conn: derived_paths(conn, start, direction, limit, offset),
            warnings,
        )

    def _slice_or_postgres(
        self,
        from_slice: Callable[[GraphStore], list[GraphPath]],
        from_postgres: Callable[[Conn], list[GraphPath]],
        warnings: list[str],
    ) -> tuple[list[GraphPath], Literal["graph", "postgres"]]:
        """Ask the graph slice (warning when code changes are not projected yet); when it is
        down or lacks the symbol, ask PostgreSQL and say why."""
        try:
            paths = from_slice(self.runtime.graph.get())
            pending = self._pending_code_events()
            if pending:
                warnings.append(
                    f"{pending} code changes are not projected into the graph slice yet; the "
                    "answer may lag them (pass build=true to project them first)"
                )
            return paths, "graph"
        except BackendUnavailable as exc:
            warnings.append(f"graph slice unavailable ({exc}); answered from Postgres")
        except NotFound:
            warnings.append(
                "the symbol is not projected into the graph slice yet; answered from Postgres "
                "(pass build=true to project the repository)"
            )
        with self.db.connection() as conn:
            return from_postgres(conn), "postgres"

    def _pending_code_events(self) -> int:
        with self.db.connection() as conn:
            return pending_events(conn, ["code_symbol", "code_dependency", "code_inferred"])

    def _sql_paths(
        self,
        conn: Conn,
        start: int,
        kinds: Sequence[str],
        direction: Direction,
        depth: int,
        limit: int,
        offset: int,
        warnings: list[str],
    ) -> list[GraphPath]:
        """The graph store's walk over pm_code_dependency, one query per hop: simple paths,
        ordered by hops, end id and a key of node and edge ids, as the graph slice orders them."""
        level: list[GraphPath] = [GraphPath((start,), ())]
        found: list[GraphPath] = []
        kind_list = list(kinds or WRITTEN_KINDS)
        for _ in range(depth):
            frontier = sorted({p.end for p in level})
            rows = conn.execute(
                Q.dependency_hop,
                {
                    "kinds": kind_list,
                    "f": frontier,
                    "out": direction != "in",
                    "in": direction != "out",
                },
            ).fetchall()
            adjacent: dict[int, list[tuple[PathEdge, int]]] = defaultdict(list)
            for r in rows:
                edge = PathEdge(int(r["id"]), r["kind"], int(r["src"]), int(r["dst"]))
                if direction != "in":
                    adjacent[edge.src].append((edge, edge.dst))
                if direction != "out":
                    adjacent[edge.dst].append((edge, edge.src))
            level = [
                GraphPath((*p.node_ids, other), (*p.edges, edge))
                for p in level
                for edge, other in adjacent.get(p.end, [])
                if other not in p.node_ids
            ]
            level.sort(key=lambda p: (p.end, _path_key(p)))
            found.extend(level)
            if len(found) >= offset + limit or not level:
                break
            if len(found) + len(level) > MAX_FALLBACK_PATHS:
                warnings.append(
                    f"stopped the walk at {len(found):,} paths; lower depth or pick a narrower "
                    "relation"
                )
                break
        return found[offset : offset + limit]

    def _describe(
        self, conn: Conn, paths: Sequence[GraphPath], warnings: list[str]
    ) -> list[CodePathOut]:
        node_ids = sorted({n for p in paths for n in p.node_ids})
        edge_ids = sorted({e.id for p in paths for e in p.edges})
        nodes = {
            int(r["id"]): dict(r) for r in conn.execute(Q.symbols_by_ids, (node_ids,)).fetchall()
        }
        edges = {
            int(r["id"]): r for r in conn.execute(Q.dependency_attributes, (edge_ids,)).fetchall()
        }
        out: list[CodePathOut] = []
        lagging = 0
        for p in paths:
            if any(n not in nodes for n in p.node_ids) or any(e.id not in edges for e in p.edges):
                lagging += 1
                continue
            hops = [
                CodeEdgeOut(
                    id=e.id,
                    kind=e.kind,
                    src=nodes[e.src]["qualified_name"],
                    dst=nodes[e.dst]["qualified_name"],
                    path=nodes[e.src]["path"],
                    line=edges[e.id]["line"],
                    lines=list((edges[e.id]["metadata"] or {}).get("lines", [])),
                    provenance=(edges[e.id]["metadata"] or {}).get("provenance"),
                    analyzer=(edges[e.id]["metadata"] or {}).get("analyzer"),
                    confidence=(edges[e.id]["metadata"] or {}).get("confidence"),
                )
                for e in p.edges
            ]
            out.append(
                CodePathOut(
                    hops=p.hops,
                    end=CodeSymbolOut(**nodes[p.end]),
                    via=[nodes[n]["qualified_name"] for n in p.node_ids],
                    edges=hops,
                    provenance=_path_provenance(hops),
                )
            )
        if lagging:
            warnings.append(
                f"{lagging} paths name symbols or edges deleted since the graph was projected; "
                "they were left out (pass build=true)"
            )
        return out

    def _external(self, conn: Conn, symbol_id: int, kinds: Sequence[str]) -> list[ExternalRefOut]:
        rows = conn.execute(
            Q.external_references,
            (symbol_id, list(kinds or WRITTEN_KINDS), MAX_EXTERNAL),
        ).fetchall()
        return [
            ExternalRefOut(
                kind=r["kind"], name=r["dst_name"], target=r["target"] or "external", line=r["line"]
            )
            for r in rows
        ]

    # ------------------------------------------------------------------ build
    def build(self, repo: str) -> list[str]:
        """Make sure the repository's symbols and resolved edges are in the graph slice: drain
        the outbox, then project whatever is still missing (a slice rebuilt empty, events parked).
        Returns warnings; a graph slice that is down is one of them, not an error."""
        notes: list[str] = []
        try:
            report = self.runtime.worker("code-graph-build").drain(
                timeout=BUILD_DRAIN_SECONDS, include_delayed=True
            )
            graph = self.runtime.graph.get()
            if report.errors:
                notes.append(f"outbox: {report.retried} events retried, {report.parked} parked")
            with self.db.transaction() as conn:
                # The lock of store_code: no re-index of this repo commits while we project.
                conn.execute(Q.lock_repo, (f"pm_code_repo:{repo}",))
                symbols = _ids(conn, Q.repo_symbol_ids, repo)
                deps = _ids(conn, Q.repo_resolved_dependency_ids, repo)
                missing_symbols = sorted(symbols - set(graph.iter_node_ids("CodeSymbol")))
                missing_deps = sorted(deps - set(graph.iter_edge_ids("DEPENDS")))
                derived = _ids(conn, Q.repo_derived_ids, repo)
                missing_derived = sorted(derived - set(graph.iter_edge_ids("DERIVED")))
                todo = (
                    ("code_symbol", missing_symbols),
                    ("code_dependency", missing_deps),
                    ("code_inferred", missing_derived),
                )
                for entity, ids in todo:
                    for part in chunks(ids, 1000):
                        self.runtime.projector.apply("graph", entity, load_rows(conn, entity, part))
            if missing_symbols or missing_deps or missing_derived:
                notes.append(
                    f"projected {len(missing_symbols)} symbols, {len(missing_deps)} edges and "
                    f"{len(missing_derived)} derived edges that the graph slice was missing"
                )
        except BackendUnavailable as exc:
            notes.append(f"could not build the graph slice ({exc})")
        return notes


def _ids(conn: Conn, statement: LiteralString, repo: str) -> set[int]:
    return {int(r["id"]) for r in conn.execute(statement, (repo,)).fetchall()}


def _path_key(p: GraphPath) -> str:
    return "".join(f"{x}," for x in (*p.node_ids, *(e.id for e in p.edges)))


def _path_provenance(hops: Sequence[CodeEdgeOut]) -> str | None:
    """'analyzer' when a type checker found every hop, else 'heuristic' (None: no hop says)."""
    found = [h.provenance for h in hops if h.provenance is not None]
    if not found:
        return None
    if all(p == Provenance.ANALYZER for p in found):
        return Provenance.ANALYZER
    return Provenance.HEURISTIC
