"""The graph page's data: the one-hop neighbourhood of a claim or a code symbol, read from
PostgreSQL (the source of truth, not the graph slice) and shaped for the drawing.

A node is named `atom:<id>` or `symbol:<id>`. Around an atom: its links both ways (extracted by
an agent or an ingest, or inferred by rules with their derivations) and the code symbols it
cites; around a symbol: its dependencies both ways (calls, imports, inherits as written in the
code) and the edges rules derived from them, and the atoms citing it. Every edge says whether it
is `derived`, which the page draws apart. Each part is capped (`limit`); `truncated` says a
part had more. `node_ref` and `assemble` are pure; `neighbourhood` reads (`graph.sql`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, LiteralString

from pegas_memory.db.pool import Conn
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import InvalidInput, NotFound

NodeKind = Literal["atom", "symbol"]
DEFAULT_LIMIT = 60
MAX_LIMIT = 200
LABEL_CHARS = 60

Row = dict[str, Any]


@dataclass(frozen=True)
class GraphQueries:
    atom_nodes: LiteralString
    symbol_nodes: LiteralString
    atom_links: LiteralString
    atom_cited_symbols: LiteralString
    symbol_citing_atoms: LiteralString
    symbol_edges: LiteralString


Q = load_queries(GraphQueries, "pegas_memory.ui", "graph.sql")


@dataclass(frozen=True, slots=True)
class NodeRef:
    kind: NodeKind
    id: int

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


def node_ref(text: str | None) -> NodeRef:
    """`atom:42` or `symbol:7` (a bare number is an atom). Raises InvalidInput."""
    raw = (text or "").strip()
    kind, _, number = raw.rpartition(":")
    kind = kind or "atom"
    if kind not in ("atom", "symbol") or not number.isdigit() or int(number) < 1:
        raise InvalidInput(
            f"node {raw!r} is not a node name: write atom:<id> or symbol:<id> (ids from the "
            "claim and code pages)"
        )
    return NodeRef(kind, int(number))  # type: ignore[arg-type]


def short(text: str, limit: int = LABEL_CHARS) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def atom_node(row: Row) -> dict[str, Any]:
    return {
        "id": f"atom:{row['id']}",
        "kind": "atom",
        "label": short(row["claim"]),
        "text": row["claim"],
        "type": row["type"],
        "status": row["status"],
        "confidence": float(row["confidence"]),
        "lang": row["language"],
        "href": f"/atom/{row['id']}",
    }


def symbol_node(row: Row) -> dict[str, Any]:
    return {
        "id": f"symbol:{row['id']}",
        "kind": "symbol",
        "label": short(row["name"]),
        "text": row["qualified_name"],
        "type": row["kind"],
        "repo": row["repo"],
        "where": f"{row['path']}:{row['start_line']}",
        "href": f"/code/symbol/{row['id']}",
    }


def _atom_edge(row: Row) -> dict[str, Any]:
    derived = bool(row["inferred"])
    meta = row["metadata"] or {}
    return {
        "id": f"link:{row['id']}",
        "source": f"atom:{row['src']}",
        "target": f"atom:{row['dst']}",
        "kind": row["kind"],
        "derived": derived,
        "confidence": float(row["confidence"]),
        "origin": "inferred" if derived else row["source"],
        "derivations": list(meta.get("derivations", [])) if derived else [],
    }


def _symbol_edge(row: Row) -> dict[str, Any]:
    derived = bool(row["inferred"])
    meta = row["metadata"] or {}
    return {
        "id": f"{'inferred' if derived else 'dep'}:{row['id']}",
        "source": f"symbol:{row['src']}",
        "target": f"symbol:{row['dst']}",
        "kind": row["kind"],
        "derived": derived,
        "confidence": float(row["confidence"]) if row["confidence"] is not None else 1.0,
        "origin": "inferred" if derived else meta.get("provenance", "extracted"),
        "line": row["line"],
        "derivations": list(meta.get("derivations", [])) if derived else [],
    }


def _cite_edge(atom_id: int, symbol_id: int) -> dict[str, Any]:
    return {
        "id": f"cites:{atom_id}:{symbol_id}",
        "source": f"atom:{atom_id}",
        "target": f"symbol:{symbol_id}",
        "kind": "cites",
        "derived": False,
        "confidence": 1.0,
        "origin": "citation",
        "derivations": [],
    }


def _capped(rows: list[Row], limit: int) -> tuple[list[Row], bool]:
    return rows[:limit], len(rows) > limit


def assemble(
    center: NodeRef,
    atoms: list[Row],
    symbols: list[Row],
    edges: list[dict[str, Any]],
    truncated: bool,
) -> dict[str, Any]:
    """The answer of /graph.json: the centre, its nodes (centre first), edges whose two ends are
    both known (an end erased between two reads is left out), and whether a part was cut."""
    nodes = {n["id"]: n for n in [*map(atom_node, atoms), *map(symbol_node, symbols)]}
    if center.key not in nodes:
        raise NotFound(f"{center.kind} {center.id} not found (never stored, or erased)")
    ordered = [nodes[center.key], *(n for k, n in sorted(nodes.items()) if k != center.key)]
    seen: set[str] = set()
    kept = []
    for e in edges:
        if e["source"] in nodes and e["target"] in nodes and e["id"] not in seen:
            seen.add(e["id"])
            kept.append(e)
    return {"center": center.key, "nodes": ordered, "edges": kept, "truncated": truncated}


def neighbourhood(conn: Conn, center: NodeRef, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """The one-hop neighbourhood of `center`, at most `limit` edges of each part. Raises
    NotFound when the centre does not exist."""
    limit = max(1, min(MAX_LIMIT, limit))
    params = {"id": center.id, "limit": limit}
    atom_ids: set[int] = set()
    symbol_ids: set[int] = set()
    edges: list[dict[str, Any]] = []
    truncated = False
    if center.kind == "atom":
        atom_ids.add(center.id)
        links = conn.execute(Q.atom_links, params).fetchall()
        out, more_out = _capped([r for r in links if r["src"] == center.id], limit)
        into, more_in = _capped([r for r in links if r["src"] != center.id], limit)
        for r in (*out, *into):
            atom_ids.update((int(r["src"]), int(r["dst"])))
            edges.append(_atom_edge(r))
        cited, more_cited = _capped(conn.execute(Q.atom_cited_symbols, params).fetchall(), limit)
        for r in cited:
            symbol_ids.add(int(r["symbol_id"]))
            edges.append(_cite_edge(center.id, int(r["symbol_id"])))
        truncated = more_out or more_in or more_cited
    else:
        symbol_ids.add(center.id)
        rows = conn.execute(Q.symbol_edges, params).fetchall()
        parts: dict[tuple[bool, bool], list[Row]] = {}
        for r in rows:
            parts.setdefault((bool(r["inferred"]), r["src"] == center.id), []).append(r)
        for part in parts.values():
            kept, more = _capped(part, limit)
            truncated = truncated or more
            for r in kept:
                symbol_ids.update((int(r["src"]), int(r["dst"])))
                edges.append(_symbol_edge(r))
        citing, more_citing = _capped(conn.execute(Q.symbol_citing_atoms, params).fetchall(), limit)
        for r in citing:
            atom_ids.add(int(r["atom_id"]))
            edges.append(_cite_edge(int(r["atom_id"]), center.id))
        truncated = truncated or more_citing
    atoms = conn.execute(Q.atom_nodes, {"ids": sorted(atom_ids)}).fetchall() if atom_ids else []
    symbols = (
        conn.execute(Q.symbol_nodes, {"ids": sorted(symbol_ids)}).fetchall() if symbol_ids else []
    )
    return assemble(center, atoms, symbols, edges, truncated)
