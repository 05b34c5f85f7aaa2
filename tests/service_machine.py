"""The base of the hypothesis state machines that drive a whole MemoryService (the model-based
test of the service, the model-based test of as-of): one service on a fresh database, data dir
and ingest root per example, so every example, and every replay while shrinking, starts from the
same empty state."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis.stateful import RuleBasedStateMachine

from pegas_memory.app.service import MemoryService
from pegas_memory.db.embedded import EmbeddedPostgres
from tests.conftest import make_settings
from tests.fake_ollama import FakeOllama
from tests.pgcluster import create_database


class ServiceMachine(RuleBasedStateMachine):
    """`self.service` (offline distiller, 64-dimension embeddings from the fake Ollama, no gap
    on weak context) ingests from `self.docs`; call `bind` before the machine runs."""

    pg_uri: str
    fake_url: str
    root: Path

    @classmethod
    def bind(cls, embedded_pg: EmbeddedPostgres, fake: FakeOllama, root: Path) -> None:
        """Where the examples' databases, fake model and data dirs come from."""
        cls.pg_uri = embedded_pg.uri
        cls.fake_url = fake.url
        cls.root = root

    def __init__(self) -> None:
        super().__init__()
        work = Path(tempfile.mkdtemp(dir=self.root))
        self.docs = work / "docs"
        self.docs.mkdir()
        self.service = MemoryService(
            make_settings(
                work / "data",
                database_url=create_database(self.pg_uri),
                ollama_url=self.fake_url,
                embedding_dim=64,
                distiller="offline",
                ingest_roots=[self.docs],
                auto_gap_on_weak_context=False,
            )
        ).open()

    def teardown(self) -> None:
        self.service.close()
