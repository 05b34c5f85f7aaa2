"""MCP tools of the code memory: index a repository, search its symbols, walk its graph.

Bounds come from `code_memory.query` (the layer that enforces them) and the relations from its
`Relation` Literal, so the advertised schema cannot drift from what the query accepts.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

import pegas_memory.code_memory.query as codequery
import pegas_memory.code_memory.query_ops as query_ops
from pegas_memory.app.job_views import StoreCodeCall, store_code_call
from pegas_memory.app.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.code_memory.query import CodeGraphResult, CodeSearchResult
from pegas_memory.code_memory.requests import CodeReadRequest, Relation
from pegas_memory.code_memory.results import CodeReadResult
from pegas_memory.server.calls import (
    READ_ONLY,
    WRITES,
    Server,
    ServiceContext,
    follow,
    run,
)


def register(mcp: Server) -> None:
    """memory_store_code, memory_search_code, memory_code_graph and memory_code_read."""

    @mcp.tool(annotations=WRITES)
    async def memory_store_code(
        ctx: ServiceContext,
        path: Annotated[
            str,
            Field(
                description="A source file, a directory or a repository root, under the "
                "configured ingest roots."
            ),
        ],
        repo: Annotated[
            str | None, Field(description="Repository name (default: the directory name).")
        ] = None,
        wait_seconds: Annotated[
            float | None,
            Field(
                ge=0,
                le=600,
                description="Answer after at most this long (server default 20 s); the index "
                "goes on in the background.",
            ),
        ] = None,
        docs: Annotated[
            bool,
            Field(
                description="Also ingest the repository's README and docs/ (or doc/) *.md and "
                "*.rst as documents, and cite on their atoms the code symbols they name."
            ),
        ] = False,
    ) -> StoreCodeCall:
        """Index source code with tree-sitter (Python, JavaScript, TypeScript, Go, Rust, Java):
        modules, classes, functions, methods and constants with signatures, docstrings and line
        ranges, and the calls / imports / inherits edges between them. Where scip-python or
        scip-typescript is installed, the calls of Python and JavaScript/TypeScript come from
        that type checker (the answer's analyzers says what ran). Re-indexing touches only
        changed files; deleted files drop their symbols. Vendored, generated, binary and
        .gitignored files are skipped. With docs=true the README and docs/*.md|rst are ingested
        too (like memory_ingest), and each atom distilled from them cites the code symbols its
        text names: backticked names (`Flask.run`, `url_for()`, ``pkg.mod.f``) and the calls in
        the code blocks of its section, when the name picks exactly one symbol of the repository
        (the answer lists the names that did not). Such atoms become stale when a re-index
        removes or renames a symbol they cite. A large repository answers within wait_seconds
        with a job_id and is indexed in the background: follow it with memory_job."""
        info = await follow(
            ctx,
            lambda service: service.jobs.submit_store_code(path, repo, docs=docs),
            wait_seconds,
        )
        return store_code_call(info)

    @mcp.tool(annotations=READ_ONLY)
    async def memory_search_code(
        ctx: ServiceContext,
        query: Annotated[
            str, Field(description="Identifier, part of one (get_usr, getUser), or words.")
        ],
        repo: Annotated[str | None, Field(description="Only this repository.")] = None,
        path_prefix: Annotated[str | None, Field(description="Only under this path.")] = None,
        language: Annotated[str | None, Field(description="python, javascript, ...")] = None,
        kinds: Annotated[
            list[str] | None, Field(description="module, class, function, method, constant...")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=codequery.MAX_SEARCH_LIMIT)] = 20,
        offset: Annotated[int, Field(ge=0, le=codequery.MAX_OFFSET)] = 0,
    ) -> CodeSearchResult:
        """Find code symbols by name, qualified name, signature or docstring (snake_case and
        camelCase parts match, prefixes too), with file paths and line numbers."""
        request = CodeSearchRequest(
            query=query,
            repo=repo,
            path_prefix=path_prefix,
            language=language,
            kinds=tuple(kinds or ()),
            limit=limit,
            offset=offset,
        )
        return await run(ctx, lambda service: service.search_code(request))

    @mcp.tool(annotations=READ_ONLY)
    async def memory_code_graph(
        ctx: ServiceContext,
        repo: Annotated[str, Field(description="Repository name, as given to memory_store_code.")],
        symbol: Annotated[
            str | None, Field(description="Symbol name or qualified name (or use symbol_id).")
        ] = None,
        symbol_id: Annotated[int | None, Field(description="Symbol id from a search.")] = None,
        relation: Annotated[
            Relation,
            Field(description="Which edges to follow (who calls it, what it calls, ...)."),
        ] = "neighbourhood",
        depth: Annotated[int, Field(ge=1, le=codequery.MAX_DEPTH)] = 1,
        limit: Annotated[int, Field(ge=1, le=codequery.MAX_GRAPH_LIMIT)] = 50,
        offset: Annotated[int, Field(ge=0, le=codequery.MAX_OFFSET)] = 0,
        build: Annotated[
            bool, Field(description="First make sure the repository's graph is up to date.")
        ] = False,
        candidates: Annotated[
            bool,
            Field(
                description="Also calls the resolver could not pin to one target: edges of "
                "kind may_call, each with its confidence (1/number of candidates)."
            ),
        ] = False,
        detail: Annotated[
            bool, Field(description="Also signatures and every hop with its lines.")
        ] = False,
        max_chars: Annotated[
            int,
            Field(
                ge=codequery.MIN_CHARS,
                le=codequery.MAX_CHARS,
                description="Size budget of the answer; a page is cut to fit (see next_offset).",
            ),
        ] = 16_000,
    ) -> CodeGraphResult:
        """Walk a repository's code graph: who calls a symbol, what it calls, import and
        inheritance neighbourhoods to a depth, with paths, files and line numbers; paginated.
        relation=derived / derived_by: edges derived by rules (memory_infer), e.g. transitive
        depends_on between modules, each with its kind and confidence (detail=true: the rules
        and premises that give it). Each path's provenance is 'analyzer' when a type checker
        bound every hop (confidence 1), else 'heuristic'. Compact by default and cut to
        max_chars."""
        request = CodeGraphRequest(
            repo=repo,
            symbol=symbol,
            symbol_id=symbol_id,
            relation=relation,
            depth=depth,
            limit=limit,
            offset=offset,
            build=build,
            candidates=candidates,
            detail=detail,
            max_chars=max_chars,
        )
        return await run(ctx, lambda service: service.code_graph(request))

    @mcp.tool(annotations=READ_ONLY)
    async def memory_code_read(
        ctx: ServiceContext,
        op: Annotated[
            Literal["source", "file", "repos"],
            Field(
                description="source: a symbol's text (bounded); file: the symbols of a file; "
                "repos: the indexed repositories with counts and last index time."
            ),
        ],
        repo: Annotated[str | None, Field(description="For source and file.")] = None,
        symbol: Annotated[
            str | None, Field(description="For source: name or qualified name.")
        ] = None,
        symbol_id: Annotated[int | None, Field(description="For source: symbol id.")] = None,
        path: Annotated[
            str | None, Field(description="For file: path relative to the repository root.")
        ] = None,
        from_line: Annotated[
            int | None, Field(ge=1, description="For source: continue a cut symbol here.")
        ] = None,
        max_lines: Annotated[int, Field(ge=1, le=query_ops.MAX_SOURCE_LINES)] = 120,
        max_chars: Annotated[int, Field(ge=200, le=query_ops.MAX_SOURCE_CHARS)] = 12_000,
        limit: Annotated[int, Field(ge=1, le=query_ops.MAX_FILE_SYMBOLS)] = 200,
        offset: Annotated[int, Field(ge=0, le=100_000)] = 0,
        detail: Annotated[bool, Field(description="For file: with signatures.")] = False,
    ) -> CodeReadResult:
        """Read code memory: the source text of a symbol as the file reads now (bounded, with a
        note and from_line to continue when cut), the symbols of one file in line order, or
        the indexed repositories (files, symbols, edges, unresolved, derived, last index time).
        To drop a repository use memory_forget mode=erase code_repos=[...]."""
        request = CodeReadRequest(
            op=op,
            repo=repo,
            symbol=symbol,
            symbol_id=symbol_id,
            path=path,
            from_line=from_line,
            max_lines=max_lines,
            max_chars=max_chars,
            limit=limit,
            offset=offset,
            detail=detail,
        )
        return await run(ctx, lambda service: service.code_read(request))
