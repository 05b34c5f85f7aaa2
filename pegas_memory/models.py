"""The typed results the tools return (pydantic models give MCP clients structured output).

The schema's enumerations live in `vocabulary.py` and are re-exported here, where most callers
import them from.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from typing_extensions import TypedDict

from pegas_memory.vocabulary import (
    ATOM_STATUSES as ATOM_STATUSES,
)
from pegas_memory.vocabulary import (
    ATOM_TYPES as ATOM_TYPES,
)
from pegas_memory.vocabulary import (
    TRACE_KINDS as TRACE_KINDS,
)
from pegas_memory.vocabulary import (
    AtomStatus as AtomStatus,
)
from pegas_memory.vocabulary import (
    AtomType as AtomType,
)
from pegas_memory.vocabulary import (
    DecayProfile as DecayProfile,
)
from pegas_memory.vocabulary import (
    DocumentKind as DocumentKind,
)
from pegas_memory.vocabulary import (
    FeedbackOutcome as FeedbackOutcome,
)
from pegas_memory.vocabulary import (
    GapStatus as GapStatus,
)
from pegas_memory.vocabulary import (
    JobKind as JobKind,
)
from pegas_memory.vocabulary import (
    JobState as JobState,
)
from pegas_memory.vocabulary import (
    LinkKind as LinkKind,
)
from pegas_memory.vocabulary import (
    TraceKind as TraceKind,
)
from pegas_memory.vocabulary import (
    VerifyVerdict as VerifyVerdict,
)
from pegas_memory.vocabulary import (  # the enumerations, re-exported: their home is vocabulary.py
    Vocabulary as Vocabulary,
)

Scope = Literal["knowledge", "episodic", "all"]


# Typed dictionaries where a result carries plain dicts built by a lower layer: the output schema
# names every key, and the values stay dicts for the code that reads them (search.context.weak).


class ArmStats(TypedDict):
    """One retrieval arm of one entity in a search: its fusion weight, hits and any note."""

    weight: float
    hits: int
    note: str | None


class DatabaseInfo(TypedDict):
    embedded: bool
    schema: int


class GapAttempt(TypedDict, total=False):
    """One research attempt at a gap (curation.research)."""

    provider: str
    urls: list[str]
    atoms_new: int
    errors: list[str]


class Evidence(TypedDict, total=False):
    """Why a verdict holds: the confirming atom and its documents, or the atom's own ones."""

    atom_id: int
    similarity: float
    documents: list[int]
    claim: str


class InvalidRuleOut(TypedDict):
    rule_id: int
    reason: str
    detail: str


class CitationOut(BaseModel):
    document_id: int | None = None
    document_title: str | None = None
    uri: str | None = None
    locator: str = ""
    quote: str = ""
    code_symbol_id: int | None = None


