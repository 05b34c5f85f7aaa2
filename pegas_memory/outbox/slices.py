"""What slice repair needs from the process that owns the slices, as a Protocol.

`reconcile` and `selfcheck` sit below `runtime.ProjectionRuntime` (the runtime builds the
monitor), so they name the runtime's shape here instead of importing it: the import graph
stays a tree, TYPE_CHECKING imports included.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.embedding import CachedEmbedder
from pegas_memory.memgraph_store import GraphStore
from pegas_memory.outbox.projection import Projector
from pegas_memory.qdrant_store import VectorIndex

T_co = TypeVar("T_co", covariant=True)


class Opened(Protocol[T_co]):
    """A back end opened on first use (`runtime.Lazy`)."""

    def get(self) -> T_co: ...


class SliceOwner(Protocol):
    """The settings, database, projector and lazily opened back ends of one process."""

    settings: Settings
    db: Database
    projector: Projector

    @property
    def vectors(self) -> Opened[VectorIndex]: ...

    @property
    def graph(self) -> Opened[GraphStore]: ...

    @property
    def embedder(self) -> Opened[CachedEmbedder]: ...

    def host_starting(self) -> str | None:
        """Why the engine host is not serving yet, or None when it is (or is not used)."""
        ...
