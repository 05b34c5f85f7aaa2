"""Embeddings cached in PostgreSQL by (model, content hash).

The same text is never embedded twice by the same model, and a rebuild of the vector slice reads
vectors from here instead of calling the model. Vectors are float32 little-endian bytes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import LiteralString

import numpy as np

from pegas_memory.db.pool import Database
from pegas_memory.db.sql import load_queries
from pegas_memory.embedding.embedders import Embedder
from pegas_memory.text import raw_hash


@dataclass(frozen=True)
class CacheQueries:
    """The statements of `embedding/queries.sql`."""

    cached_vectors: LiteralString
    store_vector: LiteralString
    forget_vectors: LiteralString
    forget_model_vectors: LiteralString


Q = load_queries(CacheQueries, "pegas_memory.embedding", "queries.sql")


def _to_bytes(vector: Sequence[float]) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _from_bytes(data: bytes) -> list[float]:
    return np.frombuffer(data, dtype="<f4").astype(float).tolist()


class CachedEmbedder:
    """An Embedder whose document vectors go through the Postgres cache (queries: a small LRU)."""

    def __init__(self, embedder: Embedder, db: Database, *, query_cache_size: int = 512):
        self.inner = embedder
        self.db = db
        self._queries: OrderedDict[str, list[float]] = OrderedDict()
        self._query_cache_size = query_cache_size
        self._lock = threading.Lock()
        self._journals = threading.local()  # `journal` blocks open in each thread

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def cached(self, texts: Sequence[str]) -> dict[str, list[float]]:
        """Vectors already cached for these texts, keyed by content hash."""
        keys = sorted({raw_hash(t) for t in texts})
        if not keys:
            return {}
        with self.db.connection() as conn:
            rows = conn.execute(Q.cached_vectors, (self.model_id, keys)).fetchall()
        return {r["content_hash"]: _from_bytes(r["vector"]) for r in rows}

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        keys = [raw_hash(t) for t in texts]
        found = self.cached(texts)
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found:
                missing.setdefault(key, text)
        if missing:
            vectors = self.inner.embed_documents(list(missing.values()))
            fresh = dict(zip(missing.keys(), vectors, strict=True))
            with self.db.connection() as conn, conn.cursor() as cur:
                cur.executemany(
                    Q.store_vector,
                    [(self.model_id, k, len(v), _to_bytes(v)) for k, v in fresh.items()],
                )
            for journal in getattr(self._journals, "open", ()):
                journal.update(fresh)
            found.update(fresh)
        return [found[k] for k in keys]

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            if text in self._queries:
                self._queries.move_to_end(text)
                return self._queries[text]
        vector = self.inner.embed_query(text)
        with self._lock:
            self._queries[text] = vector
            while len(self._queries) > self._query_cache_size:
                self._queries.popitem(last=False)
        return vector

    @contextmanager
    def journal(self) -> Iterator[set[str]]:
        """The content hashes this thread caches anew within the block: a job that is
        cancelled erases them (`forget_keys`), so it leaves no cached vectors behind."""
        keys: set[str] = set()
        before = getattr(self._journals, "open", ())
        self._journals.open = (*before, keys)
        try:
            yield keys
        finally:
            self._journals.open = before

    def forget_keys(self, keys: Sequence[str]) -> int:
        """Erase this model's cached vectors of these content hashes."""
        if not keys:
            return 0
        with self.db.connection() as conn:
            cur = conn.execute(Q.forget_model_vectors, (self.model_id, sorted(keys)))
        return cur.rowcount

    def forget(self, texts: Sequence[str]) -> int:
        """Erase cached vectors of these texts (erasure must not leave copies behind)."""
        keys = sorted({raw_hash(t) for t in texts})
        with self.db.connection() as conn:
            cur = conn.execute(Q.forget_vectors, (keys,))
        return cur.rowcount

    def close(self) -> None:
        self.inner.close()
