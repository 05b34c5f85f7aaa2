"""The outbox worker: turns committed changes in Postgres into the vector and graph slices.

A batch is claimed with `FOR UPDATE SKIP LOCKED` inside one transaction that stays open while the
batch is projected, so a worker that dies (even by SIGKILL) releases its events for another to
retry: delivery is at-least-once and every projection write is idempotent. A transaction-scoped
advisory lock per entity keeps two workers from syncing the same entity at once, which, with the
projector reading current rows, keeps per-entity order: an update never resurrects a delete.

Failures are per event and per slice: an event remembers which slices it already reached
(`applied`). Each projection ends in a typed `Outcome`: DONE, OUTAGE (the slice or the embedder
is unreachable: `BackendUnavailable`) or REJECTED (anything else, e.g. a point the engine
refuses). An outage delays its events without using up their attempts, however long it lasts; a
rejection counts an attempt with exponential backoff, and after `outbox_max_attempts` the event
is parked (dead letter) with its error while the others keep flowing, on every back end alike.
LISTEN/NOTIFY wakes the worker at once; polling every `outbox_poll_seconds` is the safety net.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.db.repo import TRIM_STEP, trim_withdrawals
from pegas_memory.errors import BackendUnavailable, PegasMemoryError
from pegas_memory.outbox.projection import (
    ENTITY_TYPES,
    TARGETS_OF,
    Projector,
    Rows,
    Target,
    load_rows,
)
from pegas_memory.outbox.queries import Q

log = logging.getLogger(__name__)

UNAVAILABLE_RETRY_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 300.0
TRIM_EVERY_SECONDS = 3600.0  # how often an idle worker trims the as-of audit lines
_TYPE_CODE = {name: code for code, name in enumerate(ENTITY_TYPES)}
Entity = tuple[str, int]


class OutcomeKind(enum.Enum):
    """How projecting one entity into one slice ended."""

    DONE = "done"
    OUTAGE = "outage"  # the slice (or the embedder) is unreachable: retry, attempts untouched
    REJECTED = "rejected"  # the slice refused it: count an attempt, park after the maximum


@dataclass(frozen=True)
class Outcome:
    """The typed result of one (entity, slice) projection, with the error text of a failure."""

    kind: OutcomeKind
    message: str = ""

    @classmethod
    def outage(cls, exc: BaseException) -> Outcome:
        return cls(OutcomeKind.OUTAGE, str(exc)[:2000])

    @classmethod
    def rejected(cls, exc: BaseException) -> Outcome:
        return cls(OutcomeKind.REJECTED, f"{type(exc).__name__}: {exc}"[:2000])


DONE = Outcome(OutcomeKind.DONE)


@dataclass
class BatchReport:
    claimed: int = 0
    processed: int = 0
    retried: int = 0
    parked: int = 0
    skipped: int = 0  # entity locked by another worker: left for later
    errors: list[str] = field(default_factory=list)

    def add(self, other: BatchReport) -> None:
        self.claimed += other.claimed
        self.processed += other.processed
        self.retried += other.retried
        self.parked += other.parked
        self.skipped += other.skipped
        self.errors.extend(other.errors[:20])


def pending_events(
    conn: Conn,
    entity_types: Sequence[str] = (),
    entity_ids: Sequence[int] | None = None,
) -> int:
    """Events not yet projected (parked ones excluded): all, or those of these entity types,
    or of these ids (with one entity type)."""
    if entity_ids is not None:
        types = list(entity_types or ENTITY_TYPES)
        row = conn.execute(Q.pending_of_entities, {"types": types, "ids": list(entity_ids)})
    elif entity_types:
        row = conn.execute(Q.pending_of_types, {"types": list(entity_types)})
    else:
        row = conn.execute(Q.pending_all)
    found = row.fetchone()
    return int(found["n"]) if found else 0


def backoff_seconds(attempts: int) -> float:
    """Exponential backoff after the n-th failed attempt: 2, 4, 8, ... capped at 5 minutes."""
    return float(min(MAX_BACKOFF_SECONDS, 2.0 ** max(1, attempts)))


def entity_lock_key(entity_type: str, entity_id: int) -> int:
    """One bigint advisory-lock key per entity (the type in the low bits)."""
    return int(entity_id) * 8 + _TYPE_CODE[entity_type]


class OutboxWorker:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        projector: Projector,
        *,
        name: str = "worker",
    ):
        self.settings = settings
        self.db = db
        self.projector = projector
        self.name = name
        self._next_trim = 0.0  # time.monotonic() of the next as-of audit trim (0: at once)

    # ------------------------------------------------------------------ one batch
    def run_once(self, limit: int | None = None) -> BatchReport:
        """Claim one batch, project it, record the outcome; return what happened."""
        report = BatchReport()
        targets = self.projector.targets
        with self.db.transaction() as conn:
            events = conn.execute(
                Q.claim_batch, {"limit": limit or self.settings.outbox_batch_size}
            ).fetchall()
            report.claimed = len(events)
            if not events:
                return report
            events = self._lock_entities(conn, events, report)
            outcome = self._project(conn, events, targets)
            # The batch commits when this block ends; what `_record` wrote commits with it.
            self._record(conn, events, targets, outcome, report)
        return report

    def _lock_entities(self, conn: Conn, events: list[Any], report: BatchReport) -> list[Any]:
        keys = sorted({entity_lock_key(e["entity_type"], e["entity_id"]) for e in events})
        rows = conn.execute(Q.try_entity_locks, {"keys": keys}).fetchall()
        locked = {int(r["k"]) for r in rows if r["ok"]}
        kept = [e for e in events if entity_lock_key(e["entity_type"], e["entity_id"]) in locked]
        report.skipped = len(events) - len(kept)
        return kept

    def _project(
        self, conn: Conn, events: list[Any], targets: tuple[Target, ...]
    ) -> dict[Entity, dict[Target, Outcome]]:
        """Apply each slice; the outcome per entity and slice (slices already applied by every
        event of the entity are left out)."""
        outcome: dict[Entity, dict[Target, Outcome]] = defaultdict(dict)
        # The slices every pending event of an entity has reached: one pass over the events,
        # so an entity needs a slice exactly when the slice is missing here.
        reached: dict[Entity, set[str]] = {}
        for e in events:
            key = (e["entity_type"], int(e["entity_id"]))
            applied = set(e["applied"] or [])
            reached[key] = reached[key] & applied if key in reached else applied
        by_type: dict[str, list[int]] = defaultdict(list)
        for entity_type, entity_id in sorted(reached):
            by_type[entity_type].append(entity_id)
        for entity_type, ids in by_type.items():
            rows = load_rows(conn, entity_type, ids)
            for target in targets:
                if target not in TARGETS_OF[entity_type]:
                    continue
                needing = [i for i in ids if target not in reached[(entity_type, i)]]
                if not needing:
                    continue
                failures = self._apply_isolated(target, entity_type, rows, needing)
                for i in needing:
                    outcome[(entity_type, i)][target] = failures.get(i, DONE)
        return outcome

    def _apply_isolated(
        self, target: Target, entity_type: str, rows: Rows, ids: list[int]
    ) -> dict[int, Outcome]:
        """Apply in bulk; the failed ids and how. If the bulk is rejected (not an outage), find
        the poison entities one by one so the others still pass."""
        wanted = set(ids)
        subset = Rows(
            present=[r for r in rows.present if int(r["id"]) in wanted],
            absent=[i for i in rows.absent if i in wanted],
        )
        try:
            self.projector.apply(target, entity_type, subset)
            return {}
        except BackendUnavailable as exc:
            failed = Outcome.outage(exc)
            return dict.fromkeys(ids, failed)
        except Exception as exc:
            if len(ids) == 1:
                log.warning("projecting %s %s into %s failed: %r", entity_type, ids, target, exc)
                return {ids[0]: Outcome.rejected(exc)}
        failures: dict[int, Outcome] = {}
        for i in ids:
            failures.update(self._apply_isolated(target, entity_type, subset, [i]))
        return failures

    def _record(
        self,
        conn: Conn,
        events: list[Any],
        targets: tuple[Target, ...],
        outcome: dict[Entity, dict[Target, Outcome]],
        report: BatchReport,
    ) -> None:
        done_ids: list[int] = []
        updates: list[dict[str, Any]] = []
        for e in events:
            key = (e["entity_type"], int(e["entity_id"]))
            applied = set(e["applied"] or [])
            results = outcome.get(key, {})
            failures: list[tuple[Target, Outcome]] = []
            for target in targets:
                if target not in TARGETS_OF[e["entity_type"]] or target in applied:
                    continue
                result = results.get(target)
                if result is None:
                    continue
                if result.kind is OutcomeKind.DONE:
                    applied.add(target)
                else:
                    failures.append((target, result))
            if not failures:
                done_ids.append(int(e["id"]))
                continue
            outage = all(result.kind is OutcomeKind.OUTAGE for _, result in failures)
            attempts = int(e["attempts"]) + (0 if outage else 1)
            park = not outage and attempts >= self.settings.outbox_max_attempts
            delay = UNAVAILABLE_RETRY_SECONDS if outage else backoff_seconds(attempts)
            error = "; ".join(
                f"{target}: {'unavailable: ' if r.kind is OutcomeKind.OUTAGE else ''}{r.message}"
                for target, r in failures
            )[:4000]
            updates.append(
                {
                    "applied": sorted(applied),
                    "attempts": attempts,
                    "delay": delay,
                    "error": error,
                    "park": park,
                    "id": int(e["id"]),
                }
            )
            if park:
                report.parked += 1
            else:
                report.retried += 1
            report.errors.append(f"{e['entity_type']} {e['entity_id']}: {error[:300]}")
        if done_ids:
            conn.execute(Q.mark_processed, {"ids": done_ids})
            report.processed += len(done_ids)
        if updates:
            with conn.cursor() as cur:
                cur.executemany(Q.record_failure, updates)

    # ------------------------------------------------------------------ loops
    def drain(self, *, timeout: float = 300.0, include_delayed: bool = False) -> BatchReport:
        """Process batches until nothing is due (or the timeout); return the totals.

        With include_delayed, events waiting for a retry are made due first (used by rebuild and
        by tests that must see a converged state).
        """
        total = BatchReport()
        deadline = time.monotonic() + timeout
        if include_delayed:
            with self.db.transaction() as conn:
                conn.execute(Q.make_delayed_due)
        while time.monotonic() < deadline:
            report = self.run_once()
            total.add(report)
            if report.claimed == 0 or report.processed + report.parked == 0:
                break
        return total

    def _listen(self) -> psycopg.Connection[Any]:
        """A connection of its own that LISTENs for new outbox rows (a short connect timeout
        on the embedded cluster's local socket: a failure there means it died)."""
        timeout = 2 if self.db.embedded else 10
        listener = psycopg.connect(self.db.url, autocommit=True, connect_timeout=timeout)
        listener.execute(Q.listen)
        return listener

    def _revive(self) -> bool:
        """After a loop error: start the embedded server again if it died (True if it did)."""
        try:
            return self.db.ensure_alive()
        except PegasMemoryError as exc:
            log.warning("%s: the embedded PostgreSQL did not start again: %s", self.name, exc)
            return False

    def trim_withdrawals(self) -> int:
        """When idle, at most every `TRIM_EVERY_SECONDS`: one bounded step of trimming the as-of
        audit lines older than `withdrawal_retention_days` (db.repo.trim_withdrawals; 0 keeps
        them). A full step comes back soon after, so a backlog goes in steps between drains."""
        days = self.settings.withdrawal_retention_days
        if days <= 0 or time.monotonic() < self._next_trim:
            return 0
        before = datetime.now(UTC) - timedelta(days=days)
        with self.db.transaction() as conn:
            gone = trim_withdrawals(conn, before)
        full = gone >= TRIM_STEP
        self._next_trim = time.monotonic() + (1.0 if full else TRIM_EVERY_SECONDS)
        if gone:
            log.info("%s: trimmed %d as-of audit line(s) withdrawn before %s", self.name, gone,
                     before.isoformat())  # fmt: skip
        return gone

    def run(self, stop: threading.Event, *, idle: Callable[[], object] | None = None) -> None:
        """Serve until `stop` is set: drain, then sleep until NOTIFY or the poll interval.

        `idle` runs when a drain found nothing to do (the standalone worker builds the vector
        index then; the server's embedded worker does not, since that holds the engine)."""
        poll = self.settings.outbox_poll_seconds
        listener: psycopg.Connection[Any] | None = None
        failures = 0
        while not stop.is_set():
            try:
                if listener is None or listener.closed:
                    listener = self._listen()
                report = self.drain(timeout=60.0)
                failures = 0
                if report.claimed and report.processed == 0 and report.retried:
                    stop.wait(min(poll, UNAVAILABLE_RETRY_SECONDS))
                    continue
                if report.claimed == 0:
                    self.trim_withdrawals()
                if report.claimed == 0 and idle is not None:
                    idle()
                for _ in listener.notifies(timeout=poll, stop_after=1):
                    pass
            except (psycopg.Error, PegasMemoryError) as exc:
                failures += 1
                wait = min(30.0, 0.5 * 2**failures)
                log.warning("%s: outbox loop error (%s); retrying in %.1f s", self.name, exc, wait)
                if listener is not None:
                    listener.close()
                    listener = None
                if self._revive():  # the embedded server had died: it runs again, go on now
                    failures, wait = 0, 0.0
                stop.wait(wait)
            except Exception:
                log.exception("%s: unexpected error in the outbox loop", self.name)
                stop.wait(5.0)
        if listener is not None:
            listener.close()
