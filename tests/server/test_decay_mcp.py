"""Decay profiles over the real stdio transport: memory_store's `decay` and `about`,
memory_ingest's `decay`, the profile on every hit and in memory_get_context, bad values refused
(issue 32, scope 2). Embedded default for every part, PEGAS_DECAY_RANKING on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.mcp_harness import error_text, files_env, mcp_client, structured

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_decay_arguments_and_profiles_over_stdio(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "bulletin.md").write_text(
        "# Bulletin\n\nThe ferry to the island leaves from pier four during the summer season.\n"
    )
    env = files_env(tmp_path, PEGAS_DECAY_RANKING="true")
    long_ago = (datetime.now(UTC) - timedelta(days=300)).isoformat()
    async with mcp_client(env) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        store_schema = tools["memory_store"].input_schema["properties"]
        assert "about" in store_schema and "decay" in store_schema
        assert "decay" in tools["memory_ingest"].input_schema["properties"]

        old = structured(
            await client.call_tool(
                "memory_store",
                {
                    "claim": "The ferry timetable for the island changes every June.",
                    "session_id": "trip",
                    "about": long_ago,
                },
            )
        )
        fresh = structured(
            await client.call_tool(
                "memory_store",
                {"claim": "Ferry times to the island change in summer.", "session_id": "trip"},
            )
        )
        pinned = structured(
            await client.call_tool(
                "memory_store",
                {
                    "claim": "The island ferry timetable is published by the port authority.",
                    "session_id": "trip",
                    "about": long_ago,
                    "decay": "timeless",
                },
            )
        )
        assert (old["decay"], fresh["decay"], pinned["decay"]) == (
            "conversational",
            "conversational",
            "timeless",
        )
        ingested = structured(
            await client.call_tool(
                "memory_ingest", {"source": str(files / "bulletin.md"), "decay": "perishable"}
            )
        )
        assert ingested["atoms_new"] >= 1

        found = structured(
            await client.call_tool(
                "memory_search",
                {"query": "island ferry timetable changes every June", "limit": 10},
            )
        )
        hits = {(h["store"], h["id"]): h for h in found["hits"]}
        order = [h["id"] for h in found["hits"] if h["store"] == "atom"]
        assert order.index(fresh["id"]) < order.index(old["id"])  # 300 days = 10 half-lives
        assert hits[("atom", old["id"])]["decay"] == "conversational"
        assert hits[("atom", old["id"])]["about"].startswith(long_ago[:10])
        assert hits[("atom", pinned["id"])]["decay"] == "timeless"
        bulletin = [h for h in found["hits"] if h["document_id"] is not None]
        assert bulletin and {h["decay"] for h in bulletin} == {"perishable"}

        ctx = structured(
            await client.call_tool(
                "memory_get_context", {"question": "When does the island ferry timetable change?"}
            )
        )
        assert f"conversational from {long_ago[:10]}" in ctx["text"]
        assert {i["decay"] for i in ctx["items"]} >= {"conversational", "timeless"}

        bad = await client.call_tool("memory_store", {"claim": "x y z", "decay": "forever"})
        assert "decay" in error_text(bad)
        trace = await client.call_tool(
            "memory_store", {"claim": "planned the trip", "scope": "episodic", "decay": "timeless"}
        )
        assert "conversational" in error_text(trace)
