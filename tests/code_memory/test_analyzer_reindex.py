"""A one-file re-index with an analyzer equals a whole index of the same bytes, and indexes only
the slice the change can move (issue 29): the changed file and the files that depend on it,
the other documents taken from the analyzer's previous run in the process.

Real scip-python into the real PostgreSQL; skipped, saying so, where it is not installed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.code_memory.analyzers import find_analyzers
from tests.code_fixtures import code_memory, indexed_files

_FOUND = {a.name for a in find_analyzers("auto")}

PACKAGE = {
    "shapes/__init__.py": "",
    "shapes/model.py": """
        class Square:
            def __init__(self, side: float) -> None:
                self.side = side

            def area(self) -> float:
                return self.side * self.side


        class Circle:
            def area(self) -> float:
                return 3.0
        """,
    "shapes/use/__init__.py": "",
    "shapes/use/factory.py": """
        from shapes.model import Circle, Square


        def make() -> Square:
            return Square(2.0)


        def spare() -> Circle:
            return Circle()
        """,
    "shapes/use/report.py": """
        from shapes.use.factory import make


        def measure() -> float:
            made = make()
            return made.area()
        """,
    "shapes/use/chain.py": """
        from shapes.use.report import measure


        def twice() -> float:
            return measure() + measure()
        """,
    "other/__init__.py": "",
    "other/tools.py": """
        from shapes.model import Square


        def helper(side: float) -> float:
            return Square(side).area()
        """,
    "other/more.py": """
        from other.tools import helper


        def use() -> float:
            return helper(1.0) + helper(2.0)
        """,
}

# make() now returns a Circle: report.measure's ``made.area()`` moves with it, though
# report.py's bytes do not change.
EDITED = """
from shapes.model import Circle, Square


def make() -> Circle:
    return Circle()


def spare() -> Square:
    return Square(1.0)
"""


def _edges(code: Any, repo: str) -> set[tuple[Any, ...]]:
    sql = b"""
        SELECT s.qualified_name AS src, d.kind, d.dst_name, t.qualified_name AS dst, d.line,
               d.metadata::text AS meta
          FROM pm_code_dependency d JOIN pm_code_symbol s ON s.id = d.src_symbol_id
          LEFT JOIN pm_code_symbol t ON t.id = d.dst_symbol_id
         WHERE d.repo = %s"""
    with code.db.connection() as conn:
        return {tuple(r.values()) for r in conn.execute(sql, (repo,)).fetchall()}


@pytest.mark.slow  # three real pyright runs (a whole one, a slice, a whole one again)
@pytest.mark.skipif(
    "scip-python" not in _FOUND,
    reason="scip-python is not installed (npm: @sourcegraph/scip-python; scripts/system-deps.sh)",
)
def test_a_one_file_reindex_with_scip_python_equals_a_whole_index_and_runs_over_its_slice(
    database_url: str, tmp_path: Path
) -> None:
    left = tmp_path / "src" / "left"
    indexed_files(left, PACKAGE)
    with code_memory(database_url, tmp_path, code_analyzer="auto") as code:
        first = code.store_code(str(left))
        [run] = first.analyzers
        assert (run.status, run.indexed, run.reused) == ("ok", 9, 0)
        before = _edges(code, "left")
        assert any(
            e[0] == "shapes.use.report.measure" and e[3] == "shapes.model.Square.area"
            for e in before
        )

        (left / "shapes/use/factory.py").write_text(EDITED.lstrip("\n"))
        again = code.store_code(str(left))
        [run] = again.analyzers
        assert again.files_changed == 1 and not again.warnings
        # factory.py and what depends on it (report.py, through it chain.py), not the rest.
        assert run.status == "ok" and run.indexed == 3 and run.reused == 6
        reindexed = _edges(code, "left")

    right = tmp_path / "src" / "right"
    shutil.copytree(left, right)
    with code_memory(database_url, tmp_path, code_analyzer="auto") as fresh:
        whole = fresh.store_code(str(right))
        assert whole.analyzers[0].indexed == 9
        full = _edges(fresh, "right")

    assert reindexed == full
    measured = {(e[3], e[5]) for e in reindexed if e[0] == "shapes.use.report.measure"}
    assert any(dst == "shapes.model.Circle.area" and '"analyzer"' in meta for dst, meta in measured)
    assert not any(dst == "shapes.model.Square.area" for dst, _ in measured)
