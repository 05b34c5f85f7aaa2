"""The type-checker analyzers run as a stage of an index (issue 29): scip-python and
scip-typescript, installed from npm (scripts/system-deps.sh), over small repositories written
here, into the real PostgreSQL; memory_code_graph tells their edges from the heuristic's.

Skipped, saying so, only where the npm package is not installed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from pegas_memory.app.requests import CodeGraphRequest
from pegas_memory.code_memory.analyzer_stage import AnalyzerRunOut
from pegas_memory.code_memory.index import CodeMemory, StoreCodeResult
from tests.code_fixtures import code_memory, indexed_files, installed_analyzers, needs_analyzer

SHAPES = {
    "shapes/__init__.py": "",
    "shapes/marks.py": """
        import typing as t

        F = t.TypeVar("F", bound=t.Callable[..., t.Any])


        def marked(f: F) -> F:
            return f
        """,
    "shapes/model.py": """
        from shapes.marks import marked


        class Shape:
            @marked
            def area(self) -> float:
                return 0.0


        class Square(Shape):
            def __init__(self, side: float) -> None:
                self.side = side

            @marked
            def area(self) -> float:
                return self.side * self.side


        class Circle(Shape):
            @marked
            def area(self) -> float:
                return 3.0


        @marked
        def unit() -> float:
            return 1.0


        HANDLERS = {"unit": unit}


        def total(squares: list[Square]) -> float:
            return sum(s.area() for s in squares)


        def build() -> Square:
            return Square(2.0)


        def dispatch(key: str) -> float:
            return HANDLERS[key]()
        """,
}


def _edges(code: object, repo: str) -> dict[tuple[str, str], dict[str, object]]:
    sql = b"""
        SELECT s.qualified_name AS src, d.dst_name, d.metadata FROM pm_code_dependency d
          JOIN pm_code_symbol s ON s.id = d.src_symbol_id
         WHERE d.repo = %s AND d.kind = 'calls' AND d.dst_symbol_id IS NOT NULL"""
    with code.db.connection() as conn:  # type: ignore[attr-defined]
        rows = conn.execute(sql, (repo,)).fetchall()
    return {(r["src"], r["dst_name"]): r["metadata"] for r in rows}


Analysis = tuple[CodeMemory, StoreCodeResult, dict[tuple[str, str], dict[str, object]]]
Analyze = Callable[..., AbstractContextManager[Analysis]]


@pytest.fixture
def analyze(database_url: str, tmp_path: Path) -> Analyze:
    """``analyze(repo, files, **settings)``: `files` written under tmp_path/src/`repo` and
    indexed with the analyzers on (code_analyzer="auto", and `settings`); it yields the code
    memory, the index's result and its resolved call edges."""

    @contextmanager
    def run(repo: str, files: dict[str, str], **settings: Any) -> Iterator[Analysis]:
        root = tmp_path / "src" / repo
        indexed_files(root, files)
        with code_memory(database_url, tmp_path, code_analyzer="auto", **settings) as code:
            result = code.store_code(str(root))
            yield code, result, _edges(code, repo)

    return run


def _the_run_that_decided(result: StoreCodeResult, analyzer: str) -> AnalyzerRunOut:
    """The index's one analyzer run, which `analyzer` ran to the end."""
    [run] = result.analyzers
    assert run.status == "ok" and run.analyzer.startswith(f"{analyzer} ")
    return run


@pytest.mark.slow  # a real pyright run: Node starts and type-checks (3-8 s)
@needs_analyzer("scip-python")
def test_python_calls_come_from_scip_python_with_its_name_and_full_confidence(
    analyze: Analyze,
) -> None:
    with analyze("shapes", SHAPES) as (code, result, edges):
        run = _the_run_that_decided(result, "scip-python")
        assert run.decided >= 2 and not result.warnings
        # The checker binds ``s.area()`` on a ``Square`` to Square.area, through the decorator.
        total = edges[("shapes.model.total", "shapes.model.Square.area")]
        assert (total["provenance"], total["confidence"]) == ("analyzer", 1.0)
        assert total["analyzer"] == run.analyzer
        assert ("shapes.model.total", "shapes.model.Circle.area") not in edges
        built = edges[("shapes.model.build", "shapes.model.Square.__init__")]
        assert built["provenance"] == "analyzer"
        # ``HANDLERS[key]()``: the checker names no function, the heuristic's points-to does.
        kept = edges[("shapes.model.dispatch", "shapes.model.unit")]
        assert kept["provenance"] == "heuristic" and "analyzer" not in kept

        answer = code.code_graph(
            CodeGraphRequest(repo="shapes", symbol="shapes.model.Square.area", relation="callers")
        )
        assert [(p.end.qualified_name, p.provenance) for p in answer.paths] == [
            ("shapes.model.total", "analyzer")
        ]
        detail = code.code_graph(
            CodeGraphRequest(
                repo="shapes", symbol="shapes.model.dispatch", relation="callees", detail=True
            )
        )
        [hop] = [e for p in detail.paths for e in p.edges]
        assert (hop.dst, hop.provenance, hop.analyzer) == ("shapes.model.unit", "heuristic", None)


