"""The slices' self-check (issue 18): a vector slice deleted or corrupted while the server was
stopped is reported as damaged (stats, doctor, search warnings) and rebuilt from PostgreSQL
without re-embedding, automatically or by `pegas-memory rebuild`, which sets damaged files
aside instead of failing on them."""

from __future__ import annotations

import fcntl
import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.doctor import run_checks
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.selfcheck import classify
from tests.cli_run import run_cli
from tests.conftest import fake_model_settings
from tests.example_facts import MIXED
from tests.fake_ollama import FakeOllama, hashed_embedding

REPO = Path(__file__).resolve().parents[2]
CLAIMS = MIXED[:4]


class CountingOllama(FakeOllama):
    def __init__(self) -> None:
        self.texts: list[str] = []

        def embed(texts: list[str], model: str) -> list[list[float]]:
            self.texts.extend(texts)
            return [hashed_embedding(t, 64) for t in texts]

        super().__init__(dim=64, embed=embed)


@pytest.fixture
def ollama() -> Iterator[CountingOllama]:
    with CountingOllama() as fake:
        yield fake


def _settings(database_url: str, tmp_path: Path, ollama: FakeOllama, **extra: object) -> Settings:
    return fake_model_settings(
        database_url, tmp_path / "data", ollama, outbox_poll_seconds=0.5, **extra
    )


def _store_and_stop(settings: Settings) -> None:
    service = MemoryService(settings).open()
    service.start_background()
    try:
        for claim in CLAIMS:
            service.store(StoreRequest(claim=claim))
        service.runtime.worker().drain(include_delayed=True)
        assert service.stats().slices[0].count == len(CLAIMS)
    finally:
        service.close()


@contextmanager
def stored_and_stopped(
    database_url: str, tmp_path: Path, ollama: FakeOllama, **extra: object
) -> Iterator[Settings]:
    """The settings of a memory that stored CLAIMS, projected them and was closed; its embedded
    graph engine is stopped afterwards."""
    settings = _settings(database_url, tmp_path, ollama, **extra)
    try:
        _store_and_stop(settings)
        yield settings
    finally:
        stop_embedded_graph(settings.data_dir)


def _dense(service: MemoryService, query: str) -> tuple[list[str], list[str]]:
    found = service.search(SearchRequest(query=query, preset="dense", limit=10))
    return [h.claim for h in found.hits], found.warnings


def _vector(service: MemoryService):  # type: ignore[no-untyped-def]
    return next(s for s in service.stats().slices if s.name == "vector")


