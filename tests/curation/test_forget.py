"""Forgetting: retract and erase, across Postgres, both slices and the embedding cache."""

from __future__ import annotations

import pytest

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link
from pegas_memory.errors import InvalidInput
from pegas_memory.outbox.reconcile import rebuild, reconcile


def test_retract_keeps_the_atom_but_ranks_it_last(service: MemoryService) -> None:
    old = service.store(StoreRequest(claim="The capital of Kazakhstan is Almaty")).id
    new = service.store(StoreRequest(claim="The capital of Kazakhstan is Astana")).id
    result = service.forget(mode="retract", atom_ids=[old], reason="moved in 1997")
    assert result.atoms == [old]
    service.runtime.worker().drain()
    hits = service.search(SearchRequest(query="capital of Kazakhstan", preset="no_mmr")).hits
    assert hits[0].id == new and hits[-1].id == old and hits[-1].status == "stale"


def test_erase_removes_everywhere_and_never_resurfaces(service: MemoryService) -> None:
    keep = service.store(StoreRequest(claim="Saturn has prominent rings")).id
    gone = service.store(StoreRequest(claim="Secret project codename is BLUEBIRD")).id
    with service.db.transaction() as conn:
        add_link(conn, keep, gone, "reference")
    service.runtime.worker().drain()
    result = service.forget(mode="erase", atom_ids=[gone, 999_999])
    assert result.atoms == [gone] and result.not_found == [999_999]
    assert result.links_removed == 1 and result.embeddings_removed == 1
    service.runtime.worker().drain()
    assert reconcile(service.runtime).drift == 0
    assert all(
        h.id != gone for h in service.search(SearchRequest(query="BLUEBIRD codename secret")).hits
    )
    assert (
        "BLUEBIRD"
        not in service.get_context(
            ContextRequest(question="project codename", register_gap=False)
        ).text
    )
    rebuild(service.runtime, "all")
    assert all(
        h.id != gone for h in service.search(SearchRequest(query="BLUEBIRD codename secret")).hits
    )
    graph = service.runtime.graph.get()
    assert gone not in set(graph.iter_node_ids("Atom"))
    with service.db.connection() as conn:
        assert (
            conn.execute("SELECT count(*) AS n FROM pm_atom WHERE id = %s", (gone,)).fetchone()["n"]
            == 0
        )


def test_erase_a_document_and_its_only_atoms(service: MemoryService) -> None:
    a = service.ingest(
        IngestRequest(
            source="Only this note says that ravens can count to seven.", kind="text", title="n1"
        )
    )
    b = service.ingest(
        IngestRequest(
            source="Ravens are corvids. Magpies are corvids too.", kind="text", title="n2"
        )
    )
    shared = service.store(
        StoreRequest(claim="Ravens are corvids.", source="https://birds.example")
    ).id
    service.runtime.worker().drain()
    result = service.forget(mode="erase", document_ids=[a.document_id])
    assert set(result.atoms) == set(a.atom_ids) and result.documents == [a.document_id]
    with service.db.connection() as conn:
        left = conn.execute(
            "SELECT count(*) AS n FROM pm_atom WHERE id = ANY(%s)", (b.atom_ids,)
        ).fetchone()
    assert left["n"] == len(b.atom_ids)
    assert shared in [h.id for h in service.search(SearchRequest(query="ravens corvids")).hits]


def test_forget_needs_ids_and_a_mode(service: MemoryService) -> None:
    with pytest.raises(InvalidInput):
        service.forget(mode="erase")
    with pytest.raises(InvalidInput):
        service.forget(mode="shred", atom_ids=[1])
    with pytest.raises(InvalidInput):
        service.forget(mode="retract", document_ids=[1])
