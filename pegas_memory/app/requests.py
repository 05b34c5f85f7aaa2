"""Typed requests: the arguments of a tool, built once in the MCP layer and passed down.

A tool whose arguments cross several layers (MCP tool -> service -> component -> query) declares
them once here instead of once per layer. The models are frozen and forbid unknown fields; their
enumerations come from the one place that defines them (presets from `search.presets.PRESETS`,
ingest kinds from `ingest.sources.KINDS`), checked at import so that a preset added there
cannot silently miss here. The code requests live with their relations in
`code_memory.requests` and are re-exported. Range checks stay where they were (in the service
and the components), so a Python caller gets the same InvalidInput as before; a value outside a
Literal becomes InvalidInput too, naming the field.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from pegas_memory.code_memory.requests import CodeGraphRequest, CodeSearchRequest
from pegas_memory.ingest.sources import KINDS
from pegas_memory.memgraph_store.cypher import Direction, NodeLabel
from pegas_memory.models import CodeCitationIn, DecayProfile, FeedbackItem, Scope
from pegas_memory.reasoning.rules import Op
from pegas_memory.request_base import Request
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.presets import PRESETS, StoreChoice

# In the order the tools advertise them (their JSON schema enums), checked against the source.
SearchPreset = Literal[
    "hybrid", "hybrid_rrf", "dense", "lexical", "no_graph", "no_status", "no_mmr", "plain_rrf"
]
IngestKind = Literal["text", "markdown", "pdf", "epub", "web", "html"]


def _same_names(alias: Any, source: Iterable[str], what: str) -> None:
    names, expected = get_args(alias), tuple(source)
    if sorted(names) != sorted(expected):
        raise RuntimeError(
            f"the {what} Literal of pegas_memory.app.requests ({names}) differs from its source "
            f"({expected}); update the Literal"
        )


_same_names(SearchPreset, PRESETS, "search preset")
_same_names(IngestKind, KINDS, "ingest kind")

__all__ = [
    "CodeGraphRequest",
    "CodeSearchRequest",
    "ContextRequest",
    "FeedbackRequest",
    "GraphQueryRequest",
    "IngestKind",
    "IngestRequest",
    "Request",
    "SearchPreset",
    "SearchRequest",
    "StoreRequest",
]


class StoreRequest(Request):
    """memory_store: one claim, typed, with its source and citation, or one episodic trace.

    `type`, `scope` and `trace_kind` stay plain strings here: the service checks them against
    ATOM_TYPES and TRACE_KINDS and says which values are allowed."""

    claim: str
    type: str = "fact"
    content: str = ""
    confidence: float | None = None
    topic: str | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] | None = None
    source: str | None = None
    locator: str = ""
    quote: str = ""
    scope: str = "knowledge"
    trace_kind: str | None = None
    session_id: str | None = None
    cite_code: CodeCitationIn | None = None
    # How the atom ages in ranking (default: from its type and source, search.fusion.default_decay)
    # and the time its claim is about (default: now).
    decay: DecayProfile | None = None
    about: datetime | None = None


# The store argument of memory_search and memory_get_context, declared once for both.
StoreArg = Annotated[
    StoreChoice,
    Field(
        description="atoms (claims that stand alone), passages (the cited chunks of documents, "
        "every sentence searchable) or both (default: fused, an atom and its passage one hit)"
    ),
]


class SearchRequest(Request):
    """memory_search: what to look for, where, and how to rank it."""

    query: str
    scope: Scope = "knowledge"
    preset: SearchPreset = "hybrid"
    limit: int | None = None
    flt: SearchFilter | None = None
    half_life_days: float | None = None
    store: StoreArg = "both"
    # Hits whose final score (as returned) is below this are left out.
    min_score: float | None = None


class FeedbackRequest(Request):
    """memory_feedback: which returned hits the agent used, and what they did."""

    items: tuple[FeedbackItem, ...]
    query: str | None = None
    note: str | None = None
    session_id: str | None = None


class ContextRequest(Request):
    """memory_get_context: the question, the size of the answer and the search behind it."""

    question: str
    budget_tokens: int | None = None
    limit: int = 8
    scope: Scope = "knowledge"
    preset: SearchPreset = "hybrid"
    flt: SearchFilter | None = None
    register_gap: bool | None = None
    store: StoreArg = "both"


class IngestRequest(Request):
    """memory_ingest: a source and how to read it."""

    source: str
    kind: IngestKind | None = None
    title: str | None = None
    password: str | None = None
    topic: str | None = None
    tags: tuple[str, ...] = ()
    # Read and distil unchanged bytes again even when the running distiller made their atoms.
    redistill: bool = False
    # The decay profile of every atom and passage of the source (default: by kind and type).
    decay: DecayProfile | None = None


class GraphQueryRequest(Request):
    """memory_query_graph: one structured, bounded graph operation."""

    op: Op
    node_id: int | None = None
    label: NodeLabel = "Atom"
    target_id: int | None = None
    kinds: tuple[str, ...] = ()
    direction: Direction = "both"
    depth: int = 1
    limit: int = 50
    offset: int = 0
    src: int | None = None
    dst: int | None = None
    kind: str | None = None
