"""Embeddings: the `Embedder` Protocol, the Ollama client and the local models (`embedders`), and
the vector cache in PostgreSQL (`cache`)."""

from pegas_memory.embedding.cache import CachedEmbedder
from pegas_memory.embedding.embedders import Embedder, build_embedder

__all__ = ["CachedEmbedder", "Embedder", "build_embedder"]