class CodeCitationIn(BaseModel):
    """A code symbol an atom rests on (memory_store cite_code): by id, or by repository and
    qualified name; optionally the lines of it that matter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    symbol_id: int | None = Field(default=None, ge=1, description="from memory_search_code")
    repo: str | None = Field(default=None, description="with qualified_name")
    qualified_name: str | None = Field(default=None, description="e.g. flask.app.Flask.route")
    start_line: int | None = Field(default=None, ge=1, description="within the symbol")
    end_line: int | None = Field(default=None, ge=1)


class StoreResult(BaseModel):
    """What memory_store did."""

    id: int = Field(description="id of the stored atom or trace")
    scope: Literal["knowledge", "episodic"]
    created: bool = Field(description="false when the same content was already stored")
    duplicate_of: int | None = Field(
        default=None, description="id of the existing record when this was a duplicate"
    )
    status: str | None = None
    document_id: int | None = None
    code_symbol_id: int | None = Field(default=None, description="the cited code symbol")
    code_locator: str | None = Field(default=None, description="path:lines of the citation")
    decay: str | None = Field(
        default=None, description="how it ages in ranking: timeless, perishable, conversational"
    )
    message: str


class SliceStats(BaseModel):
    name: str
    backend: str
    available: bool
    count: int | None = None
    detail: str | None = None
    # The self-check against PostgreSQL: "ok", "damaged" (lost or gained points, unreadable
    # files), "repairing", or "unchecked" (the slice could not be reached).
    health: str = "ok"
    problems: list[str] = Field(default_factory=list)
    repaired: str | None = None


class FeedbackTotals(BaseModel):
    """memory_feedback reports over the whole memory."""

    helped: int = 0
    misled: int = 0
    used: int = 0
    atoms: int = Field(default=0, description="atoms with any feedback")
    passages: int = Field(default=0, description="passages with any feedback")


class StatsResult(BaseModel):
    """Counts across the memory."""

    atoms_total: int
    atoms_by_type: dict[str, int]
    atoms_by_status: dict[str, int]
    documents: int
    chunks: int
    citations: int
    links: int
    links_inferred: int
    code_symbols: int
    code_dependencies: int
    episodic_traces: int
    gaps_by_status: dict[str, int]
    open_gaps: int
    outbox_pending: int
    outbox_parked: int
    oldest_pending_age_seconds: float | None = Field(
        default=None, description="freshness watermark: age of the oldest unprojected change"
    )
    feedback: FeedbackTotals = Field(
        default_factory=FeedbackTotals, description="memory_feedback reports in total"
    )
    slices: list[SliceStats] = Field(default_factory=list)
    database: DatabaseInfo


# Where a hit comes from: an atom (a claim that stands alone), a passage (a chunk of a current
# document version, searchable in its own right) or an episodic trace.
HitStore = Literal["atom", "passage", "trace"]


# The metadata key of an atom stored without any provenance (`PEGAS_STORE_PROVENANCE=flag`).
UNSOURCED = "unsourced"


class FeedbackItem(BaseModel):
    """One hit the agent reports on: its id and store, as memory_search or memory_get_context
    returned them, and what it did."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int = Field(ge=1, description="the hit's id (memory_get_context: the item's atom_id)")
    store: Literal["atom", "passage"] = Field(
        default="atom", description="the hit's store: atom or passage"
    )
    outcome: FeedbackOutcome = Field(
        description="helped: it was right and useful; misled: it was wrong or led you astray; "
        "used: you used it, no verdict"
    )


class FeedbackCounts(BaseModel):
    """What the agent reported about one atom or passage, and the confidence derived from it."""

    helped: int = 0
    misled: int = 0
    used: int = 0
    confidence: float = Field(
        description="Beta posterior mean of 'this helps': (helped + a) / (helped + misled + a + "
        "b), prior a, b from PEGAS_FEEDBACK_PRIOR_HELPED/_MISLED (1, 1). Not the atom's own "
        "confidence, which feedback never changes"
    )

    def describe(self) -> str:
        """ "3 helped, 1 misled" (the outcomes reported at least once)."""
        counts = (
            (FeedbackOutcome.HELPED, self.helped),
            (FeedbackOutcome.MISLED, self.misled),
            (FeedbackOutcome.USED, self.used),
        )
        return ", ".join(f"{n} {what}" for what, n in counts if n) or "none"


class FeedbackRecorded(BaseModel):
    id: int
    store: Literal["atom", "passage"]
    feedback: FeedbackCounts = Field(description="its counters after this report")


class FeedbackResult(BaseModel):
    """What memory_feedback recorded."""

    recorded: int = Field(description="reports written (one per item)")
    items: list[FeedbackRecorded]
    message: str


class SearchHit(BaseModel):
    id: int = Field(description="the atom's, passage's or trace's id (ids of each store apart)")
    scope: Literal["knowledge", "episodic"]
    store: HitStore = "atom"
    score: float
    type: str = Field(description="atom type, or the trace kind for episodic hits")
    status: str | None = None
    confidence: float | None = None
    claim: str
    content: str = Field(default="", description="start of the fuller text, if any")
    topic: str | None = None
    tags: list[str] = Field(default_factory=list)
    language: str | None = None
    document_id: int | None = None
    created_at: str | None = None
    section: list[str] = Field(
        default_factory=list, description="a passage's heading path in its document"
    )
    citations: list[CitationOut] = Field(default_factory=list)
    found_by: dict[str, int] = Field(
        default_factory=dict, description="rank of this hit in each retrieval arm"
    )
    unsourced: bool = Field(
        default=False,
        description="stored with no source, quote, session or code citation; ranks below sourced",
    )
    feedback: FeedbackCounts | None = Field(
        default=None, description="what you reported about it with memory_feedback, if anything"
    )
    decay: str | None = Field(
        default=None,
        description="decay profile: timeless, perishable (ages from its publication date) or "
        "conversational",
    )
    about: str | None = Field(
        default=None, description="the time its claim is about (a publication date), if known"
    )
    folded_atoms: list[int] = Field(
        default_factory=list,
        description="ids of other atoms of the same passage that matched too, folded into this "
        "hit (one passage, one hit); memory_get_context shows the passage around it",
    )


