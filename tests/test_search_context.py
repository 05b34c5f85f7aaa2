"""An ingested atom is found by the context it was read in (issue 15, retrieval through ingest):
its document title and section lead its search text, in the vector and in the lexical index,
while its claim stays as written and a memory_store atom is embedded exactly as before. The
projection, the content sweep and erasure compute the same text, so the sweep still checks the
point and erasure still finds the cached vector."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.embedding.search_text import (
    MAX_CONTEXT_CHARS,
    METADATA_KEY,
    atom_search_text,
    search_context,
)
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.selfcheck import check_slices
from pegas_memory.outbox.sweep import cosine
from pegas_memory.qdrant_store.index import VectorPoint
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
        with offline_memory(database_url, data, auto_repair_slices=False) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


def _ingested(service: MemoryService) -> tuple[int, int, str, str]:
    """(ingested atom id, stored atom id, the ingested claim, its recorded context)."""
    report = service.ingest(IngestRequest(source=DOC, kind="markdown", title=TITLE))
    assert report.atoms_new == 1, report
    stored = service.store(StoreRequest(claim=OTHER)).id
    service.runtime.worker().drain(include_delayed=True)
    with service.db.connection() as conn:
        row = conn.execute(
            "SELECT id, claim, metadata FROM pm_atom WHERE id = %s", (report.atom_ids[0],)
        ).fetchone()
    return int(row["id"]), stored, str(row["claim"]), str(row["metadata"].get(METADATA_KEY))


def test_context_is_the_title_and_section_path_given_once() -> None:
    assert search_context(TITLE, (TITLE, "Results")) == f"{TITLE} > Results"
    assert search_context("Rivers.", ("rivers", " Lakes ", "", "Lakes")) == "Rivers. > Lakes"
    assert search_context(None, ()) == ""
    long = search_context("word " * 100, ("Section",))
    assert len(long) <= MAX_CONTEXT_CHARS and long.endswith("word")


def test_search_text_leads_with_the_context_and_is_unchanged_without_one() -> None:
    led = atom_search_text("It rose.", "It rose.", "Title > Results")
    assert led == "Title > Results\nIt rose."
    assert atom_search_text("It rose.", "Because.", None) == "It rose.\nBecause."
    assert atom_search_text("It rose.", "", "") == "It rose."
    # a claim that already starts with its context does not get it twice
    assert atom_search_text("Title: it rose.", "", "title") == "Title: it rose."


def test_an_ingested_atom_is_found_by_its_title_in_both_arms(service: MemoryService) -> None:
    atom, stored, claim, context = _ingested(service)
    assert "chenodeoxycholic" not in claim.casefold()  # the claim an agent reads is unchanged
    assert context == f"{TITLE} > Results"

    lexical = service.search(SearchRequest(query="chenodeoxycholic", preset="lexical")).hits
    assert [h.id for h in lexical] == [atom]
    dense = service.search(SearchRequest(query="chenodeoxycholic acid", preset="dense")).hits
    assert dense[0].id == atom

    # the points: the ingested atom's vector is its context + claim, the stored one's its claim
    embedder = service.runtime.embedder.get()
    index = service.runtime.vectors.get()
    name = service.runtime.projector.collection("atom")
    points = {r.id: r.vector for r in index.retrieve(name, [atom, stored], with_vectors=True)}
    want_atom, want_stored = embedder.embed_documents([f"{context}\n{claim}", OTHER])
    assert cosine(points[atom] or (), want_atom) > 0.999
    assert cosine(points[stored] or (), want_stored) > 0.999


def test_the_sweep_checks_an_ingested_atoms_point(service: MemoryService) -> None:
    atom, stored, _claim, _context = _ingested(service)
    rt = service.runtime
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    check = next(c for c in check_slices(rt).checks if c.slice == "vector:atom")
    assert check.state == "ok", check
    records = {r.id: r for r in index.retrieve(name, [atom, stored], with_vectors=True)}
    # the ingested atom's point now holds the stored atom's vector
    index.upsert(
        name, [VectorPoint(atom, list(records[stored].vector or ()), dict(records[atom].payload))]
    )
    check = next(c for c in check_slices(rt).checks if c.slice == "vector:atom")
    assert check.state == "stale" and atom in check.ids, check
    assert "another text's vector" in check.describe()


def test_erasing_an_ingested_atom_erases_its_cached_vector(service: MemoryService) -> None:
    atom, _stored, claim, context = _ingested(service)
    embedder = service.runtime.embedder.get()
    assert embedder.cached([f"{context}\n{claim}"])  # what the projection embedded
    result = service.forget(mode="erase", atom_ids=[atom])
    assert result.atoms == [atom] and result.embeddings_removed == 1
    assert not embedder.cached([f"{context}\n{claim}"])
