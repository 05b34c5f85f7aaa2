"""The graph slice: the Cypher every engine shares (the Protocol and records are in `model`).

The graph is a rebuildable projection of Postgres (`pm_atom`, `pm_atom_link`, `pm_code_symbol`,
`pm_code_dependency`, `pm_passage` with its citations), written by the outbox worker and read
by graph queries and inference:

    (:Atom {id, type, status, confidence, claim, stub})
    (:CodeSymbol {id, repo, path, name, qualified_name, kind, language, start_line, stub})
    (:Atom)-[:RELATES {id, kind, confidence, inferred, source}]->(:Atom)
    (:CodeSymbol)-[:DEPENDS {id, kind, line}]->(:CodeSymbol)
    (:CodeSymbol)-[:DERIVED {id, kind, confidence}]->(:CodeSymbol)   (pm_code_inferred)
    (:Passage {id, doc_id, locator, stub})-[:PART_OF]->(:Document {id})   (pm_passage)
    (:Atom)-[:CITED_IN]->(:Passage)                                     (pm_citation)

Choices a newcomer may question:
- One relationship type per family with a `kind` property, not a type per kind: a kind is then a
  query parameter like any other value, so no Cypher is ever built from data.
- Every write is keyed by the Postgres id and idempotent (MERGE, DETACH DELETE), because outbox
  delivery is at-least-once. An edge whose endpoint has not been projected yet MERGEs that endpoint
  as a stub (`stub = true`, only an id); the node's own upsert fills it in. Event order across
  entities therefore does not matter.
- A passage joins its document (a `Document` node exists while one of its passages does) and
  the atoms cited from it. A `CITED_IN` edge is written by whichever end is projected second
  (each end's row lists the other's ids, and the edge is made only to a node that exists), and
  each end's upsert drops the edges its row no longer lists: no stubs, no order between them.
- Unresolved code references (dst symbol NULL in Postgres) are not projected at all: a
  `DependencyEdge` always joins two symbols.
- Values always travel as parameters. Only whitelisted labels and validated, bounded integers
  (path depth) are ever placed in query text, since variable-length bounds cannot be parameters.

Engines: `graph_falkor` (embedded FalkorDB, the default) and `graph_bolt` (Memgraph / Neo4j). Each
provides a `CypherRunner` (how to send a query) and a `CypherDialect` (the few statements the
dialects disagree on); `CypherGraphStore` holds everything they agree on.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict
from typing import Any, Protocol

from pegas_memory.errors import LimitExceeded, NotFound, PegasMemoryError
from pegas_memory.memgraph_store.model import (
    DEPENDENCY_KINDS,
    MAX_BATCH_ROWS,
    MAX_DEPTH,
    MAX_LIMIT,
    MAX_OFFSET,
    AtomNode,
    DependencyEdge,
    DerivedEdge,
    Direction,
    EdgeType,
    GraphPath,
    GraphStore,
    KeepsFiles,
    LinkEdge,
    NodeLabel,
    PassageNode,
    PathEdge,
    Statement,
    StoredLabel,
    StoredProps,
    SymbolNode,
    check_direction,
    check_edge_type,
    check_id,
    check_kinds,
    check_label,
    check_rels,
    check_stored_label,
)
from pegas_memory.validation import bounded_int

# The names other modules import from here (the records moved to `model`; this stays their home).
__all__ = [
    "DEPENDENCY_KINDS",
    "MAX_BATCH_ROWS",
    "MAX_DEPTH",
    "MAX_LIMIT",
    "MAX_OFFSET",
    "AtomNode",
    "CypherDialect",
    "CypherGraphStore",
    "CypherRunner",
    "DependencyEdge",
    "DerivedEdge",
    "Direction",
    "EdgeType",
    "GraphPath",
    "GraphStore",
    "LinkEdge",
    "NodeLabel",
    "PassageNode",
    "PathEdge",
    "Statement",
    "SymbolNode",
    "orient_pattern",
]


class CypherRunner(Protocol):
    """How one engine sends Cypher. Implementations translate driver errors to errors.py."""

    @property
    def timeout_seconds(self) -> float:
        """How long one read may run before the engine cancels it (LimitExceeded)."""
        ...

    def write(self, statements: Sequence[Statement]) -> list[list[Any]]:
        """Run the statements in order (in one transaction where the engine has them); return
        the rows of the last one."""
        ...

    def read(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]: ...

    def run_schema(self, query: str) -> None:
        """Run one schema statement outside any explicit transaction; idempotent."""
        ...

    def close(self) -> None: ...


class CypherDialect(ABC):
    """The statements where dialects differ. The defaults are openCypher as FalkorDB and Neo4j
    accept it; an engine overrides only what it does differently."""

    name = "opencypher"

    @abstractmethod
    def schema_statements(self) -> tuple[str, ...]:
        """The index statements of this engine (their syntax differs per engine)."""

    def expansion(
        self,
        rel: str,
        max_hops: int,
        direction: Direction,
        filtered: bool,
        min_hops: int = 1,
    ) -> str:
        """The variable-length pattern between `(a)` and `(b)` bound to path `p`.

        `rel` is whitelisted relationship types joined by `|` and the hop counts validated by
        the caller. When `filtered`, every
        edge of the path must have `kind IN $kinds`: either here or in `expansion_filter`."""
        pattern = f"[:{rel}*{min_hops}..{max_hops}]"
        return orient_pattern(pattern, direction)

    def expansion_filter(self, filtered: bool) -> str:
        return "all(r IN relationships(p) WHERE r.kind IN $kinds)" if filtered else "true"


def orient_pattern(pattern: str, direction: Direction) -> str:
    if direction == "out":
        return f"-{pattern}->"
    if direction == "in":
        return f"<-{pattern}-"
    return f"-{pattern}-"


# --- the shared Cypher ----------------------------------------------------------------------

_UPSERT_ATOMS = """
UNWIND $rows AS row
MERGE (n:Atom {id: row.id})
SET n.type = row.type, n.status = row.status, n.confidence = row.confidence,
    n.claim = row.claim, n.stub = false
