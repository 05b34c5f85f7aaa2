"""Shared fixtures: real PostgreSQL servers, a fresh database per test, and Settings for it.

- `pg_server` (session, parametrised where requested via `any_database_url`): the embedded
  PostgreSQL 18 of the product and Debian's PostgreSQL 15 as an external server.
- `database_url`: a fresh database on the embedded server (the default path).
- `any_database_url`: a fresh database on each server kind (tests run twice).
- `settings`: Settings pointing at `database_url`, with a private data dir.
- `service`: `offline_memory` on `database_url` (tests/ingest/conftest.py adds an ingest root).
- `fake_ollama`: a fake Ollama on loopback answering with 64-dimension embeddings.
- `quiet_service`: `offline_memory` with no automatic slice repair, for tests that damage a slice
  and then check what the sweep or the self-check finds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.runtime import ProjectionRuntime
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings, load_settings
from pegas_memory.db.embedded import EmbeddedPostgres, start_embedded_postgres
from pegas_memory.db.pool import Database
from pegas_memory.models import IngestResult
from tests.pgcluster import DebianCluster, create_database, debian_pg_available

if TYPE_CHECKING:
    from tests.fake_ollama import FakeOllama

_KEEP_RUNS = 3  # the newest runs' temporary dirs stay for a look after a failure, as pytest's do
_STALE_SECONDS = 3 * 3600  # older than any run: never a dir a run on this machine still uses


def pytest_configure(config: pytest.Config) -> None:
    """Temporary dirs under a private base, not pytest's shared `/tmp/pytest-of-<user>`: as root
    the embedded PostgreSQL runs as an unprivileged user that must traverse the path to its data
    dir, and every pytest start (each xdist worker, any other run on the machine) sets that
    shared dir back to 0700, so a server started meanwhile fails in initdb."""
    if config.option.basetemp is not None or hasattr(config, "workerinput"):
        return
    root = Path(tempfile.gettempdir()) / f"pegas-tests-of-{os.getuid()}"
    root.mkdir(mode=0o755, exist_ok=True)
    runs = sorted(root.glob("run-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in runs[_KEEP_RUNS:]:
        if time.time() - old.stat().st_mtime > _STALE_SECONDS:
            shutil.rmtree(old, ignore_errors=True)
    config.option.basetemp = tempfile.mkdtemp(prefix="run-", dir=root)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (a stable sort: the rest keep their order). On parallel workers a
    long test handed out last keeps one worker busy while the other has nothing left to do."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# The tests decide every setting themselves; nothing leaks in from the developer's shell.
for _key in list(os.environ):
    if _key.startswith("PEGAS_") or _key == "PROXY_URL":
        del os.environ[_key]
# The type-checker analyzers (scip-python, scip-typescript) start Node for seconds on every
# index: the tests of the heuristic resolver run without them, the analyzer tests ask for them
# (code_analyzer="auto"). Set in the environment so that servers started as processes agree.
os.environ["PEGAS_CODE_ANALYZER"] = "off"


@pytest.fixture(scope="session")
def embedded_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedPostgres]:
    server = start_embedded_postgres(tmp_path_factory.mktemp("embedded-pg"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def debian_pg() -> Iterator[DebianCluster]:
    if not debian_pg_available():
        pytest.skip(
            "Debian PostgreSQL 15 binaries are not installed (apt-get install postgresql-15)"
        )
    cluster = DebianCluster().start()
    yield cluster
    cluster.stop()


@pytest.fixture
def database_url(embedded_pg: EmbeddedPostgres) -> str:
    return create_database(embedded_pg.uri)


@pytest.fixture(params=["embedded18", "debian15"])
def any_database_url(request: pytest.FixtureRequest) -> str:
    if request.param == "embedded18":
        server: EmbeddedPostgres = request.getfixturevalue("embedded_pg")
        return create_database(server.uri)
    cluster: DebianCluster = request.getfixturevalue("debian_pg")
    return create_database(cluster.admin_url())


def make_settings(data_dir: Path, **overrides: object) -> Settings:
    return load_settings(data_dir=data_dir, **overrides)


def fake_model_settings(
    database_url: str, data_dir: Path, fake: FakeOllama, **overrides: object
) -> Settings:
    """Settings on `database_url` whose model is the fake Ollama `fake` (its dimensions)."""
    return make_settings(
        data_dir,
        database_url=database_url,
        ollama_url=fake.url,
        embedding_dim=fake.dim,
        **overrides,
    )


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "data", database_url=database_url)


@contextmanager
def offline_memory(
    database_url: str,
    data_dir: Path,
    *,
    dim: int = 64,
    chat: Callable[[dict[str, Any]], Any] | None = None,
    embed: Callable[[list[str], str], list[list[float]]] | None = None,
    llm: bool = True,
    **overrides: object,
) -> Iterator[MemoryService]:
    """A MemoryService on `database_url` with embeddings (and chat) from a fake Ollama on
    loopback and the offline distiller: the setup most service-level tests share. `embed` and
    `chat` replace the fake's answers; `llm=False` turns the self-critique off, so verification
    runs on similarity alone."""
    from tests.fake_ollama import FakeOllama

    with FakeOllama(dim=dim, chat=chat, embed=embed) as fake:
        settings = make_settings(
            data_dir,
            database_url=database_url,
            ollama_url=fake.url,
            embedding_dim=dim,
            distiller="offline",
            **overrides,
        )
        svc = MemoryService(settings).open()
        if not llm:
            svc.verifier.llm = None
        try:
            yield svc
        finally:
            svc.close()


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data") as svc:
        yield svc


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    from tests.fake_ollama import FakeOllama

    with FakeOllama(dim=64) as fake:
        yield fake


@pytest.fixture
def quiet_service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    """A service on the embedded default that never repairs its slices by itself, so a test sees
    exactly the damage it made; the embedded graph engine of its data dir is stopped after it."""
    from pegas_memory.memgraph_store.falkor import stop_embedded_graph

    data = tmp_path / "data"
    try:
        with offline_memory(database_url, data, auto_repair_slices=False) as svc:
            yield svc
    finally:
        stop_embedded_graph(data)


@contextmanager
def files_memory(
    database_url: str, tmp_path: Path, dim: int = 128, **overrides: Any
) -> Iterator[MemoryService]:
    """`offline_memory` whose ingest root is `tmp_path/files` (created): for tests that write
    documents there and ingest them. `overrides` are more settings."""
    (tmp_path / "files").mkdir(exist_ok=True)
    with offline_memory(
        database_url, tmp_path / "data", dim=dim, ingest_roots=[tmp_path / "files"], **overrides
    ) as svc:
        yield svc


def fetch_all(service: MemoryService, sql: str, *params: Any) -> list[dict[str, Any]]:
    """The rows `sql` (with `params`) returns, as dicts, on a connection of the service's pool."""
    with service.db.connection() as conn:
        return [dict(r) for r in conn.execute(sql, params or None).fetchall()]  # type: ignore[arg-type]


