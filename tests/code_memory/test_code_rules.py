"""Rules over the code graph against real engines: the seed's two rules derive transitive module
dependencies from an indexed repository, with derivations; a re-index that removes the import
behind them withdraws them; memory_code_graph and memory_query_graph show them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import GraphQueryRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.requests import CodeGraphRequest
from tests.code_fixtures import code_service, q, sid

A_PY = "from pkg.b import g\n\n\ndef f():\n    return g()\n"
B_PY = "from pkg.c import h\n\n\ndef g():\n    return h()\n"
C_PY = "def h():\n    return 1\n"
IMPORTS = {"if": "imports", "then": "depends_on"}
TRANSITIVE = {"if": ["depends_on", "depends_on"], "then": "depends_on"}


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with code_service(database_url, tmp_path) as svc:
        yield svc


def rule(svc: MemoryService, content: object) -> int:
    text = json.dumps(content)
    return svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text)).id


def module_deps(svc: MemoryService) -> set[tuple[str, str]]:
    rows = q(
        svc,
        "SELECT s.qualified_name AS a, t.qualified_name AS b FROM pm_code_inferred i "
        "JOIN pm_code_symbol s ON s.id = i.src_symbol_id "
        "JOIN pm_code_symbol t ON t.id = i.dst_symbol_id "
        "WHERE i.kind = 'depends_on' AND s.kind = 'module' AND t.kind = 'module'",
    )
    return {(r["a"], r["b"]) for r in rows}


def test_seed_rules_derive_transitive_module_dependencies_and_withdraw_them(
    service: MemoryService, tmp_path: Path
) -> None:
    root = tmp_path / "src" / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in (("a", A_PY), ("b", B_PY), ("c", C_PY)):
        (root / "pkg" / f"{name}.py").write_text(text)
    service.store_code(str(root), repo="proj")
    r1, r2 = rule(service, IMPORTS), rule(service, TRANSITIVE)
    report = service.infer()
    assert report.rounds >= 2 and report.code_repos == 1 and report.code_derived > 0
    assert report.code_per_rule[r1] > 0 and report.code_per_rule[r2] > 0
    assert module_deps(service) == {
        ("pkg.a", "pkg.b"),
        ("pkg.b", "pkg.c"),
        ("pkg.a", "pkg.c"),
    }
    assert service.infer().code_derived == 0  # at the fixpoint

    a, c = sid(service, "pkg.a"), sid(service, "pkg.c")
    why = service.query_graph(
        GraphQueryRequest(op="derivation", label="CodeSymbol", src=a, dst=c, kind="depends_on")
    ).result
    assert why.op == "derivation" and why.inferred
    assert any(
        d.rule == r2 and [p[2] for p in d.premises] == ["depends_on"] * 2 for d in why.derivations
    )
    counts = service.query_graph(GraphQueryRequest(op="counts")).result
    assert counts.op == "counts" and counts.code_inferred_by_kind["depends_on"] >= 3
    # build=true projects them first: the graph slice answers (test_code_derived_graph).
    shown = service.code_graph(
        CodeGraphRequest(repo="proj", symbol="pkg.a", relation="derived", build=True)
    )
    ends = {p.end.qualified_name for p in shown.paths}
    assert {"pkg.b", "pkg.c"} <= ends and shown.source == "graph"
    back = service.code_graph(CodeGraphRequest(repo="proj", symbol="pkg.c", relation="derived_by"))
    assert {"pkg.a", "pkg.b"} <= {p.end.qualified_name for p in back.paths}

    # b stops importing c: a re-index withdraws b -> c and a -> c, keeps a -> b.
    (root / "pkg" / "b.py").write_text("def g():\n    return 2\n")
    result = service.store_code(str(root), repo="proj")
    assert any("withdrawn" in w for w in result.warnings), result.warnings
    assert module_deps(service) == {("pkg.a", "pkg.b")}


def test_a_rule_over_a_kind_nothing_has_is_reported(service: MemoryService) -> None:
    rule(service, {"if": "imprts", "then": "depends_on"})
    report = service.infer()
    assert report.derived == 0 and report.code_derived == 0
    assert any("imprts" in w for w in report.warnings), report.warnings
