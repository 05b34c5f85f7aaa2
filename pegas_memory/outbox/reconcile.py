"""Rebuild a slice from Postgres alone, and find (and repair) drift between Postgres and slices.

`rebuild` drops what a slice holds for the current embedding space (or the whole graph) and
projects every row again, reading vectors from the embedding cache so the model is called only for
texts it never saw. `reconcile` compares ids (and, for vectors, the payload fields searches filter
on) and reports points and nodes that are missing, orphaned or stale; with `fix=True` it repairs
them through the same projector the worker uses.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, LiteralString

from psycopg.sql import Composed

from pegas_memory.db.sql import compose
from pegas_memory.errors import NotFound, SliceDamaged
from pegas_memory.outbox.projection import TABLE_OF, Rows, chunks, load_rows
from pegas_memory.outbox.queries import Q
from pegas_memory.outbox.slices import SliceOwner
from pegas_memory.outbox.sweep import compare_rows
from pegas_memory.outbox.worker import pending_events
from pegas_memory.qdrant_store.index import (
    VECTOR_ENTITIES,
    ChecksFiles,
    SetsAside,
    VectorEntity,
    VectorIndex,
)

log = logging.getLogger(__name__)

BATCH = 500


@dataclass
class SliceDrift:
    slice: str
    missing: list[int] = field(default_factory=list)
    orphaned: list[int] = field(default_factory=list)
    stale: list[int] = field(default_factory=list)
    damaged: str = ""  # the collection's files are damaged: rebuilt, not mended point by point

    @property
    def total(self) -> int:
        return len(self.missing) + len(self.orphaned) + len(self.stale)

    def summary(self) -> dict[str, Any]:
        return {
            "slice": self.slice,
            "missing": len(self.missing),
            "orphaned": len(self.orphaned),
            "stale": len(self.stale),
            **({"damaged": self.damaged} if self.damaged else {}),
            "examples": {
                "missing": self.missing[:10],
                "orphaned": self.orphaned[:10],
                "stale": self.stale[:10],
            },
        }


@dataclass
class DriftReport:
    slices: list[SliceDrift]
    outbox_pending: int
    fixed: bool = False

    @property
    def drift(self) -> int:
        return sum(s.total for s in self.slices)

    def summary(self) -> dict[str, Any]:
        return {
            "drift": self.drift,
            "outbox_pending": self.outbox_pending,
            "fixed": self.fixed,
            "slices": [s.summary() for s in self.slices],
        }


def _pg_ids(rt: SliceOwner, table: str) -> set[int]:
    """Every id of a projected table."""
    return _ids(rt, compose(Q.ids_of_table, table=table))


def _ids(rt: SliceOwner, statement: LiteralString | Composed) -> set[int]:
    with rt.db.connection() as conn:
        return {int(r["id"]) for r in conn.execute(statement)}


def _iter_rows(rt: SliceOwner, entity_type: str, ids: list[int]) -> Iterator[Rows]:
    for part in chunks(sorted(ids), BATCH):
        with rt.db.connection() as conn:
            yield load_rows(conn, entity_type, list(part))


def _vector_drift(rt: SliceOwner, entity: VectorEntity) -> SliceDrift:
    """Ids missing or orphaned, points whose payload or vector differ from their row (the
    sweep's comparison, `outbox.sweep.compare_rows`), or the whole collection damaged (its
    files vanished or do not read back: every row of it counted missing)."""
    table = TABLE_OF[entity]
    drift = SliceDrift(f"vector:{entity}")
    name = rt.projector.collection(entity)
    index = rt.vectors.get()
    in_pg = _pg_ids(rt, table)
    try:
        drift.damaged = files_problem(index, name) or ""
        in_slice = set() if drift.damaged else set(index.iter_ids(name))
        if not drift.damaged:
            for rows in _iter_rows(rt, entity, sorted(in_pg & in_slice)):
                differ = compare_rows(rt, entity, index, name, rows.present)
                drift.stale.extend(sorted(differ))
    except NotFound:
        in_slice = set()
    except SliceDamaged as exc:
        drift.damaged, in_slice, drift.stale = str(exc), set(), []
    drift.missing = sorted(in_pg - in_slice)
    drift.orphaned = sorted(in_slice - in_pg)
    return drift


def files_problem(index: VectorIndex, name: str) -> str | None:
    """Why the collection's files are damaged (`ChecksFiles`), or None."""
    return index.check_files(name) if isinstance(index, ChecksFiles) else None


def _graph_drift(rt: SliceOwner) -> list[SliceDrift]:
    graph = rt.graph.get()
    pairs: list[tuple[str, set[int], set[int]]] = [
        ("graph:atom", _pg_ids(rt, "pm_atom"), set(graph.iter_node_ids("Atom"))),
        (
            "graph:link",
            _pg_ids(rt, "pm_atom_link"),
            set(graph.iter_edge_ids("RELATES")),
        ),
        (
            "graph:code_symbol",
            _pg_ids(rt, "pm_code_symbol"),
            set(graph.iter_node_ids("CodeSymbol")),
        ),
        (
            "graph:code_dependency",
            _ids(rt, Q.resolved_dependency_ids),
            set(graph.iter_edge_ids("DEPENDS")),
        ),
        (
            "graph:code_inferred",
            _pg_ids(rt, "pm_code_inferred"),
            set(graph.iter_edge_ids("DERIVED")),
        ),
        ("graph:passage", _pg_ids(rt, "pm_passage"), set(graph.iter_node_ids("Passage"))),
    ]
    out = []
    for name, in_pg, in_slice in pairs:
        out.append(
            SliceDrift(name, missing=sorted(in_pg - in_slice), orphaned=sorted(in_slice - in_pg))
        )
    return out


