"""What memory_code_graph and memory_code_read hand the agent (issue 29): within the character
budget as the agent receives it (the MCP text content, JSON indented by two, plus the structured
content, compact JSON), paged with an offset that loses nothing; recursive calls shown."""

from __future__ import annotations

from pathlib import Path

import pydantic_core
from pydantic import BaseModel

from pegas_memory.app.requests import CodeGraphRequest
from pegas_memory.code_memory.requests import CodeReadRequest
from tests.code_fixtures import code_memory, indexed_files

CALLERS = 60


def _received(answer: BaseModel) -> int:
    text = pydantic_core.to_json(answer, fallback=str, indent=2)
    return len(text) + len(answer.model_dump_json())


def _hub_repo(root: Path) -> None:
    callers = "".join(
        f"def вызывающий_{i:02d}(x):\n    '''Calls the hub / вызывает узел.'''\n"
        f"    return узел(x)\n\n"
        for i in range(CALLERS)
    )
    indexed_files(
        root,
        {
            "hub/core.py": "def узел(n):\n    return узел(n - 1) if n else 0\n\n" + callers,
        },
    )


def test_graph_and_file_answers_fit_the_budget_the_agent_receives(
    database_url: str, tmp_path: Path
) -> None:
    _hub_repo(tmp_path / "src" / "hub")
    with code_memory(database_url, tmp_path) as code:
        code.store_code(str(tmp_path / "src" / "hub"))
        seen: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = code.code_graph(
                CodeGraphRequest(
                    repo="hub", symbol="hub.core.узел", relation="callers", limit=200,
                    offset=offset, detail=True, max_chars=4_000, build=offset == 0,
                )
            )  # fmt: skip
            assert _received(page) <= 4_000
            assert page.paths, "a page within the budget holds at least one path"
            seen += [p.end.name for p in page.paths]
            offset = page.next_offset
        assert sorted(seen) == [f"вызывающий_{i:02d}" for i in range(CALLERS)]
        assert page.recursion == [2]  # узел calls itself on line 2: shown, not dropped

        names: list[str] = []
        offset = 0
        while offset is not None:
            read = code.query.read(
                CodeReadRequest(
                    op="file", repo="hub", path="hub/core.py", offset=offset, detail=True,
                    max_chars=1_000,
                )
            )  # fmt: skip
            assert read.file is not None and read.file.symbols
            assert _received(read) <= 1_000
            names += [s.qualified_name for s in read.file.symbols]
            offset = read.file.next_offset
            assert (offset is None) == (read.warnings == [])
        assert len(names) == len(set(names)) == CALLERS + 2  # the module, узел, the callers


RECURSIVE = {
    "go.mod": "module example.com/tree\n",
    "tree/tree.go": """
        package tree

        // Tree — дерево / a tree.
        type Tree struct{ kids []*Tree }

        func (t *Tree) Walk() int {
            n := 1
            for _, k := range t.kids {
                n += t.size() + len(k.kids)
            }
            return n + t.Walk()
        }

        func (t *Tree) size() int { return len(t.kids) }

        func fact(n int) int {
            if n == 0 {
                return 1
            }
            return n * fact(n-1)
        }
        """,
    "Fib.java": """
        package ex;

        class Fib {
          static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
        }
        """,
}


def test_a_self_call_is_shown_for_callers_and_callees(database_url: str, tmp_path: Path) -> None:
    """A recursive call (a function, a method through its receiver, Go and Java) is stored as an
    edge from the symbol to itself; memory_code_graph shows its lines as ``recursion`` whichever
    way it walks, and the other edges as paths."""
    indexed_files(tmp_path / "src" / "tree", RECURSIVE)
    with code_memory(database_url, tmp_path) as code:
        code.store_code(str(tmp_path / "src" / "tree"))
        for symbol, line in (("tree.fact", 20), ("tree.Tree.Walk", 11), ("ex.Fib.fib", 4)):
            for relation in ("callees", "callers"):
                page = code.code_graph(
                    CodeGraphRequest(repo="tree", symbol=symbol, relation=relation, build=True)
                )
                assert page.recursion == [line], (symbol, relation)
        walk = code.code_graph(
            CodeGraphRequest(repo="tree", symbol="tree.Tree.Walk", relation="callees")
        )
        assert [p.end.name for p in walk.paths] == ["size"]