@needs_analyzer("scip-python")
@pytest.mark.parametrize(
    ("bound", "error"),
    [
        pytest.param({"code_analyzer_timeout": 0.001}, "time limit", id="time-limit"),
        pytest.param({"code_analyzer_heap_mb": 32}, "heap of 32 MB", id="heap-bound"),
    ],
)
def test_an_analyzer_past_its_bound_leaves_the_heuristic_edges_and_says_so(
    analyze: Analyze, bound: dict[str, Any], error: str
) -> None:
    with analyze("shapes", SHAPES, **bound) as (_, result, edges):
        [run] = result.analyzers
        assert run.status == "failed" and error in (run.error or ""), run.error
        assert any("scip-python failed" in w and "heuristic" in w for w in result.warnings)
        assert edges[("shapes.model.build", "shapes.model.Square.__init__")]["provenance"] == (
            "heuristic"
        )
        assert ("shapes.model.total", "shapes.model.Square.area") not in edges
        assert all(m.get("provenance") == "heuristic" for m in edges.values())


TS = {
    "src/shape.ts": """
        export interface Shape {
          area(): number;
        }

        export class Square implements Shape {
          constructor(private side: number) {}
          area(): number {
            return this.side * this.side;
          }
        }

        export class Circle implements Shape {
          area(): number {
            return 3;
          }
        }
        """,
    "src/use.ts": """
        import {Square} from './shape.js';

        export function make(): Square {
          return new Square(2);
        }

        export function measure(): number {
          const made = make();
          return made.area();
        }
        """,
}


@pytest.mark.slow  # a real TypeScript compiler run (3-5 s)
@needs_analyzer("scip-typescript")
def test_typescript_calls_come_from_scip_typescript_without_a_tsconfig(
    analyze: Analyze, tmp_path: Path
) -> None:
    with analyze("geo", TS) as (_, result, edges):
        run = _the_run_that_decided(result, "scip-typescript")
        # ``made`` is typed by make()'s return type: Square.area, not Circle.area.
        measured = edges[("src/use.measure", "src/shape.Square.area")]
        assert (measured["provenance"], measured["analyzer"]) == ("analyzer", run.analyzer)
        assert ("src/use.measure", "src/shape.Circle.area") not in edges
        assert edges[("src/use.make", "src/shape.Square")]["provenance"] == "analyzer"
        assert not (tmp_path / "src" / "geo" / "tsconfig.json").exists()  # nothing written


def test_doctor_says_which_analyzers_an_index_runs(tmp_path: Path) -> None:
    from pegas_memory.doctor import code_analyzer_check
    from tests.conftest import make_settings

    off = code_analyzer_check(make_settings(tmp_path, code_analyzer="off"))
    assert off.ok and off.detail.startswith("off")
    none = code_analyzer_check(
        make_settings(tmp_path, code_analyzer="auto", code_analyzer_path=str(tmp_path))
    )
    assert none.ok
    if installed_analyzers():
        assert all(name in none.detail for name in installed_analyzers())
    else:
        assert none.detail.startswith("none found")
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "scip-python"  # an executable of that name is what auto looks for
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    placed = code_analyzer_check(
        make_settings(tmp_path, code_analyzer="auto", code_analyzer_path=str(tmp_path / "bin"))
    )
    assert f"scip-python at {fake}" in placed.detail


def test_an_analyzer_that_fails_leaves_the_heuristic_edges_and_its_output_in_the_warning(
    analyze: Analyze, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    broken = bin_dir / "scip-python"  # found before any installed one: it crashes
    broken.write_text("#!/bin/sh\necho 'pyright: cannot read project' >&2\nexit 3\n")
    broken.chmod(0o755)
    with analyze("shapes", SHAPES, code_analyzer_path=str(bin_dir)) as analysis:
        _, result, edges = analysis
        python = [r for r in result.analyzers if r.analyzer.startswith("scip-python")]
        assert [r.status for r in python] == ["failed"]
        assert "status 3" in (python[0].error or "")
        assert "cannot read project" in (python[0].error or "")
        assert any("scip-python failed" in w for w in result.warnings)
        assert edges[("shapes.model.build", "shapes.model.Square.__init__")]["provenance"] == (
            "heuristic"
        )


MERGED_TS = {
    "src/core.ts": """
        export interface $constructor<T> {
          new (def: unknown): T;
          init(inst: T, def: unknown): void;
        }

        export function $constructor<T>(name: string): $constructor<T> {
          return null as unknown as $constructor<T>;
        }
        """,
    "src/schemas.ts": """
        import * as core from './core.js';

        export function build(): core.$constructor<number> {
          return core.$constructor('A');
        }
        """,
}


@pytest.mark.slow  # a real TypeScript compiler run (3-5 s)
@needs_analyzer("scip-typescript")
def test_a_typescript_call_of_a_merged_interface_and_function_is_the_function_only(
    analyze: Analyze,
) -> None:
    # One symbol to TypeScript (declaration merging), defined as the interface and the function;
    # a call runs the function, never the type.
    with analyze("merged", MERGED_TS) as (_, result, edges):
        _the_run_that_decided(result, "scip-typescript")
        called = {dst for src, dst in edges if src == "src/schemas.build"}
        assert called == {"src/core.$constructor@6"}
        assert edges[("src/schemas.build", "src/core.$constructor@6")]["provenance"] == "analyzer"
