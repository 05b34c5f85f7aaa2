"""What the layers below the application use of a process's engines, as Protocols.

`app.runtime.ProjectionRuntime` opens the engines; the modules below it name only the shape
they use: `VectorEngines` for search (the embedder, the vector slice, the projector), `Engines`
for the domain families (ingest, curation, reasoning, code memory: those plus the graph slice
and an outbox worker), `SliceOwner` for slice repair (`reconcile`, `selfcheck`, which the
runtime itself builds). The import graph stays layered, TYPE_CHECKING imports included.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from pegas_memory.config import Settings
from pegas_memory.db.pool import Database
from pegas_memory.embedding import CachedEmbedder
from pegas_memory.memgraph_store import GraphStore
from pegas_memory.outbox.projection import Projector
from pegas_memory.outbox.worker import OutboxWorker
from pegas_memory.qdrant_store import VectorIndex

T_co = TypeVar("T_co", covariant=True)


class Opened(Protocol[T_co]):
    """A back end opened on first use (`runtime.Lazy`)."""

    def get(self) -> T_co: ...


class VectorEngines(Protocol):
    """The embedder, the vector slice and the projector that names each entity's collection:
    what search reads (the dense arm, MMR)."""

    projector: Projector

    @property
    def vectors(self) -> Opened[VectorIndex]: ...

    @property
    def embedder(self) -> Opened[CachedEmbedder]: ...


class Engines(VectorEngines, Protocol):
    """The engines a domain module works with: opened lazily, reopened after failures."""

    @property
    def graph(self) -> Opened[GraphStore]: ...

    def worker(self, name: str = ...) -> OutboxWorker:
        """An outbox worker of this process (to drain what a step just wrote)."""
        ...


class SliceOwner(VectorEngines, Protocol):
    """The settings, database, projector and lazily opened back ends of one process."""

    settings: Settings
    db: Database

    @property
    def graph(self) -> Opened[GraphStore]: ...

    def host_starting(self) -> str | None:
        """Why the engine host is not serving yet, or None when it is (or is not used)."""
        ...
