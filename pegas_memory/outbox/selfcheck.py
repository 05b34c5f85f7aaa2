"""The slices' self-check: does each slice hold the points PostgreSQL says it should?

A slice can lose points behind the server's back (`rm -rf data/qdrant` while it was stopped, a
restored backup, a FalkorDB started on an empty dir) or hold files the engine cannot read any
more. Either way searches quietly miss things, so each slice's count is compared with its table
in PostgreSQL at start, in `memory_stats`, in `doctor` and periodically by the embedded worker.

The comparison is a count with a tolerance: every event of the outbox not yet projected (parked
ones too) can explain one point of difference, so a busy outbox is never taken for damage, and
more difference than that can only be a slice that lost or gained points. It costs one
`count(*)` per table and one count per slice, so it can run often. A count that fits can still
hide wrong points (a slice restored from an old backup, a point overwritten with another's
vector, a node whose status was changed), so each check also compares the next window of rows
point by point (`outbox.sweep` for vectors, `outbox.graph_sweep` for atoms and links in the
graph): differences there make the slice `stale`. A slice that lost or gained points
is rebuilt from PostgreSQL by `repair` (vectors from the embedding cache, so no model call for
texts it has seen; only the damaged collections); a collection whose files cannot be read is
first moved aside (`SetsAside`); a stale one has its differing points projected again and the
rest of it reconciled, which costs far less than a rebuild.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, LiteralString

from pegas_memory.db.sql import compose, load_queries
from pegas_memory.errors import BackendUnavailable, NotFound, PegasMemoryError, SliceDamaged
from pegas_memory.memgraph_store.model import KeepsFiles
from pegas_memory.outbox.graph_sweep import sweep_graph
from pegas_memory.outbox.projection import TABLE_OF, load_rows
from pegas_memory.outbox.reconcile import rebuild, reconcile, vector_collection
from pegas_memory.outbox.slices import SliceOwner
from pegas_memory.outbox.sweep import SweepResult, sweep_vectors
from pegas_memory.qdrant_store.index import VECTOR_ENTITIES, ChecksFiles

if TYPE_CHECKING:
    from pegas_memory.memgraph_store.model import GraphStore

log = logging.getLogger(__name__)

State = Literal["ok", "lost", "gained", "stale", "corrupted", "unavailable"]
DAMAGED: frozenset[str] = frozenset({"lost", "gained", "stale", "corrupted"})
RepairTarget = Literal["qdrant", "graph"]
_PREFIX: dict[str, str] = {"qdrant": "vector:", "graph": "graph:"}
# One advisory-lock key for "repairing the slices" (a constant, not an entity key).
REPAIR_LOCK_KEY = zlib.crc32(b"pegas-memory slice repair")


@dataclass(frozen=True)
class SelfCheckQueries:
    count_of_table: LiteralString
    count_resolved_dependencies: LiteralString
    unprojected_by_type: LiteralString
    try_repair_lock: LiteralString
    repair_unlock: LiteralString


Q = load_queries(SelfCheckQueries, "pegas_memory.outbox", "selfcheck.sql")


@dataclass(frozen=True)
class SliceCheck:
    """One part of a slice compared with its table in PostgreSQL."""

    slice: str  # "vector:atom", "vector:trace", "graph:atom", "graph:link", ...
    expected: int  # rows in PostgreSQL
    found: int | None  # points, nodes or edges in the slice; None when it could not be read
    unprojected: int  # events of this entity type not projected yet (the tolerance)
    state: State
    detail: str = ""
    ids: tuple[int, ...] = ()  # a stale slice: the ids whose points differ from their rows

    @property
    def damaged(self) -> bool:
        return self.state in DAMAGED

    @property
    def target(self) -> RepairTarget:
        return "qdrant" if self.slice.startswith("vector:") else "graph"

    def describe(self) -> str:
        if self.state == "corrupted":
            return f"{self.slice} is damaged: {self.detail}"
        if self.state == "stale":
            return self.detail
        if self.state == "unavailable":
            return f"{self.slice} could not be checked: {self.detail}"
        return (
            f"{self.slice} holds {self.found} but PostgreSQL has {self.expected} "
            f"({self.unprojected} change(s) not projected yet): {self.state} points"
        )


@dataclass(frozen=True)
class SelfCheck:
    """The result of checking every slice once."""

    checks: tuple[SliceCheck, ...]
    checked_at: float = field(default_factory=time.time)

    @property
    def damaged(self) -> tuple[SliceCheck, ...]:
        return tuple(c for c in self.checks if c.damaged)

    def targets(self) -> list[RepairTarget]:
        """The damaged slices, in a fixed order."""
        wanted = {c.target for c in self.damaged}
        return [t for t in ("qdrant", "graph") if t in wanted]

    def rebuilds(self) -> list[tuple[RepairTarget, tuple[str, ...]]]:
        """The slices to rebuild and, for the vector slice, which of its entities (a stale
        part is mended point by point instead, see `repair`)."""
        out: list[tuple[RepairTarget, tuple[str, ...]]] = []
        vector = tuple(
            c.slice.split(":", 1)[1]
            for c in self.damaged
            if c.target == "qdrant" and c.state != "stale"
        )
        if vector:
            out.append(("qdrant", vector))
        if any(
            c.target == "graph" and c.state != "stale" and c.slice != "graph:files"
            for c in self.damaged
        ):
            out.append(("graph", ()))
        return out

    def of(self, prefix: str) -> tuple[SliceCheck, ...]:
        return tuple(c for c in self.checks if c.slice.startswith(prefix))


def classify(expected: int, found: int, unprojected: int) -> State:
    """Pure: whether a slice's count fits PostgreSQL's, given the events still in flight."""
    if found < expected - unprojected:
        return "lost"
    if found > expected + unprojected:
        return "gained"
    return "ok"


def _pg_counts(rt: SliceOwner) -> tuple[dict[str, int], dict[str, int]]:
    """Rows per projected entity type, and unprojected events per entity type."""
    rows: dict[str, int] = {}
    with rt.db.connection() as conn:
        for entity, table in TABLE_OF.items():
            found = conn.execute(compose(Q.count_of_table, table=table)).fetchone()
            rows[entity] = int(found["n"]) if found else 0
        found = conn.execute(Q.count_resolved_dependencies).fetchone()
        rows["code_dependency"] = int(found["n"]) if found else 0
        pending = {str(r["entity_type"]): int(r["n"]) for r in conn.execute(Q.unprojected_by_type)}
    return rows, pending


def _check_one(name: str, expected: int, unprojected: int, count: Callable[[], int]) -> SliceCheck:
    try:
        found = count()
    except NotFound:
        found = 0  # the collection is gone: every point of it is lost
    except SliceDamaged as exc:
        return SliceCheck(name, expected, None, unprojected, "corrupted", str(exc))
    except PegasMemoryError as exc:
        return SliceCheck(name, expected, None, unprojected, "unavailable", str(exc))
    state = classify(expected, found, unprojected)
    return SliceCheck(name, expected, found, unprojected, state)


def check_slices(rt: SliceOwner, cursors: dict[str, int] | None = None) -> SelfCheck:
    """Compare every slice the projector feeds with PostgreSQL (see the module docstring).

    `cursors` keeps, per swept slice, where the content sweep goes on at the next check
    (updated here); without it the sweep compares the first window.
    Raises BackendUnavailable only when PostgreSQL itself cannot be read; a slice that cannot
    be reached is reported as `unavailable`, not raised."""
    rows, pending = _pg_counts(rt)
    checks: list[SliceCheck] = []
    if "vector" in rt.projector.targets:
        checks += _vector_checks(rt, rows, pending, {} if cursors is None else cursors)
    if "graph" in rt.projector.targets:
        checks += _graph_checks(rt, rows, pending, {} if cursors is None else cursors)
    if any(c.state in ("lost", "gained") for c in checks):
        checks = _recounted(rt, checks)
    return SelfCheck(tuple(checks))


def _recounted(rt: SliceOwner, checks: list[SliceCheck]) -> list[SliceCheck]:
    """A count that did not fit, compared again with PostgreSQL counted after the slice: a
    write committed and projected between the two counts (a store projects its own events at
    once) made the slice look gained or lost. Damage only if it does not fit either count."""
    rows, pending = _pg_counts(rt)
    out = []
    for check in checks:
        entity = check.slice.split(":", 1)[1]
        if check.state in ("lost", "gained") and check.found is not None and entity in rows:
            unprojected = pending.get(entity, 0)
            if classify(rows[entity], check.found, unprojected) == "ok":
                check = SliceCheck(check.slice, rows[entity], check.found, unprojected, "ok")
        out.append(check)
    return out


def _vector_checks(
    rt: SliceOwner,
    rows: Mapping[str, int],
    pending: Mapping[str, int],
    cursors: dict[str, int],
) -> list[SliceCheck]:
    out: list[SliceCheck] = []
    starting = rt.host_starting()  # the engine host not serving yet: report it, never wait
    for entity in VECTOR_ENTITIES:
        slice_name = f"vector:{entity}"
        try:
            if starting:
                raise BackendUnavailable(starting)
            index = rt.vectors.get()
            name = vector_collection(rt, entity)
        except PegasMemoryError as exc:
            out.append(
                SliceCheck(
                    slice_name, rows[entity], None, pending.get(entity, 0), "unavailable", str(exc)
                )
            )
            continue
        count = functools.partial(index.count, name)
        found = _check_one(slice_name, rows[entity], pending.get(entity, 0), count)
        if found.state in ("ok", "lost", "gained"):
            found = _files_checked(found, index, name)
        if found.state == "ok" and found.expected:
            run = functools.partial(sweep_vectors, rt, entity, index, name)
            found = _swept(found, run, cursors)
        out.append(found)
    return out


def _files_checked(counted: SliceCheck, index: object, name: str) -> SliceCheck:
    """The collection's files checked behind the engine's back (`ChecksFiles`: vanished,
    replaced, no longer loading): corrupted if they fail, whatever the count said."""
    if not isinstance(index, ChecksFiles):
        return counted
    try:
        problem = index.check_files(name)
    except SliceDamaged as exc:
        problem = str(exc)
    except PegasMemoryError as exc:  # an older engine host, or one restarting: count only
        log.info("the files of %s could not be checked: %s", counted.slice, exc)
        return counted
    if problem is None:
        return counted
    return dataclasses.replace(counted, found=None, state="corrupted", detail=problem)


def _swept(
    counted: SliceCheck,
    run: Callable[[int], SweepResult],
    cursors: dict[str, int],
    what: str = "points",
) -> SliceCheck:
    """The count fitted: compare the next window too (`run` from the slice's cursor; stale if
    any differs)."""
    try:
        result = run(cursors.get(counted.slice, 0))
    except NotFound:
        return counted  # dropped meanwhile: the next count says lost
    except SliceDamaged as exc:
        return dataclasses.replace(counted, found=None, state="corrupted", detail=str(exc))
    except PegasMemoryError as exc:
        log.warning("the content sweep of %s could not run: %s", counted.slice, exc)
        return dataclasses.replace(
            counted, state="unavailable", detail=f"its content could not be compared: {exc}"
        )
    cursors[counted.slice] = result.next_after
    if not result.differing:
        return counted
    return dataclasses.replace(
        counted, state="stale", detail=result.describe(counted.slice, what), ids=result.differing
    )


def _graph_checks(
    rt: SliceOwner, rows: Mapping[str, int], pending: Mapping[str, int], cursors: dict[str, int]
) -> list[SliceCheck]:
    parts = (
        ("graph:atom", "atom"),
        ("graph:link", "link"),
        ("graph:code_symbol", "code_symbol"),
        ("graph:code_dependency", "code_dependency"),
        ("graph:code_inferred", "code_inferred"),
        ("graph:passage", "passage"),
    )
    try:
        graph = rt.graph.get()
        nodes = graph.node_counts()
        edges = graph.edge_counts()
    except PegasMemoryError as exc:
        return [
            SliceCheck(name, rows[e], None, pending.get(e, 0), "unavailable", str(exc))
            for name, e in parts
        ]
    # Stub nodes are made by an edge whose end is not projected yet: not counted as present.
    found = {
        "atom": nodes.get("Atom", 0) - nodes.get("Atom:stub", 0),
        "code_symbol": nodes.get("CodeSymbol", 0) - nodes.get("CodeSymbol:stub", 0),
        "link": edges.get("RELATES", 0),
        "code_dependency": edges.get("DEPENDS", 0),
        "code_inferred": edges.get("DERIVED", 0),
        "passage": nodes.get("Passage", 0),
    }
    counted = [
        SliceCheck(
            name,
            rows[e],
            found[e],
            pending.get(e, 0),
            classify(rows[e], found[e], pending.get(e, 0)),
        )
        for name, e in parts
    ]
    out = [_graph_swept(rt, graph, c, cursors) for c in counted]
    return out + _graph_files(graph)


def _graph_files(graph: GraphStore) -> list[SliceCheck]:
    """The engine's files checked behind its back (`KeepsFiles`: would they give the graph
    back at the next start?): one corrupted `graph:files` part if not."""
    if not isinstance(graph, KeepsFiles):
        return []
    try:
        problem = graph.check_files()
    except PegasMemoryError as exc:
        log.info("the graph slice's files could not be checked: %s", exc)
        return []
    if problem is None:
        return []
    return [SliceCheck("graph:files", 0, None, 0, "corrupted", problem)]


def _graph_swept(
    rt: SliceOwner, graph: GraphStore, counted: SliceCheck, cursors: dict[str, int]
) -> SliceCheck:
    """Atoms and links whose count fitted: compare the next window of them with the graph."""
    entity = {"graph:atom": "atom", "graph:link": "link"}.get(counted.slice)
    if entity is None or counted.state != "ok" or not counted.expected:
        return counted
    what = "nodes" if entity == "atom" else "relationships"
    run = functools.partial(sweep_graph, rt, entity, graph)  # type: ignore[arg-type]
    return _swept(counted, run, cursors, what)


@dataclass(frozen=True)
class RepairReport:
    """What one repair did: the slices rebuilt (with rebuild's counts), or why it did not."""

    rebuilt: tuple[str, ...] = ()
    skipped: str = ""
    results: tuple[Mapping[str, object], ...] = ()
    at: float = field(default_factory=time.time)
    found: tuple[str, ...] = ()  # what the check found damaged (`SliceCheck.describe`)
    noticed_at: float | None = None  # when that check ended


def repair(rt: SliceOwner, check: SelfCheck) -> RepairReport:
    """Mend each damaged slice of `check` from PostgreSQL, one process at a time: a lost,
    gained or unreadable part is rebuilt (only the damaged vector collections), a stale one
    has its differing points projected again and the rest of it reconciled.

    Another process already repairing (it holds the advisory lock) means this one skips: its
    next check sees the result."""
    targets = check.targets()
    if not targets:
        return RepairReport()
    with rt.db.connection() as conn:
        got = conn.execute(Q.try_repair_lock, {"key": REPAIR_LOCK_KEY}).fetchone()
        if not (got and got["ok"]):
            return RepairReport(skipped="another pegas-memory process is repairing the slices")
        try:
            results: list[Mapping[str, object]] = []
            rebuilt = check.rebuilds()
            for target, entities in rebuilt:
                log.warning(
                    "rebuilding the %s slice from PostgreSQL: %s",
                    target,
                    "; ".join(c.describe() for c in check.damaged if c.target == target),
                )
                results.append(rebuild(rt, target, entities=entities or None))
            done = {t for t, _ in rebuilt}
            for stale in check.damaged:
                if stale.state == "stale" and stale.target not in done:
                    results.append(_mend_stale(rt, stale))
            if any(c.slice == "graph:files" for c in check.damaged):
                results.extend(_rewrite_graph_files(rt))
            return RepairReport(
                rebuilt=tuple(targets),
                results=tuple(results),
                found=tuple(c.describe() for c in check.damaged),
                noticed_at=check.checked_at,
            )
        finally:
            conn.execute(Q.repair_unlock, {"key": REPAIR_LOCK_KEY})


def _rewrite_graph_files(rt: SliceOwner) -> list[Mapping[str, object]]:
    """The graph slice's files written anew from the running engine (its memory is what
    PostgreSQL says: the counts and the sweep compared it, and any rebuild ran first), so the
    next start loads it (damaged files would not load, or load less)."""
    graph = rt.graph.get()
    if not isinstance(graph, KeepsFiles):
        return []
    log.warning("writing the graph slice's files anew from the running engine")
    graph.rewrite_files()
    return [{"target": "graph:files", "rewritten": True}]


def _mend_stale(rt: SliceOwner, stale: SliceCheck) -> Mapping[str, object]:
    """Project the differing points (or nodes, edges) again (vectors from the cache), then
    reconcile the slice: points the sweep has not reached yet may differ too (ids, filter
    fields)."""
    entity = stale.slice.split(":", 1)[1]
    log.warning("mending the %s slice from PostgreSQL: %s", stale.slice, stale.describe())
    with rt.db.connection() as conn:
        rows = load_rows(conn, entity, list(stale.ids))
    rt.projector.apply("vector" if stale.target == "qdrant" else "graph", entity, rows)
    drift = reconcile(rt, fix=True, slices=(stale.slice,))
    return {"target": stale.slice, "reprojected": len(stale.ids), "reconciled": drift.summary()}


class SliceMonitor:
    """The self-check of one process: the latest result, the latest repair, and when the next
    check is due. The embedded worker calls `tick` between drains (at start, then every
    `slice_check_seconds`, or at once after `request`); stats and doctor call `check`; a search
    reads `warnings` from the latest result without checking again."""

    def __init__(self, rt: SliceOwner) -> None:
        self._rt = rt
        self._lock = threading.Lock()
        self._latest: SelfCheck | None = None
        self._repair: RepairReport | None = None
        self._repair_error: str | None = None
        self._repairing = False
        self._wake = threading.Event()
        self._cursors: dict[str, int] = {}  # where each vector slice's content sweep goes on

    @property
    def latest(self) -> SelfCheck | None:
        return self._latest

    @property
    def last_repair(self) -> RepairReport | None:
        return self._repair

    @property
    def repairing(self) -> bool:
        return self._repairing

    def check(self) -> SelfCheck:
        """Check now (no repair); remember the result. A damage found wakes the worker's
        repair (`tick`) if the settings allow it."""
        result = check_slices(self._rt, self._cursors)
        self._latest = result
        if result.damaged and self._rt.settings.auto_repair_slices:
            self._wake.set()
        return result

    def request(self) -> None:
        """Make the next `tick` check (and repair) at once."""
        self._wake.set()

    def due(self) -> bool:
        latest = self._latest
        if latest is None or self._wake.is_set():
            return True
        return time.time() - latest.checked_at >= self._rt.settings.slice_check_seconds

    def run(self, stop: threading.Event, *, active: Callable[[], bool]) -> None:
        """Check (and repair) whenever a check is due or asked for, until `stop`: its own
        thread, so a check never waits for the worker's drain or its LISTEN timeout. Checks
        only while `active()` says this process projects the slices."""
        while not stop.is_set():
            if active():
                self.tick()
            wait = self._until_due() if active() else 1.0
            if self._wake.wait(timeout=wait):
                stop.wait(0.05)  # asked for (or a tick is running elsewhere): not a busy loop

    def _until_due(self) -> float:
        latest = self._latest
        if latest is None:
            return 0.05
        left = self._rt.settings.slice_check_seconds - (time.time() - latest.checked_at)
        return min(max(0.05, left), 60.0)

    def tick(self) -> None:
        """Check if due; rebuild what is damaged when `auto_repair_slices` is on. Never raises
        (the worker must keep draining): failures are logged and kept for `warnings`."""
        if not self.due() or not self._lock.acquire(blocking=False):
            return
        try:
            self._wake.clear()
            found = self.check()
            if not found.damaged or not self._rt.settings.auto_repair_slices:
                return
            self._repairing = True
            try:
                report = repair(self._rt, found)
            finally:
                self._repairing = False
            if report.rebuilt:
                self._repair, self._repair_error = report, None
                self.check()
        except Exception as exc:  # the worker thread must survive a failed check or repair
            log.exception("the slice self-check or repair failed")
            self._repair_error = f"{type(exc).__name__}: {exc}"
        finally:
            self._lock.release()

    def repair_note(self, target: RepairTarget) -> str | None:
        """When this process last repaired `target`, and why; None if it did not."""
        report = self._repair
        if report is None or target not in report.rebuilt:
            return None
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report.at))
        found = "; ".join(f for f in report.found if f.startswith(_PREFIX[target]))
        return f"rebuilt from PostgreSQL at {when} after the self-check found it damaged" + (
            f" ({found})" if found else ""
        )

    def warnings(self) -> list[str]:
        """What a search should say about damaged slices, from the latest check."""
        latest = self._latest
        if latest is None:
            return []
        out: list[str] = []
        for target in latest.targets():
            what = "vector slice" if target == "qdrant" else "graph slice"
            problems = "; ".join(c.describe() for c in latest.damaged if c.target == target)
            out.append(f"the {what} is damaged ({problems}): {self.todo(target)}")
        return out

    def todo(self, target: RepairTarget) -> str:
        """What is being done about a damaged `target`, or what a person should do."""
        if self._repairing or (self._rt.settings.auto_repair_slices and not self._repair_error):
            return "it is being rebuilt from PostgreSQL; results will be complete shortly"
        todo = f"run `pegas-memory rebuild --target {target}`"
        if self._repair_error:
            todo += f" (the automatic repair failed: {self._repair_error})"
        return todo
