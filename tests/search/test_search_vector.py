"""An ingested atom is found by the context it was read in (issue 15, retrieval through ingest):
its search vector in the slice is its claim vector moved toward its document title and section
(embedding/search_vector.py), while dedup still compares claim vectors, a memory_store atom keeps
its claim vector, a rebuild from PostgreSQL gives the same points, and the content sweep checks
them. Real engines (embedded-default slices, PostgreSQL), embeddings from the fake Ollama's
bag of words: shared words give cosine similarity, so a title word is found only through the
context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.embedding.search_vector import (
    MAX_CONTEXT_CHARS,
    search_context,
    search_vector,
    search_vectors,
)
from pegas_memory.ingest.dedup import rescored
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.reconcile import rebuild
from pegas_memory.outbox.selfcheck import check_slices
from pegas_memory.outbox.sweep import cosine, expected_vector
from pegas_memory.qdrant_store.index import VectorHit, VectorPoint
from pegas_memory.text import raw_hash
from tests.conftest import offline_memory

TITLE = "Chenodeoxycholic acid"
# The body never names the substance: the title carries the subject, as in a SciFact abstract.
DOC = f"""# {TITLE}

## Results

Treatment for two days increased the activity of brown adipose tissue in twelve healthy women.
"""
CLAIM = (
    "Treatment for two days increased the activity of brown adipose tissue in twelve healthy women."
)
OTHER = "Brown adipose tissue activity rises in healthy women exposed to cold."


@pytest.fixture
def service(quiet_service: MemoryService) -> MemoryService:
    return quiet_service


def _ingested(service: MemoryService) -> tuple[int, int]:
    """(the ingested atom's id, a memory_store atom's id), both projected."""
    report = service.ingest(IngestRequest(source=DOC, kind="markdown", title=TITLE))
    assert report.atoms_new == 1, report
    stored = service.store(StoreRequest(claim=OTHER)).id
    service.runtime.worker().drain(include_delayed=True)
    return report.atom_ids[0], stored


def _points(service: MemoryService, ids: list[int]) -> dict[int, list[float]]:
    rt = service.runtime
    name = rt.projector.collection("atom")
    return {
        r.id: list(r.vector or ()) for r in rt.vectors.get().retrieve(name, ids, with_vectors=True)
    }


# ---------------------------------------------------------------------- pure
def test_context_is_the_title_and_section_path_given_once() -> None:
    assert search_context(TITLE, (TITLE, "Results")) == f"{TITLE} > Results"
    assert search_context("Rivers.", ("rivers", " Lakes ", "", "Lakes")) == "Rivers. > Lakes"
    assert search_context("Реки", ("Реки", "Волга")) == "Реки > Волга"
    assert search_context(None, ()) == ""
    long = search_context("word " * 100, ("Section",))
    assert len(long) <= MAX_CONTEXT_CHARS and long.endswith("word")


def test_search_vector_moves_the_claim_toward_its_context_and_only_then() -> None:
    claim, context = [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]
    moved = search_vector(claim, context, 0.5)
    assert abs(sum(x * x for x in moved) - 1.0) < 1e-9  # a unit vector
    assert cosine(moved, claim) > cosine(moved, context) > 0  # nearer the claim, toward the context
    assert search_vector(claim, None, 0.5) == claim  # no context: the claim vector itself
    assert search_vector(claim, context, 0.0) == claim  # weight 0: the behaviour before
    both = search_vectors([claim, claim], ["ctx", ""], {"ctx": context}, 0.5)
    assert both == [moved, claim]


def test_rescored_ranks_candidates_by_their_claim_vectors() -> None:
    hits = [VectorHit(1, 0.9, {}), VectorHit(2, 0.8, {}), VectorHit(3, 0.7, {})]
    claims = {1: [0.0, 1.0], 2: [1.0, 0.0]}  # 3 was erased meanwhile: left out
    out = rescored([1.0, 0.0], hits, claims)
    assert [h.id for h in out] == [2, 1]
    assert out[0].score == pytest.approx(1.0) and out[1].score == pytest.approx(0.0)
    # a float32 vector compared with itself stays a cosine (a confidence downstream)
    v = [0.51, 0.95, 0.14, 0.95, 0.31, 0.42, 0.83, 0.41]  # 1.0000001 in float32 unclamped
    assert rescored(v, hits[:1], {1: v})[0].score == 1.0


def test_expected_vector_needs_both_cached_vectors() -> None:
    cached = {raw_hash("claim"): [1.0, 0.0], raw_hash("ctx"): [0.0, 1.0]}
    assert expected_vector(cached, "claim", "", 0.5) == [1.0, 0.0]
    assert expected_vector(cached, "claim", "ctx", 0.5) == search_vector([1.0, 0.0], [0.0, 1.0])
    assert expected_vector(cached, "claim", "missing", 0.5) is None
    assert expected_vector(cached, "other", "ctx", 0.5) is None


# ---------------------------------------------------------------------- real engines
def test_an_ingested_atom_is_found_by_its_title(service: MemoryService) -> None:
    atom, stored = _ingested(service)
    with service.db.connection() as conn:
        row = conn.execute("SELECT claim, metadata FROM pm_atom WHERE id = %s", (atom,)).fetchone()
    assert "chenodeoxycholic" not in row["claim"].casefold()  # the claim is unchanged
    assert row["metadata"]["search_context"] == f"{TITLE} > Results"
    # the title's words are in no claim: only the search vector can find the atom by them
    dense = service.search(
        SearchRequest(query="chenodeoxycholic acid", preset="dense", store="atoms")
    ).hits
    assert dense and dense[0].id == atom

    embedder = service.runtime.embedder.get()
    claim_vec, context_vec, other_vec = embedder.embed_documents(
        [row["claim"], f"{TITLE} > Results", OTHER]
    )
    points = _points(service, [atom, stored])
    assert cosine(points[atom], search_vector(claim_vec, context_vec)) > 0.999
    assert cosine(points[atom], claim_vec) < 0.99  # not the claim vector alone
    assert cosine(points[stored], other_vec) > 0.999  # memory_store: its claim vector


def test_without_the_context_the_title_does_not_find_it(service: MemoryService) -> None:
    """The other side: the same atom projected with weight 0 (the behaviour before) is not
    found by its title: it scores no higher than the atom that shares no word with the query."""
    atom, stored = _ingested(service)
    request = SearchRequest(query="chenodeoxycholic acid", preset="dense", limit=10, store="atoms")
    with_context = {h.id: h.score for h in service.search(request).hits}
    service.runtime.projector.context_weight = 0.0
    rebuild(service.runtime, "qdrant")
    without = {h.id: h.score for h in service.search(request).hits}
    assert with_context[atom] > with_context.get(stored, 0.0)
    assert without.get(atom, 0.0) <= without.get(stored, 0.0) + 0.05
    assert with_context[atom] > without.get(atom, 0.0) + 0.1


def test_an_ingested_atom_is_found_lexically_by_its_title(service: MemoryService) -> None:
    """Migration 0008: the BM25 arm indexes an ingested atom's search context (weight C) beside
    its claim, so a query of title words finds the sentence; a memory_store atom indexes its
    claim only (it has no context), and the stored claim and quote are unchanged."""
    atom, stored = _ingested(service)
    lexical = service.search(
        SearchRequest(query="chenodeoxycholic acid", preset="lexical", store="atoms")
    ).hits
    assert [h.id for h in lexical] == [atom]
    with service.db.connection() as conn:
        rows = conn.execute(
            "SELECT id, tsv::text AS tsv FROM pm_atom WHERE id = ANY(%s)", ([atom, stored],)
        ).fetchall()
    tsv = {r["id"]: r["tsv"] for r in rows}
    assert "'chenodeoxychol':" in tsv[atom] and "C" in tsv[atom].split("'chenodeoxychol':")[1][:8]
    assert "C" not in tsv[stored]  # no context: claim (A) only


def test_rebuild_from_postgres_gives_the_search_vector_and_keeps_the_claim_vector(
    service: MemoryService,
) -> None:
    atom, stored = _ingested(service)
    before = _points(service, [atom, stored])
    rt = service.runtime
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    index.delete(name, [atom, stored])
    rebuild(rt, "qdrant")
    after = _points(service, [atom, stored])
    assert cosine(after[atom], before[atom]) > 0.999
    assert cosine(after[stored], before[stored]) > 0.999
    # the claim vector the dedup compares is still in the cache
    assert rt.embedder.get().cached([CLAIM])


def test_the_sweep_checks_an_ingested_atoms_search_vector(service: MemoryService) -> None:
    atom, _stored = _ingested(service)
    rt = service.runtime
    check = next(c for c in check_slices(rt).checks if c.slice == "vector:atom")
    assert check.state == "ok", check
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    record = index.retrieve(name, [atom], with_vectors=True)[0]
    claim_vec = rt.embedder.get().embed_documents([CLAIM])[0]
    # the point holds its claim vector, not its search vector: a stale point
    index.upsert(name, [VectorPoint(atom, claim_vec, dict(record.payload))])
    check = next(c for c in check_slices(rt).checks if c.slice == "vector:atom")
    assert check.state == "stale" and atom in check.ids, check
    assert "another text's vector" in check.describe()


@pytest.fixture
def strict(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    """A service whose dedup threshold (0.95) is above the cosine of a claim with its own search
    vector (about 0.9 at the default weight): only a comparison of claims merges."""
    data = tmp_path / "data"
    try:
        with offline_memory(
            database_url, data, auto_repair_slices=False, dedup_threshold=0.95
        ) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


def test_a_near_duplicate_under_another_title_is_still_merged(strict: MemoryService) -> None:
    """Dedup compares claims: the same sentence, re-punctuated, in a document with another title
    is a semantic duplicate although the two points' search vectors differ by their titles."""
    service = strict
    first = service.ingest(IngestRequest(source=DOC, kind="markdown", title=TITLE))
    service.runtime.worker().drain(include_delayed=True)
    other = "# Cold exposure trials\n\n" + CLAIM.replace("two days", "two days,") + "\n"
    second = service.ingest(IngestRequest(source=other, kind="markdown", title="Cold trials"))
    assert second.atoms_new == 0 and second.duplicates_semantic == 1, second
    with service.db.connection() as conn:
        n = conn.execute(
            "SELECT count(*) AS n FROM pm_citation WHERE atom_id = %s", (first.atom_ids[0],)
        ).fetchone()["n"]
    assert n == 2
