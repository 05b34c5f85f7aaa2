"""Rules over the code graph: the logical_rule atoms applied to code dependencies too.

The same rules memory_infer applies to atom links (`{"if": "imports", "then": "depends_on"}`,
`{"if": ["depends_on", "depends_on"], "then": "depends_on"}`) read, per repository, the resolved
`pm_code_dependency` edges between symbols (calls, imports, inherits) and module-level import
edges lifted from them (an import written anywhere in file a, of anything defined in file b,
gives module(a) -imports-> module(b)), so the seed's two rules derive transitive module
dependencies. Symbol ids are the nodes; rules with atom-type conditions match no code node.

Conclusions go to `pm_code_inferred` (migrations/0005), never to `pm_code_dependency`: that
table is what the indexer extracted and a re-index rewrites it, while these rows are
conclusions that truth maintenance adds and withdraws. Each evaluation is the pure
`reasoning.inference.reconcile` over the repository's current edges, so after a re-index a
conclusion whose supporting import went away is withdrawn, and one resting on a removed symbol
is gone already (ON DELETE CASCADE). A repository is evaluated under the store_code lock of
that repository, so no re-index commits halfway through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import LiteralString

from psycopg.types.json import Jsonb

from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import storable_confidence, withdraw_reason
from pegas_memory.db.sql import load_queries
from pegas_memory.reasoning.inference import (
    WITHDRAWN,
    Derivation,
    Edge,
    EdgeKey,
    Limits,
    Rule,
    reconcile,
)
from pegas_memory.reasoning.inference import load_rules as parse_rules

INFER_LOCK = 7_355_608_002  # memory_infer's lock (reasoning.rules): one evaluation at a time
MODULE_KIND = "imports"  # the only kind lifted to module level


@dataclass(frozen=True)
class CodeReasoningQueries:
    """The named blocks of reasoning/code_queries.sql."""

    lock_repo: LiteralString
    code_repos: LiteralString
    symbol_edges: LiteralString
    module_imports: LiteralString
    stored_conclusions: LiteralString
    withdraw_conclusion: LiteralString
    insert_conclusion: LiteralString
    update_conclusion: LiteralString
    present_kinds: LiteralString
    conclusion_counts: LiteralString
    conclusion_by_key: LiteralString
    has_conclusions: LiteralString
    active_rules: LiteralString
    lock_inference: LiteralString
    derived_attributes: LiteralString
    derived_hop: LiteralString


Q = load_queries(CodeReasoningQueries, "pegas_memory.reasoning", "code_queries.sql")


@dataclass
class CodeInferReport:
    """What the rules did to the code graph, summed over repositories."""

    repos: int = 0
    rounds: int = 0
    complete: bool = True
    derived: int = 0
    updated: int = 0
    withdrawn: int = 0
    kept: int = 0
    per_rule: dict[int, int] = field(default_factory=dict)
    edges_read: int = 0


def code_edges(conn: Conn, repo: str, kinds: Sequence[str]) -> list[Edge]:
    """The support of one repository: symbol edges of the kinds rules read, plus module-level
    imports when a rule reads `imports`."""
    edges = {
        (int(r["src"]), int(r["dst"]), r["kind"])
        for r in conn.execute(Q.symbol_edges, (repo, list(kinds))).fetchall()
    }
    if MODULE_KIND in kinds:
        edges |= {
            (int(r["src"]), int(r["dst"]), MODULE_KIND)
            for r in conn.execute(Q.module_imports, (repo,)).fetchall()
        }
    return [Edge(src, dst, kind) for src, dst, kind in sorted(edges)]


def reconcile_repo(
    conn: Conn, repo: str, rules: Sequence[Rule], limits: Limits, report: CodeInferReport
) -> None:
    """Bring one repository's stored conclusions to the fixpoint of the rules over its edges
    (on a connection inside a transaction that holds the inference lock)."""
    conn.execute(Q.lock_repo, (f"pm_code_repo:{repo}",))
    kinds = sorted({kind for rule in rules for kind in rule.chain})
    support = code_edges(conn, repo, kinds) if rules else []
    stored = [
        Edge(int(r["src"]), int(r["dst"]), r["kind"], float(r["confidence"]))
        for r in conn.execute(Q.stored_conclusions, (repo,)).fetchall()
    ]
    if not support and not stored:
        return
    rec = reconcile(support, stored, rules, {}, limits=limits)
    derivations = rec.result.derivations

    def meta(key: EdgeKey) -> Jsonb:
        return Jsonb({"derivations": _derivations(derivations.get(key, ()))})

    with conn.cursor() as cur:
        if rec.withdraw:
            withdraw_reason(conn, WITHDRAWN)
            cur.executemany(Q.withdraw_conclusion, list(rec.withdraw))
        cur.executemany(
            Q.insert_conclusion,
            [
                (repo, e.src, e.dst, e.kind, storable_confidence(e.confidence), meta(e.key))
                for e in rec.add
            ],
        )
        confidences = {e.key: e.confidence for e in rec.result.derived}
        rows = []
        for key in (*(e.key for e in rec.update), *rec.keep):
            confidence, metadata = storable_confidence(confidences.get(key, 1.0)), meta(key)
            rows.append((confidence, metadata, *key, confidence, metadata))
        cur.executemany(Q.update_conclusion, rows)
    report.repos += 1
    report.edges_read += len(support)
    report.rounds = max(report.rounds, rec.result.rounds)
    report.complete = report.complete and rec.result.complete
    report.derived += len(rec.add)
    report.updated += len(rec.update)
    report.withdrawn += len(rec.withdraw)
    report.kept += len(rec.keep)
    for rule_id, n in rec.result.per_rule.items():
        report.per_rule[rule_id] = report.per_rule.get(rule_id, 0) + n


def reconcile_code(
    conn: Conn, rules: Sequence[Rule], limits: Limits, repos: Sequence[str] | None = None
) -> CodeInferReport:
    """Every repository (or those named), one after another, in the caller's transaction."""
    report = CodeInferReport()
    names = repos if repos is not None else [r["name"] for r in conn.execute(Q.code_repos)]
    for repo in names:
        reconcile_repo(conn, repo, rules, limits, report)
    return report


