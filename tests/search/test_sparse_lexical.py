"""The lexical arm served by the vector engine's sparse index (PEGAS_LEXICAL_ENGINE=sparse): the
projection writes BM25 vectors beside the dense ones, the arm reads them through the real
embedded engine, and a slice rebuilt from PostgreSQL answers the same."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.outbox.reconcile import rebuild, vector_collection
from pegas_memory.search.filters import SearchFilter
from tests.conftest import files_memory

RIVERS_RU = """# Реки Европы

Дунай протекает через десять стран и впадает в Чёрное море. Это вторая по длине река Европы.

## Волга

Волга впадает в Каспийское море.
"""

DANUBE = """# Rivers

The Danube flows through ten countries before it reaches the Black Sea.
"""


@pytest.fixture
def sparse_memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path, lexical_engine="sparse") as svc:
        svc.ingest(IngestRequest(source=RIVERS_RU, kind="markdown", title="Реки"))
        svc.ingest(IngestRequest(source=DANUBE, kind="markdown", title="Rivers"))
        svc.store(StoreRequest(claim="The Volga is the longest river in Europe.", type="fact"))
        svc.store(StoreRequest(claim="Волга течёт по Русской равнине.", type="fact"))
        svc.runtime.worker().drain()
        yield svc


def top_text(svc: MemoryService, entity: str, query: str) -> tuple[str, str]:
    """The lexical arm's best row for `query` (its text) and the arm's note."""
    arm = svc.searcher.lexical_arm(None, query, entity, SearchFilter())  # type: ignore[arg-type]
    assert arm.hits, arm.note
    statement = (
        "SELECT claim AS t FROM pm_atom WHERE id = %s"
        if entity == "atom"
        else "SELECT content AS t FROM pm_passage WHERE id = %s"
    )
    with svc.db.connection() as conn:
        row = conn.execute(statement, (arm.hits[0].id,)).fetchone()
    assert row is not None
    return str(row["t"]), str(arm.note)


def arm_ids(svc: MemoryService, entity: str, query: str) -> list[tuple[int, float]]:
    arm = svc.searcher.lexical_arm(None, query, entity, SearchFilter())  # type: ignore[arg-type]
    return [(h.id, round(h.score, 4)) for h in arm.hits]


QUERIES = (
    ("passage", "чёрного моря", "Чёрное море"),
    ("passage", "Каспийского моря", "Каспийское"),
    ("passage", "countries the Danube flowed through", "Danube flows"),
    ("atom", "longest rivers", "longest river"),
    ("atom", "Русская равнина", "Русской равнине"),
)


def test_sparse_arm_finds_russian_and_english_rows(sparse_memory: MemoryService) -> None:
    for entity, query, expected in QUERIES:
        text, note = top_text(sparse_memory, entity, query)
        assert expected in text, (query, text)
        assert note.endswith("(sparse)"), note  # the engine answered, not the PostgreSQL fallback
    name = vector_collection(sparse_memory.runtime, "passage")
    assert name.endswith("_bm25")
    found = sparse_memory.search(SearchRequest(query="впадает в Каспийское море", preset="lexical"))
    assert found.hits and "Каспийское" in found.hits[0].claim


def test_a_slice_rebuilt_from_postgres_answers_the_same(sparse_memory: MemoryService) -> None:
    before = {(e, q): arm_ids(sparse_memory, e, q) for e, q, _ in QUERIES}
    index = sparse_memory.runtime.vectors.get()
    for entity in ("atom", "passage"):
        index.drop(vector_collection(sparse_memory.runtime, entity))
    result = rebuild(sparse_memory.runtime, "qdrant")
    assert result["counts"]["vector:passage"] >= 3
    after = {(e, q): arm_ids(sparse_memory, e, q) for e, q, _ in QUERIES}
    assert after == before


def test_as_of_searches_and_traces_stay_on_postgres(sparse_memory: MemoryService) -> None:
    searcher = sparse_memory.searcher
    assert searcher.uses_sparse("atom", SearchFilter())
    assert not searcher.uses_sparse("trace", SearchFilter())
    then = SearchFilter(as_of=datetime.now(UTC))
    assert not searcher.uses_sparse("passage", then)
    arm = searcher.lexical_arm(None, "Каспийского моря", "passage", then)
    assert arm.hits and not str(arm.note).endswith("(sparse)")
