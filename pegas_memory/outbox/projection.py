"""Projection of Postgres rows into the vector slice and the graph slice.

An outbox event says only "entity X changed". The projector reads X's *current* row from Postgres
and makes each slice match it: upsert when the row exists, delete when it does not. So applying an
event twice, or late, is harmless (at-least-once delivery), and an update can never resurrect a
deleted row. The worker guarantees that two workers never sync the same entity at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, LiteralString, TypeVar

import pegas_memory.embedding.search_vector as search_vector
from pegas_memory.db.pool import Conn
from pegas_memory.embedding.cache import CachedEmbedder
from pegas_memory.memgraph_store.cypher import (
    AtomNode,
    DependencyEdge,
    DerivedEdge,
    GraphStore,
    LinkEdge,
    PassageNode,
    SymbolNode,
)
from pegas_memory.outbox.queries import Q
from pegas_memory.qdrant_store import sparse_terms
from pegas_memory.qdrant_store.index import (
    SparseVector,
    VectorEntity,
    VectorIndex,
    VectorPoint,
    collection_name,
)

log = logging.getLogger(__name__)
_Item = TypeVar("_Item")

Target = Literal["vector", "graph"]
ENTITY_TYPES = (
    "atom",
    "link",
    "code_symbol",
    "code_dependency",
    "trace",
    "code_inferred",
    "passage",
)
# Which slices each entity type is projected into.
TARGETS_OF: dict[str, tuple[Target, ...]] = {
    "atom": ("vector", "graph"),
    "trace": ("vector",),
    "passage": ("vector", "graph"),  # chunks of current document versions (pm_passage)
    "link": ("graph",),
    "code_symbol": ("graph",),
    "code_dependency": ("graph",),
    "code_inferred": ("graph",),  # derived code edges (memory_infer), as DERIVED edges
}
# The table (or view) holding each projected entity's rows, one id per slice element; code
# dependencies are counted apart (only resolved ones are projected).
TABLE_OF: dict[str, str] = {
    "atom": "pm_atom",
    "trace": "pm_episodic_trace",
    "passage": "pm_passage",
    "link": "pm_atom_link",
    "code_symbol": "pm_code_symbol",
    "code_inferred": "pm_code_inferred",
}
MAX_EMBED_CHARS = 4_000


def atom_embed_text(claim: str, content: str) -> str:
    """What an atom's claim vector is computed from: its claim, then the start of its content
    (its search vector adds its context's: `atom_search_vectors`)."""
    text = claim if not content or content.strip() == claim.strip() else f"{claim}\n{content}"
    return text[:MAX_EMBED_CHARS]


def atom_contexts(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each atom row's search context ("" for none: a memory_store atom)."""
    return [" ".join(str(r.get("search_context") or "").split()) for r in rows]


def atom_search_vectors(
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    rows: Sequence[Mapping[str, Any]],
    weight: float = search_vector.CONTEXT_WEIGHT,
) -> list[list[float]]:
    """The search vectors of atom rows (embedding/search_vector.py): their claim texts and their
    distinct contexts embedded in one call (through the cache: the claims' vectors are there
    from the ingest dedup, a section's context is embedded once for all its atoms)."""
    texts = [atom_embed_text(r["claim"], r["content"]) for r in rows]
    contexts = atom_contexts(rows)
    distinct = sorted({c for c in contexts if c}) if weight > 0 else []
    vectors = list(embed([*texts, *distinct]))
    claim_vectors, context_vectors = vectors[: len(texts)], vectors[len(texts) :]
    by_context = dict(zip(distinct, context_vectors, strict=True))
    return search_vector.search_vectors(claim_vectors, contexts, by_context, weight)


@dataclass(frozen=True)
class Rows:
    """Current rows of one entity type, and the ids that no longer exist."""

    present: list[dict[str, Any]]
    absent: list[int]


_SELECTS: dict[str, LiteralString] = {
    "atom": Q.select_atom,
    "trace": Q.select_trace,
    "passage": Q.select_passage,
    "link": Q.select_link,
    "code_symbol": Q.select_code_symbol,
    "code_dependency": Q.select_code_dependency,
    "code_inferred": Q.select_code_inferred,
}


def load_rows(conn: Conn, entity_type: str, ids: Sequence[int]) -> Rows:
    rows = conn.execute(_SELECTS[entity_type], {"ids": list(ids)}).fetchall()
    found = {int(r["id"]) for r in rows}
    return Rows(present=[dict(r) for r in rows], absent=[i for i in ids if i not in found])


def atom_payload(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": row["type"],
        "status": row["status"],
        "confidence": float(row["confidence"]),
        "doc_id": row["doc_id"],
        "topic": row["topic"],
        "tags": list(row["tags"] or []),
        "language": row["language"],
        "created_at": row["created_at"],
    }


def passage_embed_text(content: str) -> str:
    """What a passage's vector is computed from: its own text (its heading path is in its BM25
    terms, not in its vector, so a passage and an atom quoting it stay comparable)."""
    return content[:MAX_EMBED_CHARS]


def passage_payload(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "doc_id": row["doc_id"],
        "language": row["language"],
        "created_at": row["created_at"],
    }


# The stores whose lexical arm the sparse index can serve (traces stay on PostgreSQL).
SPARSE_ENTITIES: frozenset[VectorEntity] = frozenset({"atom", "passage"})


def sparse_of(entity: VectorEntity, row: dict[str, Any]) -> SparseVector:
    """A row's BM25 vector over what PostgreSQL's tsvector of it holds: an atom's claim, content
    and search context (migration 0008), a passage's text and heading path (0009)."""
    if entity == "atom":
        claim, content = row["claim"], row["content"] or ""
        texts = [claim, "" if content.strip() == claim.strip() else content]
        return sparse_terms.document_vector([*texts, row.get("search_context") or ""], "atom")
    heading = " ".join(row.get("heading_path") or ())
    return sparse_terms.document_vector([row["content"], heading], "passage")


def payload_of(entity: VectorEntity, row: dict[str, Any]) -> dict[str, Any]:
    """The filter fields of a vector point, for each kind of point."""
    if entity == "atom":
        return atom_payload(row)
    if entity == "passage":
        return passage_payload(row)
    return trace_payload(row)


def trace_payload(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": row["kind"],
        "session_id": row["session_id"],
        "language": row["language"],
        "created_at": row["created_at"],
    }


class Projector:
    """Makes the configured slices match Postgres for given entities.

    The slices and the embedder are given as getters that may raise BackendUnavailable (an
    engine down, or the embedded store held by another process): the worker then keeps the
    events pending for that slice without using up their attempts.
    """

    def __init__(
        self,
        *,
        targets: tuple[Target, ...],
        vectors: Callable[[], VectorIndex],
        graph: Callable[[], GraphStore],
        embedder: Callable[[], CachedEmbedder],
        collection_prefix: str = "pm",
        sparse: bool = False,
    ):
        self.targets = targets
        # Whether atoms and passages carry a BM25 sparse vector (PEGAS_LEXICAL_ENGINE=sparse);
        # their collections are then the `_bm25` ones (qdrant_store.index.collection_name).
        self.sparse = sparse
        self._vectors = vectors
        self._graph = graph
        self._embedder = embedder
        self.prefix = collection_prefix
        self._ensured: set[str] = set()
        self._graph_ready = False
        # How far an ingested atom's context pulls its search vector (embedding.search_vector;
        # 0: the claim vector alone, the behaviour before). Only the benchmark changes it.
        self.context_weight = search_vector.CONTEXT_WEIGHT

    def has_sparse(self, entity: VectorEntity) -> bool:
        """Whether this entity's points carry a BM25 vector."""
        return self.sparse and entity in SPARSE_ENTITIES

    def collection_of(self, entity: VectorEntity, model_id: str, dim: int) -> str:
        """The name of an entity's collection in this embedding space (not created)."""
        return collection_name(self.prefix, entity, model_id, dim, sparse=self.has_sparse(entity))

    def collection(self, entity: VectorEntity) -> str:
        """The collection of this embedding space, created on first use."""
        embedder = self._embedder()
        name = self.collection_of(entity, embedder.model_id, embedder.dim)
        if name not in self._ensured:
            self._vectors().ensure_collection(name, embedder.dim, sparse=self.has_sparse(entity))
            self._ensured.add(name)
        return name

    def apply(self, target: Target, entity_type: str, rows: Rows) -> None:
        """Make one slice match `rows` (raises on failure; the caller isolates and retries)."""
        if target not in TARGETS_OF[entity_type]:
            return
        if target == "vector":
            self._apply_vectors(entity_type, rows)
        else:
            self._apply_graph(entity_type, rows)

    # ------------------------------------------------------------------ vector slice
    def _apply_vectors(self, entity_type: str, rows: Rows) -> None:
        entity: VectorEntity = (
            "atom" if entity_type == "atom" else "passage" if entity_type == "passage" else "trace"
        )
        name = self.collection(entity)
        index = self._vectors()
        if rows.present:
            embed = self._embedder().embed_documents
            vectors: Sequence[Sequence[float]]
            if entity == "atom":
                vectors = atom_search_vectors(embed, rows.present, self.context_weight)
            elif entity == "passage":
                vectors = embed([passage_embed_text(r["content"]) for r in rows.present])
            else:
                vectors = embed([r["content"][:MAX_EMBED_CHARS] for r in rows.present])
            payloads = [payload_of(entity, r) for r in rows.present]
            sparse: list[SparseVector | None] = [
                sparse_of(entity, r) if self.has_sparse(entity) else None for r in rows.present
            ]
            index.upsert(
                name,
                [
                    VectorPoint(id=int(r["id"]), vector=v, payload=p, sparse=s)
                    for r, v, p, s in zip(rows.present, vectors, payloads, sparse, strict=True)
                ],
            )
        if rows.absent:
            index.delete(name, rows.absent)

    # ------------------------------------------------------------------ graph slice
    def _apply_graph(self, entity_type: str, rows: Rows) -> None:
        graph = self._graph()
        if not self._graph_ready:
            graph.ensure_schema()
            self._graph_ready = True
        if entity_type == "atom":
            _write(rows, _atom_node, graph.upsert_atoms, graph.delete_atoms)
        elif entity_type == "link":
            _write(rows, _link_edge, graph.upsert_links, graph.delete_links)
        elif entity_type == "code_symbol":
            _write(rows, _symbol_node, graph.upsert_symbols, graph.delete_symbols)
        elif entity_type == "code_dependency":
            resolved = [r for r in rows.present if r["dst_symbol_id"] is not None]
            unresolved = [int(r["id"]) for r in rows.present if r["dst_symbol_id"] is None]
            if resolved:
                graph.upsert_dependencies([_dependency_edge(r) for r in resolved])
            gone = rows.absent + unresolved
            if gone:
                graph.delete_dependencies(gone)
        elif entity_type == "code_inferred":
            _write(rows, _derived_edge, graph.upsert_derived, graph.delete_derived)
        elif entity_type == "passage":
            _write(rows, _passage_node, graph.upsert_passages, graph.delete_passages)


def _write(
    rows: Rows,
    item: Callable[[dict[str, Any]], _Item],
    upsert: Callable[[list[_Item]], None],
    delete: Callable[[list[int]], None],
) -> None:
    """The rows present upserted as graph items, the absent ones deleted (by Postgres id)."""
    if rows.present:
        upsert([item(r) for r in rows.present])
    if rows.absent:
        delete(rows.absent)


def _atom_node(r: dict[str, Any]) -> AtomNode:
    return AtomNode(
        id=int(r["id"]),
        type=r["type"],
        status=r["status"],
        confidence=float(r["confidence"]),
        claim=r["claim"][:300],
        passages=tuple(int(p) for p in r.get("passages") or ()),
    )


def _passage_node(r: dict[str, Any]) -> PassageNode:
    return PassageNode(
        id=int(r["id"]),
        doc_id=int(r["doc_id"]),
        locator=str(r["locator"] or "")[:200],
        atoms=tuple(int(a) for a in r.get("atoms") or ()),
    )


def _link_edge(r: dict[str, Any]) -> LinkEdge:
    return LinkEdge(
        id=int(r["id"]),
        src=int(r["src_atom_id"]),
        dst=int(r["dst_atom_id"]),
        kind=r["kind"],
        confidence=float(r["confidence"]),
        inferred=bool(r["inferred"]),
        source=r["source"],
    )


def _symbol_node(r: dict[str, Any]) -> SymbolNode:
    return SymbolNode(
        id=int(r["id"]),
        repo=r["repo"],
        path=r["path"],
        name=r["name"],
        qualified_name=r["qualified_name"],
        kind=r["kind"],
        language=r["language"],
        start_line=max(1, int(r["start_line"] or 1)),
    )


def _dependency_edge(r: dict[str, Any]) -> DependencyEdge:
    return DependencyEdge(
        id=int(r["id"]),
        src=int(r["src_symbol_id"]),
        dst=int(r["dst_symbol_id"]),
        kind=r["kind"],
        line=int(r["line"]) if r["line"] else None,
    )


def _derived_edge(r: dict[str, Any]) -> DerivedEdge:
    return DerivedEdge(
        id=int(r["id"]),
        src=int(r["src_symbol_id"]),
        dst=int(r["dst_symbol_id"]),
        kind=r["kind"],
        confidence=float(r["confidence"]),
    )


def chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
