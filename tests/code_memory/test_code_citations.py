"""Atoms that cite code, and what an agent reads from code memory, against real engines
(embedded Postgres, FalkorDB, an Ollama fake on loopback), plus one run over MCP stdio: index,
cite a function, delete it, re-index, the atom is stale with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.requests import CodeGraphRequest, CodeReadRequest
from pegas_memory.errors import InvalidInput, NotFound
from pegas_memory.models import CodeCitationIn, StoreResult
from tests.code_fixtures import CORE_PY, q, sid, write_core_package
from tests.mcp_harness import files_env, mcp_client, structured

LONG_PY = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(300)) + "    return 0\n"


def write_repo(root: Path) -> Path:
    write_core_package(root)
    (root / "pkg" / "long.py").write_text(LONG_PY)
    return root


def indexed_proj(svc: MemoryService, tmp_path: Path) -> Path:
    """The repository of write_repo under tmp_path/src/proj, indexed as proj; its root."""
    root = write_repo(tmp_path / "src" / "proj")
    svc.store_code(str(root), repo="proj")
    return root


def cite(svc: MemoryService, claim: str, qualified_name: str, **lines: int) -> StoreResult:
    """`claim` stored citing the symbol `qualified_name` of the repository proj (`lines`:
    start_line, end_line)."""
    return svc.store(
        StoreRequest(
            claim=claim,
            cite_code=CodeCitationIn(repo="proj", qualified_name=qualified_name, **lines),
        )
    )


def test_store_cites_a_symbol_and_a_reindex_that_removes_it_marks_the_atom_stale(
    service: MemoryService, tmp_path: Path
) -> None:
    root = indexed_proj(service, tmp_path)
    by_name = cite(service, "doomed calls helper with 1", "pkg.core.doomed")
    by_id = service.store(
        StoreRequest(
            claim="helper adds one",
            cite_code=CodeCitationIn(symbol_id=sid(service, "pkg.core.helper")),
        )
    )
    assert by_name.code_symbol_id == sid(service, "pkg.core.doomed")
    assert by_name.code_locator == "pkg/core.py:9-10"
    cites = q(
        service, "SELECT code_symbol_id, locator FROM pm_citation WHERE atom_id = %s", by_id.id
    )
    assert cites == [
        {"code_symbol_id": sid(service, "pkg.core.helper"), "locator": "pkg/core.py:4-6"}
    ]
    # Lines inside the symbol narrow the locator; lines outside it are refused.
    narrow = cite(service, "helper returns x + 1", "pkg.core.helper", start_line=6)
    assert narrow.code_locator == "pkg/core.py:6-6"
    with pytest.raises(InvalidInput, match="outside"):
        cite(service, "x", "pkg.core.helper", end_line=40)
    with pytest.raises(NotFound, match="memory_search_code"):
        cite(service, "y", "pkg.nope")
    with pytest.raises(InvalidInput, match="symbol_id, or repo"):
        service.store(StoreRequest(claim="z", cite_code=CodeCitationIn()))

    # Delete doomed (Engine.run now calls helper), re-index: the citing atom goes stale.
    (root / "pkg" / "core.py").write_text(
        CORE_PY.replace("def doomed():\n    return helper(1)\n", "").replace(
            "return doomed()", "return helper(2)"
        )
    )
    result = service.store_code(str(root), repo="proj")
    assert result.stale_atoms == [by_name.id]
    atom = q(service, "SELECT status, status_reason FROM pm_atom WHERE id = %s", by_name.id)[0]
    assert atom["status"] == "stale" and "pkg.core.doomed" in atom["status_reason"]
    change = q(
        service,
        "SELECT from_status, to_status, check_name, reason FROM pm_status_change "
        "WHERE atom_id = %s ORDER BY id DESC LIMIT 1",
        by_name.id,
    )[0]
    assert change["to_status"] == "stale" and change["check_name"] == "code_reindex"
    assert "disappeared" in change["reason"]
    # The atom citing the surviving helper is untouched.
    assert q(service, "SELECT status FROM pm_atom WHERE id = %s", by_id.id)[0]["status"] != "stale"


def test_read_source_file_symbols_and_repos(service: MemoryService, tmp_path: Path) -> None:
    root = indexed_proj(service, tmp_path)
    src = service.code_read(CodeReadRequest(op="source", repo="proj", symbol="helper")).source
    assert src is not None and src.text.startswith("def helper(x):") and not src.truncated
    assert "return x + 1" in src.text and src.note is None
    long = service.code_read(
        CodeReadRequest(op="source", repo="proj", symbol="long", max_lines=50)
    ).source
    assert long is not None and long.truncated and len(long.text.splitlines()) == 50
    assert long.note and "from_line=51" in long.note
    rest = service.code_read(
        CodeReadRequest(op="source", repo="proj", symbol="long", from_line=51, max_chars=500)
    ).source
    assert rest is not None and rest.start_line == 51 and len(rest.text) <= 500
    listing = service.code_read(CodeReadRequest(op="file", repo="proj", path="pkg/core.py")).file
    assert listing is not None
    assert [s.qualified_name for s in listing.symbols] == [
        "pkg.core",
        "pkg.core.helper",
        "pkg.core.doomed",
        "pkg.core.Engine",
        "pkg.core.Engine.run",
    ]
    assert listing.symbols[1].signature is None  # compact unless detail
    with pytest.raises(NotFound, match=r"pkg/core\.py"):
        service.code_read(CodeReadRequest(op="file", repo="proj", path="core.py"))
    (root / "pkg" / "core.py").write_text("# edited\n" + CORE_PY)
    edited = service.code_read(CodeReadRequest(op="source", repo="proj", symbol="helper"))
    assert any("changed since it was indexed" in w for w in edited.warnings)
    repos = service.code_read(CodeReadRequest(op="repos")).repos
    assert repos is not None and [r.name for r in repos] == ["proj"]
    assert repos[0].files == 3 and repos[0].symbols >= 7 and repos[0].languages == ["python"]
    assert repos[0].indexed_at


def test_drop_repository_through_the_outbox_from_every_slice(
    service: MemoryService, tmp_path: Path
) -> None:
    indexed_proj(service, tmp_path)
    cited = cite(service, "run calls doomed", "pkg.core.Engine.run")
    service.code_graph(CodeGraphRequest(repo="proj", symbol="helper", build=True))
    graph = service.runtime.graph.get()
    ids = {sid(service, "pkg.core.helper"), sid(service, "pkg.core.doomed")}
    assert ids <= set(graph.iter_node_ids("CodeSymbol"))
    result = service.forget(mode="erase", code_repos=["proj"])
    assert [d.repo for d in result.code_repos] == ["proj"]
    assert result.code_repos[0].stale_atoms == [cited.id]
    service.runtime.worker().drain()
    assert not ids & set(graph.iter_node_ids("CodeSymbol"))
    assert not set(graph.iter_edge_ids("DEPENDS"))
    for table in ("pm_code_symbol", "pm_code_dependency", "pm_code_file", "pm_code_repo"):
        assert q(service, f"SELECT count(*) AS n FROM {table}")[0]["n"] == 0, table
    atom = q(service, "SELECT status, status_reason FROM pm_atom WHERE id = %s", cited.id)[0]
    assert atom["status"] == "stale" and "dropped" in atom["status_reason"]
    with pytest.raises(NotFound):
        service.forget(mode="erase", code_repos=["proj"])


def test_code_graph_is_compact_and_bounded(service: MemoryService, tmp_path: Path) -> None:
    root = tmp_path / "src" / "hub"
    (root / "hub").mkdir(parents=True)
    (root / "hub" / "__init__.py").write_text("")
    # 120 callers: their detailed paths (with each hop's provenance) fit the largest budget
    callers = "".join(f"def caller_{i}():\n    return target()\n\n\n" for i in range(120))
    (root / "hub" / "m.py").write_text("def target():\n    return 1\n\n\n" + callers)
    service.store_code(str(root), repo="hub")
    request = CodeGraphRequest(repo="hub", symbol="target", relation="callers", limit=200)
    compact = service.code_graph(request)
    size = len(compact.model_dump_json())
    assert size <= 16_000 and compact.has_more and compact.next_offset == len(compact.paths)
    assert any(
        "max_chars=16000" in w and f"offset={len(compact.paths)}" in w for w in compact.warnings
    )
    assert all(not p.edges and p.lines and p.end.signature is None for p in compact.paths)
    following = service.code_graph(request.model_copy(update={"offset": compact.next_offset}))
    assert {p.end.id for p in following.paths}.isdisjoint({p.end.id for p in compact.paths})
    full = service.code_graph(request.model_copy(update={"detail": True, "max_chars": 200_000}))
    assert len(full.paths) == 120 and not full.has_more and full.paths[0].edges
    assert len(full.model_dump_json()) > size


@pytest.mark.anyio
async def test_citation_goes_stale_end_to_end_over_mcp(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "files" / "proj")
    async with mcp_client(files_env(tmp_path)) as client:
        indexed = structured(await client.call_tool("memory_store_code", {"path": str(root)}))
        assert indexed["finished"] and indexed["result"]["repo"] == "proj"
        stored = structured(
            await client.call_tool(
                "memory_store",
                {
                    "claim": "doomed calls helper with the constant 1",
                    "cite_code": {"repo": "proj", "qualified_name": "pkg.core.doomed"},
                },
            )
        )
        assert stored["code_locator"] == "pkg/core.py:9-10"
        (root / "pkg" / "core.py").write_text(
            CORE_PY.replace("def doomed():\n    return helper(1)\n", "")
        )
        again = structured(await client.call_tool("memory_store_code", {"path": str(root)}))
        assert again["finished"] and again["result"]["stale_atoms"] == [stored["id"]]
        found = structured(
            await client.call_tool(
                "memory_search", {"query": "doomed calls helper", "preset": "lexical"}
            )
        )
        hit = next(h for h in found["hits"] if h["id"] == stored["id"])
        assert hit["status"] == "stale"
        repos = structured(await client.call_tool("memory_code_read", {"op": "repos"}))
        assert repos["repos"][0]["name"] == "proj"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
