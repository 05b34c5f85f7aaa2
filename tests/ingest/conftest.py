"""Fixtures of the ingest tests.

- `service`: an offline MemoryService (fake Ollama on loopback, the offline distiller) whose
  ingest root is `tmp_path/files`: the tests write documents there and ingest them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from tests.conftest import files_memory


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path) as svc:
        yield svc
