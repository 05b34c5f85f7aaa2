"""End to end over stdio: an agent spawns the server on an empty data dir, stores, reads counts;
two servers share one data dir; data survives a restart. Embedded default for every part."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.mcp_harness import error_text, files_env, mcp_client, structured, untyped_properties

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_store_then_stats_on_empty_data_dir(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data")}
    async with mcp_client(env) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"memory_store", "memory_stats"} <= set(tools)
        assert tools["memory_stats"].annotations.read_only_hint is True
        assert tools["memory_store"].annotations.read_only_hint is False

        stored = structured(
            await client.call_tool(
                "memory_store",
                {
                    "claim": "Энтропия — это мера неопределённости.",
                    "type": "definition",
                    "tags": ["physics"],
                    "source": "https://example.org/entropy",
                },
            )
        )
        assert stored["created"] is True and stored["status"] == "candidate"
        again = structured(
            await client.call_tool(
                "memory_store",
                {"claim": "энтропия — это мера  неопределённости.", "type": "definition"},
            )
        )
        assert again["created"] is False and again["duplicate_of"] == stored["id"]

        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["atoms_total"] == 1
        assert stats["atoms_by_type"] == {"definition": 1}
        assert stats["atoms_by_status"] == {"candidate": 1}
        assert stats["documents"] == 1 and stats["citations"] == 1


async def test_bad_input_is_a_tool_error_and_server_stays_up(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data")}
    async with mcp_client(env) as client:
        bad_type = await client.call_tool("memory_store", {"claim": "x", "type": "opinion"})
        assert "type" in error_text(bad_type)
        empty = await client.call_tool("memory_store", {"claim": "   "})
        assert "empty" in error_text(empty)
        huge = await client.call_tool("memory_store", {"claim": "a", "content": "x" * 10_000_000})
        assert "limit" in error_text(huge)
        nul = await client.call_tool("memory_store", {"claim": "bad\x00byte"})
        assert "NUL" in error_text(nul)
        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["atoms_total"] == 0  # nothing partial was written


async def test_two_servers_share_a_data_dir_and_data_survives_restart(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data")}
    async with mcp_client(env) as first, mcp_client(env, via_script=True) as second:
        a = structured(await first.call_tool("memory_store", {"claim": "first server writes"}))
        b = structured(await second.call_tool("memory_store", {"claim": "second server writes"}))
        assert a["id"] != b["id"]
        seen = structured(await first.call_tool("memory_stats", {}))
        assert seen["atoms_total"] == 2
    with anyio.fail_after(60):
        async with mcp_client(env) as again:
            stats = structured(await again.call_tool("memory_stats", {}))
    assert stats["atoms_total"] == 2


async def test_database_down_is_a_clear_error_and_server_stays_up(tmp_path: Path) -> None:
    env = {
        "PEGAS_DATA_DIR": str(tmp_path / "data"),
        "PEGAS_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
        "PEGAS_DB_CONNECT_TIMEOUT": "2",
    }
    with anyio.fail_after(90):
        async with mcp_client(env) as client:
            for _ in range(2):
                down = await client.call_tool("memory_stats", {})
                assert "unreachable" in error_text(down) or "cannot connect" in error_text(down)
                assert "PEGAS_DATABASE_URL" in error_text(down)
            assert (await client.list_tools()).tools  # still serving


EXPECTED_TOOLS = {
    "memory_search",
    "memory_get_context",
    "memory_stats",
    "memory_store",
    "memory_ingest",
    "memory_verify",
    "memory_add_gap",
    "memory_list_gaps",
    "memory_store_code",
    "memory_search_code",
    "memory_code_graph",
    "memory_code_read",
    "memory_infer",
    "memory_query_graph",
    "memory_forget",
    "memory_merges",
    "memory_contradictions",
    "memory_job",
    "memory_feedback",
}


async def test_every_tool_has_a_typed_output_schema(tmp_path: Path) -> None:
    env = {"PEGAS_DATA_DIR": str(tmp_path / "data")}
    async with mcp_client(env) as client:
        tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == EXPECTED_TOOLS
    untyped: list[str] = []
    for tool in tools:
        assert tool.output_schema, f"{tool.name} has no output schema"
        assert tool.output_schema.get("properties"), f"{tool.name}: output schema without fields"
        untyped += untyped_properties(tool.output_schema, tool.name)
    assert sorted(set(untyped)) == []


async def test_every_tool_over_stdio(tmp_path: Path) -> None:
    files = tmp_path / "files"
    (files / "repo" / "pkg").mkdir(parents=True)
    (files / "repo" / "pkg" / "__init__.py").write_text("")
    (files / "repo" / "pkg" / "core.py").write_text(
        "def helper(x):\n    return x + 1\n\n\ndef run():\n    '''Run the thing.'''\n"
        "    return helper(2)\n"
    )
    (files / "notes.md").write_text(
        "# Notes\n\nA monad is a monoid in the category of endofunctors.\n\n"
        "Монада — это моноид в категории эндофункторов.\n"
    )
    env = files_env(tmp_path)
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with mcp_client(env) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == EXPECTED_TOOLS
        assert all(t.description for t in tools.values())
        assert tools["memory_forget"].annotations.destructive_hint is True
        ingested = structured(
            await client.call_tool(
                "memory_ingest", {"source": str(files / "notes.md")}, progress_callback=on_progress
            )
        )
        assert ingested["atoms_new"] >= 2 and progress
        found = structured(await client.call_tool("memory_search", {"query": "что такое монада"}))
        assert found["hits"] and "монад" in found["hits"][0]["claim"].lower()
        best = found["hits"][0]
        item = {"id": best["id"], "store": best["store"], "outcome": "helped"}
        fed = structured(await client.call_tool("memory_feedback", {"items": [item]}))
        assert fed["recorded"] == 1 and fed["items"][0]["feedback"]["helped"] == 1
        ctx = structured(
            await client.call_tool("memory_get_context", {"question": "What is a monad?"})
        )
        assert "[1]" in ctx["text"] and ctx["items"][0]["citations"][0]["locator"]
        verified = structured(await client.call_tool("memory_verify", {"limit": 5}))
        assert verified["checked"] >= 1
        gap = structured(
            await client.call_tool("memory_add_gap", {"question": "Who coined monad?"})
        )
        gaps = structured(await client.call_tool("memory_list_gaps", {}))
        assert gaps["gaps"][0]["id"] == gap["gap"]["id"]
        code = structured(
            await client.call_tool("memory_store_code", {"path": str(files / "repo")})
        )
        assert code["finished"] and code["result"]["symbols_added"] >= 3
        sym = structured(await client.call_tool("memory_search_code", {"query": "helper"}))
        assert sym["hits"][0]["name"] == "helper"
        callers = structured(
            await client.call_tool(
                "memory_code_graph",
                {"repo": "repo", "symbol": "helper", "relation": "callers", "build": True},
            )
        )
        assert any(p["end"]["name"] == "run" for p in callers["paths"]), callers
        source = structured(
            await client.call_tool(
                "memory_code_read", {"op": "source", "repo": "repo", "symbol": "helper"}
            )
        )
        assert "return x + 1" in source["source"]["text"]
        a = structured(await client.call_tool("memory_store", {"claim": "module a imports b"}))
        inferred = structured(await client.call_tool("memory_infer", {}))
        assert inferred["complete"] is True
        counts = structured(await client.call_tool("memory_query_graph", {"op": "counts"}))
        assert counts["op"] == "counts"
        forgot = structured(
            await client.call_tool("memory_forget", {"mode": "erase", "atom_ids": [a["id"]]})
        )
        assert forgot["atoms"] == [a["id"]]
        pairs = structured(await client.call_tool("memory_contradictions", {}))
        assert pairs["action"] == "list" and pairs["total"] == len(pairs["pairs"])
        stats = structured(await client.call_tool("memory_stats", {}))
        assert stats["code_symbols"] >= 3 and stats["documents"] >= 1
        assert stats["feedback"]["helped"] == 1