"""

_UPSERT_SYMBOLS = """
UNWIND $rows AS row
MERGE (n:CodeSymbol {id: row.id})
SET n.repo = row.repo, n.path = row.path, n.name = row.name,
    n.qualified_name = row.qualified_name, n.kind = row.kind, n.language = row.language,
    n.start_line = row.start_line, n.stub = false
"""

# An edge update that changes its endpoints would otherwise leave the old edge behind.
_DROP_MOVED_EDGES = """
UNWIND $rows AS row
MATCH (a)-[r:{rel} {{id: row.id}}]->(b)
WHERE a.id <> row.src OR b.id <> row.dst
DELETE r
"""

_UPSERT_LINKS = """
UNWIND $rows AS row
MERGE (a:Atom {id: row.src}) ON CREATE SET a.stub = true
MERGE (b:Atom {id: row.dst}) ON CREATE SET b.stub = true
MERGE (a)-[r:RELATES {id: row.id}]->(b)
SET r.kind = row.kind, r.confidence = row.confidence, r.inferred = row.inferred,
    r.source = row.source
"""

_UPSERT_DEPENDENCIES = """
UNWIND $rows AS row
MERGE (a:CodeSymbol {id: row.src}) ON CREATE SET a.stub = true
MERGE (b:CodeSymbol {id: row.dst}) ON CREATE SET b.stub = true
MERGE (a)-[r:DEPENDS {id: row.id}]->(b)
SET r.kind = row.kind, r.line = row.line
"""

_UPSERT_DERIVED = """
UNWIND $rows AS row
MERGE (a:CodeSymbol {id: row.src}) ON CREATE SET a.stub = true
MERGE (b:CodeSymbol {id: row.dst}) ON CREATE SET b.stub = true
MERGE (a)-[r:DERIVED {id: row.id}]->(b)
SET r.kind = row.kind, r.confidence = row.confidence
"""

_UPSERT_PASSAGES = """
UNWIND $rows AS row
MERGE (p:Passage {id: row.id})
SET p.doc_id = row.doc_id, p.locator = row.locator, p.stub = false
MERGE (d:Document {id: row.doc_id})
MERGE (p)-[:PART_OF]->(d)
"""
# Anchored on the passage (only atoms cite passages): with `(a:Atom)` named first FalkorDB scanned
# every Atom node for each row, half a second per passage at 100k atoms.
_DROP_UNCITED = """
UNWIND $rows AS row
MATCH (p:Passage {id: row.id})<-[c:CITED_IN]-(a)
WHERE NOT a.id IN row.atoms
DELETE c
"""
_CITE_PASSAGES = """
UNWIND $rows AS row
MATCH (p:Passage {id: row.id})
UNWIND row.atoms AS atom_id
MATCH (a:Atom {id: atom_id})
MERGE (a)-[:CITED_IN]->(p)
"""
_DROP_ATOM_UNCITED = """
UNWIND $rows AS row
MATCH (a:Atom {id: row.id})-[c:CITED_IN]->(p:Passage)
WHERE NOT p.id IN row.passages
DELETE c
"""
_CITE_FROM_ATOMS = """
UNWIND $rows AS row
MATCH (a:Atom {id: row.id})
UNWIND row.passages AS passage_id
MATCH (p:Passage {id: passage_id})
MERGE (a)-[:CITED_IN]->(p)
"""
# A document's node goes with its last passage.
_DROP_EMPTY_DOCUMENTS = """
UNWIND $ids AS id
MATCH (d:Document {id: id})
WHERE NOT (d)<-[:PART_OF]-()
DELETE d
"""
_PASSAGE_DOCUMENTS = (
    "UNWIND $ids AS id MATCH (p:Passage {id: id})-[:PART_OF]->(d:Document) RETURN DISTINCT d.id"
)
_DELETE_NODES = "UNWIND $ids AS id MATCH (n:{label} {{id: id}}) DETACH DELETE n"
_DELETE_EDGES = "UNWIND $ids AS id MATCH ()-[r:{rel} {{id: id}}]->() DELETE r"

# Engines disagree on what a variable-length match may revisit (FalkorDB stops a walk when it
# meets a node already on it, Neo4j and Memgraph only forbid repeating an edge), so the answer is
# pinned to what all of them can produce: simple paths, where only the last node may equal the
# first (a cycle, for `paths(x, x)`). DISTINCT drops an undirected self-loop walked both ways.
# Ordered by scalars only (hops, end id, a string key of node and edge ids) because not every
# engine orders lists; a total order keeps SKIP/LIMIT pages stable.
# No braces in here: it is appended to templates that go through str.format.
_PATH_TAIL = """
WITH p, b.id AS end_id, [n IN nodes(p) | n.id] AS node_ids, [r IN relationships(p) | r.id] AS ids
WHERE all(i IN range(1, size(node_ids) - 1) WHERE NOT node_ids[i] IN node_ids[i + 1..]
          AND (i = size(node_ids) - 1 OR node_ids[i] <> node_ids[0]))