class SearchResult(BaseModel):
    query: str
    preset: str
    hits: list[SearchHit]
    warnings: list[str] = Field(default_factory=list)
    arms: dict[str, dict[str, ArmStats]] = Field(
        default_factory=dict,
        description="per entity (atom, trace), per arm: weight and hit counts, for explanation",
    )
    as_of: datetime | None = Field(
        default=None,
        description="the answer is what the memory believed at this instant (statuses, "
        "supersessions, links, citations and document versions as they were then)",
    )


class GapOut(BaseModel):
    id: int
    question: str
    reason: str | None = None
    priority: int
    status: str
    created_at: str
    updated_at: str
    attempts: list[GapAttempt] = Field(default_factory=list)
    filled_by: list[int] = Field(default_factory=list, description="atoms that answered it")


class GapResult(BaseModel):
    gap: GapOut
    created: bool = Field(description="false when an open gap with the same question existed")
    message: str


class GapList(BaseModel):
    gaps: list[GapOut]
    total: int


class ContextItem(BaseModel):
    marker: int = Field(description="the [n] used in the text")
    atom_id: int = Field(description="the atom's, passage's or trace's id (see store)")
    scope: Literal["knowledge", "episodic"]
    store: HitStore = "atom"
    type: str
    status: str | None = None
    confidence: float | None = None
    claim: str
    score: float
    citations: list[CitationOut] = Field(default_factory=list)
    context: str = Field(default="", description="surrounding source text (small-to-big)")
    feedback: FeedbackCounts | None = Field(
        default=None, description="what you reported about it with memory_feedback, if anything"
    )
    decay: str | None = Field(default=None, description="decay profile (see SearchHit)")


class ContextResult(BaseModel):
    question: str
    text: str = Field(description="paste-ready context with [n] citation markers")
    items: list[ContextItem]
    tokens_estimate: int
    truncated: bool
    weak_evidence: bool
    gap_id: int | None = Field(default=None, description="research gap registered, if any")
    warnings: list[str] = Field(default_factory=list)
    as_of: datetime | None = Field(
        default=None, description="the context is what the memory believed at this instant"
    )


class IngestResult(BaseModel):
    """What memory_ingest did."""

    document_id: int | None = Field(
        description="the document's stable id: the same for every version of this source, so "
        "it keeps working in document_ids filters and memory_forget"
    )
    version_id: int | None = Field(default=None, description="this version's own id")
    uri: str
    title: str | None = None
    kind: str
    version: int
    is_current: bool = Field(default=True, description="this version is the current one")
    unchanged: bool = Field(
        description="true when this exact source was ingested before and nothing was done"
    )
    redistilled: str | None = Field(
        default=None,
        description="the same bytes read again by another distiller: 'offline-v4 -> offline-v6' "
        "(stored -> running); atoms_new, atoms_kept, superseded and marked_stale say what changed",
    )
    atoms_kept: int = Field(
        default=0, description="a re-distill: atoms of the version it still cites (same ids)"
    )
    atoms_retyped: int = Field(
        default=0, description="a re-distill: kept atoms given the new distiller's type or term"
    )
    chunks: int
    chunks_reused: int = Field(description="chunks the previous version already had")
    atoms_new: int
    duplicates_exact: int
    duplicates_semantic: int = Field(description="near-duplicates: cited on the existing atom")
    merges: int = Field(
        default=0,
        description="near-duplicates recorded as merges: memory_merges lists them and splits one "
        "back into its own atom",
    )
    skipped: int = Field(description="drafts dropped because their quote was not in the text")
    marked_stale: int = Field(
        description="atoms whose only evidence vanished in this version (or, re-distilled, "
        "that the running distiller no longer extracts)"
    )
    revived: int = Field(
        default=0,
        description="atoms an earlier change of the document made stale that this version states "
        "again (a sentence or a file's earlier bytes restored): their status before is back",
    )
    superseded: int = Field(
        default=0, description="atoms of the previous version replaced by a reworded claim"
    )
    contradictions: int = Field(
        default=0, description="new atoms contradicting another document (both now contested)"
    )
    kept_apart: int = Field(
        default=0,
        description="new atoms similar to an existing one but claiming something else "
        "(another number, date, negation, entity...): not merged",
    )
    atoms_by_type: dict[str, int] = Field(default_factory=dict, description="new atoms by type")
    dropped: dict[str, int] = Field(
        default_factory=dict,
        description="what was dropped as noise before it could become an atom, by reason",
    )
    errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    atom_ids: list[int] = Field(default_factory=list, description="ids of the new atoms")
    seconds: float


