"""Embeddings: the `Embedder` Protocol, the Ollama client and the local models (`embedders`), and
the vector cache in PostgreSQL (`cache`). The factory is here, above the back ends, because one
of them (the model served by the data dir's engine host) lives in `pegas_memory.host`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pegas_memory.embedding import embedders
from pegas_memory.embedding.cache import CachedEmbedder
from pegas_memory.embedding.embedders import Embedder

if TYPE_CHECKING:
    from pegas_memory.config import Settings

__all__ = ["CachedEmbedder", "Embedder", "build_embedder"]


def build_embedder(settings: Settings) -> Embedder:
    """The engine host's model when `settings.shares_embedder` (one copy per data dir), else
    `embedders.build_embedder`: Ollama when `ollama_url` is set, else the local model here."""
    if settings.shares_embedder:
        from pegas_memory.host.remote import RemoteEmbedder

        return RemoteEmbedder(settings)
    return embedders.build_embedder(settings)
