"""The outbox worker: turns committed changes in Postgres into the vector and graph slices.

A batch is claimed with `FOR UPDATE SKIP LOCKED` inside one transaction that stays open while the
batch is projected, so a worker that dies (even by SIGKILL) releases its events for another to
retry: delivery is at-least-once and every projection write is idempotent. A transaction-scoped
advisory lock per entity keeps two workers from syncing the same entity at once, which, with the
projector reading current rows, keeps per-entity order: an update never resurrects a delete.

Failures are per event and per slice: an event remembers which slices it already reached
(`applied`). A slice that is unreachable delays its events without using up their attempts; any
other error counts an attempt with exponential backoff, and after `outbox_max_attempts` the event
is parked (dead letter) with its error while the others keep flowing. LISTEN/NOTIFY wakes the
worker at once; polling every `outbox_poll_seconds` is the safety net.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from pegas_memory.config import Settings
from pegas_memory.db.pool import Conn, Database
from pegas_memory.errors import BackendUnavailable, PegasMemoryError
from pegas_memory.outbox.projection import ENTITY_TYPES, TARGETS_OF, Projector, Target, load_rows

log = logging.getLogger(__name__)

UNAVAILABLE_RETRY_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 300.0
_TYPE_CODE = {name: code for code, name in enumerate(ENTITY_TYPES)}


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
    sql = "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL AND parked_at IS NULL"
    params: list[Any] = []
    if entity_types:
        sql += " AND entity_type = ANY(%s)"
        params.append(list(entity_types))
    if entity_ids is not None:
        sql += " AND entity_id = ANY(%s)"
        params.append(list(entity_ids))
    row = conn.execute(sql, params).fetchone()
    return int(row["n"]) if row else 0


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
        # Test hook: called between projecting a batch and committing it.
        self.before_commit: Callable[[], None] | None = None

    # ------------------------------------------------------------------ one batch
    def run_once(self, limit: int | None = None) -> BatchReport:
        """Claim one batch, project it, record the outcome; return what happened."""
        report = BatchReport()
        targets = self.projector.targets
        with self.db.transaction() as conn:
            events = conn.execute(
                """SELECT id, entity_type, entity_id, op, attempts, applied FROM pm_outbox
                    WHERE processed_at IS NULL AND parked_at IS NULL AND next_attempt_at <= now()
                    ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED""",
                (limit or self.settings.outbox_batch_size,),
            ).fetchall()
            report.claimed = len(events)
            if not events:
                return report
            events = self._lock_entities(conn, events, report)
            outcome = self._project(conn, events, targets)
            self._record(conn, events, targets, outcome, report)
            if self.before_commit is not None:
                self.before_commit()
        return report

    def _lock_entities(self, conn: Conn, events: list[Any], report: BatchReport) -> list[Any]:
        keys = sorted({entity_lock_key(e["entity_type"], e["entity_id"]) for e in events})
        rows = conn.execute(
            "SELECT k, pg_try_advisory_xact_lock(k) AS ok FROM unnest(%s::bigint[]) AS k",
            (keys,),
        ).fetchall()
        locked = {int(r["k"]) for r in rows if r["ok"]}
        kept = [e for e in events if entity_lock_key(e["entity_type"], e["entity_id"]) in locked]
        report.skipped = len(events) - len(kept)
        return kept

    def _project(
        self, conn: Conn, events: list[Any], targets: tuple[Target, ...]
    ) -> dict[tuple[str, int], dict[Target, str | None]]:
        """Apply each slice; per (entity) and slice: None on success, else the error text.

        An error text starting with "unavailable:" means the slice was unreachable.
        """
        outcome: dict[tuple[str, int], dict[Target, str | None]] = defaultdict(dict)
        by_type: dict[str, set[int]] = defaultdict(set)
        for e in events:
            by_type[e["entity_type"]].add(int(e["entity_id"]))
        for entity_type, id_set in by_type.items():
            ids = sorted(id_set)
            rows = load_rows(conn, entity_type, ids)
            for target in targets:
                if target not in TARGETS_OF[entity_type]:
                    continue
                needing = [
                    i
                    for i in ids
                    if any(
                        target not in (e["applied"] or [])
                        for e in events
                        if e["entity_type"] == entity_type and e["entity_id"] == i
                    )
                ]
                if not needing:
                    continue
                errors = self._apply_isolated(target, entity_type, rows, needing)
                for i in needing:
                    outcome[(entity_type, i)][target] = errors.get(i)
        return outcome

    def _apply_isolated(
        self, target: Target, entity_type: str, rows: Any, ids: list[int]
    ) -> dict[int, str]:
        """Apply in bulk; if the bulk fails for a reason other than an outage, find the
        poison entities one by one so the others still pass."""
        from pegas_memory.outbox.projection import Rows

        wanted = set(ids)
        subset = Rows(
            present=[r for r in rows.present if int(r["id"]) in wanted],
            absent=[i for i in rows.absent if i in wanted],
        )
        try:
            self.projector.apply(target, entity_type, subset)
            return {}
        except BackendUnavailable as exc:
            return {i: f"unavailable: {exc}" for i in ids}
        except Exception as exc:
            if len(ids) == 1:
                log.warning("projecting %s %s into %s failed: %r", entity_type, ids, target, exc)
                return {ids[0]: f"{type(exc).__name__}: {exc}"[:2000]}
        errors: dict[int, str] = {}
        for i in ids:
            errors.update(self._apply_isolated(target, entity_type, subset, [i]))
        return errors

    def _record(
        self,
        conn: Conn,
        events: list[Any],
        targets: tuple[Target, ...],
        outcome: dict[tuple[str, int], dict[Target, str | None]],
        report: BatchReport,
    ) -> None:
        done_ids: list[int] = []
        updates: list[tuple[list[str], int, float, str, bool, int]] = []
        for e in events:
            key = (e["entity_type"], int(e["entity_id"]))
            applied = set(e["applied"] or [])
            results = outcome.get(key, {})
            failures: list[str] = []
            for target in targets:
                if target not in TARGETS_OF[e["entity_type"]]:
                    continue
                if target in applied:
                    continue
                if target in results and results[target] is None:
                    applied.add(target)
                elif results.get(target):
                    failures.append(f"{target}: {results[target]}")
            if not failures:
                done_ids.append(int(e["id"]))
                continue
            outage = all(f.split(": ", 1)[1].startswith("unavailable:") for f in failures)
            attempts = int(e["attempts"]) + (0 if outage else 1)
            park = not outage and attempts >= self.settings.outbox_max_attempts
            delay = UNAVAILABLE_RETRY_SECONDS if outage else backoff_seconds(attempts)
            error = "; ".join(failures)[:4000]
            updates.append((sorted(applied), attempts, delay, error, park, int(e["id"])))
            if park:
                report.parked += 1
            else:
                report.retried += 1
            report.errors.append(f"{e['entity_type']} {e['entity_id']}: {error[:300]}")
        if done_ids:
            conn.execute(
                "UPDATE pm_outbox SET processed_at = clock_timestamp(), last_error = NULL "
                "WHERE id = ANY(%s)",
                (done_ids,),
            )
            report.processed += len(done_ids)
        if updates:
            with conn.cursor() as cur:
                cur.executemany(
                    """UPDATE pm_outbox SET applied = %s, attempts = %s,
                              next_attempt_at = now() + make_interval(secs => %s),
                              last_error = %s,
                              parked_at = CASE WHEN %s THEN now() END
                        WHERE id = %s""",
                    updates,
                )

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
                conn.execute(
                    "UPDATE pm_outbox SET next_attempt_at = now() "
                    "WHERE processed_at IS NULL AND parked_at IS NULL AND next_attempt_at > now()"
                )
        while time.monotonic() < deadline:
            report = self.run_once()
            total.add(report)
            if report.claimed == 0 or report.processed + report.parked == 0:
                break
        return total

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
                    listener = psycopg.connect(self.db.url, autocommit=True, connect_timeout=10)
                    listener.execute("LISTEN pm_outbox")
                report = self.drain(timeout=60.0)
                failures = 0
                if report.claimed and report.processed == 0 and report.retried:
                    stop.wait(min(poll, UNAVAILABLE_RETRY_SECONDS))
                    continue
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
                stop.wait(wait)
            except Exception:
                log.exception("%s: unexpected error in the outbox loop", self.name)
                stop.wait(5.0)
        if listener is not None:
            listener.close()
