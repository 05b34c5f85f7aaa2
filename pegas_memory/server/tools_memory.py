"""MCP tools of the knowledge memory: store, ingest, verify, search, context, feedback, gaps,
forget, merges, stats.

Each tool's signature is its input schema (names, defaults, bounds and descriptions are what an
agent sees); its return type is its output schema. Bodies only build the typed request and hand
a typed service call to `run`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from pegas_memory.app.inputs import MAX_REASON_CHARS
from pegas_memory.app.job_views import IngestCall, ingest_call
from pegas_memory.app.jobs import MAX_BATCH_SOURCES
from pegas_memory.app.requests import (
    ContextRequest,
    FeedbackRequest,
    IngestKind,
    IngestRequest,
    SearchPreset,
    SearchRequest,
    StoreArg,
    StoreRequest,
)
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput
from pegas_memory.jobs import JobInfo
from pegas_memory.models import (
    AtomStatus,
    AtomType,
    CodeCitationIn,
    ContextResult,
    ContradictionsResult,
    DecayProfile,
    FeedbackItem,
    FeedbackResult,
    ForgetResult,
    GapList,
    GapResult,
    GapStatus,
    MergesResult,
    Scope,
    SearchResult,
    StatsResult,
    StoreResult,
    TraceKind,
    VerifyResult,
)
from pegas_memory.search.filters import SearchFilter
from pegas_memory.server.calls import (
    DESTRUCTIVE,
    OPEN_WORLD_WRITES,
    READ_ONLY,
    WRITES,
    Server,
    ServiceContext,
    follow,
    progress_reporter,
    run,
)

# Arguments several tools declare alike, declared once so that their schemas cannot drift apart
# (as `StoreArg` is for memory_search and memory_get_context).
TopicsArg = Annotated[list[str] | None, Field(description="Only these topics.")]
TagsArg = Annotated[list[str] | None, Field(description="Any of these tags.")]
AsOfArg = Annotated[
    datetime | None,
    Field(
        description="Answer with what the memory believed at this instant (ISO 8601; "
        "statuses, supersessions, links, citations and document versions as they were)."
    ),
]
OffsetArg = Annotated[int, Field(ge=0)]  # memory_list_gaps, memory_contradictions


def register_knowledge(mcp: Server) -> None:
    """memory_store, memory_ingest, memory_verify, memory_search, memory_get_context,
    memory_feedback and the research-gap tools."""

    @mcp.tool(annotations=WRITES)
    async def memory_store(
        ctx: ServiceContext,
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
        ] = AtomType.FACT,
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
                "a citation. An atom with no source, quote, session_id or cite_code is stored "
                "flagged unsourced and ranks below sourced ones (or is refused: "
                "PEGAS_STORE_PROVENANCE)."
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
        cite_code: Annotated[
            CodeCitationIn | None,
            Field(
                description="The code symbol this rests on: {symbol_id} or {repo, "
                "qualified_name}, optionally start_line/end_line. A re-index that removes or "
                "renames it marks the atom stale."
            ),
        ] = None,
        decay: Annotated[
            DecayProfile | None,
            Field(
                description="How it ages in ranking: timeless (definitions, rules, code: never), "
                "perishable (news, web pages: from `about`), conversational (your notes: from "
                "when said). Default: from its type and source."
            ),
        ] = None,
        about: Annotated[
            datetime | None,
            Field(
                description="The time the claim is about, with a time zone (a news item's "
                "publication date, when a conversation happened). Default: now."
            ),
        ] = None,
    ) -> StoreResult:
        """Remember one statement as a typed knowledge atom (or, with scope=episodic, one of your
        own traces). Identical content is stored once: the result says whether it was new or
        which existing atom it duplicates. New atoms start as 'candidate' until verified."""
        return await run(
            ctx,
            lambda service: service.store(
                StoreRequest(
                    claim=claim,
                    type=type,
                    content=content,
                    confidence=confidence,
                    topic=topic,
                    tags=tuple(tags or ()),
                    metadata=metadata,
                    source=source,
                    locator=locator,
                    quote=quote,
                    scope=scope,
                    trace_kind=trace_kind,
                    session_id=session_id,
                    cite_code=cite_code,
                    decay=decay,
                    about=about,
                )
            ),
        )

    @mcp.tool(annotations=OPEN_WORLD_WRITES)
    async def memory_ingest(
        ctx: ServiceContext,
        source: Annotated[
            str | None,
            Field(
                description="A URL (http/https), a file path (PDF, EPUB, HTML, text, markdown) "
                "under the configured ingest roots, or the text itself."
            ),
        ] = None,
        sources: Annotated[
            list[str] | None,
            Field(
                max_length=MAX_BATCH_SOURCES,
                description="Or: several sources (URLs, paths) as one batch job.",
            ),
        ] = None,
        kind: Annotated[
            IngestKind | None,
            Field(
                description="Force how to read it (text, markdown, pdf, epub, web, html); "
                "default: detected."
            ),
        ] = None,
        title: Annotated[
            str | None, Field(description="Title, if the source has none (one source only).")
        ] = None,
        password: Annotated[str | None, Field(description="Password of an encrypted PDF.")] = None,
        topic: Annotated[str | None, Field(description="Topic given to every atom.")] = None,
        tags: Annotated[list[str] | None, Field(description="Tags given to every atom.")] = None,
        redistill: Annotated[
            bool,
            Field(
                description="Re-read and re-distill an unchanged source even when the running "
                "distiller made its atoms (it is re-distilled anyway when they came from "
                "another distiller version)."
            ),
        ] = False,
        decay: Annotated[
            DecayProfile | None,
            Field(
                description="How every atom and passage of the source ages in ranking: "
                "timeless, perishable (from its publication date) or conversational. Default: "
                "a web page perishable, definitions, rules, code and tables timeless, other "
                "documents timeless."
            ),
        ] = None,
        wait_seconds: Annotated[
            float | None,
            Field(
                ge=0,
                le=600,
                description="Answer after at most this long (server default 20 s); the work "
                "goes on in the background.",
            ),
        ] = None,
    ) -> IngestCall:
        """Read a source (or a list of sources) into the knowledge base: it is split into
        chunks, distilled into typed atoms (definitions, facts, code, tables, rules) that each
        cite the exact quote and page or section, and deduplicated against what is stored.
        Re-ingesting an unchanged source does nothing, unless its atoms came from another
        distiller version (or redistill=true): then it is re-distilled in place (same document
        id; a claim produced again keeps its atom, one no longer extracted becomes stale with
        the reason, verified and linked atoms are kept) and the answer says "redistilled".
        A changed source becomes a new version of the same document. Quick sources finish
        within the call; long ones (books, batches) answer within wait_seconds with a job_id
        and keep running in the background: follow them with memory_job (wait, get, cancel).
        Progress is reported while you wait."""

        def submit(service: MemoryService) -> JobInfo:
            if (source is None) == (sources is None):
                raise InvalidInput("give either source (one) or sources (a list), not both")
            items = [source] if source is not None else list(sources or [])
            if title is not None and len(items) > 1:
                raise InvalidInput("title applies to one source; leave it out for a batch")
            requests = [
                IngestRequest(
                    source=item,
                    kind=kind,
                    title=title,
                    password=password,
                    topic=topic,
                    tags=tuple(tags or ()),
                    redistill=redistill,
                    decay=decay,
                )
                for item in items
            ]
            return service.jobs.submit_ingest(requests)

        info = await follow(ctx, submit, wait_seconds)
        return ingest_call(info)

    @mcp.tool(annotations=WRITES)
    async def memory_verify(
        ctx: ServiceContext,
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
        progress = progress_reporter(ctx)
        return await run(
            ctx,
            lambda service: service.verify(
                atom_ids=atom_ids or (),
                document_id=document_id,
                limit=limit,
                progress=progress,
            ),
            slow=True,
            progress=progress,
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_search(
        ctx: ServiceContext,
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
        topics: TopicsArg = None,
        tags: TagsArg = None,
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
            float | None,
            Field(
                gt=0,
                description="Favour recent items: every hit's score halves per N days of age "
                "(instead of each hit's decay profile).",
            ),
        ] = None,
        store: StoreArg = "both",
        as_of: AsOfArg = None,
        min_score: Annotated[
            float | None,
            Field(
                ge=0,
                le=100,
                description="Leave out hits whose score (as returned) is below this. hybrid "
                "scores are at most about 1.25 before status and feedback multipliers (both "
                "text arms' best hit, fully trusted, plus graph support), 0.3-0.6 for a good "
                "match; RRF presets score about 0.01-0.03.",
            ),
        ] = None,
    ) -> SearchResult:
        """Search the memory. Finds atoms (claims that stand alone) and passages (every chunk of
        an ingested source) by meaning (in Russian or English, across both), by exact words and
        names, and through linked atoms; verified knowledge ranks first, stale and contested
        last. Each hit says its store (atom or passage) and has its id, type, status, confidence
        and citations (a passage: its document and locator). One passage is one hit: other
        atoms of it that matched are listed in `folded_atoms` (store="atoms" lists each)."""
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
            as_of=as_of,
        )
        request = SearchRequest(
            query=query,
            scope=scope,
            preset=preset,
            limit=limit,
            flt=flt,
            half_life_days=half_life_days,
            store=store,
            min_score=min_score,
        )
        return await run(ctx, lambda service: service.search(request))

    @mcp.tool(annotations=WRITES)
    async def memory_get_context(
        ctx: ServiceContext,
        question: Annotated[str, Field(description="The question you are about to answer.")],
        budget_tokens: Annotated[
            int | None,
            Field(ge=100, le=32_000, description="Size of the returned text in tokens (2000)."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="At most this many items.")] = 8,
        scope: Annotated[Scope, Field(description="knowledge (default), episodic or all")] = (
            "knowledge"
        ),
        topics: TopicsArg = None,
        tags: TagsArg = None,
        register_gap: Annotated[
            bool | None,
            Field(description="Register a research gap if the evidence is weak (server default)."),
        ] = None,
        store: StoreArg = "both",
        as_of: AsOfArg = None,
    ) -> ContextResult:
        """Gather what the memory knows before you answer: the best atoms with their sources
        (title, page/section, quote) and the surrounding source text, deduplicated and fitted to
        a token budget. `text` is ready to paste, with [n] markers matching `items`. When the
        evidence is weak the question is registered as a research gap (see memory_list_gaps)."""
        request = ContextRequest(
            question=question,
            budget_tokens=budget_tokens,
            limit=limit,
            scope=scope,
            flt=SearchFilter(topics=tuple(topics or ()), tags=tuple(tags or ()), as_of=as_of),
            register_gap=register_gap,
            store=store,
        )
        return await run(ctx, lambda service: service.get_context(request))

    @mcp.tool(annotations=WRITES)
    async def memory_feedback(
        ctx: ServiceContext,
        items: Annotated[
            list[FeedbackItem],
            Field(
                min_length=1,
                max_length=200,
                description="The hits you used, each once: {id, store (atom or passage, as the "
                "hit says), outcome: helped, misled or used}.",
            ),
        ],
        query: Annotated[
            str | None, Field(description="The query or question these hits answered.")
        ] = None,
        note: Annotated[str | None, Field(description="Why, in a few words (kept).")] = None,
        session_id: Annotated[
            str | None, Field(description="Your session or task id, if you have one.")
        ] = None,
    ) -> FeedbackResult:
        """Report which returned atoms or passages you used and whether they helped (right and
        useful) or misled you (wrong, or led you astray); 'used' records use without a verdict.
        Counts are kept per atom and passage and shown on search hits; a confidence derived from
        them may weigh in ranking (PEGAS_FEEDBACK_WEIGHT, 0 by default). Feedback never verifies
        or retracts an atom and never changes its citations: use memory_verify and memory_forget
        for that. An id that names nothing refuses the whole report (nothing is recorded)."""
        request = FeedbackRequest(items=tuple(items), query=query, note=note, session_id=session_id)
        return await run(ctx, lambda service: service.feedback(request))

    @mcp.tool(annotations=WRITES)
    async def memory_add_gap(
        ctx: ServiceContext,
        question: Annotated[str, Field(description="What the memory should find out.")],
        reason: Annotated[
            str | None, Field(description="Why it matters / where it came up.")
        ] = None,
        priority: Annotated[int, Field(ge=1, le=5, description="1 low .. 5 urgent (3).")] = 3,
    ) -> GapResult:
        """Register a research gap: a question the memory cannot answer yet. A question that
        repeats an open gap is merged into it (its priority rises) instead of added twice."""
        return await run(
            ctx, lambda service: service.add_gap(question, reason=reason, priority=priority)
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_list_gaps(
        ctx: ServiceContext,
        status: Annotated[
            GapStatus | None, Field(description="open (default), researching, filled, abandoned")
        ] = GapStatus.OPEN,
        limit: Annotated[int, Field(ge=1, le=500)] = 20,
        offset: OffsetArg = 0,
    ) -> GapList:
        """List research gaps by priority, with what was tried and the atoms that filled them."""
        return await run(
            ctx, lambda service: service.list_gaps(status=status, limit=limit, offset=offset)
        )


def register_upkeep(mcp: Server) -> None:
    """memory_forget, memory_merges, memory_contradictions and memory_stats."""

    @mcp.tool(annotations=WRITES)
    async def memory_merges(
        ctx: ServiceContext,
        action: Annotated[
            Literal["list", "split", "consolidate"],
            Field(
                description="list: recent merges of near-duplicates (a claim ingest did not "
                "store because a stored atom says the same; its citation went to that atom). "
                "Verification and consolidation merges keep the newer atom, stale and linked "
                "duplicate_of the older. split: undo one: the claim becomes its own atom again "
                "with its citations (or the stale atom gets its status back). consolidate: one "
                "batch of stored atoms (after after_id): which pairs would merge now; merged "
                "only with apply=true, each merge recorded and splittable."
            ),
        ] = "list",
        merge_id: Annotated[
            int | None, Field(description="split: the merge to undo (from action=list).")
        ] = None,
        atom_id: Annotated[
            int | None, Field(description="list: only merges into (or split from) this atom.")
        ] = None,
        document_id: Annotated[
            int | None, Field(description="list: only merges of claims from this document.")
        ] = None,
        open_only: Annotated[
            bool, Field(description="list: leave out merges already split.")
        ] = False,
        limit: Annotated[
            int, Field(ge=1, le=200, description="list, consolidate: at most this many.")
        ] = 20,
        similarity: Annotated[
            float | None,
            Field(
                ge=0.5,
                le=1.0,
                description="consolidate: the cosine at or above which two claims would merge "
                "(default: the dedup threshold of the embedding model).",
            ),
        ] = None,
        reason: Annotated[str, Field(description="split: why (recorded on the merge).")] = "",
        dry_run: Annotated[
            bool, Field(description="split: say what would change, write nothing.")
        ] = False,
        apply: Annotated[
            bool,
            Field(description="consolidate: merge the pairs found (default: a dry run)."),
        ] = False,
        after_id: Annotated[
            int,
            Field(
                ge=0,
                description="consolidate: start after this atom id (the previous answer's "
                "next_after); 0 starts at the oldest.",
            ),
        ] = 0,
        batch: Annotated[
            int, Field(ge=1, le=2000, description="consolidate: atoms looked at in this call.")
        ] = 500,
    ) -> MergesResult:
        """Merges of near-duplicates, listed and undone. A split recreates the merged claim as
        its own candidate atom, moves the citations it brought from the surviving atom to it,
        records why, and keeps dedup from merging the two again; a merge split once is refused."""
        return await run(
            ctx,
            lambda service: service.merges(
                action=action,
                merge_id=merge_id,
                atom_id=atom_id,
                document_id=document_id,
                open_only=open_only,
                limit=limit,
                reason=reason,
                dry_run=dry_run,
                similarity=similarity,
                after_id=after_id,
                batch=batch,
                apply=apply,
            ),
        )

    @mcp.tool(annotations=WRITES)
    async def memory_contradictions(
        ctx: ServiceContext,
        action: Annotated[
            Literal["list", "resolve"],
            Field(
                description="list: pairs of atoms that contradict each other while one is "
                "still contested (found by ingest or memory_verify). resolve: decide one."
            ),
        ] = "list",
        link_id: Annotated[
            int | None, Field(description="resolve: the pair's link_id (from action=list).")
        ] = None,
        outcome: Annotated[
            Literal["keep", "both", "retract"] | None,
            Field(
                description="resolve: keep (one is right: name it in `keep`; the other is "
                "retracted), both (each holds in its own scope: give `scopes`), retract "
                "(neither holds)."
            ),
        ] = None,
        keep: Annotated[int | None, Field(description="resolve keep: the atom kept.")] = None,
        scopes: Annotated[
            dict[int, Annotated[str, Field(max_length=300)]] | None,
            Field(description="resolve both: atom id -> where or when it holds."),
        ] = None,
        reason: Annotated[
            str, Field(max_length=MAX_REASON_CHARS, description="resolve: why.")
        ] = "",
        limit: Annotated[int, Field(ge=1, le=200, description="list: at most this many.")] = 20,
        offset: OffsetArg = 0,
    ) -> ContradictionsResult:
        """Contested pairs, listed and resolved. Keeping one retracts the other (as
        memory_forget does) and puts the kept one back to its status before the contest;
        keeping both records each one's scope and memory_verify no longer contests the pair;
        retract marks both stale. Status history keeps every step."""
        return await run(
            ctx,
            lambda service: service.review.contradictions(
                action=action,
                link_id=link_id,
                outcome=outcome,
                keep=keep,
                scopes=scopes,
                reason=reason,
                limit=limit,
                offset=offset,
            ),
        )

    @mcp.tool(annotations=DESTRUCTIVE)
    async def memory_forget(
        ctx: ServiceContext,
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
        code_repos: Annotated[
            list[str] | None,
            Field(
                description="erase only: code repositories (memory_store_code names) to drop "
                "with every symbol and edge; atoms citing them become stale."
            ),
        ] = None,
    ) -> ForgetResult:
        """Forget knowledge. Retract marks atoms stale (reversible, history kept); erase deletes
        atoms, traces, whole documents or code repositories from the database, the search indexes,
        the graph and the embedding cache, so they never come back in any search or rebuild."""
        return await run(
            ctx,
            lambda service: service.forget(
                mode=mode,
                atom_ids=atom_ids or (),
                trace_ids=trace_ids or (),
                document_ids=document_ids or (),
                reason=reason,
                code_repos=code_repos or (),
            ),
        )

    @mcp.tool(annotations=READ_ONLY)
    async def memory_stats(ctx: ServiceContext) -> StatsResult:
        """Counts of what the memory holds: atoms by type and status, documents, citations,
        links, code symbols, episodic traces, research gaps, and how far the search indexes lag
        behind the database (outbox backlog and the age of the oldest pending change)."""
        return await run(ctx, lambda service: service.stats())
