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

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from pegas_memory.code_memory.model import SymbolKind
from pegas_memory.code_memory.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.db.pool import Conn, Database
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.memgraph_store.cypher import Direction, GraphPath, PathEdge
from pegas_memory.outbox.projection import chunks, load_rows
from pegas_memory.outbox.worker import pending_events
from pegas_memory.runtime import ProjectionRuntime

RELATIONS: dict[str, tuple[tuple[str, ...], Direction]] = {
    "callers": (("calls",), "in"),
    "callees": (("calls",), "out"),
    "imports": (("imports",), "out"),
    "imported_by": (("imports",), "in"),
    "inherits": (("inherits",), "out"),
    "inherited_by": (("inherits",), "in"),
    "neighbourhood": ((), "both"),
}
SYMBOL_KINDS: frozenset[str] = frozenset(SymbolKind.__args__)  # type: ignore[attr-defined]
MAX_QUERY_CHARS = 1_000
MAX_WORDS = 16
MAX_SEARCH_LIMIT = 100
MAX_OFFSET = 10_000
MAX_DEPTH = 5
MAX_GRAPH_LIMIT = 200
MAX_FALLBACK_PATHS = 50_000
MAX_EXTERNAL = 50
BUILD_DRAIN_SECONDS = 300.0
_WORD = re.compile(r"[^\W_]+")
_CAMEL = (re.compile(r"([a-z0-9])([A-Z])"), re.compile(r"([A-Z]+)([A-Z][a-z])"))


class CodeSymbolOut(BaseModel):
    id: int
    repo: str
    path: str
    language: str
    name: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    signature: str | None = None


class CodeSearchHit(CodeSymbolOut):
    docstring: str | None = Field(default=None, description="first 300 characters")
    score: float


class CodeSearchResult(BaseModel):
    """Symbols matching a lexical query, best first."""

    query: str
    total: int = Field(description="matching symbols in all; page with offset")
    offset: int
    hits: list[CodeSearchHit]
    warnings: list[str] = Field(default_factory=list)


class CodeEdgeOut(BaseModel):
    id: int
    kind: str
    src: str = Field(description="qualified name of the symbol where the reference is written")
    dst: str
    path: str = Field(description="file of the source symbol")
    line: int | None = Field(default=None, description="first line of the reference")
    lines: list[int] = Field(default_factory=list, description="all call-site lines (up to 20)")


class CodePathOut(BaseModel):
    hops: int
    end: CodeSymbolOut
    via: list[str] = Field(description="qualified names from the symbol asked about to `end`")
    edges: list[CodeEdgeOut]


class ExternalRefOut(BaseModel):
    kind: str
    name: str = Field(description="target outside the repository, or as written if unresolved")
    target: str = Field(description="external or unresolved")
    line: int | None = None


class CodeGraphResult(BaseModel):
    """Paths around one symbol in a repository's dependency graph."""

    repo: str
    symbol: CodeSymbolOut
    relation: str
    depth: int
    offset: int
    paths: list[CodePathOut]
    has_more: bool = Field(description="true when another page exists (raise offset by limit)")
    external: list[ExternalRefOut] = Field(
        default_factory=list,
        description="outgoing references that leave the repository (first page only)",
    )
    alternatives: list[CodeSymbolOut] = Field(
        default_factory=list, description="other symbols the given name also matches"
    )
    source: Literal["graph", "postgres"]
    warnings: list[str] = Field(default_factory=list)


