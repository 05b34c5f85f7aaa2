"""Result views of the service: search rows and slice counts turned into the tools' models.

Kept apart from `service` because they only read: a search row becomes a SearchHit, and each
projection slice reports its count or why it is unavailable (stats never fail for that).
"""

from __future__ import annotations

from typing import Any

from pegas_memory.config import Settings
from pegas_memory.errors import BackendUnavailable
from pegas_memory.models import CitationOut, SearchHit, SliceStats
from pegas_memory.runtime import ProjectionRuntime


def to_hit(h: dict[str, Any]) -> SearchHit:
    content = h.get("content") or ""
    return SearchHit(
        id=h["id"],
        scope=h["scope"],
        score=round(float(h["score"]), 6),
        type=h["type"],
        status=h.get("status"),
        confidence=h.get("confidence"),
        claim=h["claim"],
        content=content[:1000],
        topic=h.get("topic"),
        tags=list(h.get("tags") or []),
        language=h.get("language"),
        document_id=h.get("doc_id"),
        created_at=h["created_at"].isoformat() if h.get("created_at") else None,
        citations=[
            CitationOut(
                document_id=c["doc_id"],
                document_title=c["title"],
                uri=c["uri"],
                locator=c["locator"],
                quote=c["quoted_text"],
                code_symbol_id=c["code_symbol_id"],
            )
            for c in h.get("citations", [])
        ],
        found_by=h.get("arms", {}),
    )


def slice_stats(settings: Settings, runtime: ProjectionRuntime) -> list[SliceStats]:
    """Counts in each slice, or why a slice is unavailable (stats never fail for that)."""
    out: list[SliceStats] = []
    s = settings
    vec_backend = "qdrant-edge (embedded)" if s.vectors_embedded else "qdrant server"
    starting = runtime.host_starting() if s.shares_vectors else None
    try:
        if starting:  # stats never wait for the engine host
            raise BackendUnavailable(starting)
        index = runtime.vectors.get()
        name = runtime.projector.collection("atom")
        out.append(
            SliceStats(
                name="vector",
                backend=vec_backend,
                available=True,
                count=index.count(name),
                detail=f"collection {name}",
            )
        )
    except BackendUnavailable as exc:
        out.append(SliceStats(name="vector", backend=vec_backend, available=False, detail=str(exc)))
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
            )
        )
    except BackendUnavailable as exc:
        out.append(
            SliceStats(name="graph", backend=graph_backend, available=False, detail=str(exc))
        )
    return out
