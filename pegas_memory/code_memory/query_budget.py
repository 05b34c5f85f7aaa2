"""Answers of memory_code_graph an agent can afford: compact by default, within a size budget.

A depth-2 neighbourhood of a hub class (flask's `Flask`) was 198k characters, about 840 per path:
every path carried the full end symbol and every hop with its call-site lines. By default a path
now carries the end symbol without its signature, the names along the way and the lines of the
last hop; `detail=true` brings signatures and every hop back. Whatever the detail, the answer is
cut to `max_chars` of what the agent receives, keeping whole paths in order, and says where the
next page starts. The agent receives an answer twice: as the text content (the JSON indented by
two) and as the structured content (compact JSON); the budget bounds both together
(`received_chars`): compact JSON alone undercounted it by about 1.5 times. So is a file's
listing of memory_code_read (`fit_file`). Also the derived edges of rules (`relation=derived`):
walked in the graph slice (DERIVED edges) or, when it cannot answer, in pm_code_inferred, and
described from pm_code_inferred with their derivations. Pure shaping, apart from those reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pydantic_core
from pydantic import BaseModel

from pegas_memory.code_memory.model import DepKind
from pegas_memory.code_memory.queries import Q
from pegas_memory.code_memory.results import (
    CodeDerivationOut,
    CodeEdgeOut,
    CodeFileOut,
    CodeFileSymbolOut,
    CodeGraphResult,
    CodePathOut,
    CodeReadResult,
    CodeSymbolOut,
)
from pegas_memory.db.pool import Conn
from pegas_memory.memgraph_store.cypher import Direction, GraphPath, PathEdge
from pegas_memory.reasoning.code import Q as RQ
from pegas_memory.reasoning.code import derived_attributes

_NOTE_ROOM = 800  # the cut's warning and next_offset (twice), added after measuring


def received_chars(model: BaseModel) -> int:
    """Characters the agent receives for `model` as an MCP tool result: the text content (JSON
    indented by two, as the MCP server renders it) plus the structured content (compact JSON)."""
    text = pydantic_core.to_json(model, fallback=str, indent=2)
    return len(text) + len(model.model_dump_json())


def item_chars(item: BaseModel, depth: int = 2) -> int:
    """What one more item of a list adds to `received_chars`; `depth` 2 for a list of the
    answer's own (its items are indented by four in the text content), 3 one object down."""
    text = pydantic_core.to_json(item, fallback=str, indent=2)
    indent = 2 * depth * (text.count(b"\n") + 1)
    return len(text) + indent + len(item.model_dump_json()) + 4


def fit_budget(result: CodeGraphResult, *, detail: bool, max_chars: int) -> CodeGraphResult:
    """`result` compacted (unless `detail`) and cut to whole paths within `max_chars` of what
    the agent receives (text and structured content together)."""
    paths = result.paths if detail else [_compact(p) for p in result.paths]
    base = received_chars(result.model_copy(update={"paths": []}))
    room = max_chars - base - _NOTE_ROOM
    kept: list[CodePathOut] = []
    for path in paths:
        size = item_chars(path)
        if kept and size > room:
            break
        kept.append(path)
        room -= size
    fitted = _cut(result, paths, kept, max_chars)
    while len(kept) > 1 and received_chars(fitted) > max_chars:  # the estimate was short
        kept.pop()
        fitted = _cut(result, paths, kept, max_chars)
    return fitted


def file_page(listing: CodeFileOut, max_chars: int) -> CodeReadResult:
    """memory_code_read op=file: the listing cut to `max_chars`, with a note where to go on."""

    def answer(page: CodeFileOut) -> CodeReadResult:  # the note as long as the real one
        return CodeReadResult(op="file", file=page, warnings=[_file_note(listing, max_chars)])

    page = fit_file(listing, max_chars=max_chars, wrap=answer)
    notes = [] if page.next_offset is None else [_file_note(page, max_chars)]
    return CodeReadResult(op="file", file=page, warnings=notes)


def _file_note(page: CodeFileOut, max_chars: int) -> str:
    following = page.next_offset if page.next_offset is not None else page.total
    return (
        f"cut to {len(page.symbols)} symbols from offset {page.offset} within "
        f"max_chars={max_chars}; pass offset={following} for the next page"
    )


def self_lines(conn: Conn, symbol_id: int, kinds: Sequence[str]) -> list[int]:
    """The lines where a symbol references itself with these kinds (its recursive calls: a
    walk's paths never revisit a symbol, so they are answered apart)."""
    rows = conn.execute(Q.self_references, {"id": symbol_id, "kinds": list(kinds)}).fetchall()
    lines = {n for r in rows for n in ((r["metadata"] or {}).get("lines") or [r["line"]])}
    return sorted(int(n) for n in lines if n is not None)


def fit_file(
    listing: CodeFileOut, *, max_chars: int, wrap: Callable[[CodeFileOut], BaseModel]
) -> CodeFileOut:
    """A file's symbols cut to whole symbols within `max_chars` of what the agent receives for
    `wrap(listing)` (the answer around it); ``next_offset`` says where the next page starts."""
    room = max_chars - received_chars(wrap(listing.model_copy(update={"symbols": []})))
    room -= _NOTE_ROOM
    kept: list[CodeFileSymbolOut] = []
    for symbol in listing.symbols:
        size = item_chars(symbol, depth=3)
        if kept and size > room:
            break
        kept.append(symbol)
        room -= size

    def page(n: int) -> CodeFileOut:
        following = listing.offset + n
        more = following < listing.total
        update = {"symbols": kept[:n], "next_offset": following if more else None}
        return listing.model_copy(update=update)

    n = len(kept)
    while n > 1 and received_chars(wrap(page(n))) > max_chars:  # the estimate was short
        n -= 1
    return page(n)


def _cut(
    result: CodeGraphResult,
    paths: Sequence[CodePathOut],
    kept: list[CodePathOut],
    max_chars: int,
) -> CodeGraphResult:
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
        if e.derived or e.kind == DepKind.MAY_CALL
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
