"""Fixtures of the graph-slice tests: a data dir whose embedded graph server is always stopped
afterwards, and a graph store on it with its schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.memgraph_store.cypher import (
    CypherGraphStore,
)
from pegas_memory.memgraph_store.falkor import (
    open_embedded_graph,
    stop_embedded_graph,
)


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    stop_embedded_graph(tmp_path)  # never leave a server behind, whatever the test did


@pytest.fixture
def store(data_dir: Path) -> Iterator[CypherGraphStore]:
    s = open_embedded_graph(data_dir)
    s.ensure_schema()
    yield s
    s.close()
