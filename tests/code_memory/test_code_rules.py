"""Rules over the code graph against real engines: the seed's two rules derive transitive module
dependencies from an indexed repository, with derivations; a re-index that removes the import
behind them withdraws them; memory_code_graph and memory_query_graph show them."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import GraphQueryRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.requests import CodeGraphRequest
from tests.code_fixtures import (
    IMPORTS_RULE,
    TRANSITIVE_RULE,
    q,
    sid,
    store_rule,
    write_chain_repo,
)


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
    write_chain_repo(root)
    service.store_code(str(root), repo="proj")
    r1, r2 = store_rule(service, IMPORTS_RULE), store_rule(service, TRANSITIVE_RULE)
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
    store_rule(service, {"if": "imprts", "then": "depends_on"})
    report = service.infer()
    assert report.derived == 0 and report.code_derived == 0
    assert any("imprts" in w for w in report.warnings), report.warnings
