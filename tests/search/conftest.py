"""What the search tests share: `memory`, a service whose ingest root is `tmp_path/files`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from tests.conftest import files_memory


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path) as svc:
        yield svc
