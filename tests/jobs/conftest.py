"""What the job tests share: `db`, an open Database on the test's own database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pegas_memory.config import Settings
from pegas_memory.db.pool import Database


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings).open()
    yield database
    database.close()
