"""The graph slice's content is checked too, not only its counts (issue 18): on the embedded
FalkorDB, a node whose status or type was changed behind the memory's back, a link whose kind
was changed, and an atom's node swapped for one PostgreSQL never had (the counts kept) are
reported as stale in stats and mended from PostgreSQL; a healthy graph reports nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import add_link
from pegas_memory.memgraph_store.model import AtomNode, LinkEdge, StoredProps
from pegas_memory.outbox import graph_sweep
from pegas_memory.outbox.graph_sweep import compare_atom, compare_link
from pegas_memory.outbox.selfcheck import SelfCheck, SliceCheck, check_slices, repair
from tests.example_facts import MIXED

CLAIMS = MIXED[:5]


@pytest.fixture
def service(quiet_service: MemoryService) -> MemoryService:
    return quiet_service


def _stored(service: MemoryService) -> tuple[list[int], list[int]]:
    atoms = [service.store(StoreRequest(claim=claim)).id for claim in CLAIMS]
    with service.db.transaction() as conn:
        links = [
            add_link(conn, atoms[0], atoms[1], "cause")[0],
            add_link(conn, atoms[1], atoms[2], "reference")[0],
        ]
    service.runtime.worker().drain(include_delayed=True)
    return atoms, links


def _graph_parts(found: SelfCheck) -> dict[str, SliceCheck]:
    return {c.slice: c for c in found.of("graph:")}


def test_compare_names_what_differs() -> None:
    row = {"id": 1, "type": "fact", "status": "unverified", "confidence": 0.5}
    node = StoredProps(1, {"id": 1, "type": "fact", "status": "unverified", "confidence": 0.5})
    assert compare_atom(row, [node]) is None
    assert compare_atom(row, []) == "missing"
    assert compare_atom(row, [node, node]) == "2 nodes"
    assert compare_atom(row, [replace(node, properties={"id": 1, "stub": True})]) == (
        "only a stub node"
    )
    wrong = replace(node, properties={**node.properties, "status": "stale"})
    assert compare_atom(row, [wrong]) == "status 'stale' instead of 'unverified'"
    link = {"src_atom_id": 1, "dst_atom_id": 2, "kind": "cause", "inferred": False}
    edge = StoredProps(7, {"kind": "cause", "inferred": False, "confidence": 1.0}, 1, 2)
    link = {**link, "confidence": 1.0}
    assert compare_link(link, [edge]) is None
    assert "joins 2->1" in (compare_link(link, [replace(edge, src=2, dst=1)]) or "")
    assert "kind" in (compare_link({**link, "kind": "part_of"}, [edge]) or "")
    assert "confidence" in (compare_link({**link, "confidence": 0.4}, [edge]) or "")


def test_a_healthy_graph_reports_nothing(service: MemoryService) -> None:
    _stored(service)
    parts = _graph_parts(check_slices(service.runtime))
    assert parts["graph:atom"].state == "ok" and parts["graph:atom"].found == len(CLAIMS)
    assert parts["graph:link"].state == "ok" and parts["graph:link"].found == 2
    assert not check_slices(service.runtime).damaged
    graph = next(s for s in service.stats().slices if s.name == "graph")
    assert graph.health == "ok", graph


def test_properties_changed_keeping_the_counts_are_found_and_mended(
    service: MemoryService,
) -> None:
    atoms, links = _stored(service)
    rt = service.runtime
    graph = rt.graph.get()
    volga, basalt, mercury, heart = atoms[:4]
    stored = {p.id: p.properties for p in graph.node_properties("Atom", atoms)}

    def conf(atom: int) -> float:
        return float(stored[atom]["confidence"])

    # Behind the memory's back: a status and a type rewritten, a link's relation changed, and
    # the heart's node swapped for a node of an id PostgreSQL never had (the counts unchanged).
    graph.upsert_atoms(
        [
            AtomNode(volga, str(stored[volga]["type"]), "stale", conf(volga), CLAIMS[0]),
            AtomNode(basalt, "definition", str(stored[basalt]["status"]), conf(basalt), CLAIMS[1]),
            AtomNode(987_654_321, "fact", "unverified", 1.0, "a node from nowhere"),
        ]
    )
    graph.delete_atoms([heart])
    graph.upsert_links([LinkEdge(links[0], volga, basalt, "part_of", 1.0, False, "agent")])
    assert graph.node_counts()["Atom"] == len(CLAIMS)  # the counts alone would say "ok"
    assert graph.edge_counts()["RELATES"] == 2

    found = check_slices(rt)
    parts = _graph_parts(found)
    assert parts["graph:atom"].state == "stale", parts["graph:atom"]
    assert set(parts["graph:atom"].ids) == {volga, basalt, heart}
    why = parts["graph:atom"].describe()
    assert f"{volga} (status 'stale' instead of {stored[volga]['status']!r})" in why
    assert parts["graph:link"].state == "stale" and parts["graph:link"].ids == (links[0],)
    assert "kind 'part_of' instead of 'cause'" in parts["graph:link"].describe()
    assert parts["graph:code_symbol"].state == "ok"
    assert mercury not in parts["graph:atom"].ids
    stats = next(s for s in service.stats().slices if s.name == "graph")
    assert stats.health == "damaged"
    assert any("nodes checked differ from PostgreSQL" in p for p in stats.problems), stats

    report = repair(rt, found)
    assert report.rebuilt == ("graph",)
    assert sorted(r["reprojected"] for r in report.results) == [1, 3]  # mended, not rebuilt
    assert not check_slices(rt).damaged
    assert {p.id for p in graph.node_properties("Atom", [987_654_321, heart])} == {heart}
    mended = {p.id: p.properties for p in graph.node_properties("Atom", [volga, basalt])}
    assert mended[volga]["status"] == stored[volga]["status"]
    assert mended[basalt]["type"] == stored[basalt]["type"]
    (edge,) = graph.edge_properties("RELATES", [links[0]])
    assert edge.properties["kind"] == "cause" and (edge.src, edge.dst) == (volga, basalt)


def test_the_graph_sweep_walks_the_atoms_window_by_window(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    atoms, _ = _stored(service)
    rt = service.runtime
    graph = rt.graph.get()
    last = max(atoms)
    (props,) = graph.node_properties("Atom", [last])
    graph.upsert_atoms([AtomNode(last, "definition", str(props.properties["status"]), 1.0, "x")])
    monkeypatch.setattr(graph_sweep, "SWEEP_GRAPH_ROWS", 2)  # three windows over five atoms
    cursors: dict[str, int] = {}
    states = [_graph_parts(check_slices(rt, cursors))["graph:atom"].state for _ in range(4)]
    assert states == ["ok", "ok", "stale", "ok"]  # then it starts over from the first window


def test_bolt_reads_properties_in_one_read_per_batch() -> None:
    """Bolt's side (no Memgraph can run here: at the driver boundary only, like the other Bolt
    tests): the Cypher and parameters sent, and the rows parsed."""
    from tests.memgraph_store.bolt_driver import FakeDriver as _FakeDriver
    from tests.memgraph_store.bolt_driver import bolt_store as _bolt

    driver = _FakeDriver()
    driver.responses["properties(n)"] = [[3, {"id": 3, "status": "stale"}]]
    driver.responses["properties(r)"] = [[7, {"id": 7, "kind": "cause"}, 1, 2]]
    store = _bolt(driver)
    assert store.node_properties("Atom", [3, 4]) == [StoredProps(3, {"id": 3, "status": "stale"})]
    mode, query, params = driver.calls[-1]
    assert mode == "read" and "MATCH (n:Atom {id: id})" in query and params == {"ids": [3, 4]}
    assert store.edge_properties("RELATES", [7]) == [
        StoredProps(7, {"id": 7, "kind": "cause"}, 1, 2)
    ]
    assert "-[r:RELATES {id: id}]->" in driver.calls[-1][1]
