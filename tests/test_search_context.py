"""An ingested atom is found by the context it was read in (issue 15, retrieval through ingest):
its document title and section path are recorded with it and indexed by the lexical arm, while
its claim stays as written, its vector stays the claim's (semantic dedup compares claim vectors
across documents) and a memory_store atom is indexed exactly as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.embedding.search_text import MAX_CONTEXT_CHARS, METADATA_KEY, search_context
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.sweep import cosine
from pegas_memory.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.service import MemoryService
from tests.conftest import offline_memory

TITLE = "Chenodeoxycholic acid"
# The body never names the substance: the title carries the subject, as in a SciFact abstract.
DOC = f"""# {TITLE}

## Results

Treatment for two days increased the activity of brown adipose tissue in twelve healthy women.
"""
OTHER = "Brown adipose tissue activity rises in healthy women exposed to cold."


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    data = tmp_path / "data"
    try:
        with offline_memory(database_url, data) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


def test_context_is_the_title_and_section_path_given_once() -> None:
    assert search_context(TITLE, (TITLE, "Results")) == f"{TITLE} > Results"
    assert search_context("Rivers.", ("rivers", " Lakes ", "", "Lakes")) == "Rivers. > Lakes"
    assert search_context(None, ()) == ""
    long = search_context("word " * 100, ("Section",))
    assert len(long) <= MAX_CONTEXT_CHARS and long.endswith("word")


def test_an_ingested_atom_is_found_by_its_title(service: MemoryService) -> None:
    report = service.ingest(IngestRequest(source=DOC, kind="markdown", title=TITLE))
    assert report.atoms_new == 1, report
    atom = report.atom_ids[0]
    stored = service.store(StoreRequest(claim=OTHER)).id
    service.runtime.worker().drain(include_delayed=True)
    with service.db.connection() as conn:
        row = conn.execute("SELECT claim, metadata FROM pm_atom WHERE id = %s", (atom,)).fetchone()
    claim = str(row["claim"])
    assert "chenodeoxycholic" not in claim.casefold()  # the claim an agent reads is unchanged
    assert row["metadata"][METADATA_KEY] == f"{TITLE} > Results"

    hits = service.search(SearchRequest(query="chenodeoxycholic", preset="lexical")).hits
    assert [h.id for h in hits] == [atom]
    hits = service.search(SearchRequest(query="chenodeoxycholic acid activity")).hits
    assert hits[0].id == atom  # the hybrid: the title's words put it ahead of the other atom
    # the section heading is indexed too; a memory_store atom has no context to match
    hits = service.search(SearchRequest(query="results", preset="lexical")).hits
    assert [h.id for h in hits] == [atom]

    # both vectors are their claims' own (dedup compares them across documents)
    embedder = service.runtime.embedder.get()
    index = service.runtime.vectors.get()
    name = service.runtime.projector.collection("atom")
    points = {r.id: r.vector for r in index.retrieve(name, [atom, stored], with_vectors=True)}
    want_atom, want_stored = embedder.embed_documents([claim, OTHER])
    assert cosine(points[atom] or (), want_atom) > 0.999
    assert cosine(points[stored] or (), want_stored) > 0.999
