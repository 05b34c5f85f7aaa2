"""Damage done to a running serve's slice files, and what the damage suite watches for.

One serve-like service (the embedded worker and self-check running, the vector store in the
engine host) is shared by a module's cases; `inflict` damages one file kind of the atoms'
vector collection (or the graph's files), and `until_repaired` polls the monitor for the repair
that follows (no fixed sleeps). Benches reuse it (bench/bench_slice_damage.py).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from pegas_memory.app.requests import SearchRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.config import Settings
from pegas_memory.host.control import stop_host
from pegas_memory.memgraph_store.falkor import stop_embedded_graph
from pegas_memory.outbox.reconcile import reconcile, vector_collection
from pegas_memory.outbox.selfcheck import RepairReport
from tests.pgcluster import create_database

# The file kinds of a qdrant-edge collection (qdrant-edge-py 0.9), by a name ending.
VECTOR_FILES = {
    "vectors": "vector_storage/vectors/chunk_0.mmap",
    "payload pages": "payload_storage/page_0.dat",
    "segment metadata": "segment.json",
    "segment version": "version.info",
    "id tracker": "mutable_id_tracker.mappings",
    "WAL": "wal/open-1",
}
RANDOM_BYTES = 512 * 1024  # what the issue wrote into chunk_0.mmap
PERIOD = 1.5  # the self-check period of a suite's shared serve (seconds)
# A check ends within this long of its start on a busy 2-core machine (a copy of the collection
# loaded apart, the content sweep, PostgreSQL counts): noticing may take one period plus this.
CHECK_SECONDS = 3.0


@dataclass(frozen=True)
class Outcome:
    """One case: seconds from the damage to the check that noticed it, and to its repair."""

    noticed: float
    repaired: float
    report: RepairReport


def serve_settings(data_dir: Path, database_url: str, ollama_url: str, period: float) -> Settings:
    from pegas_memory.config import load_settings

    return load_settings(
        data_dir=data_dir,
        database_url=database_url,
        ollama_url=ollama_url,
        embedding_dim=64,
        distiller="offline",
        engine_host="on",  # as `pegas-memory serve`: the store lives in the engine host
        host_idle_seconds=1.0,
        slice_check_seconds=period,
        outbox_poll_seconds=0.2,
        auto_repair_slices=True,
        job_workers=0,
    )


@contextmanager
def running_serve(settings: Settings) -> Iterator[MemoryService]:
    service = MemoryService(settings).open()
    try:
        service.start_background()
        yield service
    finally:
        service.close()
        stop_host(settings)
        stop_embedded_graph(settings.data_dir)


@contextmanager
def serving(
    data_dir: Path, database_url: str, period: float, **updates: object
) -> Iterator[MemoryService]:
    """`running_serve` of `serve_settings` (changed by `updates`), embedding with a fake Ollama
    on loopback."""
    from tests.fake_ollama import FakeOllama

    with FakeOllama(dim=64) as fake:
        settings = serve_settings(data_dir, database_url, fake.url, period)
        with running_serve(settings.model_copy(update=updates)) as service:
            yield service


@contextmanager
def suite_serve(
    server_uri: str, tmp_path_factory: pytest.TempPathFactory, name: str
) -> Iterator[MemoryService]:
    """The serve a module's damage cases share: a fresh database on the PostgreSQL server at
    `server_uri`, a data directory of its own (`name`), the self-check every PERIOD seconds."""
    data = tmp_path_factory.mktemp(name) / "data"
    with serving(data, create_database(server_uri), PERIOD) as service:
        yield service


def atom_collection(service: MemoryService) -> Path:
    name = vector_collection(service.runtime, "atom")
    return service.settings.data_dir / "qdrant" / name


def vector_file(collection: Path, kind: str) -> Path:
    ending = VECTOR_FILES[kind]
    found = [p for p in collection.rglob("*") if p.is_file() and p.as_posix().endswith(ending)]
    assert len(found) == 1, (kind, sorted(str(p) for p in collection.rglob("*")))
    return found[0]


def write_random(path: Path, seed: int, at_least: int = 0) -> None:
    """Random bytes over the first RANDOM_BYTES of `path` (all of a smaller file, and at least
    `at_least` bytes)."""
    size = path.stat().st_size
    data = random_bytes(min(max(size, at_least), RANDOM_BYTES), seed)
    with open(path, "r+b") as handle:
        handle.write(data)


def random_bytes(n: int, seed: int) -> bytes:
    import random

    return random.Random(seed).randbytes(n)


def truncate(path: Path) -> None:
    os.truncate(path, 0)


def delete_tree(path: Path) -> None:
    shutil.rmtree(path)


# The files of the embedded FalkorDB (redis 8 multi-part AOF), by a name ending.
GRAPH_FILES = {
    "AOF base (dump)": ".base.rdb",
    "AOF increment": ".incr.aof",
    "AOF manifest": ".manifest",
}


def graph_file(service: MemoryService, kind: str) -> Path:
    directory = service.settings.data_dir / "graph" / "appendonlydir"
    found = [p for p in directory.iterdir() if p.name.endswith(GRAPH_FILES[kind])]
    assert len(found) == 1, (kind, sorted(p.name for p in directory.iterdir()))
    return found[0]


def store(service: MemoryService, claims: list[str]) -> dict[str, int]:
    return {claim: service.store(StoreRequest(claim=claim)).id for claim in claims}


def flushed(service: MemoryService) -> None:
    """The atoms' collection written out to its files (the engine writes some of them, the id
    tracker's, only when it flushes): `optimize` flushes, and builds nothing on a few points."""
    rt = service.runtime
    rt.vectors.get().optimize(vector_collection(rt, "atom"))