def _wait_repaired(service: MemoryService, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        vector = _vector(service)
        if vector.repaired and vector.health == "ok":
            return vector
        time.sleep(0.2)
    raise AssertionError(f"the vector slice was not repaired: {_vector(service)}")


def _corrupt(collection_dir: Path, seed: int = 7) -> None:
    """Random bytes over the segment and WAL files of one collection."""
    rng = random.Random(seed)
    hit = 0
    for path in sorted(collection_dir.rglob("*")):
        if path.is_file() and path.name != "edge_config.json":
            data = bytearray(path.read_bytes())
            # The engine preallocates 32 MiB files whose tail is unused zeros: one byte in ten
            # of the first MiB (where a few points live) breaks them as surely as all of it,
            # in a tenth of a second instead of minutes.
            used = min(len(data), 1 << 20)
            for _ in range(max(1, used // 10)):
                if data:
                    data[rng.randrange(used)] = rng.randrange(256)
            path.write_bytes(bytes(data))
            hit += 1
    assert hit


def test_classify_tolerates_events_in_flight() -> None:
    assert classify(10, 10, 0) == "ok"
    assert classify(10, 7, 3) == "ok"
    assert classify(10, 6, 3) == "lost"
    assert classify(10, 14, 3) == "gained"
    assert classify(0, 0, 0) == "ok"


def test_deleted_vector_slice_is_repaired_at_start_without_reembedding(
    database_url: str, tmp_path: Path, ollama: CountingOllama
) -> None:
    with stored_and_stopped(database_url, tmp_path, ollama) as settings:
        shutil.rmtree(settings.data_dir / "qdrant")
        embedded_before = len(ollama.texts)
        service = MemoryService(settings).open()
        try:
            service.start_background()
            vector = _wait_repaired(service)
            assert vector.count == len(CLAIMS)
            assert "rebuilt from PostgreSQL" in (vector.repaired or "")
            # The repair read the embedding cache: the model saw no stored text again.
            assert not set(ollama.texts[embedded_before:]) & set(CLAIMS)
            claims, warnings = _dense(service, "Caspian Sea river")
            assert "The Volga flows into the Caspian Sea" in claims
            assert not any("damaged" in w for w in warnings), warnings
        finally:
            service.close()


def test_deleted_vector_slice_is_reported_when_auto_repair_is_off(
    database_url: str, tmp_path: Path, ollama: CountingOllama
) -> None:
    with stored_and_stopped(database_url, tmp_path, ollama, auto_repair_slices=False) as settings:
        shutil.rmtree(settings.data_dir / "qdrant")
        service = MemoryService(settings).open()
        try:
            vector = _vector(service)
            assert vector.health == "damaged", vector
            assert any("lost" in p for p in vector.problems), vector.problems
            _claims, warnings = _dense(service, "Caspian Sea river")
            assert any("vector slice is damaged" in w for w in warnings), warnings
            assert any("rebuild --target qdrant" in w for w in warnings), warnings
        finally:
            service.close()
        checks = {c.name: c for c in run_checks(settings)}
        check = checks["vector slice vs PostgreSQL"]
        assert not check.ok and "lost" in check.detail
        assert check.fix and "pegas-memory rebuild --target qdrant" in check.fix


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(
        PEGAS_DATABASE_URL=str(settings.database_url),
        PEGAS_DATA_DIR=str(settings.data_dir),
        PEGAS_OLLAMA_URL=str(settings.ollama_url),
        PEGAS_EMBEDDING_DIM="64",
        PEGAS_ENGINE_HOST="on",  # the CLI's default: the store is reached through the host
        PEGAS_HOST_IDLE_SECONDS="0.5",
        PYTHONPATH=str(REPO),
    )
    return run_cli(env, *args, timeout=300)


def _atom_collection(settings: Settings) -> Path:
    found = [
        p for p in (settings.data_dir / "qdrant").iterdir() if p.name.startswith("pm_atoms_atom_")
    ]
    assert len(found) == 1, found
    return found[0]


def _wait_host_gone(settings: Settings, timeout: float = 60.0) -> None:
    """Until the engine host (and its standby) released the embedded store's lock."""
    lock = settings.data_dir / "qdrant" / ".lock"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(0.2)
        finally:
            os.close(fd)  # closing releases the lock
    raise AssertionError("the engine host still holds the vector store")


@pytest.mark.slow
def test_corrupted_vector_slice_is_set_aside_and_rebuilt(
    database_url: str, tmp_path: Path, ollama: CountingOllama
) -> None:
    with stored_and_stopped(database_url, tmp_path, ollama, auto_repair_slices=False) as settings:
        _corrupt(_atom_collection(settings))

        # Reported with the right advice, in stats and in doctor.
        service = MemoryService(settings).open()
        try:
            vector = _vector(service)
            assert vector.health == "damaged", vector
            assert any("damaged" in p for p in vector.problems), vector.problems
        finally:
            service.close()
        checks = {c.name: c for c in run_checks(settings)}
        assert not checks["vector slice"].ok
        assert "damaged" in checks["vector slice"].detail
        assert "rebuild --target qdrant" in (checks["vector slice"].fix or "")

        # `pegas-memory rebuild` (through the engine host) repairs what it advises.
        done = _cli(settings, "rebuild", "--target", "qdrant")
        assert done.returncode == 0, done.stderr[-3000:]
        assert "set_aside" in done.stdout, done.stdout
        _wait_host_gone(settings)
        broken = sorted(settings.data_dir.glob("qdrant.broken-*"))
        assert len(broken) == 1, broken

        service = MemoryService(settings).open()
        try:
            assert _vector(service).health == "ok"
            claims, _ = _dense(service, "igneous rock")
            assert "Basalt is an igneous rock" in claims
        finally:
            service.close()

        # Damaged again: the automatic repair (in process) sets it aside too.
        for attempt in range(2):
            _corrupt(_atom_collection(settings), seed=attempt)
            auto = settings.model_copy(update={"auto_repair_slices": True})
            service = MemoryService(auto).open()
            try:
                service.start_background()
                _wait_repaired(service)
                claims, _ = _dense(service, "igneous rock")
                assert "Basalt is an igneous rock" in claims
            finally:
                service.close()
            time.sleep(1.1)  # a new second: a new set-aside directory
        assert len(list(settings.data_dir.glob("qdrant.broken-*"))) <= 2
