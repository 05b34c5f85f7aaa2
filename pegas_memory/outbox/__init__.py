"""The transactional outbox: the worker that claims events (`worker`), the projection of rows
into the slices (`projection`), and rebuild and drift repair of the slices (`reconcile`)."""

from pegas_memory.outbox.projection import Projector
from pegas_memory.outbox.worker import OutboxWorker, pending_events

__all__ = ["OutboxWorker", "Projector", "pending_events"]