RETURN DISTINCT node_ids,
       [r IN relationships(p) | [r.id, r.kind, startNode(r).id, endNode(r).id, type(r)]] AS edges,
       size(ids) AS hops, end_id,
       reduce(s = '', x IN node_ids + ids | s + toString(x) + ',') AS path_key
ORDER BY hops, end_id, path_key
"""

_NEIGHBOURS = (
    """
MATCH p = (a:{label} {{id: $id}}){pattern}(b:{label})
WHERE b <> a AND {where}
"""
    + _PATH_TAIL
    + "SKIP $offset LIMIT $limit"
)

_PATHS = (
    """
MATCH p = (a:{label} {{id: $src}}){pattern}(b:{label} {{id: $dst}})
WHERE {where}
"""
    + _PATH_TAIL
    + "LIMIT $limit"
)

_NODE_EXISTS = "MATCH (n:{label} {{id: $id}}) RETURN n.id"
_COUNT_NODES = "MATCH (n:{label}) RETURN coalesce(n.stub, false) AS stub, count(n) AS n"
_COUNT_RELATES = (
    "MATCH ()-[r:RELATES]->() RETURN r.kind AS kind, coalesce(r.inferred, false) AS inferred, "
    "count(r) AS n"
)
_COUNT_DEPENDS = "MATCH ()-[r:DEPENDS]->() RETURN r.kind AS kind, count(r) AS n"
_COUNT_DERIVED = "MATCH ()-[r:DERIVED]->() RETURN r.kind AS kind, count(r) AS n"
_COUNT_CITED_IN = "MATCH (:Atom)-[r:CITED_IN]->(:Passage) RETURN count(r) AS n"
_PAGE_NODE_IDS = "MATCH (n:{label}) WHERE n.id > $after RETURN n.id AS id ORDER BY id LIMIT $page"
_PAGE_EDGE_IDS = (
    "MATCH ()-[r:{rel}]->() WHERE r.id > $after RETURN r.id AS id ORDER BY id LIMIT $page"
)
_NODE_PROPS = "UNWIND $ids AS id MATCH (n:{label} {{id: id}}) RETURN n.id, properties(n)"
_EDGE_PROPS = (
    "UNWIND $ids AS id MATCH (a)-[r:{rel} {{id: id}}]->(b) RETURN r.id, properties(r), a.id, b.id"
)
_CLEAR_PAGE = "MATCH (n:{label}) WITH n LIMIT $page DETACH DELETE n RETURN count(*) AS n"


def _chunks(rows: Sequence[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(rows), size):
        yield list(rows[start : start + size])


def _row_to_path(start: int, row: Sequence[Any]) -> GraphPath:
    # The node sequence is rebuilt from the edges: FalkorDB 4.16 can report nodes(p) of an
    # undirected cycle in reverse while relationships(p) keeps the walk's order.
    edges = tuple(
        PathEdge(int(e[0]), str(e[1]), int(e[2]), int(e[3]), len(e) > 4 and e[4] == "DERIVED")
        for e in row[1]
    )
    nodes = [start]
    for edge in edges:
        if edge.src == nodes[-1]:
            nodes.append(edge.dst)
        elif edge.dst == nodes[-1]:
            nodes.append(edge.src)
        else:
            raise PegasMemoryError(f"graph engine returned a broken path {row!r}")
    return GraphPath(node_ids=tuple(nodes), edges=edges)


class CypherGraphStore:
    """`GraphStore` over any engine that speaks the shared Cypher through a `CypherRunner`."""

    def __init__(
        self,
        runner: CypherRunner,
        dialect: CypherDialect,
        *,
        batch_rows: int = MAX_BATCH_ROWS,
        page_rows: int = 10_000,
        claim_chars: int = 280,
    ) -> None:
        self._runner = runner
        self._dialect = dialect
        self._batch = bounded_int(batch_rows, "batch_rows", 1, MAX_BATCH_ROWS)
        self._page = bounded_int(page_rows, "page_rows", 1, 100_000)
        self._claim_chars = bounded_int(claim_chars, "claim_chars", 1, 100_000)

    @property
    def dialect(self) -> CypherDialect:
        return self._dialect

    def ensure_schema(self) -> None:
        for statement in self._dialect.schema_statements():
            self._runner.run_schema(statement)

    # --- writes ---

    def _write_batches(self, queries: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
        for chunk in _chunks(rows, self._batch):
            self._runner.write([(query, {"rows": chunk}) for query in queries])

    def _delete(self, template: str, ids: Sequence[int], what: str, **names: str) -> None:
        checked = [check_id(i, what) for i in ids]
        query = template.format(**names)
        for chunk in _chunks(checked, self._batch):
            self._runner.write([(query, {"ids": chunk})])

    def upsert_atoms(self, atoms: Sequence[AtomNode]) -> None:
        rows = [
            {
                **asdict(a),
                "confidence": float(a.confidence),
                "claim": a.claim[: self._claim_chars],
                "passages": list(a.passages),
            }
            for a in atoms
        ]
        self._write_batches([_UPSERT_ATOMS, _DROP_ATOM_UNCITED, _CITE_FROM_ATOMS], rows)

    def upsert_passages(self, passages: Sequence[PassageNode]) -> None:
        rows = [{**asdict(p), "atoms": list(p.atoms)} for p in passages]
        self._write_batches([_UPSERT_PASSAGES, _DROP_UNCITED, _CITE_PASSAGES], rows)

    def delete_passages(self, ids: Sequence[int]) -> None:
        checked = [check_id(i, "passage id") for i in ids]
        for chunk in _chunks(checked, self._batch):
            documents = [int(d) for (d,) in self._runner.read(_PASSAGE_DOCUMENTS, {"ids": chunk})]
            self._runner.write([(_DELETE_NODES.format(label="Passage"), {"ids": chunk})])
            if documents:
                self._runner.write([(_DROP_EMPTY_DOCUMENTS, {"ids": documents})])

    def delete_atoms(self, ids: Sequence[int]) -> None:
        self._delete(_DELETE_NODES, ids, "atom id", label="Atom")

    def upsert_links(self, links: Sequence[LinkEdge]) -> None:
        rows = [{**asdict(e), "confidence": float(e.confidence)} for e in links]
        self._write_batches([_DROP_MOVED_EDGES.format(rel="RELATES"), _UPSERT_LINKS], rows)

    def delete_links(self, ids: Sequence[int]) -> None:
        self._delete(_DELETE_EDGES, ids, "link id", rel="RELATES")

    def upsert_symbols(self, symbols: Sequence[SymbolNode]) -> None:
        self._write_batches([_UPSERT_SYMBOLS], [asdict(s) for s in symbols])

    def delete_symbols(self, ids: Sequence[int]) -> None:
        self._delete(_DELETE_NODES, ids, "symbol id", label="CodeSymbol")

    def upsert_dependencies(self, deps: Sequence[DependencyEdge]) -> None:
        queries = [_DROP_MOVED_EDGES.format(rel="DEPENDS"), _UPSERT_DEPENDENCIES]
        self._write_batches(queries, [asdict(d) for d in deps])

    def delete_dependencies(self, ids: Sequence[int]) -> None:
        self._delete(_DELETE_EDGES, ids, "dependency id", rel="DEPENDS")

    def upsert_derived(self, edges: Sequence[DerivedEdge]) -> None:
        rows = [{**asdict(e), "confidence": float(e.confidence)} for e in edges]
        self._write_batches([_DROP_MOVED_EDGES.format(rel="DERIVED"), _UPSERT_DERIVED], rows)

    def delete_derived(self, ids: Sequence[int]) -> None:
        self._delete(_DELETE_EDGES, ids, "derived edge id", rel="DERIVED")

    # --- reads ---

    def _require_node(self, label: NodeLabel, node_id: int) -> None:
        if not self._runner.read(_NODE_EXISTS.format(label=label), {"id": node_id}):
            raise NotFound(
                f"{label} {node_id} is not in the graph: the id is unknown, or the outbox has "
                "not projected it yet; check the id (memory_search / memory_search_code) or "
                "retry shortly"
            )

    def neighbours(
        self,
        label: NodeLabel,
        node_id: int,
        *,
        kinds: Sequence[str] = (),
        direction: Direction = "both",
        depth: int = 1,
        limit: int = 50,
        offset: int = 0,
        rels: Sequence[EdgeType] | None = None,
    ) -> list[GraphPath]:
        """Simple paths of 1..depth edges from the node, shortest first, then by end node id.
        `rels`: the relationship types to follow (default the label's own: RELATES for atoms,
        DEPENDS for code symbols; code symbols may also follow DERIVED).

        Raises InvalidInput on bad arguments, NotFound when the node is not in the graph."""
        label = check_label(label)
        types = check_rels(label, rels)
        node_id = check_id(node_id, "node_id")
        kind_list = check_kinds(kinds)
        direction = check_direction(direction)
        depth = bounded_int(depth, "depth", 1, MAX_DEPTH)
        limit = bounded_int(limit, "limit", 1, MAX_LIMIT)
        offset = bounded_int(offset, "offset", 0, MAX_OFFSET)
        params = {"id": node_id, "kinds": kind_list, "offset": 0}
        wanted = offset + limit
        rows = self._shortest_first(
            _NEIGHBOURS, label, types, direction, kind_list, depth, params, wanted
        )
        rows = rows[offset:wanted]
        if not rows and offset == 0:
            self._require_node(label, node_id)
        return [_row_to_path(node_id, row) for row in rows]

    def _shortest_first(
        self,
        template: str,
        label: NodeLabel,
        types: Sequence[EdgeType],
        direction: Direction,
        kinds: list[str],
        depth: int,
        params: Mapping[str, Any],
        wanted: int,
    ) -> list[Any]:
        """The first `wanted` rows of `template` over paths of 1..depth edges, shortest first.

        The rows are ordered by path length first, so each length is asked for on its own and
        the walk stops once `wanted` rows are in: a hub's depth-6 neighbourhood holds billions of
        simple paths, and sorting all of them never finishes, while the first page usually lies
        within two or three hops. All the lengths together stay within one engine timeout."""
        rel = "|".join(types)  # whitelisted by check_rels
        filtered = bool(kinds)
        rows: list[Any] = []
        deadline = time.monotonic() + self._runner.timeout_seconds
        for hops in range(1, depth + 1):
            if hops > 1 and time.monotonic() > deadline:
                raise LimitExceeded(
                    f"the graph query ran over {self._runner.timeout_seconds:.0f} s at "
                    f"{hops - 1} hops; lower depth or offset, or name fewer kinds"
                )
            query = template.format(
                label=label,
                pattern=self._dialect.expansion(rel, hops, direction, filtered, min_hops=hops),
                where=self._dialect.expansion_filter(filtered),
            )
            rows.extend(self._runner.read(query, {**params, "limit": wanted - len(rows)}))
            if len(rows) >= wanted:
                break
        return rows

    def paths(
        self,
        label: NodeLabel,
        src_id: int,
        dst_id: int,
        *,
        kinds: Sequence[str] = (),
        direction: Direction = "out",
        max_depth: int = 4,
        limit: int = 10,
        rels: Sequence[EdgeType] | None = None,
    ) -> list[GraphPath]:
        """Simple paths of 1..max_depth edges from src to dst (a cycle when src == dst), shortest
        first; `rels` as for `neighbours`.

        Raises InvalidInput on bad arguments, NotFound when an endpoint is not in the graph."""
        label = check_label(label)
        types = check_rels(label, rels)
        src_id = check_id(src_id, "src_id")
        dst_id = check_id(dst_id, "dst_id")
        kind_list = check_kinds(kinds)
        direction = check_direction(direction)
        max_depth = bounded_int(max_depth, "max_depth", 1, MAX_DEPTH)
        limit = bounded_int(limit, "limit", 1, MAX_LIMIT)
        params = {"src": src_id, "dst": dst_id, "kinds": kind_list}
        rows = self._shortest_first(
            _PATHS, label, types, direction, kind_list, max_depth, params, limit
        )
        if not rows:
            self._require_node(label, src_id)
            self._require_node(label, dst_id)
        return [_row_to_path(src_id, row) for row in rows]

    def edge_counts(self) -> dict[str, int]:
        """Keys: "RELATES", "DEPENDS", "DERIVED", "CITED_IN" (totals), "RELATES:<kind>:inferred",
        "RELATES:<kind>:extracted", "DEPENDS:<kind>" (extracted code edges) and "DERIVED:<kind>"
        (code edges derived by rules)."""
        counts = {"RELATES": 0, "DEPENDS": 0, "DERIVED": 0, "CITED_IN": 0}
        for (n,) in self._runner.read(_COUNT_CITED_IN, {}):
            counts["CITED_IN"] += int(n)
        for kind, inferred, n in self._runner.read(_COUNT_RELATES, {}):
            key = f"RELATES:{kind}:{'inferred' if inferred else 'extracted'}"
            counts[key] = counts.get(key, 0) + int(n)
            counts["RELATES"] += int(n)
        for kind, n in self._runner.read(_COUNT_DEPENDS, {}):
            counts[f"DEPENDS:{kind}"] = counts.get(f"DEPENDS:{kind}", 0) + int(n)
            counts["DEPENDS"] += int(n)
        for kind, n in self._runner.read(_COUNT_DERIVED, {}):
            counts[f"DERIVED:{kind}"] = counts.get(f"DERIVED:{kind}", 0) + int(n)
            counts["DERIVED"] += int(n)
        return counts

    def node_counts(self) -> dict[str, int]:
        """Keys: "Atom", "CodeSymbol", "Passage" (all nodes), "Atom:stub", "CodeSymbol:stub"
        (nodes that only an edge has created so far; drift if they persist), "Passage:stub"
        (always 0: no edge makes a passage)."""
        counts: dict[str, int] = {}
        for label in ("Atom", "CodeSymbol", "Passage"):
            counts[label] = 0
            counts[f"{label}:stub"] = 0
            for stub, n in self._runner.read(_COUNT_NODES.format(label=label), {}):
                counts[label] += int(n)
                if stub:
                    counts[f"{label}:stub"] += int(n)
        return counts

    def _iter_ids(self, query: str) -> Iterator[int]:
        after = -(2**63)
        while True:
            rows = self._runner.read(query, {"after": after, "page": self._page})
            for (value,) in rows:
                yield int(value)
            if len(rows) < self._page:
                return
            after = int(rows[-1][0])

    def iter_node_ids(self, label: StoredLabel) -> Iterator[int]:
        """All node ids of a label in ascending order, stubs included, a page at a time."""
        return self._iter_ids(_PAGE_NODE_IDS.format(label=check_stored_label(label)))

    def iter_edge_ids(self, rel: EdgeType) -> Iterator[int]:
        """All edge ids of a relationship type in ascending order, a page at a time."""
        return self._iter_ids(_PAGE_EDGE_IDS.format(rel=check_edge_type(rel)))

    def node_properties(self, label: NodeLabel, ids: Sequence[int]) -> list[StoredProps]:
        """The stored properties of the nodes of `label` with these ids (absent ones left out),
        one read per batch: what the content sweep compares with PostgreSQL's rows."""
        query = _NODE_PROPS.format(label=check_label(label))
        checked = [check_id(i, "node id") for i in ids]
        return [
            StoredProps(int(node_id), dict(props or {}))
            for chunk in _chunks(checked, self._batch)
            for node_id, props in self._runner.read(query, {"ids": chunk})
        ]

    def edge_properties(self, rel: EdgeType, ids: Sequence[int]) -> list[StoredProps]:
        """The stored properties and end nodes of the `rel` edges with these ids (absent ones
        left out, an id held twice given twice), one read per batch."""
        query = _EDGE_PROPS.format(rel=check_edge_type(rel))
        checked = [check_id(i, "edge id") for i in ids]
        return [
            StoredProps(int(edge_id), dict(props or {}), int(src), int(dst))
            for chunk in _chunks(checked, self._batch)
            for edge_id, props, src, dst in self._runner.read(query, {"ids": chunk})
        ]

    def check_files(self) -> str | None:
        """Why the engine's files would not give its graph back (`KeepsFiles`: the embedded
        FalkorDB's); None for an engine that keeps none here (Memgraph, Neo4j)."""
        runner = self._runner
        return runner.check_files() if isinstance(runner, KeepsFiles) else None

    def rewrite_files(self) -> None:
        if isinstance(self._runner, KeepsFiles):
            self._runner.rewrite_files()

    def clear(self) -> None:
        """Remove every node and edge of the slice; indexes stay."""
        for label in ("Atom", "CodeSymbol", "Passage", "Document"):
            query = _CLEAR_PAGE.format(label=label)
            while True:
                rows = self._runner.write([(query, {"page": self._page})])
                if not rows or int(rows[0][0]) == 0:
                    break

    def close(self) -> None:
        self._runner.close()
