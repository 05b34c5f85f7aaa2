"""memory_code_graph keeps guesses apart (issue 29): a call site with many candidate targets is
stored as ``may_call`` edges, hidden from callers/callees unless ``candidates=true``; every
resolved edge carries its provenance and confidence (real PostgreSQL and graph slice)."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import CodeGraphRequest
from pegas_memory.code_memory.model import MAX_CALL_TARGETS
from tests.code_fixtures import code_memory, indexed_files

N = MAX_CALL_TARGETS + 2


def _source() -> str:
    handlers = "".join(f"def обработчик_{i}(x):\n    return x\n\n" for i in range(N))
    table = ", ".join(f"обработчик_{i}" for i in range(N))
    return (
        f"{handlers}HANDLERS = [{table}]\n\n"
        "def dispatch(x):\n    for h in HANDLERS:\n        h(x)\n\n"
        "def direct(x):\n    return обработчик_0(x)\n"
    )


def test_candidate_calls_are_shown_only_when_asked(database_url: str, tmp_path: Path) -> None:
    indexed_files(tmp_path / "src" / "disp", {"disp/router.py": _source()})
    with code_memory(database_url, tmp_path) as code:
        code.store_code(str(tmp_path / "src" / "disp"))
        for build in (True, False):  # the graph slice, then (already built) the same answer
            default = code.code_graph(
                CodeGraphRequest(
                    repo="disp", symbol="disp.router.dispatch", relation="callees", build=build
                )
            )
            assert default.paths == []
        asked = code.code_graph(
            CodeGraphRequest(
                repo="disp", symbol="disp.router.dispatch", relation="callees", candidates=True
            )
        )
        assert sorted(p.end.name for p in asked.paths) == [f"обработчик_{i}" for i in range(N)]
        edges = [e for p in asked.paths for e in p.edges]  # kept in the compact answer
        assert {e.kind for e in edges} == {"may_call"}
        assert {(e.provenance, e.confidence) for e in edges} == {("heuristic", round(1 / N, 3))}
        callers = code.code_graph(
            CodeGraphRequest(
                repo="disp", symbol="disp.router.обработчик_0", relation="callers", detail=True
            )
        )
        assert [p.end.qualified_name for p in callers.paths] == ["disp.router.direct"]
        edge = callers.paths[0].edges[0]
        assert (edge.kind, edge.provenance, edge.confidence) == ("calls", "heuristic", 1.0)
        with_guesses = code.code_graph(
            CodeGraphRequest(
                repo="disp", symbol="disp.router.обработчик_0", relation="callers",
                candidates=True,
            )
        )  # fmt: skip
        assert sorted(p.end.qualified_name for p in with_guesses.paths) == [
            "disp.router.direct",
            "disp.router.dispatch",
        ]
