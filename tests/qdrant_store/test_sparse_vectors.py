"""Sparse BM25 vectors beside the dense ones, the same behaviour on both vector back ends (the
embedded engine and the Qdrant client), and across the engine host's wire."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.host import wire
from pegas_memory.qdrant_store import sparse_terms as st
from pegas_memory.qdrant_store.client import ClientVectorIndex
from pegas_memory.qdrant_store.edge import EdgeVectorIndex
from pegas_memory.qdrant_store.index import (
    SparseHit,
    SparseVector,
    VectorFilter,
    VectorIndex,
    VectorPoint,
)

TEXTS = {
    1: ("Дунай протекает через десять стран и впадает в Чёрное море.", "ru"),
    2: ("The Danube flows through ten countries before it reaches the Black Sea.", "en"),
    3: ("Волга впадает в Каспийское море.", "ru"),
    4: ("Rivers flowing into seas carry sediment.", "en"),
}


def points() -> list[VectorPoint]:
    return [
        VectorPoint(
            id=i,
            vector=[1.0, 0.0, 0.0, float(i)],
            payload={"language": lang},
            sparse=st.document_vector([text], "atom"),
        )
        for i, (text, lang) in TEXTS.items()
    ]


@pytest.fixture(params=["edge", "client"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    opened: VectorIndex
    if request.param == "edge":
        opened = EdgeVectorIndex(tmp_path / "qdrant")
    else:
        opened = ClientVectorIndex.local()
    opened.ensure_collection("c", 4, sparse=True)
    opened.upsert("c", points())
    yield opened
    opened.close()


def top(index: VectorIndex, query: str, where: VectorFilter | None = None) -> list[int]:
    return [h.id for h in index.search_sparse("c", st.query_vector(query).vector, k=5, where=where)]


def test_sparse_search_ranks_by_bm25_in_both_languages(index: VectorIndex) -> None:
    assert top(index, "Каспийского моря") == [3, 1]
    assert top(index, "river flowing")[0] == 4
    assert top(index, "Danube countries") == [2]
    assert top(index, "моря", VectorFilter(languages=("en",))) == []
    assert top(index, "the and") == []  # stopwords only: no terms, no query


def test_a_sparse_hit_carries_its_terms_and_the_dense_vector_stays(index: VectorIndex) -> None:
    query = st.query_vector("Волга впадает")
    hit = index.search_sparse("c", query.vector, k=1)[0]
    assert hit.id == 3 and st.word_coverage(query, hit.indices) == 1.0
    assert index.search("c", [1.0, 0.0, 0.0, 3.0], k=1)[0].id == 3
    assert index.retrieve("c", [3], with_vectors=True)[0].vector is not None


def test_points_and_sparse_hits_cross_the_wire_unchanged() -> None:
    sent = points()
    back = wire.unpack_points(wire.pack_points(sent))
    assert [p.sparse for p in back] == [p.sparse for p in sent]
    hits = [SparseHit(3, 2.5, (7, 9))]
    assert wire.unpack_sparse_hits(wire.pack_sparse_hits(hits)) == hits
    assert wire.unpack_sparse(wire.pack_sparse(SparseVector((1,), (0.5,)))) == SparseVector(
        (1,), (0.5,)
    )
