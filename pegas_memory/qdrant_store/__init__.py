"""The vector slice: the `VectorIndex` Protocol and its two back ends.

`index` holds the Protocol, the value types and the pure checks; `edge` runs Qdrant's engine in
process (qdrant-edge), `client` talks to a Qdrant server (qdrant-client). The factory lives here,
above both, so no back end imports it; each driver is imported only when it is chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pegas_memory.qdrant_store.index import (
    VectorFilter,
    VectorHit,
    VectorIndex,
    VectorPoint,
    VectorRecord,
    collection_name,
)

if TYPE_CHECKING:
    from pegas_memory.config import Settings

__all__ = [
    "VectorFilter",
    "VectorHit",
    "VectorIndex",
    "VectorPoint",
    "VectorRecord",
    "build_vector_index",
    "collection_name",
]


def build_vector_index(settings: Settings) -> VectorIndex:
    """The back end the settings choose: a Qdrant server if `qdrant_url` is set, else embedded.

    Raises BackendUnavailable when the embedded directory is held by another process or cannot
    be opened; a server is not contacted until the first call. With `settings.shares_vectors`
    the embedded store is the one the data dir's engine host serves to every process (started
    here if none runs; docs/decisions/0005-shared-engines.md).
    """
    if settings.shares_vectors:
        from pegas_memory.host.remote import RemoteVectorIndex

        return RemoteVectorIndex(settings)
    if settings.qdrant_url:
        from pegas_memory.qdrant_store.client import ClientVectorIndex

        return ClientVectorIndex.connect(
            settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=settings.qdrant_timeout
        )
    from pegas_memory.qdrant_store.edge import EdgeVectorIndex

    return EdgeVectorIndex(
        settings.data_dir / "qdrant",
        exact_limit=settings.vector_exact_limit,
        hnsw_ef=settings.vector_hnsw_ef,
    )
