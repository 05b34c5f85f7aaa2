"""Passages in the graph slice: each passage of a current document version is a node joined to its
document and to the atoms cited from it; an edit, forget, damage and rebuild keep the slice equal
to PostgreSQL (on the embedded engines)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.outbox.reconcile import rebuild, reconcile
from tests.conftest import files_memory, ingest_text

NOTES = """# Notes

The Lick Observatory opened in 1888 on Mount Hamilton in California.

## Instruments

The great refractor of the observatory was the largest telescope in the world until 1897.
"""


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path) as svc:
        yield svc


def _pg(memory: MemoryService, sql: str) -> set[tuple[int, ...]]:
    with memory.db.connection() as conn:
        return {tuple(int(v) for v in row.values()) for row in conn.execute(sql)}


def _graph(memory: MemoryService, cypher: str) -> set[tuple[int, ...]]:
    graph = memory.runtime.graph.get()
    return {tuple(int(v) for v in row) for row in graph._runner.read(cypher, {})}  # type: ignore[attr-defined]


def _assert_equal_to_postgres(memory: MemoryService) -> None:
    memory.runtime.worker().drain()
    passages = _pg(memory, "SELECT id, doc_id FROM pm_passage")
    assert _graph(memory, "MATCH (p:Passage)-[:PART_OF]->(d:Document) RETURN p.id, d.id") == (
        passages
    )
    cited = _pg(
        memory,
        "SELECT DISTINCT c.atom_id, c.chunk_id FROM pm_citation c"
        " JOIN pm_passage p ON p.id = c.chunk_id",
    )
    assert _graph(memory, "MATCH (a:Atom)-[:CITED_IN]->(p:Passage) RETURN a.id, p.id") == cited
    assert _graph(memory, "MATCH (d:Document) RETURN d.id") == {(d,) for _, d in passages}


def test_passages_and_their_citations_follow_edits_forget_damage_and_rebuild(
    memory: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "files" / "notes.md"
    first = ingest_text(memory, path, NOTES)
    other = memory.ingest(
        IngestRequest(source="Дунай впадает в Чёрное море.\n", kind="text", title="Реки")
    )
    _assert_equal_to_postgres(memory)
    assert _graph(memory, "MATCH (a:Atom)-[:CITED_IN]->(:Passage) RETURN count(a)") != {(0,)}
    # an edit: the old version's passages leave the graph, the new ones are cited
    ingest_text(memory, path, NOTES.replace("1897", "1908") + "\nIts dome is 23 metres wide.\n")
    _assert_equal_to_postgres(memory)
    # forget: the document's passages and its node are gone
    assert first.document_id is not None and other.document_id is not None
    memory.forget(mode="erase", document_ids=[first.document_id])
    _assert_equal_to_postgres(memory)
    assert _graph(memory, "MATCH (d:Document) RETURN d.id") == {(other.document_id,)}
    # damage: a passage node lost is noticed and put back from PostgreSQL
    graph = memory.runtime.graph.get()
    graph.delete_passages(list(graph.iter_node_ids("Passage"))[:1])
    drift = {s.slice: s.total for s in reconcile(memory.runtime, fix=True).slices}
    assert drift["graph:passage"] == 1
    assert reconcile(memory.runtime).drift == 0
    _assert_equal_to_postgres(memory)
    # a rebuild of the graph gives the same slice
    rebuild(memory.runtime, "graph")
    _assert_equal_to_postgres(memory)
