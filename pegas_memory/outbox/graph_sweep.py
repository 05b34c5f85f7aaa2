"""The graph slice's content sweep: a window of atoms (or links) compared with their nodes (or
relationships) one by one.

A count says nothing about *what* the graph holds: a FalkorDB restored from an old dump, or a
node whose status was written behind the server's back, has as many Atom nodes as PostgreSQL has
atoms and still filters walks wrongly (`memory_query_graph` filters on an atom's status and
type, and on a link's kind). So each check takes the next window of ids of `pm_atom` and of
`pm_atom_link` (the window logic is `outbox.sweep.read_window`: ascending, wrapping, rows with
an event still in the outbox left out) and compares each with what the graph stores: present
(and not a stub), the properties the queries use equal to the row's, a link joining the row's
atoms. The cost is one range read and one graph read per window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pegas_memory.memgraph_store.model import GraphStore, StoredProps
from pegas_memory.outbox.slices import SliceOwner
from pegas_memory.outbox.sweep import SweepResult, read_window

SWEEP_GRAPH_ROWS = 256  # ids compared per graph part and check
_ATOM_FIELDS = ("type", "status")


def _differs(key: str, stored: Mapping[str, Any], want: object) -> str | None:
    got = stored.get(key)
    return None if got == want else f"{key} {got!r} instead of {want!r}"


def _confidence(stored: Mapping[str, Any], want: float) -> str | None:
    got = stored.get("confidence")
    if isinstance(got, int | float) and math.isclose(float(got), want, rel_tol=1e-6, abs_tol=1e-9):
        return None
    return f"confidence {got!r} instead of {want!r}"


def compare_atom(row: Mapping[str, Any], stored: list[StoredProps]) -> str | None:
    """Pure: why an atom's node does not match its row (None if it does)."""
    if not stored:
        return "missing"
    if len(stored) > 1:
        return f"{len(stored)} nodes"
    props = stored[0].properties
    if props.get("stub"):
        return "only a stub node"
    for key in _ATOM_FIELDS:
        why = _differs(key, props, row[key])
        if why is not None:
            return why
    return _confidence(props, float(row["confidence"]))


def compare_link(row: Mapping[str, Any], stored: list[StoredProps]) -> str | None:
    """Pure: why a link's relationship does not match its row (None if it does)."""
    if not stored:
        return "missing"
    if len(stored) > 1:
        return f"{len(stored)} relationships"
    edge = stored[0]
    ends = (int(row["src_atom_id"]), int(row["dst_atom_id"]))
    if (edge.src, edge.dst) != ends:
        return f"joins {edge.src}->{edge.dst} instead of {ends[0]}->{ends[1]}"
    for key, want in (("kind", row["kind"]), ("inferred", bool(row["inferred"]))):
        why = _differs(key, edge.properties, want)
        if why is not None:
            return why
    return _confidence(edge.properties, float(row["confidence"]))


def sweep_graph(
    rt: SliceOwner,
    entity: Literal["atom", "link"],
    graph: GraphStore,
    after: int,
    limit: int | None = None,
) -> SweepResult:
    """Compare the window of `limit` (SWEEP_GRAPH_ROWS) ids after `after` of `entity`'s table
    with the graph."""
    window = read_window(rt, entity, after, limit or SWEEP_GRAPH_ROWS)
    if not window.rows:
        return SweepResult(0, (), {}, window.next_after)
    ids = [int(r["id"]) for r in window.rows]
    if entity == "atom":
        found = graph.node_properties("Atom", ids)
        compare = compare_atom
    else:
        found = graph.edge_properties("RELATES", ids)
        compare = compare_link
    stored: dict[int, list[StoredProps]] = {}
    for item in found:
        stored.setdefault(item.id, []).append(item)
    reasons: dict[int, str] = {}
    for row in window.rows:
        why = compare(row, stored.get(int(row["id"]), []))
        if why is not None:
            reasons[int(row["id"])] = why
    return SweepResult(len(window.rows), tuple(sorted(reasons)), reasons, window.next_after)
