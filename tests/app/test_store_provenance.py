"""The provenance gate of memory_store: a knowledge atom with no source, quote, session or code
citation is refused (enforce), stored flagged as unsourced and ranked below sourced atoms (flag,
the default), or stored as any other (off); a citation added later lifts the flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import ContextRequest, SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.errors import InvalidInput
from pegas_memory.models import SearchHit
from tests.conftest import offline_memory
from tests.mcp_harness import error_text, mcp_client, structured


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CLAIM = "The Lick Observatory opened in 1888 on Mount Hamilton."
TWIN = "The Lick Observatory was opened in 1888 on Mount Hamilton in California."
# two claims equally relevant to the query below: only their provenance differs
ALPHA = "The Alpha station recorded the eclipse of 1888."
BRAVO = "The Bravo station recorded the eclipse of 1888."


def _all(memory: MemoryService) -> list[SearchHit]:
    return list(memory.search(SearchRequest(query="station eclipse 1888", store="atoms")).hits)


def _atoms(memory: MemoryService) -> int:
    with memory.db.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM pm_atom").fetchone()
    assert row is not None
    return int(row["n"])


def test_enforce_refuses_and_writes_nothing(database_url: str, tmp_path: Path) -> None:
    with offline_memory(database_url, tmp_path / "d", store_provenance="enforce") as memory:
        with pytest.raises(InvalidInput, match="provenance"):
            memory.store(StoreRequest(claim=CLAIM))
        assert _atoms(memory) == 0
        for sourced in (
            StoreRequest(claim=CLAIM, source="https://example.org/lick"),
            StoreRequest(claim=TWIN, quote="opened in 1888"),
            StoreRequest(claim="Notes of the session.", session_id="s1"),
        ):
            assert memory.store(sourced).created
        assert _atoms(memory) == 3


def test_flagged_atoms_rank_below_sourced_ones_until_cited(
    database_url: str, tmp_path: Path
) -> None:
    with offline_memory(database_url, tmp_path / "d") as memory:  # the default: flag
        for first, second in ((ALPHA, BRAVO), (BRAVO, ALPHA)):  # either one unsourced
            existing = [h.id for h in _all(memory)]
            if existing:
                memory.forget(mode="erase", atom_ids=existing)
            bare = memory.store(StoreRequest(claim=first))
            assert "unsourced" in bare.message
            sourced = memory.store(StoreRequest(claim=second, source="https://example.org/a"))
            hits = memory.search(SearchRequest(query="station recorded the eclipse 1888")).hits
            assert [h.id for h in hits] == [sourced.id, bare.id]
            assert hits[1].unsourced and not hits[0].unsourced
        context = memory.get_context(ContextRequest(question="Which station recorded the eclipse?"))
        assert "unsourced" in context.text
        # the same claim stored again with a source: cited now, no longer unsourced
        memory.store(StoreRequest(claim=BRAVO, source="https://example.org/b"))
        hits = memory.search(SearchRequest(query="station recorded the eclipse 1888")).hits
        assert not any(h.unsourced for h in hits)


def test_off_stores_without_a_flag(database_url: str, tmp_path: Path) -> None:
    with offline_memory(database_url, tmp_path / "d", store_provenance="off") as memory:
        stored = memory.store(StoreRequest(claim=CLAIM))
        assert "unsourced" not in stored.message
        hits = memory.search(SearchRequest(query="Lick Observatory")).hits
        assert hits and not hits[0].unsourced


@pytest.mark.anyio
async def test_the_gate_over_mcp(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "strict"), "PEGAS_STORE_PROVENANCE": "enforce"}
    async with mcp_client(env) as client:
        refused = await client.call_tool("memory_store", {"claim": CLAIM})
        assert "provenance" in error_text(refused)
        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["atoms_total"] == 0  # nothing written, the server still answers
    env = {"PEGAS_DATA_DIR": str(tmp_path / "flag")}
    async with mcp_client(env) as client:
        stored = structured(await client.call_tool("memory_store", {"claim": CLAIM}))
        assert stored["created"] is True and "unsourced" in stored["message"]
        found = structured(await client.call_tool("memory_search", {"query": "Lick Observatory"}))
        assert found["hits"][0]["unsourced"] is True
