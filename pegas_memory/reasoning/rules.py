"""memory_infer and memory_query_graph: rules applied to the link graph, and safe graph queries.

Inference reads the rules (logical_rule atoms, JSON content) and the extracted links from
Postgres, evaluates semi-naively to fixpoint (reasoning.inference, in process: the join is
fastest there at this scale), and writes back the difference: new inferred links (inferred = true,
source = 'inference', their derivations, the rule and premise links, in metadata), changed
confidences, and withdrawn conclusions. Postgres stays the truth; the outbox projects the links.

Truth maintenance is the same reconciliation: links touching stale or contested atoms support
nothing, deleted links and rules are simply absent, so conclusions that rested only on them are
withdrawn while those with another derivation stay. It runs on every memory_infer and after
forgetting and verification change what supports what.

Graph queries are structured and parameterised (no Cypher from the agent): neighbours, paths,
counts and the derivation of an inferred link, bounded and paginated.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, LiteralString, TypedDict

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import storable_confidence, withdraw_reason
from pegas_memory.db.sql import load_queries
from pegas_memory.errors import BackendUnavailable, InvalidInput, NotFound
from pegas_memory.memgraph_store.cypher import EdgeType, GraphPath
from pegas_memory.models import (
    DerivationOut,
    GraphAnswer,
    GraphCountsAnswer,
    GraphDerivationAnswer,
    GraphEdgeOut,
    GraphNodeOut,
    GraphPathOut,
    GraphPathsAnswer,
    LinkCountsOut,
)
from pegas_memory.outbox.slices import Engines
from pegas_memory.reasoning.code import Q as CQ
from pegas_memory.reasoning.code import (
    conclusion_counts,
    derived_attributes,
    idle_rule_warnings,
    reconcile_code,
)
from pegas_memory.reasoning.inference import WITHDRAWN, Edge, Limits, load_rules, reconcile
from pegas_memory.validation import bounded_int


@dataclass(frozen=True)
class ReasoningQueries:
    """The named blocks of reasoning/queries.sql."""

    links_by_origin: LiteralString
    needs_maintenance: LiteralString
    lock_inference: LiteralString
    active_rules: LiteralString
    unsupported_atoms: LiteralString
    atom_types: LiteralString
    withdraw_conclusion: LiteralString
    insert_conclusion: LiteralString
    update_conclusion: LiteralString
    refresh_derivations: LiteralString
    link_counts: LiteralString
    dependency_counts: LiteralString
    link_by_key: LiteralString
    atom_names: LiteralString
    link_attributes: LiteralString
    symbol_names: LiteralString
    dependency_lines: LiteralString


Q = load_queries(ReasoningQueries, "pegas_memory.reasoning", "queries.sql")

_INFER_LOCK = 7_355_608_002
MAX_DEPTH = 6
MAX_LIMIT = 1000
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


class InvalidRule(TypedDict):
    """A rule atom inference could not use. A TypedDict, not a model: `InferResult` (models.py)
    takes these rows as plain dicts."""

    rule_id: int
    reason: str
    detail: str


@dataclass
class InferReport:
    rounds: int = 0
    complete: bool = True
    derived: int = 0
    updated: int = 0
    withdrawn: int = 0
    kept: int = 0
    per_rule: dict[int, int] = field(default_factory=dict)
    rules_used: int = 0
    rules_invalid: list[InvalidRule] = field(default_factory=list)
    rules_prose_ignored: int = 0
    seconds: float = 0.0
    code_repos: int = 0
    code_derived: int = 0
    code_updated: int = 0
    code_withdrawn: int = 0
    code_kept: int = 0
    code_per_rule: dict[int, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _edges(conn: Conn, inferred: bool) -> list[Edge]:
    rows = conn.execute(Q.links_by_origin, (inferred,)).fetchall()
    return [
        Edge(int(r["src_atom_id"]), int(r["dst_atom_id"]), r["kind"], float(r["confidence"]))
        for r in rows
    ]


def needs_maintenance(db: Database) -> bool:
    """Whether any rule or inferred link exists (else truth maintenance has nothing to do)."""
    with db.connection() as conn:
        row = conn.execute(Q.needs_maintenance).fetchone()
    return bool(row and row["needed"])


def run_inference(
    db: Database,
    *,
    max_rounds: int = 100,
    max_derived: int = 2_000_000,
    derivations_per_rule: int = 3,
) -> InferReport:
    """Bring the stored inferred links to the fixpoint of the rules over the current support."""
    started = time.monotonic()
    report = InferReport()
    with db.transaction() as conn:
        conn.execute(Q.lock_inference, (_INFER_LOCK,))
        rule_rows = conn.execute(Q.active_rules).fetchall()
        ruleset = load_rules((int(r["id"]), r["content"]) for r in rule_rows)
        report.rules_used = len(ruleset.rules)
        report.rules_prose_ignored = len(ruleset.prose)
        report.rules_invalid = [
            InvalidRule(rule_id=bad.rule_id, reason=bad.reason, detail=bad.detail)
            for bad in ruleset.invalid
        ]
        extracted = _edges(conn, False)
        stored = _edges(conn, True)
        unsupported = [int(r["id"]) for r in conn.execute(Q.unsupported_atoms).fetchall()]
        nodes = sorted({e.src for e in extracted} | {e.dst for e in extracted})
        types = {int(r["id"]): r["type"] for r in conn.execute(Q.atom_types, (nodes,)).fetchall()}
        limits = Limits(
            max_rounds=max_rounds,
            max_derived=max_derived,
            derivations_per_rule=derivations_per_rule,
        )
        rec = reconcile(
            extracted,
            stored,
            ruleset.rules,
            types,
            unsupported_atoms=unsupported,
            limits=limits,
        )
        derivations = rec.result.derivations

        def meta(key: tuple[int, int, str]) -> Jsonb:
            return Jsonb(
                {
                    "derivations": [
                        {"rule": d.rule_id, "premises": [list(p) for p in d.premises]}
                        for d in derivations.get(key, ())
                    ]
                }
            )

        with conn.cursor() as cur:
            if rec.withdraw:
                withdraw_reason(conn, WITHDRAWN)
                cur.executemany(Q.withdraw_conclusion, list(rec.withdraw))
            cur.executemany(
                Q.insert_conclusion,
                [
                    (e.src, e.dst, e.kind, storable_confidence(e.confidence), meta(e.key))
                    for e in rec.add
                ],
            )
            cur.executemany(
                Q.update_conclusion,
                [
                    (storable_confidence(e.confidence), meta(e.key), e.src, e.dst, e.kind)
                    for e in rec.update
                ],
            )
            # Kept conclusions may have lost one of several derivations: record the survivors.
            cur.executemany(
                Q.refresh_derivations,
                [(meta(k), k[0], k[1], k[2], meta(k)) for k in rec.keep],
            )
        # The same rules over each repository's code graph (reasoning.code).
        code = reconcile_code(conn, ruleset.rules, limits)
        report.warnings = idle_rule_warnings(conn, ruleset.rules)
    report.rounds = max(rec.result.rounds, code.rounds)
    report.complete = rec.result.complete and code.complete
    report.code_repos = code.repos
    report.code_derived = code.derived
    report.code_updated = code.updated
    report.code_withdrawn = code.withdrawn
    report.code_kept = code.kept
    report.code_per_rule = code.per_rule
    report.derived = len(rec.add)
    report.updated = len(rec.update)
    report.withdrawn = len(rec.withdraw)
    report.kept = len(rec.keep)
    report.per_rule = dict(rec.result.per_rule)
    report.seconds = round(time.monotonic() - started, 4)
    return report


# ---------------------------------------------------------------------- graph queries
Op = Literal["neighbours", "paths", "counts", "derivation"]


def _kinds(kinds: Sequence[str]) -> list[str]:
    bad = [k for k in kinds if not _KIND.match(k)]
    if bad:
        raise InvalidInput(
            f"edge kinds are single lowercase tokens like depends_on; not {bad[:3]!r}"
        )
    return list(kinds)


def query_graph(
    db: Database,
    runtime: Engines,
    op: Op,
    *,
    node_id: int | None = None,
    label: Literal["Atom", "CodeSymbol"] = "Atom",
    target_id: int | None = None,
    kinds: Sequence[str] = (),
    direction: Literal["out", "in", "both"] = "both",
    depth: int = 1,
    limit: int = 50,
    offset: int = 0,
    src: int | None = None,
    dst: int | None = None,
    kind: str | None = None,
) -> GraphAnswer:
    """One structured graph question (see the module doc), answered as a typed model.

    Raises InvalidInput (bad arguments), NotFound (no such link or node), BackendUnavailable."""
    kinds = _kinds(kinds)
    if op == "counts":
        with db.connection() as conn:
            rows = conn.execute(Q.link_counts).fetchall()
            deps = conn.execute(Q.dependency_counts).fetchall()
            derived_code = conclusion_counts(conn)
        counts: dict[str, LinkCountsOut] = {}
        for r in rows:
            entry = counts.setdefault(r["kind"], LinkCountsOut())
            if r["inferred"]:
                entry.inferred = int(r["n"])
            else:
                entry.extracted = int(r["n"])
        return GraphCountsAnswer(
            op="counts",
            links_by_kind=counts,
            code_dependencies_by_kind={r["kind"]: int(r["n"]) for r in deps},
            code_inferred_by_kind=dict(derived_code),
        )
    if op == "derivation":
        if src is None or dst is None or kind is None:
            raise InvalidInput("derivation needs src, dst and kind of the inferred link")
        _kinds([kind])
        if label == "CodeSymbol":
            return _code_derivation(db, src, dst, kind)
        with db.connection() as conn:
            row = conn.execute(Q.link_by_key, (src, dst, kind)).fetchone()
        if row is None:
            raise NotFound(f"no link {src} -{kind}-> {dst}; use op=neighbours to see links")
        return GraphDerivationAnswer(
            op="derivation",
            link_id=int(row["id"]),
            inferred=bool(row["inferred"]),
            source=row["source"],
            confidence=float(row["confidence"]),
            derivations=[
                DerivationOut.model_validate(d)
                for d in (row["metadata"] or {}).get("derivations", [])
            ],
        )
    limit = bounded_int(limit, "limit", 1, MAX_LIMIT)
    offset = bounded_int(offset, "offset", 0, 100_000)
    if node_id is None:
        raise InvalidInput(f"{op} needs node_id (an atom or code symbol id)")
    try:
        graph = runtime.graph.get()
        # Code symbols: the extracted dependencies and the edges rules derived from them.
        rels: tuple[EdgeType, ...] | None = (
            ("DEPENDS", "DERIVED") if label == "CodeSymbol" else None
        )
        if op == "neighbours":
            paths = graph.neighbours(
                label,
                node_id,
                rels=rels,
                kinds=kinds,
                direction=direction,
                depth=bounded_int(depth, "depth", 1, MAX_DEPTH),
                limit=limit,
                offset=offset,
            )
        elif op == "paths":
            if target_id is None:
                raise InvalidInput("paths needs target_id")
            paths = graph.paths(
                label,
                node_id,
                target_id,
                rels=rels,
                kinds=kinds,
                max_depth=bounded_int(depth, "depth", 1, MAX_DEPTH),
                limit=limit,
                direction=direction,
            )
        else:
            raise InvalidInput(f"unknown op {op!r}: use neighbours, paths, counts or derivation")
    except BackendUnavailable as exc:
        raise BackendUnavailable(
            f"{exc}. The graph slice is rebuildable: `pegas-memory rebuild --target graph`"
        ) from exc
    return GraphPathsAnswer(op=op, paths=_describe(db, label, paths), limit=limit, offset=offset)


def _code_derivation(db: Database, src: int, dst: int, kind: str) -> GraphDerivationAnswer:
    """Why a derived code edge (pm_code_inferred) holds; src and dst are code symbol ids."""
    with db.connection() as conn:
        row = conn.execute(CQ.conclusion_by_key, (src, dst, kind)).fetchone()
    if row is None:
        raise NotFound(
            f"no derived code edge {src} -{kind}-> {dst}; run memory_infer, and use "
            "memory_code_graph relation=derived to list a symbol's derived edges"
        )
    return GraphDerivationAnswer(
        op="derivation",
        link_id=int(row["id"]),
        inferred=True,
        source="inference",
        confidence=float(row["confidence"]),
        derivations=[
            DerivationOut.model_validate(d) for d in (row["metadata"] or {}).get("derivations", [])
        ],
    )


def _describe(db: Database, label: str, paths: Sequence[GraphPath]) -> list[GraphPathOut]:
    """Paths with node names and the authoritative edge attributes from Postgres."""
    node_ids = sorted({n for p in paths for n in p.node_ids})
    edge_ids = sorted({e.id for p in paths for e in p.edges if not e.derived})
    names: dict[int, str] = {}
    edges: dict[int, dict[str, Any]] = {}
    derived: dict[int, dict[str, Any]] = {}
    with db.connection() as conn:
        if label == "Atom":
            for r in conn.execute(Q.atom_names, (node_ids,)):
                names[int(r["id"])] = f"[{r['type']}, {r['status']}] {r['claim'][:200]}"
            for r in conn.execute(Q.link_attributes, (edge_ids,)):
                edges[int(r["id"])] = dict(r)
        else:
            for r in conn.execute(Q.symbol_names, (node_ids,)):
                names[int(r["id"])] = f"{r['qualified_name']} ({r['path']}:{r['start_line']})"
            for r in conn.execute(Q.dependency_lines, (edge_ids,)):
                edges[int(r["id"])] = dict(r)
            derived = derived_attributes(
                conn, sorted({e.id for p in paths for e in p.edges if e.derived})
            )
    return [
        GraphPathOut(
            nodes=[GraphNodeOut(id=n, name=names.get(n, "")) for n in p.node_ids],
            edges=[
                GraphEdgeOut(
                    id=e.id,
                    kind=e.kind,
                    src=e.src,
                    dst=e.dst,
                    **{
                        k: v
                        for k, v in (derived if e.derived else edges).get(e.id, {}).items()
                        if k != "id"
                    },
                )
                for e in p.edges
            ],
        )
        for p in paths
    ]
