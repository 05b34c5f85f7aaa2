"""Answers of memory_code_graph an agent can afford: compact by default, within a size budget.

A depth-2 neighbourhood of a hub class (flask's `Flask`) was 198k characters, about 840 per path:
every path carried the full end symbol and every hop with its call-site lines. By default a path
now carries the end symbol without its signature, the names along the way and the lines of the
last hop; `detail=true` brings signatures and every hop back. Whatever the detail, the answer is
cut to `max_chars` (measured as the JSON the agent receives), keeping whole paths in order, and
says where the next page starts. Also the derived edges of rules (`relation=derived`): walked in
the graph slice (DERIVED edges) or, when it cannot answer, in pm_code_inferred, and described
from pm_code_inferred with their derivations. Pure shaping, apart from those reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.results import (
    CodeDerivationOut,
    CodeEdgeOut,
    CodeGraphResult,
    CodePathOut,
    CodeSymbolOut,
)
from pegas_memory.db.pool import Conn
from pegas_memory.memgraph_store.cypher import Direction, GraphPath, PathEdge
from pegas_memory.reasoning.code import Q as RQ
from pegas_memory.reasoning.code import derived_attributes

_NOTE_ROOM = 400  # the cut's warning and next_offset, added after measuring


def fit_budget(result: CodeGraphResult, *, detail: bool, max_chars: int) -> CodeGraphResult:
    """`result` compacted (unless `detail`) and cut to whole paths within `max_chars`."""
    paths = result.paths if detail else [_compact(p) for p in result.paths]
    base = len(result.model_copy(update={"paths": []}).model_dump_json())
    room = max_chars - base - _NOTE_ROOM
    kept: list[CodePathOut] = []
    for path in paths:
        size = len(path.model_dump_json()) + 1
        if kept and size > room:
            break
        kept.append(path)
        room -= size
    warnings = list(result.warnings)
    has_more = result.has_more or len(kept) < len(paths)
    if len(kept) < len(paths):
        warnings.append(
            f"cut to {len(kept)} of {len(paths)} paths to stay within max_chars={max_chars}; "
            f"pass offset={result.offset + len(kept)} for the next page (or a larger max_chars, "
            "a narrower relation, a smaller depth)"
        )
    return result.model_copy(
        update={
            "paths": kept,
            "has_more": has_more,
            "next_offset": result.offset + len(kept) if has_more else None,
            "warnings": warnings,
        }
    )


def _compact(path: CodePathOut) -> CodePathOut:
    lines = path.lines
    if not lines and path.edges:
        last = path.edges[-1]
        lines = last.lines or ([last.line] if last.line else [])
    # A derived edge stays (kind and confidence are what it says), without its derivations; so
    # does a candidate call (may_call): that it is a guess among several is what it says.
    derived = [
        e.model_copy(update={"derivations": []})
        for e in path.edges
        if e.derived or e.kind == "may_call"
    ]
    return path.model_copy(
        update={
            "end": path.end.model_copy(update={"signature": None}),
            "lines": lines,
            "edges": derived,
        }
    )


def derived_paths(
    conn: Conn, start: int, direction: Direction, limit: int, offset: int
) -> list[GraphPath]:
    """One hop over the derived code edges of `start` (they are transitive already)."""
    rows = conn.execute(
        RQ.derived_hop,
        {
            "kinds": [],
            "f": [start],
            "out": direction != "in",
            "in": direction != "out",
            "limit": offset + limit,
        },
    ).fetchall()
    paths = []
    for r in rows:
        edge = PathEdge(int(r["id"]), r["kind"], int(r["src"]), int(r["dst"]), derived=True)
        other = edge.dst if edge.src == start else edge.src
        paths.append(GraphPath((start, other), (edge,)))
    return paths[offset:]


def describe_derived(conn: Conn, paths: Sequence[GraphPath]) -> list[CodePathOut]:
    """Derived paths with names, confidence and derivations from Postgres; a path naming an
    edge or symbol Postgres no longer holds (withdrawn since the slice was read) is left out."""
    attrs = derived_attributes(conn, sorted({e.id for p in paths for e in p.edges}))
    premise_ids = {
        int(x)
        for a in attrs.values()
        for d in a["derivations"]  # type: ignore[attr-defined]
        for premise in d["premises"]
        for x in premise[:2]
    }
    ids = sorted({n for p in paths for n in p.node_ids} | premise_ids)
    nodes = {int(r["id"]): r for r in conn.execute(Q.symbols_by_ids, (ids,)).fetchall()}

    def name(symbol_id: object) -> str:
        row = nodes.get(int(symbol_id))  # type: ignore[call-overload]
        return row["qualified_name"] if row else f"#{symbol_id}"

    out = []
    for p in paths:
        if any(n not in nodes for n in p.node_ids) or any(e.id not in attrs for e in p.edges):
            continue
        edges = [
            CodeEdgeOut(
                id=e.id,
                kind=e.kind,
                src=nodes[e.src]["qualified_name"],
                dst=nodes[e.dst]["qualified_name"],
                path=nodes[e.src]["path"],
                derived=True,
                confidence=attrs[e.id]["confidence"],  # type: ignore[arg-type]
                derivations=[
                    CodeDerivationOut(
                        rule=int(d["rule"]),
                        premises=[(name(s), name(t), str(k)) for s, t, k in d["premises"]],
                    )
                    for d in attrs[e.id]["derivations"]  # type: ignore[attr-defined]
                ],
            )
            for e in p.edges
        ]
        out.append(
            CodePathOut(
                hops=p.hops,
                end=CodeSymbolOut.model_validate(nodes[p.end]),
                via=[nodes[n]["qualified_name"] for n in p.node_ids],
                edges=edges,
            )
        )
    return out