def fetch_one(service: MemoryService, sql: str, *params: Any) -> dict[str, Any]:
    """The first row `sql` (with `params`) returns; an AssertionError where it returns none."""
    with service.db.connection() as conn:
        row = conn.execute(sql, params or None).fetchone()  # type: ignore[arg-type]
    assert row is not None, f"no row: {sql} {params}"
    return dict(row)


def cited_claims(service: MemoryService) -> list[tuple[str, str]]:
    """(claim, locator) of every citation of every atom: what a reader sees an atom cite."""
    with service.db.connection() as conn:
        rows = conn.execute(
            "SELECT a.claim, c.locator FROM pm_atom a JOIN pm_citation c ON c.atom_id = a.id"
        ).fetchall()
    return [(str(r["claim"]), str(r["locator"])) for r in rows]


@contextmanager
def projection_runtime(settings: Settings) -> Iterator[ProjectionRuntime]:
    """The projection runtime (vector and graph slices, embedder, projector) over its own
    database pool, both closed afterwards: for tests of the outbox and the code indexer that run
    without a MemoryService around them."""
    db = Database(settings).open()
    rt = ProjectionRuntime(settings, db)
    try:
        yield rt
    finally:
        rt.close()
        db.close()


def ingest_text(service: MemoryService, path: Path, text: str) -> IngestResult:
    """`text` written to `path` (in the service's ingest root) and ingested: a user's new file,
    or an edit of one, and memory_ingest on it."""
    path.write_text(text, encoding="utf-8")
    return service.ingest(IngestRequest(source=str(path)))
