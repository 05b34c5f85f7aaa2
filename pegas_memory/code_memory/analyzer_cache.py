"""The analyzers' last documents per repository, kept in process between indexes.

A re-index runs an analyzer only over the files a change can move (code_memory.analyzer_slice)
and takes every other file's document from here. Like the extracted files (file_cache), this
lives in the process: a new process indexes the whole project once, then re-indexes in slices.
Bounded to ``size`` (repository, analyzer) pairs, least recently used first out; the documents
of a repository the size of twisted (390k lines of Python) take about 100 MB.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from pegas_memory.code_memory.analyzer_slice import Snapshot


class SnapshotCache:
    """Snapshot by (repository root, analyzer name)."""

    def __init__(self, size: int = 4) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], Snapshot] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, root: str, analyzer: str) -> Snapshot | None:
        with self._lock:
            hit = self._items.get((root, analyzer))
            if hit is not None:
                self._items.move_to_end((root, analyzer))
            return hit

    def put(self, root: str, analyzer: str, snapshot: Snapshot) -> None:
        with self._lock:
            self._items[(root, analyzer)] = snapshot
            self._items.move_to_end((root, analyzer))
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def drop(self, root: str, analyzer: str) -> None:
        with self._lock:
            self._items.pop((root, analyzer), None)
