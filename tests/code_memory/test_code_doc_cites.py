"""A repository's documentation ingested with citations of the code it names (issue 16):
memory_store_code docs=true ingests README and docs/*.md|rst, cites on their atoms the symbols
the text names, and those atoms go stale when a re-index removes a cited symbol. Pure tests of
the mention rules, a service-level test on embedded Postgres, and one run over MCP stdio."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.doc_cites import (
    Mention,
    code_block_mentions,
    pick_symbol,
    text_mentions,
)
from tests.code_fixtures import CORE_PY, write_core_package
from tests.conftest import offline_memory
from tests.mcp_harness import files_env, mcp_client, structured

README = """\
# Proj

Proj is a small engine library for counting things.

The function `pkg.core.helper` adds one to the number it is given.

The method `Engine.run()` starts the engine and returns the result of the doomed path.

The name `missing_thing` does not exist in the code at all.

## Usage

Proj is started from Python code like the example below.

```python
from pkg.core import Engine
Engine().run()
doomed()
```
"""

GUIDE = """\
Guide
=====

The helper :func:`helper` always returns a number that is one larger than its input.
"""


def write_repo(root: Path) -> Path:
    write_core_package(root)
    (root / "README.md").write_text(README)
    (root / "docs").mkdir()
    (root / "docs" / "guide.rst").write_text(GUIDE)
    return root


def test_mentions_are_backticked_names_and_code_block_calls() -> None:
    text = "Use `flask.Flask.run`, `url_for()`, ``pkg.f`` and :func:`a.b`; not `pip install x`."
    assert text_mentions(text) == [
        Mention("flask.Flask.run", False),
        Mention("url_for", True),
        Mention("pkg.f", False),
        Mention("a.b", False),
    ]
    assert text_mentions("`True` and `None` are not code of the repository") == []
    block = "Intro\n\n```python\napp = Flask(__name__)\napp.run(debug=True)\nprint(1)\n```\n"
    assert code_block_mentions(block) == [Mention("Flask", True), Mention("app.run", True)]
    rst = "Example::\n\n    helper(2)\n    x.y.z()\n\nAfter.\n"
    assert code_block_mentions(rst) == [Mention("helper", True), Mention("x.y.z", True)]
    assert code_block_mentions("helper(1) outside a block") == []


def test_a_name_is_cited_only_when_it_picks_one_symbol() -> None:
    run = {"qualified_name": "pkg.core.Engine.run", "kind": "method"}
    other = {"qualified_name": "pkg.other.Worker.run", "kind": "method"}
    assert pick_symbol("Engine.run", [run, other]) is run
    assert pick_symbol("pkg.core.Engine.run", [run, other]) is run
    assert pick_symbol("run", [run, other]) is None  # ambiguous: never guessed
    assert pick_symbol("run", [run]) is run
    assert pick_symbol("Thing.run", [run, other]) is None
    overload = {"qualified_name": "pkg.core.f#2", "kind": "function"}
    assert pick_symbol("pkg.core.f", [overload]) is overload


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(
        database_url, tmp_path / "data", ingest_roots=[str(tmp_path / "src")]
    ) as svc:
        yield svc


def cited(svc: MemoryService) -> dict[str, set[int]]:
    sql = (
        "SELECT s.qualified_name AS q, c.atom_id FROM pm_citation c "
        "JOIN pm_code_symbol s ON s.id = c.code_symbol_id"
    )
    out: dict[str, set[int]] = {}
    with svc.db.connection() as conn:
        for r in conn.execute(sql.encode()).fetchall():
            out.setdefault(r["q"], set()).add(int(r["atom_id"]))
    return out


def test_store_code_with_docs_cites_the_symbols_the_docs_name(
    service: MemoryService, tmp_path: Path
) -> None:
    root = write_repo(tmp_path / "src" / "proj")
    result = service.store_code(str(root), docs=True)
    docs = result.docs
    assert docs is not None, result.warnings
    assert docs.files == ["README.md", "docs/guide.rst"] and len(docs.document_ids) == 2
    assert docs.atoms > 0 and docs.code_citations > 0
    by_symbol = cited(service)
    # Backticked names in the atoms' text, and calls in the code block of the Usage section.
    assert {"pkg.core.helper", "pkg.core.Engine.run", "pkg.core.doomed"} <= set(by_symbol)
    assert "missing_thing" in docs.unresolved
    # Ingesting again adds nothing: the same citations already exist.
    again = service.store_code(str(root), docs=True)
    assert again.docs is not None and again.docs.code_citations == 0
    assert cited(service) == by_symbol
    # A plain index does not touch the docs.
    assert service.store_code(str(root)).docs is None


@pytest.mark.anyio
async def test_doc_atoms_citing_a_removed_symbol_go_stale_over_mcp(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "files" / "proj")
    async with mcp_client(files_env(tmp_path)) as client:
        indexed = structured(
            await client.call_tool(
                "memory_store_code", {"path": str(root), "docs": True, "wait_seconds": 100}
            )
        )
        assert indexed["finished"], indexed
        docs: dict[str, Any] = indexed["result"]["docs"]
        assert docs["code_citations"] > 0 and "pkg.core.doomed" in docs["cited_symbols"]
        (root / "pkg" / "core.py").write_text(
            CORE_PY.replace("def doomed():\n    return helper(1)\n", "")
        )
        again = structured(
            await client.call_tool("memory_store_code", {"path": str(root), "wait_seconds": 100})
        )
        assert again["finished"] and again["result"]["stale_atoms"], again
        found = structured(
            await client.call_tool(
                "memory_search", {"query": "engine starts doomed path", "preset": "lexical"}
            )
        )
        stale = {h["id"] for h in found["hits"] if h["status"] == "stale"}
        assert stale & set(again["result"]["stale_atoms"]), found["hits"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
