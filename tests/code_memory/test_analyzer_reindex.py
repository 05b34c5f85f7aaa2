"""A one-file re-index with an analyzer equals a whole index of the same bytes, and indexes only
the slice the change can move (issue 29): the changed file and the files that depend on it,
the other documents taken from the analyzer's previous run, kept in PostgreSQL: in the same
process, and in a new one on the same database.

The package also holds what made twisted's slice re-index differ from a whole index: a test
module importing ``skipIf`` from ``unittest`` (a stub re-export), which scip-python names after
the stub only in a run that met ``unittest.skipIf`` in an earlier file (other/skips.py, outside
the slice's directory), and leaves a document-local symbol otherwise.

Real scip-python into the real PostgreSQL; skipped, saying so, where it is not installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.store import EdgeRow, repo_edges
from tests.code_fixtures import code_memory, indexed_files, needs_analyzer

# Each test makes three real pyright runs (a whole one, a slice, a whole one again).
pytestmark = [pytest.mark.slow, needs_analyzer("scip-python")]

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
    "other/skips.py": """
        import sys
        import unittest


        @unittest.skipIf(sys.platform == "win32", "posix only")
        class PosixTests(unittest.TestCase):
            pass
        """,
    "shapes/use/test_report.py": """
        import sys
        from unittest import TestCase, skipIf

        from shapes.use.report import measure


        @skipIf(sys.platform == "win32", "posix only")
        class MeasureTests(TestCase):
            @skipIf(measure() < 0, "negative")
            def test_measure(self) -> None:
                self.assertTrue(measure() > 0)
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


def _edges(code: CodeMemory, repo: str) -> set[EdgeRow]:
    with code.db.connection() as conn:
        return repo_edges(conn, repo)


def _skip_calls(edges: set[EdgeRow]) -> set[tuple[str, str, str]]:
    return {(e[0], e[2], e[5]) for e in edges if e[1] == "calls" and e[2].endswith("skipIf")}


@pytest.fixture
def left(tmp_path: Path) -> Path:
    """PACKAGE written under tmp_path/src/left, the repository both tests index first."""
    root = tmp_path / "src" / "left"
    indexed_files(root, PACKAGE)
    return root


def test_a_one_file_reindex_with_scip_python_equals_a_whole_index_and_runs_over_its_slice(
    database_url: str, tmp_path: Path, left: Path
) -> None:
    with code_memory(database_url, tmp_path, code_analyzer="auto") as code:
        first = code.store_code(str(left))
        [run] = first.analyzers
        assert (run.status, run.indexed, run.reused) == ("ok", 11, 0)
        before = _edges(code, "left")
        assert any(
            e[0] == "shapes.use.report.measure" and e[3] == "shapes.model.Square.area"
            for e in before
        )

        (left / "shapes/use/factory.py").write_text(EDITED.lstrip("\n"))
        again = code.store_code(str(left))
        [run] = again.analyzers
        assert again.files_changed == 1 and not again.warnings
        # factory.py and what depends on it (report.py, through it chain.py and
        # test_report.py), not the rest.
        assert run.status == "ok" and run.indexed == 4 and run.reused == 7
        reindexed = _edges(code, "left")

    right = tmp_path / "src" / "right"
    shutil.copytree(left, right)
    with code_memory(database_url, tmp_path, code_analyzer="auto") as fresh:
        whole = fresh.store_code(str(right))
        assert whole.analyzers[0].indexed == 11
        full = _edges(fresh, "right")

    assert reindexed == full
    _assert_skip_calls_are_the_analyzers(full)
    measured = {(e[3], e[5]) for e in reindexed if e[0] == "shapes.use.report.measure"}
    assert any(dst == "shapes.model.Circle.area" and '"analyzer"' in meta for dst, meta in measured)
    assert not any(dst == "shapes.model.Square.area" for dst, _ in measured)


def _assert_skip_calls_are_the_analyzers(edges: set[EdgeRow]) -> None:
    """Every ``skipIf`` call, imported or through the module, is the analyzer's external edge
    named as written, in a whole run and a slice's alike."""
    calls = _skip_calls(edges)
    assert {src for src, _, _ in calls} == {
        "other.skips",
        "shapes.use.test_report",
        "shapes.use.test_report.MeasureTests",
    }
    assert all(name == "unittest.skipIf" and '"analyzer"' in meta for _, name, meta in calls)


def test_a_reindex_in_a_new_process_runs_the_analyzer_over_the_slice_kept_in_postgres(
    database_url: str, tmp_path: Path, left: Path
) -> None:
    with code_memory(database_url, tmp_path, code_analyzer="auto") as first_process:
        [run] = first_process.store_code(str(left)).analyzers
        assert (run.status, run.indexed) == ("ok", 11)

    (left / "shapes/use/factory.py").write_text(EDITED.lstrip("\n"))
    right = tmp_path / "src" / "right"
    shutil.copytree(left, right)
    with code_memory(database_url, tmp_path, code_analyzer="auto") as new_process:
        again = new_process.store_code(str(left))
        [run] = again.analyzers
        assert again.files_changed == 1 and not again.warnings
        # Only the slice, its other documents read back from the first process's run.
        assert (run.status, run.indexed, run.reused) == ("ok", 4, 7)
        reindexed = _edges(new_process, "left")
        whole = new_process.store_code(str(right))
        assert whole.analyzers[0].indexed == 11
        full = _edges(new_process, "right")
    assert reindexed == full
    _assert_skip_calls_are_the_analyzers(reindexed)
