"""The extracted index of unchanged files, kept in process by (path, content hash).

A re-index needs every file's `FileIndex` for resolution; an unchanged file's comes from here
instead of being parsed again (about 15 ms a file), bounded to `size` files (least recently used
first out)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from pegas_memory.code_memory.model import FileIndex
from pegas_memory.code_memory.symbols import extract_file


class IndexCache:
    """FileIndex by (path, content hash): unchanged files are not re-parsed within a process."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], FileIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: str, digest: str, load: Callable[[], bytes]) -> tuple[FileIndex, bool]:
        """The index of ``path`` at ``digest``; on a miss ``load`` reads the bytes, which are
        parsed and dropped (only the FileIndex is kept)."""
        key = (path, digest)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit, True
        index = extract_file(path, load())
        with self._lock:
            self._items[key] = index
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return index, False
