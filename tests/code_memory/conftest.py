"""Fixtures the code-memory tests share: a service that may index code under `tmp_path/src`,
and, for modules that define their own `csettings`, the projection runtime and a CodeMemory
over those settings (the indexer without a MemoryService around it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.app.service import MemoryService
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.config import Settings
from tests.code_fixtures import code_service
from tests.conftest import projection_runtime


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with code_service(database_url, tmp_path) as svc:
        yield svc


@pytest.fixture
def runtime(csettings: Settings) -> Iterator[ProjectionRuntime]:
    with projection_runtime(csettings) as rt:
        yield rt


@pytest.fixture
def code(csettings: Settings, runtime: ProjectionRuntime) -> CodeMemory:
    return CodeMemory(csettings, runtime.db, runtime)
