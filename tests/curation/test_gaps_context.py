"""Research gaps and memory_get_context on real engines."""

from __future__ import annotations

import pytest

from pegas_memory.app.requests import ContextRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import (
    AtomInput,
    DocumentInput,
    add_citation,
    insert_atom,
    upsert_document,
)
from pegas_memory.errors import InvalidInput


def test_gap_lifecycle_and_merging(service: MemoryService) -> None:
    first = service.add_gap("What is the boiling point of ethanol?", reason="chem task", priority=2)
    assert first.created
    same = service.add_gap("what is the boiling point of ethanol", priority=4, reason="again")
    assert not same.created and same.gap.id == first.gap.id and same.gap.priority == 4
    assert "again" in (same.gap.reason or "")
    near = service.add_gap("What is the boiling point of ethanol??!")
    assert near.gap.id == first.gap.id
    other = service.add_gap("Кто открыл закон сохранения энергии?")
    assert other.created
    listed = service.list_gaps()
    assert [g.id for g in listed.gaps] == [first.gap.id, other.gap.id]  # by priority
    assert service.stats().open_gaps == 2
    with pytest.raises(InvalidInput):
        service.add_gap("   ")
    with pytest.raises(InvalidInput):
        service.add_gap("x", priority=9)
    with pytest.raises(InvalidInput):
        service.list_gaps(status="someday")


def test_context_with_citations_small_to_big_and_budget(service: MemoryService) -> None:
    with service.db.transaction() as conn:
        doc, _ = upsert_document(
            conn,
            DocumentInput(
                kind="text",
                uri="file:///notes/rivers.md",
                content_hash="h",
                title="Rivers of Europe",
            ),
        )
        chunk_ids = []
        for ord_, text in enumerate(
            [
                "Europe has many rivers.",
                "The Volga is the longest river in Europe, flowing into the Caspian Sea.",
                "The Danube flows through ten countries.",
            ]
        ):
            row = conn.execute(
                "INSERT INTO pm_chunk (doc_id, ord, content, content_hash, locator) "
                "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (doc, ord_, text, f"c{ord_}", f"§{ord_}"),
            ).fetchone()
            chunk_ids.append(row["id"])
        atom, _ = insert_atom(
            conn,
            AtomInput(type="fact", claim="The Volga is the longest river in Europe.", doc_id=doc),
        )
        add_citation(
            conn,
            atom,
            doc_id=doc,
            chunk_id=chunk_ids[1],
            locator="§1",
            quote="The Volga is the longest river in Europe",
        )
    service.runtime.worker().drain()
    result = service.get_context(
        ContextRequest(question="Which river is the longest in Europe?", register_gap=False)
    )
    assert result.items and result.items[0].atom_id == atom
    assert "[1]" in result.text and "Rivers of Europe" in result.text
    # small-to-big: the neighbouring chunks come along
    assert "Danube" in result.items[0].context and "many rivers" in result.items[0].context
    tiny = service.get_context(
        ContextRequest(
            question="Which river is the longest in Europe?", budget_tokens=100, register_gap=False
        )
    )
    assert tiny.tokens_estimate <= 100


def test_weak_evidence_registers_a_gap(service: MemoryService) -> None:
    result = service.get_context(ContextRequest(question="quantum chromodynamics lattice spacing"))
    assert result.weak_evidence and result.gap_id is not None
    assert service.list_gaps().gaps[0].question.startswith("quantum chromodynamics")


def test_empty_text_arguments_are_named_with_a_fitting_hint(service: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="claim is empty; give the statement to remember"):
        service.store(StoreRequest(claim="   "))
    with pytest.raises(InvalidInput, match="tag is empty; leave it out or fill it in"):
        service.store(StoreRequest(claim="Water boils at 100 °C", tags=["ok", " "]))
    with pytest.raises(InvalidInput, match="topic is empty; leave it out or fill it in"):
        service.store(StoreRequest(claim="Water boils at 100 °C", topic=""))
    assert service.stats().atoms_total == 0  # nothing half-written