_ENTITY_OF = {
    "vector:atom": ("atom", "vector"),
    "vector:trace": ("trace", "vector"),
    "vector:passage": ("passage", "vector"),
    "graph:atom": ("atom", "graph"),
    "graph:link": ("link", "graph"),
    "graph:code_symbol": ("code_symbol", "graph"),
    "graph:code_dependency": ("code_dependency", "graph"),
    "graph:code_inferred": ("code_inferred", "graph"),
    "graph:passage": ("passage", "graph"),
}


def reconcile(
    rt: SliceOwner, *, fix: bool = False, slices: tuple[str, ...] | None = None
) -> DriftReport:
    """Compare every slice (or only `slices`, e.g. ("vector:atom",)) with Postgres; with
    fix=True, repair what differs."""
    wanted = set(_ENTITY_OF) if slices is None else set(slices)
    found: list[SliceDrift] = []
    if "vector" in rt.projector.targets:
        found += [
            _vector_drift(rt, entity) for entity in VECTOR_ENTITIES if f"vector:{entity}" in wanted
        ]
    if "graph" in rt.projector.targets and any(w.startswith("graph:") for w in wanted):
        found += [d for d in _graph_drift(rt) if d.slice in wanted]
    slices_found = found
    with rt.db.connection() as conn:
        pending = pending_events(conn)
    report = DriftReport(slices=slices_found, outbox_pending=pending)
    if fix and report.drift:
        for drift in slices_found:
            entity_type, target = _ENTITY_OF[drift.slice]
            if drift.damaged:
                log.warning("rebuilding %s: %s", drift.slice, drift.damaged)
                rebuild(rt, "qdrant", entities=(entity_type,))
                continue
            # Orphans are ids Postgres no longer has: load_rows reports them absent -> deleted.
            todo = sorted(set(drift.missing) | set(drift.orphaned) | set(drift.stale))
            for rows in _iter_rows(rt, entity_type, todo):
                rt.projector.apply(target, entity_type, rows)  # type: ignore[arg-type]
        report.fixed = True
    return report


def vector_collection(rt: SliceOwner, entity: VectorEntity) -> str:
    """The collection of the current embedding space, without creating it (creating opens the
    shard, which fails when its files are damaged)."""
    embedder = rt.embedder.get()
    return rt.projector.collection_of(entity, embedder.model_id, embedder.dim)


def _clear_collection(index: VectorIndex, name: str) -> str | None:
    """Empty `name` before a rebuild: drop it, or, when its files cannot be read (or vanished
    under the engine), move them aside (for inspection) where the back end can. Returns where
    damaged files went."""
    try:
        index.count(name)
        problem = files_problem(index, name)
    except NotFound:
        return None
    except SliceDamaged as exc:
        problem = str(exc)
    if problem is not None and isinstance(index, SetsAside):
        where = index.set_aside(name)  # None: its directory is gone already
        log.warning("moved the damaged vector collection %s aside to %s: %s", name, where, problem)
        return where
    index.drop(name)
    return None


def rebuild(
    rt: SliceOwner,
    target: Literal["qdrant", "graph", "all"],
    progress: Callable[[int, int | None, str], None] | None = None,
    *,
    entities: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """Recreate a slice from Postgres alone; return counts, seconds and where damaged
    collections were moved (`set_aside`). A collection whose files the engine cannot open is
    set aside rather than opened, so rebuild is the way out of the damage it reports.
    `progress(done, total, message)` is called after every batch (a job stops there).
    `entities` limits the vector slice to some collections ("atom", "trace"): the automatic
    repair rebuilds only the damaged one (creating a collection costs seconds of fsyncs on a
    busy disk, so an intact one is left alone)."""
    report = progress or (lambda done, total, message: None)
    started = time.monotonic()
    counts: dict[str, int] = {}
    aside: list[str] = []
    if target in ("qdrant", "all"):
        index = rt.vectors.get()
        for entity in VECTOR_ENTITIES:
            if entities is not None and entity not in entities:
                continue
            name = vector_collection(rt, entity)
            where = _clear_collection(index, name)
            if where:
                aside.append(where)
            rt.projector._ensured.discard(name)
            ids = sorted(_pg_ids(rt, TABLE_OF[entity]))
            for n, rows in enumerate(_iter_rows(rt, entity, ids)):
                rt.projector.apply("vector", entity, rows)
                report(min(len(ids), (n + 1) * BATCH), len(ids), f"vector slice: {entity}s")
            counts[f"vector:{entity}"] = len(ids)
            if len(ids) > rt.settings.vector_exact_limit:
                index.optimize(rt.projector.collection(entity))
    if target in ("graph", "all"):
        graph = rt.graph.get()
        graph.clear()
        rt.projector._graph_ready = False
        for entity_type, table in (
            ("atom", "pm_atom"),
            ("link", "pm_atom_link"),
            ("code_symbol", "pm_code_symbol"),
            ("code_dependency", "pm_code_dependency"),
            ("code_inferred", "pm_code_inferred"),
            ("passage", "pm_passage"),
        ):
            ids = sorted(_pg_ids(rt, table))
            for n, rows in enumerate(_iter_rows(rt, entity_type, ids)):
                rt.projector.apply("graph", entity_type, rows)
                report(min(len(ids), (n + 1) * BATCH), len(ids), f"graph slice: {entity_type}s")
            counts[f"graph:{entity_type}"] = len(ids)
    seconds = round(time.monotonic() - started, 3)
    result: dict[str, Any] = {"target": target, "counts": counts, "seconds": seconds}
    if aside:
        result["set_aside"] = aside
    return result
