"""MCP tools of the code memory: index a repository, search its symbols, walk its graph.

Bounds come from `code_memory.query` (the layer that enforces them) and the relations from its
`Relation` Literal, so the advertised schema cannot drift from what the query accepts.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from pegas_memory.code_memory import query as codequery
from pegas_memory.code_memory.query import CodeGraphResult, CodeSearchResult
from pegas_memory.code_memory.requests import Relation
from pegas_memory.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.server.calls import (
    READ_ONLY,
    WRITES,
    Server,
    ServiceContext,
    follow,
    run,
)
from pegas_memory.service_job_views import StoreCodeCall, store_code_call


def register(mcp: Server) -> None:
    """memory_store_code, memory_search_code and memory_code_graph."""

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
    ) -> StoreCodeCall:
        """Index source code with tree-sitter (Python, JavaScript, TypeScript, Go, Rust, Java):
        modules, classes, functions, methods and constants with signatures, docstrings and line
        ranges, and the calls / imports / inherits edges between them. Re-indexing touches only
        changed files; deleted files drop their symbols. Vendored, generated, binary and
        .gitignored files are skipped. A large repository answers within wait_seconds with a
        job_id and is indexed in the background: follow it with memory_job."""
        info = await follow(
            ctx, lambda service: service.jobs.submit_store_code(path, repo), wait_seconds
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
    ) -> CodeGraphResult:
        """Walk a repository's code graph: who calls a symbol, what it calls, import and
        inheritance neighbourhoods to a depth, with paths, files and line numbers; paginated."""
        request = CodeGraphRequest(
            repo=repo,
            symbol=symbol,
            symbol_id=symbol_id,
            relation=relation,
            depth=depth,
            limit=limit,
            offset=offset,
            build=build,
        )
        return await run(ctx, lambda service: service.code_graph(request))
