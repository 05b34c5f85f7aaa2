"""The Bolt (Memgraph / Neo4j) back end at the driver boundary: no such server can run here, so
these check the Cypher and parameters sent through the neo4j driver's session surface, and how
results and driver errors come back (`bolt_driver.FakeDriver`)."""

from __future__ import annotations

import socket

import pytest

from pegas_memory.errors import BackendUnavailable, InvalidInput, LimitExceeded, NotFound
from pegas_memory.memgraph_store.cypher import (
    DependencyEdge,
    LinkEdge,
    SymbolNode,
)
from tests.memgraph_store.bolt_driver import FakeDriver, bolt_store
from tests.memgraph_store.embedded_graph import (
    INJECTIONS,
    atom_node,
)


def test_bolt_flavour_is_detected_and_schema_runs_in_autocommit() -> None:
    memgraph = FakeDriver()
    bolt_store(memgraph).ensure_schema()
    assert memgraph.calls == [
        ("auto", "CREATE INDEX ON :Atom(id)", {}),
        ("auto", "CREATE INDEX ON :CodeSymbol(id)", {}),
        ("auto", "CREATE INDEX ON :Passage(id)", {}),
        ("auto", "CREATE INDEX ON :Document(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :RELATES(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :DEPENDS(id)", {}),
        ("auto", "CREATE EDGE INDEX ON :DERIVED(id)", {}),
    ]
    neo = FakeDriver(agent="Neo4j/5.26.0")
    store = bolt_store(neo, database="pegas")
    store.ensure_schema()
    assert store.dialect.name == "neo4j"
    assert all("IF NOT EXISTS" in q for _, q, _ in neo.calls) and len(neo.calls) == 7
    assert set(neo.databases) == {"pegas"}
    store.close()
    assert neo.closed


def test_bolt_writes_batch_rows_as_parameters_in_one_transaction() -> None:
    driver = FakeDriver()
    store = bolt_store(driver)
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
    store.upsert_atoms([atom_node(1, "c" * 1000)])
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
    memgraph = FakeDriver()
    memgraph.responses["MATCH p ="] = [
        [[1, 2], [[10, "cause", 1, 2]], 1, 2, "1,2,10,"],
        [[1, 2, 3], [[10, "cause", 1, 2], [11, "cause", 3, 2]], 2, 3, "1,2,3,10,11,"],
    ]
    store = bolt_store(memgraph, query_timeout=12.0)
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

    neo = FakeDriver(agent="Neo4j/5.26.0")
    neo.responses["MATCH p ="] = memgraph.responses["MATCH p ="]
    bolt_store(neo).neighbours("CodeSymbol", 1, direction="in", depth=3, kinds=["calls"])
    _, query, params = neo.calls[-1]
    assert (
        "<-[:DEPENDS*3..3]-" in query
        and "all(r IN relationships(p) WHERE r.kind IN $kinds)" in query
    )
    assert params["kinds"] == ["calls"] and "calls" not in query

    # The path lengths are asked for one by one, within one timeout in all.
    slow = FakeDriver()
    slow.responses["MATCH p ="] = memgraph.responses["MATCH p ="]
    with pytest.raises(LimitExceeded, match="at 1 hops; lower depth or offset"):
        bolt_store(slow, query_timeout=0.0).neighbours("Atom", 1, depth=3, limit=50)

    empty = FakeDriver()
    with pytest.raises(NotFound):
        bolt_store(empty).paths("Atom", 1, 2)
    # one query per path length (max_depth 4), then the endpoint check that names what is missing
    assert [c[1].count("$src") for c in empty.calls[:4]] == [1, 1, 1, 1]
    assert "*4..4" in empty.calls[3][1] and empty.calls[4][2] == {"id": 1}


def test_bolt_counts_and_id_pages() -> None:
    driver = FakeDriver()
    driver.responses["r:RELATES]->() RETURN r.kind"] = [["cause", True, 2], ["cause", False, 3]]
    driver.responses["r:DEPENDS]->() RETURN r.kind"] = [["calls", 4]]
    store = bolt_store(driver, page_rows=2)
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

    driver = FakeDriver()
    store = bolt_store(driver)
    driver.fail = neo4j_errors.ServiceUnavailable("connection refused")
    with pytest.raises(BackendUnavailable, match="PEGAS_GRAPH_URI"):
        store.node_counts()
    with pytest.raises(BackendUnavailable, match="PEGAS_GRAPH_URI"):
        bolt_store(driver)  # flavour detection reaches the server
    assert driver.closed
    with pytest.raises(InvalidInput):
        open_bolt_graph("bolt://x:1", driver=FakeDriver(), flavour="arango")  # type: ignore[arg-type]


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
