"""The retrieval arms: each reads one store and returns a ranked, weighted list.

- dense: nearest neighbours in the vector slice (the current embedding space's collection),
  weighted by the best cosine;
- lexical: BM25 over the tsvector of atoms, passages or traces, in PostgreSQL (search/lexical.py),
  weighted by how much of the query the best hit covers; or, with PEGAS_LEXICAL_ENGINE=sparse,
  BM25 over the sparse vectors the projection writes beside the dense ones for atoms and
  passages (qdrant_store/sparse_terms.py), weighted by the share of query words the best hit
  holds (`sparse_lexical_arm`);
- graph: one hop over pm_atom_link from the top fused hits, weighted by link kind and confidence
  (read from PostgreSQL, the truth, so expansion never lags the outbox).
Beside them, what ranking reads of the stores: the documents of the text arms' candidates
(document support) and the stored vectors of the head (MMR). The arms see the engines through
`outbox.slices.VectorEngines`, the part of the runtime they use; scoring a graph hop
(`neighbours`) is pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pegas_memory.db.pool import Conn
from pegas_memory.errors import BackendUnavailable
from pegas_memory.models import LinkKind
from pegas_memory.outbox.slices import VectorEngines
from pegas_memory.qdrant_store import sparse_terms
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.fusion import ArmHit, Fused, dense_weight, lexical_weight
from pegas_memory.search.lexical import Entity, LexicalIndex, Source
from pegas_memory.search.presets import GRAPH_SHARE, POOL
from pegas_memory.search.queries import SEARCH_SQL as Q

# How much a neighbour reached through a link of this kind is worth, relative to its seed.
LINK_KIND_WEIGHT: dict[str, float] = {
    LinkKind.DEFINES: 0.8,
    LinkKind.DEPENDS_ON: 0.7,
    LinkKind.CAUSE: 0.7,
    LinkKind.REFERENCE: 0.6,
    LinkKind.CONTRADICTS: 0.6,
    LinkKind.CORROBORATES: 0.6,
    LinkKind.INFERENCE: 0.5,
    LinkKind.CALLS: 0.5,
    LinkKind.DUPLICATE_OF: 0.2,
}


@dataclass
class ArmResult:
    hits: list[ArmHit]
    weight: float
    note: str | None = None


def lexical_arm(
    index: LexicalIndex, conn: Conn, query: str, entity: Entity, flt: SearchFilter, k: int = POOL
) -> ArmResult:
    """BM25 over the tsvector (lexical.py); the weight follows the best hit's idf coverage."""
    where, params = flt.sql(entity)
    # An as-of search reads the passages of every version, each with its interval.
    source: Source = "passage_ever" if entity == "passage" and flt.as_of else entity
    found = index.search(conn, query, source, k, where, params)
    hits = [ArmHit(i, score) for i, score in found.hits]
    weight = lexical_weight(found.coverage) if hits else 0.0
    return ArmResult(hits, weight, found.note)


def sparse_lexical_arm(
    engines: VectorEngines, query: str, entity: Entity, flt: SearchFilter, k: int = POOL
) -> ArmResult:
    """BM25 from the vector engine's sparse index (the engine applies IDF); the weight follows
    the share of the query's words the best hit holds. No cross-script prefixes (a sparse index
    matches whole terms only: qdrant_store/sparse_terms.py).

    Raises BackendUnavailable when the vector slice does not answer."""
    terms = sparse_terms.query_vector(query)
    if not terms.vector.indices:
        return ArmResult([], 0.0, "no searchable terms")
    index = engines.vectors.get()
    name = engines.projector.collection(entity)
    found = index.search_sparse(name, terms.vector, k=k, where=flt.vector_filter(entity))
    if not found:
        return ArmResult([], 0.0, "no lexical match")
    cover = sparse_terms.word_coverage(terms, found[0].indices)
    hits = [ArmHit(h.id, h.score) for h in found]
    return ArmResult(hits, lexical_weight(cover), f"coverage {cover:.2f} (sparse)")


def dense_arm(
    engines: VectorEngines, query: str, entity: Entity, flt: SearchFilter, k: int = POOL
) -> ArmResult:
    """Nearest neighbours in the vector slice; the weight follows the best cosine.

    Raises BackendUnavailable when the embedder or the vector slice does not answer."""
    embedder = engines.embedder.get()
    # The query first: an Ollama embedder needs no engine host, which may still be starting.
    vector = embedder.embed_query(query)
    index = engines.vectors.get()
    name = engines.projector.collection(entity)
    found = index.search(name, vector, k=k, where=flt.vector_filter(entity), with_payload=False)
    hits = [ArmHit(h.id, h.score) for h in found]
    if not hits:
        return ArmResult([], 0.0, "no vector match")
    return ArmResult(hits, dense_weight(hits[0].score), f"top cosine {hits[0].score:.3f}")


def graph_arm(
    conn: Conn, seeds: Sequence[Fused], k: int = POOL, *, as_of: datetime | None = None
) -> ArmResult:
    """One hop over links from the seeds, scored by seed score x kind weight x confidence;
    `as_of`: over the links as they were then."""
    if not seeds:
        return ArmResult([], 0.0)
    seed_score = {f.id: f.score for f in seeds}
    if as_of is None:
        rows = conn.execute(Q.graph_links, {"ids": list(seed_score)}).fetchall()
    else:
        rows = conn.execute(Q.graph_links_as_of, {"ids": list(seed_score), "t": as_of}).fetchall()
    return neighbours(rows, seed_score, k)


def neighbours(
    links: Iterable[Mapping[str, Any]], seed_score: Mapping[int, float], k: int = POOL
) -> ArmResult:
    """The graph arm's list from the seeds' links (rows with src_atom_id, dst_atom_id, kind,
    confidence): each other end scored by its best seed score x kind weight x confidence."""
    best: dict[int, float] = {}
    for r in links:
        ends = ((r["src_atom_id"], r["dst_atom_id"]), (r["dst_atom_id"], r["src_atom_id"]))
        for seed, other in ends:
            if seed in seed_score and other != seed:
                w = LINK_KIND_WEIGHT.get(r["kind"], 0.5) * float(r["confidence"])
                best[other] = max(best.get(other, 0.0), seed_score[seed] * w)
    hits = sorted((ArmHit(i, s) for i, s in best.items()), key=lambda h: (-h.score, h.id))
    return ArmResult(hits[:k], GRAPH_SHARE if hits else 0.0)


def candidate_documents(conn: Conn, arms: Mapping[str, ArmResult]) -> dict[int, int]:
    """The document of each of the arms' candidates that has one (ingested atoms only:
    memory_store atoms have no `doc_id`), for document support."""
    ids = sorted({h.id for r in arms.values() for h in r.hits})
    if not ids:
        return {}
    rows = conn.execute(Q.atom_documents, {"ids": ids}).fetchall()
    return {int(r["id"]): int(r["doc_id"]) for r in rows}


def stored_vectors(
    engines: VectorEngines, entity: Entity, ids: list[int]
) -> dict[int, Sequence[float]]:
    """The vectors the slice holds for these ids (for MMR); none when the slice is down."""
    try:
        index = engines.vectors.get()
        name = engines.projector.collection(entity)
        return {
            r.id: r.vector
            for r in index.retrieve(name, ids, with_vectors=True, with_payload=False)
            if r.vector
        }
    except BackendUnavailable:
        return {}
