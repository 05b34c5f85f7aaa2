"""What the search tests share: `memory`, a service whose ingest root is `tmp_path/files`;
`instant`, the database's clock; `edited_notes`, a document searched before and after an edit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from pegas_memory.app.service import MemoryService
from tests.conftest import files_memory, ingest_text

NOTES = "# Notes\n\nThe Lick Observatory opened in 1888. Its first director was Edward Holden.\n"
NOTES_EDITED = (
    "# Notes\n\nThe Lick Observatory opened in 1888. Its great refractor was the largest "
    "telescope of its time.\n"
)


@pytest.fixture
def memory(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with files_memory(database_url, tmp_path) as svc:
        yield svc


def instant(svc: MemoryService) -> datetime:
    """The database's clock between two transactions: what came before is 'then'."""
    with svc.db.connection() as conn:
        row = conn.execute("SELECT clock_timestamp() AS t").fetchone()
    assert row is not None
    return row["t"]


@pytest.fixture
def edited_notes(memory: MemoryService, tmp_path: Path) -> datetime:
    """notes.md ingested (NOTES), then edited (NOTES_EDITED: Holden's sentence gone, the
    refractor's new) and ingested again, each version projected; the instant between the two."""
    path = tmp_path / "files" / "notes.md"
    ingest_text(memory, path, NOTES)
    memory.runtime.worker().drain()
    before = instant(memory)
    ingest_text(memory, path, NOTES_EDITED)
    memory.runtime.worker().drain()
    return before
