"""A writer projects its own events at once, instead of queueing behind the outbox.

`memory_store` returns once its atom is in the vector slice (read your writes). Waiting for the
worker made one store as slow as the whole backlog ahead of it: with thousands of events
pending (an ingest, a rebuild, a process that was down), a store waited its full 3 s and still
returned before its atom was searchable. So the store's caller claims *its own* events right
after its commit and projects them itself, through the worker's own steps (per-entity advisory
locks, the projector, typed outcomes recorded on the events): the same at-least-once,
idempotent path, only with a claim by entity instead of by age. An event a worker has already
claimed (or an entity it holds) is skipped, and the caller then waits for that worker as
before; a failed projection is recorded like the worker's and retried by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries
from pegas_memory.outbox.worker import BatchReport, OutboxWorker


@dataclass(frozen=True)
class DirectQueries:
    claim_entities: LiteralString


Q = load_queries(DirectQueries, "pegas_memory.outbox", "direct.sql")


class DirectProjector(OutboxWorker):
    """The outbox worker's steps applied to named entities, for the process that wrote them."""

    def project_entities(self, entity_type: str, ids: Sequence[int]) -> BatchReport:
        """Claim and project the pending events of these entities now; what happened."""
        report = BatchReport()
        if not ids:
            return report
        targets = self.projector.targets
        with self.db.transaction() as conn:
            events = conn.execute(
                Q.claim_entities, {"type": entity_type, "ids": [int(i) for i in ids]}
            ).fetchall()
            report.claimed = len(events)
            if not events:
                return report
            events = self._lock_entities(conn, events, report)
            if not events:
                return report
            outcome = self._project(conn, events, targets)
            self._record(conn, events, targets, outcome, report)
        return report
