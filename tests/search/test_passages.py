"""Two stores, one search: every chunk of a current document version is a passage that search
and memory_get_context return in their own right, beside the atoms, on the real engines."""

from __future__ import annotations

from datetime import datetime

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.outbox.reconcile import reconcile, vector_collection

PAPER = """# Ordering at the counter

Compressed sensing recovers a sparse signal from few linear measurements.

## Walkthrough

Then it's your turn: you place your order with the barista and wait by the counter. After
that, they call your name twice.
"""

RIVERS_RU = """# Реки Европы

Дунай протекает через десять стран и впадает в Чёрное море. Это вторая по длине река Европы.
"""

DANUBE = """# Rivers

The Danube flows through ten countries before it reaches the Black Sea. It is Europe's
second-longest river.
"""


def settle(svc: MemoryService) -> None:
    svc.runtime.worker().drain()


def passages_in_slice(svc: MemoryService) -> int:
    return svc.runtime.vectors.get().count(vector_collection(svc.runtime, "passage"))


def passages_in_pg(svc: MemoryService) -> int:
    with svc.db.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM pm_passage").fetchone()
    assert row is not None
    return int(row["n"])


def test_a_sentence_no_atom_holds_is_found_in_its_passage(memory: MemoryService) -> None:
    memory.ingest(IngestRequest(source=PAPER, kind="markdown", title="Sparse"))
    settle(memory)
    # Whatever the distiller made of the narration, no atom holds it any more: only its passage.
    with memory.db.connection() as conn:
        rows = conn.execute("SELECT id FROM pm_atom WHERE claim ILIKE '%%barista%%'").fetchall()
    if rows:
        memory.forget(mode="erase", atom_ids=[int(r["id"]) for r in rows])
        settle(memory)
    found = memory.search(SearchRequest(query="place your order with the barista"))
    top = found.hits[0]
    assert top.store == "passage"
    assert "barista" in top.claim
    assert top.citations and top.citations[0].document_title == "Sparse"
    assert top.section and top.section[-1] == "Walkthrough"


def test_the_store_filter_picks_atoms_passages_or_both(memory: MemoryService) -> None:
    memory.ingest(IngestRequest(source=PAPER, kind="markdown", title="Sparse"))
    memory.store(StoreRequest(claim="Sparse signals have few nonzero coefficients."))
    settle(memory)
    with memory.db.connection() as conn:  # the walkthrough's text stays in its passage only
        rows = conn.execute("SELECT id FROM pm_atom WHERE claim ILIKE '%%barista%%'").fetchall()
    if rows:
        memory.forget(mode="erase", atom_ids=[int(r["id"]) for r in rows])
        settle(memory)
    query = "sparse signals, and ordering with the barista"
    atoms = memory.search(SearchRequest(query=query, store="atoms"))
    passages = memory.search(SearchRequest(query=query, store="passages"))
    both = memory.search(SearchRequest(query=query))
    assert atoms.hits and {h.store for h in atoms.hits} == {"atom"}
    assert passages.hits and {h.store for h in passages.hits} == {"passage"}
    assert {h.store for h in both.hits} == {"atom", "passage"}


def test_an_atom_and_the_passage_it_was_cited_from_are_one_hit(memory: MemoryService) -> None:
    memory.ingest(
        IngestRequest(
            source="The Volga is the longest river in Europe.", kind="text", title="Volga"
        )
    )
    settle(memory)
    found = memory.search(SearchRequest(query="longest river in Europe"))
    volga = [h for h in found.hits if "Volga" in h.claim]
    assert len(volga) == 1 and volga[0].store == "atom"
    assert any(arm.startswith("passage_") for arm in volga[0].found_by)


def test_atoms_of_one_passage_are_one_hit_that_lists_the_others(memory: MemoryService) -> None:
    text = (
        "The Volga is the longest river in Europe. The Volga flows into the Caspian Sea. "
        "The Volga basin covers two fifths of European Russia."
    )
    memory.ingest(IngestRequest(source=text, kind="text", title="Volga"))
    settle(memory)
    with memory.db.connection() as conn:
        atom_ids = {int(r["id"]) for r in conn.execute("SELECT id FROM pm_atom").fetchall()}
    assert len(atom_ids) == 3  # three sentences, each its own atom, all of one passage
    found = memory.search(SearchRequest(query="Volga river Caspian Sea basin Europe"))
    volga = [h for h in found.hits if "Volga" in h.claim]
    assert len(volga) == 1, [(h.store, h.id, h.claim) for h in found.hits]
    assert {volga[0].id, *volga[0].folded_atoms} == atom_ids
    # asked for atoms alone, each sentence is its own hit
    alone = memory.search(SearchRequest(query="Volga river Caspian Sea basin", store="atoms"))
    assert {h.id for h in alone.hits} == atom_ids


def test_an_edit_withdraws_the_old_versions_passages(
    memory: MemoryService, edited_notes: datetime
) -> None:
    old = memory.search(SearchRequest(query="Edward Holden director", store="passages"))
    assert all("Holden" not in h.claim for h in old.hits)
    context = memory.get_context(
        ContextRequest(question="When did the Lick Observatory open?", store="passages")
    )
    assert "1888" in context.text and "refractor" in context.text
    assert "Holden" not in context.text
    assert passages_in_slice(memory) == passages_in_pg(memory)


def test_forget_and_rebuild_keep_the_passage_slice_equal_to_postgres(
    memory: MemoryService,
) -> None:
    first = memory.ingest(IngestRequest(source=PAPER, kind="markdown", title="Sparse"))
    memory.ingest(IngestRequest(source=RIVERS_RU, kind="markdown", title="Реки"))
    settle(memory)
    assert passages_in_slice(memory) == passages_in_pg(memory) > 0
    assert first.document_id is not None
    memory.forget(mode="erase", document_ids=[first.document_id])
    settle(memory)
    assert passages_in_slice(memory) == passages_in_pg(memory) > 0
    found = memory.search(
        SearchRequest(query="place your order with the barista", store="passages")
    )
    assert all("Greedy" not in h.claim for h in found.hits)
    index = memory.runtime.vectors.get()
    name = vector_collection(memory.runtime, "passage")
    index.delete(name, list(index.iter_ids(name))[:1])  # damage: one point lost
    report = reconcile(memory.runtime, fix=True)
    drifted = {s.slice: s.total for s in report.slices}
    assert drifted["vector:passage"] == 1
    assert reconcile(memory.runtime).drift == 0


def test_russian_passages_are_found_by_stemmed_words(memory: MemoryService) -> None:
    memory.ingest(IngestRequest(source=RIVERS_RU, kind="markdown", title="Реки"))
    settle(memory)
    found = memory.search(SearchRequest(query="чёрного моря", store="passages", preset="lexical"))
    assert found.hits and "Чёрное море" in found.hits[0].claim


def test_an_answer_spanning_two_sentences_is_in_the_context(memory: MemoryService) -> None:
    memory.ingest(IngestRequest(source=DANUBE, kind="markdown", title="Rivers"))
    settle(memory)
    context = memory.get_context(
        ContextRequest(question="Which river flows through ten countries and how long is it?")
    )
    assert "ten countries" in context.text and "second-longest" in context.text