class VerdictOut(BaseModel):
    atom_id: int
    verdict: str = Field(
        description="confirmed, new, duplicate, corroborates, contradicts (or unchecked)"
    )
    reason: str
    old_status: str
    new_status: str
    confidence: float
    ref_id: int | None = Field(default=None, description="the atom the verdict refers to")
    evidence: list[Evidence] = Field(default_factory=list)
    checks_skipped: list[str] = Field(default_factory=list)


class VerifyResult(BaseModel):
    checked: int
    verdicts: list[VerdictOut]
    counts: dict[str, int] = Field(description="verdicts by kind")
    warnings: list[str] = Field(default_factory=list)


class CodeDropOut(BaseModel):
    repo: str
    symbols_removed: int
    dependencies_removed: int
    stale_atoms: list[int] = Field(description="atoms that cited its symbols, now stale")


class ForgetResult(BaseModel):
    mode: Literal["retract", "erase"]
    atoms: list[int] = Field(default_factory=list)
    traces: list[int] = Field(default_factory=list)
    documents: list[int] = Field(default_factory=list)
    links_removed: int = 0
    embeddings_removed: int = 0
    feedback_removed: int = Field(
        default=0, description="feedback reports erased with the atoms and passages they named"
    )
    not_found: list[int] = Field(default_factory=list)
    code_repos: list[CodeDropOut] = Field(
        default_factory=list, description="code repositories dropped (erase with code_repos)"
    )
    message: str

    def merged(self, other: ForgetResult) -> ForgetResult:
        """This result together with another erase's (a drop of code repositories)."""
        return self.model_copy(
            update={
                "code_repos": [*self.code_repos, *other.code_repos],
                "message": f"{self.message}; {other.message}",
            }
        )


class MergeOut(BaseModel):
    """One recorded merge of a near-duplicate into a stored atom (pm_merge)."""

    id: int
    survivor_id: int = Field(description="the atom the claim was merged into")
    survivor_claim: str
    claim: str = Field(description="the merged-in claim, as its source said it")
    type: str
    language: str | None = None
    document_id: int | None = Field(
        default=None, description="the document the merged claim came from (its stable id)"
    )
    version_id: int | None = Field(default=None, description="that document version's own id")
    uri: str | None = None
    citation_ids: list[int] = Field(description="the citations it brought to the survivor")
    similarity: float = Field(description="cosine of the two claims")
    reason: str = Field(description="why dedup merged them")
    merged_by: str = Field(description="what merged them: ingest, verify or consolidate")
    created_at: datetime
    undone_at: datetime | None = Field(default=None, description="when it was split, if it was")
    undone_reason: str | None = None
    merged_atom_id: int | None = Field(
        default=None,
        description="verify, consolidate: the merged atom, kept stale and linked duplicate_of "
        "the survivor (a split gives it back merged_status)",
    )
    merged_status: str | None = None
    split_atom_id: int | None = Field(
        default=None, description="the merged claim's own atom after a split"
    )


class ContestedAtomOut(BaseModel):
    """One side of a contested pair."""

    id: int
    claim: str
    type: str
    status: str
    confidence: float
    language: str | None = None


class ContestedPairOut(BaseModel):
    """Two atoms linked as contradicting each other (pm_atom_link, by ingest or memory_verify)."""

    link_id: int = Field(description="the contradicts link: what resolve names")
    source: str = Field(description="what found the contradiction: ingest or verify")
    linked_at: datetime
    atoms: list[ContestedAtomOut]


class ContradictionsResult(BaseModel):
    """What memory_contradictions listed or resolved."""

    action: Literal["list", "resolve"]
    pairs: list[ContestedPairOut] = Field(
        default_factory=list, description="list: the open pairs, newest first; resolve: none"
    )
    total: int = Field(default=0, description="list: open pairs in all")
    statuses: dict[str, str] = Field(
        default_factory=dict, description="resolve: each atom's status after it"
    )
    message: str


class WouldMergeOut(BaseModel):
    """A pair a consolidation dry run found: the newer atom repeats the older by meaning."""

    survivor_id: int
    survivor_claim: str
    merged_id: int
    merged_claim: str
    similarity: float


