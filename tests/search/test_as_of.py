"""As-of: memory_search and memory_get_context answer with what the memory believed at an
instant (statuses, supersessions, links, citations and document versions as they were then), on
real PostgreSQL and the embedded engines; withdrawn rows leave an audit line (migration 0016)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pegas_memory.app.requests import ContextRequest, IngestRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link, withdraw_reason
from pegas_memory.errors import InvalidInput
from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.fusion import Fused
from tests.mcp_harness import error_text, mcp_client, structured
from tests.search.conftest import instant

CLAIM = "The Lick Observatory's great refractor was the largest telescope of its time."


def settle(svc: MemoryService) -> None:
    svc.runtime.worker().drain()


def search_as_of(svc: MemoryService, query: str, at: datetime | None, **kw: object):  # type: ignore[no-untyped-def]
    return svc.search(SearchRequest(query=query, flt=SearchFilter(as_of=at), **kw))  # type: ignore[arg-type]


def test_a_retracted_claim_shows_the_status_it_had_before(memory: MemoryService) -> None:
    atom_id = memory.store(StoreRequest(claim=CLAIM, source="notes")).id
    assert atom_id is not None
    settle(memory)
    before = instant(memory)
    memory.forget(mode="retract", atom_ids=[atom_id], reason="a larger one was built")
    settle(memory)
    now = search_as_of(memory, "largest telescope refractor", None, store="atoms")
    then = search_as_of(memory, "largest telescope refractor", before, store="atoms")
    assert [h.status for h in now.hits if h.id == atom_id] == ["stale"]
    assert [h.status for h in then.hits if h.id == atom_id] == ["candidate"]
    assert then.as_of == before and now.as_of is None
    # a status filter reads the status of then as well
    candidates = SearchFilter(statuses=("candidate",))
    assert not memory.search(SearchRequest(query="largest telescope", flt=candidates)).hits
    then_candidates = SearchFilter(statuses=("candidate",), as_of=before)
    found = memory.search(SearchRequest(query="largest telescope", flt=then_candidates))
    assert [h.id for h in found.hits] == [atom_id]


def test_what_was_stored_later_is_not_found_as_of_earlier(memory: MemoryService) -> None:
    memory.store(StoreRequest(claim="Mount Hamilton lies east of San Jose.", source="atlas"))
    settle(memory)
    before = instant(memory)
    later = memory.store(StoreRequest(claim=CLAIM, source="notes")).id
    settle(memory)
    assert any(h.id == later for h in search_as_of(memory, "largest refractor", None).hits)
    then = search_as_of(memory, "largest refractor", before, store="atoms")
    assert all(h.id != later for h in then.hits)


def test_a_replaced_version_is_searched_as_it_was(
    memory: MemoryService, edited_notes: datetime
) -> None:
    before = edited_notes
    now = search_as_of(memory, "first director Edward Holden", None, store="passages")
    then = search_as_of(memory, "first director Edward Holden", before, store="passages")
    assert all("Holden" not in h.claim for h in now.hits)
    assert then.hits and "Holden" in then.hits[0].claim
    assert all("refractor" not in h.claim for h in then.hits)
    context = memory.get_context(
        ContextRequest(question="Who was the first director?", flt=SearchFilter(as_of=before))
    )
    assert context.as_of == before
    assert context.text.startswith("As of ") and "Holden" in context.text


def test_an_erased_document_leaves_audit_lines_and_its_citations_as_they_were(
    memory: MemoryService,
) -> None:
    report = memory.ingest(IngestRequest(source=CLAIM, kind="text", title="Refractors"))
    settle(memory)
    assert report.document_id is not None
    before = instant(memory)
    found = search_as_of(memory, "largest telescope", before, store="atoms")
    assert found.hits and found.hits[0].citations
    atom_id = found.hits[0].id
    memory.forget(mode="erase", document_ids=[report.document_id])
    settle(memory)
    with memory.db.connection() as conn:
        rows = conn.execute(
            "SELECT entity, reason, detail FROM pm_withdrawal WHERE atom_id = %s ORDER BY id",
            (atom_id,),
        ).fetchall()
    kinds = {r["entity"] for r in rows}
    assert {"atom", "citation"} <= kinds
    assert {r["reason"] for r in rows} == {"erased by memory_forget"}
    # an erased atom's line keeps no words: erasing means they are gone
    atom_line = next(r for r in rows if r["entity"] == "atom")
    assert "claim" not in atom_line["detail"]
    assert all("refractor" not in str(r["detail"]) for r in rows)
    assert not search_as_of(memory, "largest telescope", before, store="atoms").hits


def test_links_are_followed_as_they_were(memory: MemoryService) -> None:
    a = memory.store(StoreRequest(claim=CLAIM, source="notes")).id
    b = memory.store(
        StoreRequest(claim="Edward Holden directed the Lick Observatory.", source="notes")
    ).id
    assert a is not None and b is not None
    with memory.db.transaction() as conn:
        add_link(conn, a, b, "supports")
    before = instant(memory)
    with memory.db.transaction() as conn:
        withdraw_reason(conn, "the agent unlinked them")
        conn.execute("DELETE FROM pm_atom_link WHERE src_atom_id = %s", (a,))
    seeds = [Fused(a, 1.0)]
    with memory.db.connection() as conn:
        now = memory.searcher.graph_arm(conn, seeds)
        then = memory.searcher.graph_arm(conn, seeds, as_of=before)
        line = conn.execute(
            "SELECT reason FROM pm_withdrawal WHERE entity = 'link' AND atom_id = %s", (a,)
        ).fetchone()
    assert [h.id for h in now.hits] == []
    assert [h.id for h in then.hits] == [b]
    assert line is not None and line["reason"] == "the agent unlinked them"


def test_a_naive_created_before_beside_as_of_is_utc(memory: MemoryService) -> None:
    memory.store(StoreRequest(claim=CLAIM, source="notes"))
    settle(memory)
    at = instant(memory)
    naive = (at + timedelta(days=1)).replace(tzinfo=None)
    flt = SearchFilter(as_of=at, created_before=naive)
    assert memory.search(SearchRequest(query="largest telescope", flt=flt)).hits


def test_an_instant_to_come_is_refused_and_a_naive_one_is_utc(memory: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="in the future"):
        search_as_of(memory, "telescope", datetime.now(UTC) + timedelta(hours=1))
    naive = datetime.now(UTC).replace(tzinfo=None) - timedelta(minutes=1)
    found = search_as_of(memory, "telescope", naive)
    assert found.as_of is not None and found.as_of.tzinfo is not None


@pytest.mark.anyio
async def test_as_of_over_mcp(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data")}
    async with mcp_client(env) as client:
        stored = structured(
            await client.call_tool("memory_store", {"claim": CLAIM, "source": "notes"})
        )
        stamp = datetime.now(UTC).isoformat()
        await client.call_tool(
            "memory_forget",
            {"mode": "retract", "atom_ids": [stored["id"]], "reason": "superseded"},
        )
        then = structured(
            await client.call_tool("memory_search", {"query": "largest telescope", "as_of": stamp})
        )
        assert then["as_of"] is not None
        assert [h["status"] for h in then["hits"] if h["id"] == stored["id"]] == ["candidate"]
        future = (datetime.now(UTC) + timedelta(days=1)).isoformat()
        refused = await client.call_tool(
            "memory_get_context", {"question": "largest telescope", "as_of": future}
        )
        assert "in the future" in error_text(refused)