def identifier_words(text: str) -> list[str]:
    """`getHTTPResponse_v2 Имя` -> ['get', 'http', 'response', 'v2', 'имя'] (as the SQL side
    splits symbols: camelCase, snake_case and punctuation)."""
    for pattern in _CAMEL:
        text = pattern.sub(r"\1 \2", text)
    return [w.lower() for w in _WORD.findall(text)]


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _bounded(value: object, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


def _text_arg(value: str, name: str, limit: int) -> str:
    if "\x00" in value or len(value) > limit:
        raise InvalidInput(f"{name} must be at most {limit} characters without NUL characters")
    return value


_SYMBOL_COLUMNS = (
    "s.id, s.repo, s.path, s.language, s.name, s.qualified_name, s.kind, s.start_line, "
    "s.end_line, s.signature"
)

_SEARCH = """
WITH q AS (
    SELECT to_tsquery('simple', %(any)s) || to_tsquery('russian', %(stem)s) AS anyq,
           to_tsquery('simple', %(all)s) AS allq,
           pm_code_words(%(ident)s) AS words
), cand AS (
    SELECT {columns}, s.docstring,
           pm_code_tsv(s.name, s.qualified_name, s.signature, s.docstring) AS tsv
      FROM pm_code_symbol s, q
     WHERE (pm_code_tsv(s.name, s.qualified_name, s.signature, s.docstring) @@ q.anyq
            OR pm_code_words(s.name) %% q.words
            OR s.name ILIKE %(prefix)s
            OR s.qualified_name ILIKE %(exact)s)
           {filters}
)
SELECT c.id, c.repo, c.path, c.language, c.name, c.qualified_name, c.kind, c.start_line,
       c.end_line, c.signature, left(c.docstring, 300) AS docstring,
       (  4.0 * (c.name ILIKE %(exact)s OR c.qualified_name ILIKE %(exact)s)::int
        + 2.0 * (pm_code_words(c.name) = q.words)::int
        + 1.0 * (c.name ILIKE %(prefix)s OR starts_with(pm_code_words(c.name), q.words))::int
        + 1.0 * (c.tsv @@ q.allq)::int
        + 2.0 * ts_rank_cd(c.tsv, q.anyq, 1)
        + similarity(pm_code_words(c.name), q.words)
        + 0.5 * word_similarity(q.words, pm_code_words(c.qualified_name))) AS score,
       count(*) OVER () AS total
  FROM cand c, q
 ORDER BY score DESC, c.path, c.start_line, c.id
 LIMIT %(limit)s OFFSET %(offset)s
"""

_FIND = """
SELECT {columns},
       CASE WHEN s.qualified_name = %(q)s THEN 0
            WHEN s.qualified_name LIKE %(suffix)s THEN 1
            WHEN s.name = %(q)s THEN 2
            ELSE 3 END AS tier,
       CASE WHEN s.kind IN ('constant', 'variable') THEN 2 WHEN s.kind = 'module' THEN 1
            ELSE 0 END AS kind_rank,
       (SELECT count(*) FROM pm_code_dependency d
         WHERE d.src_symbol_id = s.id OR d.dst_symbol_id = s.id) AS degree
  FROM pm_code_symbol s
 WHERE s.repo = %(repo)s
   AND (s.qualified_name = %(q)s OR s.qualified_name ILIKE %(isuffix)s
        OR s.qualified_name ILIKE %(iexact)s OR s.name ILIKE %(iexact)s)
 ORDER BY tier, kind_rank, degree DESC, s.path, s.start_line, s.id
 LIMIT 11
"""


class CodeQuery:
    """Search and graph walks over code memory (read-only, except `build`, which projects)."""

    def __init__(self, db: Database, runtime: ProjectionRuntime) -> None:
        self.db = db
        self.runtime = runtime

    # ------------------------------------------------------------------ search
    def search(self, request: CodeSearchRequest) -> CodeSearchResult:
        """Ranked symbols whose names, qualified names, signatures or docstrings match `query`.

        Raises InvalidInput for an empty query, unknown kinds or out-of-range limit/offset."""
        query, repo, path_prefix = request.query, request.repo, request.path_prefix
        language, kinds = request.language, request.kinds
        limit, offset = request.limit, request.offset
        query = _text_arg(query, "query", MAX_QUERY_CHARS).strip()
        words = list(dict.fromkeys(identifier_words(query)))[:MAX_WORDS]
        if not words:
            raise InvalidInput(
                "query has no letters or digits; search for an identifier (get_user, getUser) "
                "or words of a docstring"
            )
        limit = _bounded(limit, "limit", 1, MAX_SEARCH_LIMIT)
        offset = _bounded(offset, "offset", 0, MAX_OFFSET)
        unknown = sorted(set(kinds) - SYMBOL_KINDS)
        if unknown:
            raise InvalidInput(f"unknown kinds {unknown}; use some of {sorted(SYMBOL_KINDS)}")
        filters: list[str] = []
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
            filters.append("AND s.repo = %(repo)s")
            params["repo"] = _text_arg(repo, "repo", 200)
        if path_prefix:
            filters.append("AND s.path LIKE %(path)s")
            params["path"] = like_escape(_text_arg(path_prefix, "path_prefix", 4096)) + "%"
        if language:
            filters.append("AND s.language = %(language)s")
            params["language"] = _text_arg(language, "language", 50).lower()
        if kinds:
            filters.append("AND s.kind = ANY(%(kinds)s)")
            params["kinds"] = list(kinds)
        sql = _SEARCH.format(columns=_SYMBOL_COLUMNS, filters=" ".join(filters))
        with self.db.connection() as conn:
            rows = conn.execute(sql.encode(), params).fetchall()
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
            row = conn.execute("SELECT 1 FROM pm_code_repo WHERE name = %s", (repo,)).fetchone()
        return row is not None

    # ------------------------------------------------------------------ graph
    def graph(self, request: CodeGraphRequest) -> CodeGraphResult:
        """Paths of 1..depth dependency edges around one symbol (see the module doc).

        Raises InvalidInput (bad arguments), NotFound (unknown repo or symbol)."""
        repo, symbol, symbol_id = request.repo, request.symbol, request.symbol_id
        relation = request.relation
        depth, limit, offset, build = request.depth, request.limit, request.offset, request.build
        repo = _text_arg(repo, "repo", 200)
        if relation not in RELATIONS:
            raise InvalidInput(f"relation must be one of {', '.join(RELATIONS)}; got {relation!r}")
        depth = _bounded(depth, "depth", 1, MAX_DEPTH)
        limit = _bounded(limit, "limit", 1, MAX_GRAPH_LIMIT)
        offset = _bounded(offset, "offset", 0, MAX_OFFSET)
        if (symbol is None) == (symbol_id is None):
            raise InvalidInput("give exactly one of symbol (a name or qualified name) or symbol_id")
        kinds, direction = RELATIONS[relation]
        warnings: list[str] = []
        if not self._repo_exists(repo):
            raise NotFound(f"repo {repo!r} is not indexed; use memory_store_code to index it first")
        with self.db.connection() as conn:
            focal, alternatives = self._find_symbol(conn, repo, symbol, symbol_id)
        if alternatives:
            count = f"{len(alternatives) + 1}{'+' if len(alternatives) >= 10 else ''}"
            warnings.append(
                f"{symbol!r} matches {count} symbols; answered for {focal['qualified_name']} "
                f"({focal['path']}:{focal['start_line']}); pass symbol_id or a qualified name "
                "for another"
            )
        if build:
            warnings.extend(self.build(repo))
        paths, source = self._walk(
            focal["id"], kinds, direction, depth, limit + 1, offset, warnings
        )
        has_more = len(paths) > limit
        with self.db.connection() as conn:
            out = self._describe(conn, paths[:limit], warnings)
            external = []
            if offset == 0 and direction != "in":
                external = self._external(conn, focal["id"], kinds)
        return CodeGraphResult(
            repo=repo,
            symbol=CodeSymbolOut(**focal),
            relation=relation,
            depth=depth,
            offset=offset,
            paths=out,
            has_more=has_more,
            external=external,
            alternatives=[CodeSymbolOut(**a) for a in alternatives],
            source=source,
            warnings=warnings,
        )

    def _find_symbol(
        self, conn: Conn, repo: str, symbol: str | None, symbol_id: int | None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        keep = (
            "id",
            "repo",
            "path",
            "language",
            "name",
            "qualified_name",
            "kind",
            "start_line",
            "end_line",
            "signature",
        )
        if symbol_id is not None:
            _bounded(symbol_id, "symbol_id", 1, 2**63 - 1)
            row = conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM pm_code_symbol s WHERE s.id = %s AND s.repo = %s",
                (symbol_id, repo),
            ).fetchone()
            if row is None:
                raise NotFound(
                    f"symbol id {symbol_id} is not in repo {repo!r}; use memory_search_code to "
                    "find symbol ids"
                )
            return dict(row), []
        assert symbol is not None
        name = _text_arg(symbol, "symbol", 2_000).strip()
        if not name:
            raise InvalidInput("symbol is empty; give a name such as 'invoke' or 'pkg.mod.Class'")
        rows = conn.execute(
            _FIND.format(columns=_SYMBOL_COLUMNS).encode(),
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
        found = [{k: r[k] for k in keep} for r in rows]
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
        try:
            graph = self.runtime.graph.get()
            paths = graph.neighbours(
                "CodeSymbol",
                start,
                kinds=kinds,
                direction=direction,
                depth=depth,
                limit=limit,
                offset=offset,
            )
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
            return self._sql_paths(conn, start, kinds, direction, depth, limit, offset, warnings), (
                "postgres"
            )

    def _pending_code_events(self) -> int:
        with self.db.connection() as conn:
            return pending_events(conn, ["code_symbol", "code_dependency"])

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
        kind_list = list(kinds) or ["calls", "imports", "inherits"]
        for _ in range(depth):
            frontier = sorted({p.end for p in level})
            rows = conn.execute(
                """SELECT id, kind, src_symbol_id AS src, dst_symbol_id AS dst
                     FROM pm_code_dependency
                    WHERE dst_symbol_id IS NOT NULL AND kind = ANY(%(kinds)s)
                      AND ((%(out)s AND src_symbol_id = ANY(%(f)s))
                           OR (%(in)s AND dst_symbol_id = ANY(%(f)s)))""",
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
            int(r["id"]): dict(r)
            for r in conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM pm_code_symbol s WHERE s.id = ANY(%s)", (node_ids,)
            ).fetchall()
        }
        edges = {
            int(r["id"]): r
            for r in conn.execute(
                "SELECT id, line, metadata FROM pm_code_dependency WHERE id = ANY(%s)", (edge_ids,)
            ).fetchall()
        }
        out: list[CodePathOut] = []
        lagging = 0
        for p in paths:
            if any(n not in nodes for n in p.node_ids) or any(e.id not in edges for e in p.edges):
                lagging += 1
                continue
            out.append(
                CodePathOut(
                    hops=p.hops,
                    end=CodeSymbolOut(**nodes[p.end]),
                    via=[nodes[n]["qualified_name"] for n in p.node_ids],
                    edges=[
                        CodeEdgeOut(
                            id=e.id,
                            kind=e.kind,
                            src=nodes[e.src]["qualified_name"],
                            dst=nodes[e.dst]["qualified_name"],
                            path=nodes[e.src]["path"],
                            line=edges[e.id]["line"],
                            lines=list((edges[e.id]["metadata"] or {}).get("lines", [])),
                        )
                        for e in p.edges
                    ],
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
            """SELECT kind, dst_name, line, metadata->>'target' AS target
                 FROM pm_code_dependency
                WHERE src_symbol_id = %s AND dst_symbol_id IS NULL AND kind = ANY(%s)
                ORDER BY line, dst_name LIMIT %s""",
            (symbol_id, list(kinds) or ["calls", "imports", "inherits"], MAX_EXTERNAL),
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
                conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                    (f"pm_code_repo:{repo}",),
                )
                symbols = _ids(conn, "SELECT id FROM pm_code_symbol WHERE repo = %s", repo)
                deps = _ids(
                    conn,
                    "SELECT id FROM pm_code_dependency WHERE repo = %s "
                    "AND dst_symbol_id IS NOT NULL",
                    repo,
                )
                missing_symbols = sorted(symbols - set(graph.iter_node_ids("CodeSymbol")))
                missing_deps = sorted(deps - set(graph.iter_edge_ids("DEPENDS")))
                todo = (("code_symbol", missing_symbols), ("code_dependency", missing_deps))
                for entity, ids in todo:
                    for part in chunks(ids, 1000):
                        self.runtime.projector.apply("graph", entity, load_rows(conn, entity, part))
            if missing_symbols or missing_deps:
                notes.append(
                    f"projected {len(missing_symbols)} symbols and {len(missing_deps)} edges that "
                    "the graph slice was missing"
                )
        except BackendUnavailable as exc:
            notes.append(f"could not build the graph slice ({exc})")
        return notes


def _ids(conn: Conn, sql: str, repo: str) -> set[int]:
    return {int(r["id"]) for r in conn.execute(sql, (repo,)).fetchall()}


def _path_key(p: GraphPath) -> str:
    return "".join(f"{x}," for x in (*p.node_ids, *(e.id for e in p.edges)))
