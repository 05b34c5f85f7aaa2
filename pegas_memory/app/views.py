"""Result views of the service: search rows and slice counts turned into the tools' models.

Kept apart from `service` because they only read: a search row becomes a SearchHit, and each
projection slice reports its count or why it is unavailable (stats never fail for that).
"""

from __future__ import annotations

from typing import Any

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.config import Settings
from pegas_memory.errors import BackendUnavailable, NotFound, PegasMemoryError
from pegas_memory.models import CitationOut, FeedbackCounts, SearchHit, SliceStats
from pegas_memory.outbox.reconcile import vector_collection
from pegas_memory.outbox.selfcheck import RepairTarget, SelfCheck
from pegas_memory.search.hits import Found


def to_hit(h: Found) -> SearchHit:
    return SearchHit(
        id=h.id,
        scope=h.scope,
        store="trace" if h.store == "trace" else h.store,
        section=list(h.section),
        score=round(h.score, 6),
        type=h.type,
        status=h.status,
        confidence=h.confidence,
        claim=h.claim,
        content=h.content[:1000],
        topic=h.topic,
        tags=list(h.tags),
        language=h.language,
        document_id=h.doc_id,
        created_at=h.created_at.isoformat() if h.created_at else None,
        unsourced=h.unsourced,
        feedback=feedback_counts(h),
        decay=h.decay,
        about=h.about_at.isoformat() if h.about_at else None,
        citations=[
            CitationOut(
                document_id=c.doc_id,
                document_title=c.title,
                uri=c.uri,
                locator=c.locator,
                quote=c.quoted_text,
                code_symbol_id=c.code_symbol_id,
            )
            for c in h.citations
        ],
        found_by=dict(h.arms),
        folded_atoms=list(h.folded),
    )


def feedback_counts(h: Found) -> FeedbackCounts | None:
    """A hit's feedback counters and their posterior, None when nothing was reported on it."""
    if h.feedback is None or h.feedback_confidence is None:
        return None
    fb = h.feedback
    return FeedbackCounts(
        helped=fb.helped,
        misled=fb.misled,
        used=fb.used,
        confidence=round(h.feedback_confidence, 4),
    )


def slice_stats(settings: Settings, runtime: ProjectionRuntime) -> list[SliceStats]:
    """Counts in each slice, or why a slice is unavailable (stats never fail for that), with
    each slice's self-check against PostgreSQL (outbox.selfcheck)."""
    out: list[SliceStats] = []
    s = settings
    try:
        check: SelfCheck | None = runtime.monitor.check()
    except PegasMemoryError:
        check = None
    vec_backend = "qdrant-edge (embedded)" if s.vectors_embedded else "qdrant server"
    starting = runtime.host_starting() if s.shares_vectors else None
    try:
        if starting:  # stats never wait for the engine host
            raise BackendUnavailable(starting)
        index = runtime.vectors.get()
        name = vector_collection(runtime, "atom")
        try:
            count = index.count(name)
        except NotFound:
            count = 0  # not created yet, or lost: the self-check says which
        out.append(
            SliceStats(
                name="vector",
                backend=vec_backend,
                available=True,
                count=count,
                detail=f"collection {name}",
                **_health(runtime, check, "vector:", "qdrant"),
            )
        )
    except BackendUnavailable as exc:
        out.append(
            SliceStats(
                name="vector",
                backend=vec_backend,
                available=False,
                detail=str(exc),
                **_health(runtime, check, "vector:", "qdrant"),
            )
        )
    graph_backend = "falkordb (embedded)" if s.graph_embedded else "bolt (memgraph/neo4j)"
    try:
        graph = runtime.graph.get()
        nodes = graph.node_counts()
        edges = graph.edge_counts()
        out.append(
            SliceStats(
                name="graph",
                backend=graph_backend,
                available=True,
                count=sum(nodes.values()),
                detail=f"nodes {nodes}; edges {edges}",
                **_health(runtime, check, "graph:", "graph"),
            )
        )
    except BackendUnavailable as exc:
        out.append(
            SliceStats(
                name="graph",
                backend=graph_backend,
                available=False,
                detail=str(exc),
                **_health(runtime, check, "graph:", "graph"),
            )
        )
    return out


def _health(
    runtime: ProjectionRuntime, check: SelfCheck | None, prefix: str, target: RepairTarget
) -> dict[str, Any]:
    """The self-check fields of one slice's SliceStats."""
    repaired = runtime.monitor.repair_note(target)
    if check is None:
        return {"health": "unchecked", "repaired": repaired}
    parts = check.of(prefix)
    damaged = [c.describe() for c in parts if c.damaged]
    if damaged:
        health = "repairing" if runtime.monitor.repairing else "damaged"
        damaged.append(runtime.monitor.todo(target))  # what is being done about it
        return {"health": health, "problems": damaged, "repaired": repaired}
    unchecked = [c.describe() for c in parts if c.state == "unavailable"]
    return {
        "health": "unchecked" if unchecked else "ok",
        "problems": unchecked,
        "repaired": repaired,
    }