class MergesResult(BaseModel):
    """What memory_merges listed, split or would consolidate."""

    action: Literal["list", "split", "consolidate"]
    merges: list[MergeOut] = Field(
        default_factory=list, description="list: newest first; split: the merge, as it is now"
    )
    dry_run: bool = False
    atom_id: int | None = Field(
        default=None, description="split: the merged claim's own atom (none on a dry run)"
    )
    citations_moved: list[int] = Field(
        default_factory=list, description="split: citations moved from the survivor to it"
    )
    pairs: list[WouldMergeOut] = Field(
        default_factory=list,
        description="consolidate: the pairs of this batch dedup would merge now (or merged)",
    )
    merge_ids: list[int] = Field(
        default_factory=list, description="consolidate with apply: the merges recorded"
    )
    next_after: int | None = Field(
        default=None,
        description="consolidate: pass as after_id for the next batch (none: this was the last)",
    )
    message: str


class InferResult(BaseModel):
    rounds: int
    complete: bool = Field(description="false if max_rounds stopped it before the fixpoint")
    derived: int = Field(description="new inferred links")
    updated: int
    withdrawn: int = Field(description="inferred links that lost all support")
    kept: int
    per_rule: dict[int, int] = Field(description="links derived per rule atom id")
    rules_used: int
    rules_invalid: list[InvalidRuleOut] = Field(default_factory=list)
    rules_prose_ignored: int = Field(description="human-readable rules, not machine-usable")
    seconds: float
    code_repos: int = Field(default=0, description="repositories whose code graph rules read")
    code_derived: int = Field(default=0, description="new derived code edges (pm_code_inferred)")
    code_updated: int = 0
    code_withdrawn: int = Field(default=0, description="derived code edges that lost support")
    code_kept: int = 0
    code_per_rule: dict[int, int] = Field(
        default_factory=dict, description="code edges derived per rule atom id"
    )
    warnings: list[str] = Field(
        default_factory=list, description="e.g. rules that read a kind nothing provides"
    )


class GraphNodeOut(BaseModel):
    id: int
    name: str = Field(description="'[type, status] claim' of an atom; 'qualified_name (path:line)'")


class GraphEdgeOut(BaseModel):
    """One edge of a path. Atom links carry confidence, inferred and source; code dependencies
    carry line; derived code edges (rules over the code graph) carry confidence, inferred, source
    'inference' and their derivations; an edge Postgres no longer holds carries neither (the
    fields are left out)."""

    id: int
    kind: str
    src: int = Field(description="stored direction: src -> dst, whichever way it was walked")
    dst: int
    confidence: float | None = None
    inferred: bool | None = None
    source: str | None = None
    line: int | None = None
    derivations: list[DerivationOut] | None = Field(
        default=None, description="derived code edges: the rules and premises that give it"
    )

    @model_serializer(mode="wrap")
    def _present_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Only the attributes given, i.e. those of the edge's family (a NULL line stays null).
        out: dict[str, Any] = handler(self)
        return {k: v for k, v in out.items() if k in self.model_fields_set}


class GraphPathOut(BaseModel):
    nodes: list[GraphNodeOut] = Field(description="from node_id to the end of the path")
    edges: list[GraphEdgeOut] = Field(description="edges[i] joins nodes[i] and nodes[i + 1]")


class GraphPathsAnswer(BaseModel):
    """neighbours: paths from node_id to each node within depth; paths: node_id to target_id."""

    op: Literal["neighbours", "paths"]
    paths: list[GraphPathOut]
    limit: int
    offset: int


class LinkCountsOut(BaseModel):
    extracted: int = 0
    inferred: int = 0


class GraphCountsAnswer(BaseModel):
    op: Literal["counts"]
    links_by_kind: dict[str, LinkCountsOut]
    code_dependencies_by_kind: dict[str, int]
    code_inferred_by_kind: dict[str, int] = Field(
        default_factory=dict, description="code edges derived by rules (memory_infer), per kind"
    )


class DerivationOut(BaseModel):
    rule: int = Field(description="the logical_rule atom id")
    premises: list[tuple[int, int, str]] = Field(description="links [src, dst, kind] it joined")


class GraphDerivationAnswer(BaseModel):
    op: Literal["derivation"]
    link_id: int
    inferred: bool
    source: str
    confidence: float
    derivations: list[DerivationOut] = Field(description="empty for an extracted link")


GraphAnswer = Annotated[
    GraphPathsAnswer | GraphCountsAnswer | GraphDerivationAnswer, Field(discriminator="op")
]


class GraphQueryResult(BaseModel):
    op: str
    result: GraphAnswer
    warnings: list[str] = Field(default_factory=list)