def settled(service: MemoryService, timeout: float = 60.0) -> None:
    """Until the outbox is drained and a self-check of the vector slice says ok."""
    deadline = time.monotonic() + timeout
    asked = time.time()
    service.runtime.monitor.request()  # a check now, whatever the period
    while time.monotonic() < deadline:
        service.runtime.worker().drain(include_delayed=True)
        latest = service.runtime.monitor.latest
        if latest is not None and latest.checked_at > asked and not latest.damaged:
            parts = [*latest.of("vector:atom"), *latest.of("graph:atom")]
            if len(parts) == 2 and all(c.state == "ok" for c in parts):
                return
        time.sleep(0.1)
    raise AssertionError(f"the slices did not settle: {service.runtime.monitor.latest}")


def until_repaired(
    service: MemoryService, since: RepairReport | None, damaged_at: float, timeout: float = 90.0
) -> Outcome:
    """Poll the monitor until a repair newer than `since` is done and the next check is ok."""
    monitor = service.runtime.monitor
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = monitor.last_repair
        latest = monitor.latest
        if (
            report is not None
            and report is not since
            and latest is not None
            and latest.checked_at > report.at
            and not latest.damaged
        ):
            noticed = (report.noticed_at or report.at) - damaged_at
            return Outcome(noticed, report.at - damaged_at, report)
        time.sleep(0.05)
    raise AssertionError(
        f"not repaired within {timeout} s: latest check {monitor.latest}, "
        f"repair {monitor.last_repair}"
    )


def until_repaired_or_whole(
    service: MemoryService, since: RepairReport | None, damaged_at: float, timeout: float = 90.0
) -> Outcome | None:
    """As `until_repaired`, or None when two checks ending after the damage (so one that
    started after it) found nothing damaged: bytes that landed where nothing is read."""
    monitor = service.runtime.monitor
    clean: set[float] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report, latest = monitor.last_repair, monitor.latest
        if report is not since:
            return until_repaired(service, since, damaged_at, max(1.0, deadline - time.monotonic()))
        if latest is not None and latest.checked_at > damaged_at and not latest.damaged:
            clean.add(latest.checked_at)
            if len(clean) >= 2:
                return None
        time.sleep(0.05)
    raise AssertionError(f"neither repaired nor found whole within {timeout} s: {monitor.latest}")


def damaged_under_serve(
    service: MemoryService,
    acknowledged: dict[str, int],
    claims: list[str],
    inflict: Callable[[], None],
    *,
    flush: bool = False,
    meanwhile: list[str] | None = None,
    may_be_harmless: bool = False,
) -> Outcome | None:
    """`claims` stored (added to `acknowledged`), the atoms' collection written out to its files
    where `flush`, and the slices settled; then `inflict`, the
    `meanwhile` claims stored into the damaged slice (acknowledged too: they must survive the
    repair), and the repair that follows awaited (or, `may_be_harmless`, a slice found whole:
    None)."""
    acknowledged.update(store(service, claims))
    if flush:
        flushed(service)
    settled(service)
    since = service.runtime.monitor.last_repair
    damaged_at = time.time()
    inflict()
    if meanwhile:
        acknowledged.update(store(service, meanwhile))
    if may_be_harmless:
        return until_repaired_or_whole(service, since, damaged_at)
    return until_repaired(service, since, damaged_at)


def assert_noticed_and_reported(service: MemoryService, outcome: Outcome, found: str) -> None:
    """Noticed within one self-check period (and a check's time), and the repair note of the
    slice's memory_stats names `found` ("vector:atom", "graph:files")."""
    assert outcome.noticed <= PERIOD + CHECK_SECONDS, outcome
    note = next(s for s in service.stats().slices if found.startswith(s.name)).repaired or ""
    assert found in note, note  # reported: what was found, and that it was mended


def missing_from_dense(service: MemoryService, stored: dict[str, int]) -> list[str]:
    """The acknowledged claims dense search does not find (by their own words)."""
    missing = []
    for claim, atom_id in stored.items():
        found = service.search(SearchRequest(query=claim, preset="dense", limit=5))
        if atom_id not in [h.id for h in found.hits]:
            missing.append(f"{claim} ({found.warnings})")
    return missing


def drift(service: MemoryService) -> int:
    service.runtime.worker().drain(include_delayed=True)
    return reconcile(service.runtime).drift


def assert_nothing_lost(service: MemoryService, acknowledged: dict[str, int]) -> None:
    """Once the slices settled, every acknowledged claim is found by dense search, and
    PostgreSQL and the slices agree."""
    settled(service)
    assert missing_from_dense(service, acknowledged) == []
    assert drift(service) == 0
