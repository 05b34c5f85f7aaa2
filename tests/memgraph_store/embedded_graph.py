"""The embedded FalkorDB graph as the graph-slice tests read it: an independent client on the same
server (`raw_graph`, `node_props`), node and edge records (`atom_node`, `link_edge`), text no
query may be built from (`INJECTIONS`), and `wait_until`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from falkordb import FalkorDB

from pegas_memory.memgraph_store.cypher import (
    AtomNode,
    LinkEdge,
)
from pegas_memory.memgraph_store.falkor import (
    graph_server_paths,
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


def wait_until(predicate: Any, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def raw_graph(data_dir: Path) -> Any:
    """An independent client on the same server, to check what was really stored."""
    return FalkorDB(unix_socket_path=str(graph_server_paths(data_dir).socket)).select_graph("pegas")


def node_props(data_dir: Path, label: str, node_id: int) -> dict[str, Any]:
    rows = (
        raw_graph(data_dir)
        .query(f"MATCH (n:{label} {{id: $id}}) RETURN properties(n)", {"id": node_id})
        .result_set
    )
    assert len(rows) == 1, rows
    return dict(rows[0][0])


def atom_node(i: int, claim: str = "claim") -> AtomNode:
    return AtomNode(id=i, type="fact", status="verified", confidence=0.5, claim=claim)


def link_edge(i: int, src: int, dst: int, kind: str = "cause", inferred: bool = False) -> LinkEdge:
    return LinkEdge(i, src, dst, kind, 0.7, inferred, "inference" if inferred else "distill")
