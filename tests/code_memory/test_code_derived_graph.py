"""Derived code edges (conclusions of rules over the code graph, pm_code_inferred) in the graph
slice: projected through the outbox as DERIVED edges, withdrawn from it when withdrawn in
PostgreSQL, counted by the self-check, compared by reconcile, recreated by rebuild, and shown by
memory_query_graph and memory_code_graph with their derivations. Real engines: embedded
Postgres and FalkorDB; the Bolt dialect through tests/memgraph_store/bolt_driver."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.app.requests import GraphQueryRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.requests import CodeGraphRequest
from pegas_memory.memgraph_store.model import DerivedEdge
from pegas_memory.outbox.reconcile import rebuild, reconcile
from pegas_memory.outbox.selfcheck import check_slices
from tests.code_fixtures import IMPORTS_RULE, TRANSITIVE_RULE, q, sid, store_rule, write_chain_repo
from tests.memgraph_store.bolt_driver import FakeDriver as _FakeDriver
from tests.memgraph_store.bolt_driver import bolt_store as _bolt


def derived_in_graph(svc: MemoryService) -> set[int]:
    return set(svc.runtime.graph.get().iter_edge_ids("DERIVED"))


def derived_in_pg(svc: MemoryService) -> set[int]:
    return {int(r["id"]) for r in q(svc, "SELECT id FROM pm_code_inferred")}


def index_and_infer(svc: MemoryService, root: Path) -> None:
    write_chain_repo(root)
    svc.store_code(str(root), repo="proj")
    for content in (IMPORTS_RULE, TRANSITIVE_RULE):
        store_rule(svc, content)
    assert svc.infer().code_derived > 0


def test_derived_code_edges_reach_the_graph_slice_and_leave_it_when_withdrawn(
    service: MemoryService, tmp_path: Path
) -> None:
    root = tmp_path / "src" / "proj"
    index_and_infer(service, root)
    # The events were written with the rows: the outbox carries them to the graph slice.
    events = q(service, "SELECT count(*) AS n FROM pm_outbox WHERE entity_type = 'code_inferred'")
    assert events[0]["n"] >= len(derived_in_pg(service)) > 0
    service.runtime.worker().drain(timeout=60)
    assert derived_in_graph(service) == derived_in_pg(service)
    counts = service.runtime.graph.get().edge_counts()
    assert counts["DERIVED"] == len(derived_in_pg(service)) == counts["DERIVED:depends_on"]

    # memory_query_graph walks the derived edges of a code symbol, with their derivations.
    a, b, c = sid(service, "pkg.a"), sid(service, "pkg.b"), sid(service, "pkg.c")
    near = service.query_graph(
        GraphQueryRequest(
            op="neighbours", label="CodeSymbol", node_id=a, kinds=("depends_on",), direction="out"
        )
    ).result
    assert near.op == "neighbours"
    edges = {(e.src, e.dst): e for p in near.paths for e in p.edges}
    assert {(a, b), (a, c)} <= set(edges)  # and a's imports of symbols: pkg.a -> pkg.b.g
    assert all(e.kind == "depends_on" and e.inferred for e in edges.values())
    assert edges[(a, c)].inferred and edges[(a, c)].source == "inference"
    assert edges[(a, c)].derivations and edges[(a, c)].derivations[0].premises
    # Extracted and derived edges together: a path a -> c exists over derived edges alone.
    paths = service.query_graph(
        GraphQueryRequest(op="paths", label="CodeSymbol", node_id=a, target_id=c, depth=2)
    ).result
    assert paths.op == "paths"
    assert any([e.kind for e in p.edges] == ["depends_on"] for p in paths.paths)
    # Without a kind filter, extracted dependencies still come back as they did.
    callees = service.query_graph(
        GraphQueryRequest(op="neighbours", label="CodeSymbol", node_id=sid(service, "pkg.a.f"))
    ).result
    assert callees.op == "neighbours"
    assert any(e.kind == "calls" and e.line for p in callees.paths for e in p.edges)

    # memory_code_graph answers relation=derived from the graph slice, derivations by name.
    shown = service.code_graph(
        CodeGraphRequest(repo="proj", symbol="pkg.a", relation="derived", detail=True)
    )
    assert shown.source == "graph", shown.warnings
    ends = {p.end.qualified_name: p for p in shown.paths}
    assert {"pkg.b", "pkg.c"} <= set(ends)
    edge = ends["pkg.c"].edges[0]
    assert edge.derived and edge.kind == "depends_on" and edge.confidence is not None
    premises = {tuple(p) for d in edge.derivations for p in d.premises}
    assert ("pkg.a", "pkg.b", "depends_on") in premises
    assert ("pkg.b", "pkg.c", "depends_on") in premises
    compact = service.code_graph(CodeGraphRequest(repo="proj", symbol="pkg.a", relation="derived"))
    assert all(e.derived and not e.derivations for p in compact.paths for e in p.edges)

    # b stops importing c: the re-index withdraws b -> c and a -> c in Postgres, and the outbox
    # takes them out of the graph slice.
    (root / "pkg" / "b.py").write_text("def g():\n    return 2\n")
    service.store_code(str(root), repo="proj")
    service.runtime.worker().drain(timeout=60)
    assert derived_in_graph(service) == derived_in_pg(service)
    shown = service.code_graph(CodeGraphRequest(repo="proj", symbol="pkg.a", relation="derived"))
    ends_now = {p.end.qualified_name for p in shown.paths}
    assert "pkg.b" in ends_now and "pkg.c" not in ends_now and shown.source == "graph"


def test_self_check_reconcile_and_rebuild_count_derived_edges(
    service: MemoryService, tmp_path: Path
) -> None:
    index_and_infer(service, tmp_path / "src" / "proj")
    rt = service.runtime
    rt.worker().drain(timeout=60)
    expected = len(derived_in_pg(service))
    check = {c.slice: c for c in check_slices(rt).checks}["graph:code_inferred"]
    assert (check.expected, check.found, check.state) == (expected, expected, "ok")
    # A derived edge lost from the slice: the self-check and reconcile see it, --fix repairs it.
    lost = min(derived_in_pg(service))
    rt.graph.get().delete_derived([lost])
    check = {c.slice: c for c in check_slices(rt).checks}["graph:code_inferred"]
    assert check.state == "lost"
    drift = {s.slice: s for s in reconcile(rt).slices}["graph:code_inferred"]
    assert drift.missing == [lost]
    reconcile(rt, fix=True)
    assert derived_in_graph(service) == derived_in_pg(service)
    # An orphan (no such conclusion in Postgres) is found and removed too.
    rt.graph.get().upsert_derived(
        [DerivedEdge(10**9, sid(service, "pkg.a"), sid(service, "pkg.c"), "depends_on")]
    )
    drift = {s.slice: s for s in reconcile(rt).slices}["graph:code_inferred"]
    assert drift.orphaned == [10**9]
    reconcile(rt, fix=True)
    assert derived_in_graph(service) == derived_in_pg(service)
    # Rebuild recreates them from Postgres alone and counts them.
    result = rebuild(rt, "graph")
    assert result["counts"]["graph:code_inferred"] == expected
    assert derived_in_graph(service) == derived_in_pg(service)


def test_bolt_projects_and_walks_derived_edges() -> None:
    memgraph = _FakeDriver()
    store = _bolt(memgraph)
    store.ensure_schema()
    assert ("auto", "CREATE EDGE INDEX ON :DERIVED(id)", {}) in memgraph.calls
    memgraph.calls.clear()
    store.upsert_derived([DerivedEdge(7, 1, 2, "depends_on", 0.5)])
    store.delete_derived([7])
    (_, moved, _), (_, upsert, params), (_, delete, ids) = memgraph.calls
    assert "MATCH (a)-[r:DERIVED {id: row.id}]->(b)" in moved
    assert "MERGE (a)-[r:DERIVED {id: row.id}]->(b)" in upsert
    assert params["rows"] == [
        {"id": 7, "src": 1, "dst": 2, "kind": "depends_on", "confidence": 0.5}
    ]
    assert "MATCH ()-[r:DERIVED {id: id}]->() DELETE r" in delete and ids == {"ids": [7]}
    memgraph.responses["MATCH p ="] = [
        [[1, 2], [[7, "depends_on", 1, 2, "DERIVED"]], 1, 2, "1,2,7,"],
    ]
    paths = store.neighbours(
        "CodeSymbol", 1, rels=("DEPENDS", "DERIVED"), kinds=["depends_on"], direction="out"
    )
    assert paths[0].edges[0].derived
    assert "-[rs:DEPENDS|DERIVED *1..1 (e, v | e.kind IN $kinds)]->" in memgraph.calls[-1][1]
    neo = _FakeDriver(agent="Neo4j/5.26.0")
    neo.responses["MATCH p ="] = memgraph.responses["MATCH p ="]
    _bolt(neo).neighbours("CodeSymbol", 1, rels=("DERIVED",), direction="in")
    assert "<-[:DERIVED*1..1]-" in neo.calls[-1][1]