def maintain_repo(db: Database, repo: str, limits: Limits = Limits()) -> CodeInferReport | None:
    """Truth maintenance after a re-index of `repo`: withdraw conclusions whose support changed
    and derive what the new code supports. None when there is nothing to do (no rule and no
    stored conclusion)."""
    with db.transaction() as conn:
        rows = conn.execute(Q.active_rules).fetchall()
        has = conn.execute(Q.has_conclusions, (repo,)).fetchone()
        if not rows and not (has and has["any"]):
            return None
        conn.execute(Q.lock_inference, (INFER_LOCK,))
        rules = parse_rules((int(r["id"]), r["content"]) for r in rows).rules
        return reconcile_code(conn, rules, limits, [repo])


def idle_rule_warnings(conn: Conn, rules: Sequence[Rule]) -> list[str]:
    """Rules that can derive nothing: a kind they read exists neither among the links and code
    dependencies nor among the conclusions of any rule."""
    present = {r["kind"] for r in conn.execute(Q.present_kinds).fetchall()}
    derivable = present | {rule.then for rule in rules}
    warnings = []
    for rule in rules:
        missing = sorted(set(rule.chain) - derivable)
        if missing:
            warnings.append(
                f"rule {rule.rule_id} reads {missing}, which no atom link, code dependency or "
                f"other rule provides, so it derives nothing; links and dependencies have kinds "
                f"{sorted(present)[:20]}"
            )
    return warnings


def conclusion_counts(conn: Conn) -> Mapping[str, int]:
    return {r["kind"]: int(r["n"]) for r in conn.execute(Q.conclusion_counts).fetchall()}


def derived_attributes(conn: Conn, ids: Sequence[int]) -> dict[int, dict[str, object]]:
    """What a graph path shows of each derived code edge (DERIVED in the graph slice): its
    confidence and derivations from Postgres; an id Postgres no longer holds is left out."""
    out: dict[int, dict[str, object]] = {}
    for r in conn.execute(Q.derived_attributes, (list(ids),)).fetchall():
        out[int(r["id"])] = {
            "confidence": float(r["confidence"]),
            "inferred": True,
            "source": "inference",
            "derivations": list((r["metadata"] or {}).get("derivations", [])),
        }
    return out


def _derivations(records: Sequence[Derivation]) -> list[dict[str, object]]:
    return [{"rule": d.rule_id, "premises": [list(p) for p in d.premises]} for d in records]
