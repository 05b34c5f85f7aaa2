"""Benchmark of the vector slice: the wrapper next to the raw engine call, on the same data.

For each size (default 10k and 100k clustered, normalised 768-d vectors with atom-like payloads):
upsert time, HNSW build, query latency p50/p99 and recall@10 for k=10 without a filter, with a
selective filter (about 10% of points: the exact path) and a broad one (about 67%: the HNSW
path), reopen time, and disk size, on the embedded back end. The raw engine column queries the
very shard the wrapper holds, with the engine's default search params, so the difference is the
wrapper's cost (validation, the count estimate, the wider beam) and its recall gain.
qdrant-client local mode runs at 10k only, as a baseline.

Run: `.venv/bin/python bench/bench_vectors.py [--sizes 10000,100000] [--queries 200]`.
Prints a markdown table. The data is generated, so nothing is read from ../shared/data.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import qdrant_edge as qe

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pegas_memory.qdrant_store.client import ClientVectorIndex
from pegas_memory.qdrant_store.edge import EdgeVectorIndex
from pegas_memory.qdrant_store.index import VectorFilter, VectorIndex, VectorPoint

DIM = 768
K = 10
TYPES = [
    "text",
    "definition",
    "logical_rule",
    "code",
    "table",
    "fact",
    "text",
    "fact",
    "text",
    "code",
]
STATUSES = ["candidate", "verified", "stale"]
SELECTIVE = VectorFilter(types=("definition",), languages=("ru",), tags=("t1", "t2", "t3"))
BROAD = VectorFilter(statuses=("candidate", "verified"))
BASE = datetime(2025, 1, 1, tzinfo=UTC)


def make_data(n: int, seed: int) -> tuple[np.ndarray, list[dict[str, object]]]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(10, n // 500), DIM)).astype(np.float32)
    labels = rng.integers(0, len(centres), n)
    x = centres[labels] + 0.8 * rng.standard_normal((n, DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    payloads: list[dict[str, object]] = [
        {
            "type": TYPES[i % 10],
            "status": STATUSES[i % 3],
            "doc_id": int(i // 20),
            "topic": f"topic{labels[i] % 50}",
            "tags": [f"t{i % 7}", f"t{(i // 7) % 5}"],
            "language": "ru" if (i // 3) % 2 else "en",
            "created_at": (BASE + timedelta(minutes=i)).isoformat(),
        }
        for i in range(n)
    ]
    return x, payloads


def mask_for(payloads: list[dict[str, object]], where: VectorFilter | None) -> np.ndarray:
    if where is None:
        return np.ones(len(payloads), dtype=bool)

    def ok(p: dict[str, object]) -> bool:
        tags = p["tags"]
        assert isinstance(tags, list)
        return (
            (not where.types or p["type"] in where.types)
            and (not where.statuses or p["status"] in where.statuses)
            and (not where.languages or p["language"] in where.languages)
            and (not where.tags or bool(set(tags) & set(where.tags)))
        )

    return np.array([ok(p) for p in payloads])


def truth(x: np.ndarray, queries: np.ndarray, mask: np.ndarray) -> list[set[int]]:
    out = []
    for q in queries:
        scores = np.where(mask, x @ q, -9.0)
        out.append({int(i) + 1 for i in np.argpartition(-scores, K)[:K]})
    return out


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def compare(
    runs: Sequence[Callable[[np.ndarray], list[int]]],
    queries: np.ndarray,
    expect: list[set[int]],
) -> list[tuple[float, float, float]]:
    """(p50 ms, p99 ms, recall@10) per run; runs alternate per query so drift hits all alike."""
    for run in runs:  # warm caches (mmap'd segments, payload storage) before timing
        for q in queries[:5]:
            run(q)
    lat: list[list[float]] = [[] for _ in runs]
    recall = [0.0 for _ in runs]
    for q, want in zip(queries, expect, strict=True):
        for slot, run in enumerate(runs):
            start = time.perf_counter()
            ids = run(q)
            lat[slot].append(time.perf_counter() - start)
            recall[slot] += len(set(ids) & want) / K
    out = []
    for slot in range(len(runs)):
        ms = np.array(lat[slot]) * 1000
        out.append(
            (
                float(np.percentile(ms, 50)),
                float(np.percentile(ms, 99)),
                recall[slot] / len(queries),
            )
        )
    return out


def raw_filter(where: VectorFilter | None) -> qe.Filter | None:
    if where is None:
        return None
    return qe.Filter(
        must=[qe.FieldCondition(f, match=qe.MatchAny(v)) for f, v in where.keyword_conditions()]
    )


def upsert_wrapper(index: VectorIndex, x: np.ndarray, payloads: list[dict[str, object]]) -> None:
    step = 2000
    for start in range(0, len(x), step):
        index.upsert(
            "bench",
            [
                VectorPoint(i + 1, x[i], payloads[i])
                for i in range(start, min(len(x), start + step))
            ],
        )


def upsert_raw(shard: qe.EdgeShard, x: np.ndarray, payloads: list[dict[str, object]]) -> None:
    step = 512
    for start in range(0, len(x), step):
        stop = min(len(x), start + step)
        shard.update(
            qe.UpdateOperation.upsert_points(
                [qe.Point(i + 1, x[i].tolist(), payloads[i]) for i in range(start, stop)]
            )
        )


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def fmt(p50: float, p99: float) -> str:
    return f"{p50:.2f} / {p99:.2f}"


def bench_edge(n: int, workdir: Path, n_queries: int) -> list[str]:
    x, payloads = make_data(n, seed=n)
    rng = np.random.default_rng(1)
    queries = x[rng.integers(0, n, n_queries)] + 0.05 * rng.standard_normal((n_queries, DIM))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    rows = []

    # Raw upsert into a throwaway shard with the same payload indexes, for the write cost only.
    raw_dir = workdir / f"raw{n}"
    shard = qe.EdgeShard.create(
        str(raw_dir),
        qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)),
    )
    for field in ("type", "status", "topic", "tags", "language"):
        shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
    raw_upsert = timed(lambda: upsert_raw(shard, x, payloads))
    shard.close()
    shutil.rmtree(raw_dir)

    root = workdir / f"edge{n}"
    index = EdgeVectorIndex(root)
    index.ensure_collection("bench", DIM)
    wrapped_upsert = timed(lambda: upsert_wrapper(index, x, payloads))
    rows.append(
        f"| edge | {n:,} | upsert, s (points/s) | {wrapped_upsert:.1f} ({n / wrapped_upsert:,.0f}) "
        f"| {raw_upsert:.1f} ({n / raw_upsert:,.0f}) | | |"
    )
    build = timed(lambda: index.optimize("bench"))
    rows.append(f"| edge | {n:,} | HNSW build (optimize), s | {build:.1f} | same call | | |")

    shard_handle = index._shards["bench"].shard  # the raw engine under the wrapper
    for label, where in (
        ("no filter", None),
        ("selective filter", SELECTIVE),
        ("broad filter", BROAD),
    ):
        mask = mask_for(payloads, where)
        expect = truth(x, queries, mask)
        engine_filter = raw_filter(where)

        def wrapped(q: np.ndarray, where: VectorFilter | None = where) -> list[int]:
            return [h.id for h in index.search("bench", q, k=K, where=where)]

        def raw(q: np.ndarray, engine_filter: qe.Filter | None = engine_filter) -> list[int]:
            found = shard_handle.query(
                qe.QueryRequest(
                    limit=K,
                    query=qe.Query.Nearest(q.tolist()),
                    filter=engine_filter,
                    with_payload=True,
                )
            )
            return [int(p.id) for p in found]

        (w50, w99, wrec), (r50, r99, rrec) = compare([wrapped, raw], queries, expect)
        rows.append(
            f"| edge | {n:,} | query k=10, {label} ({mask.mean():.0%} match), p50 / p99 ms "
            f"| {fmt(w50, w99)} | {fmt(r50, r99)} | {wrec:.3f} | {rrec:.3f} |"
        )
    index.close()
    size = dir_mb(root)
    start = time.perf_counter()
    index = EdgeVectorIndex(root)
    index.search("bench", queries[0], k=K)
    reopen = time.perf_counter() - start
    index.close()
    rows.append(f"| edge | {n:,} | reopen + first query, s | {reopen:.2f} | | | |")
    rows.append(f"| edge | {n:,} | disk, MB | {size:.0f} | | | |")
    shutil.rmtree(root)
    return rows


def bench_client(n: int, n_queries: int) -> list[str]:
    x, payloads = make_data(n, seed=n)
    rng = np.random.default_rng(1)
    queries = x[rng.integers(0, n, n_queries)]
    rows = []
    with ClientVectorIndex.local() as index:
        index.ensure_collection("bench", DIM)
        up = timed(lambda: upsert_wrapper(index, x, payloads))
        rows.append(
            f"| client local | {n:,} | upsert, s (points/s) | {up:.1f} ({n / up:,.0f}) | | | |"
        )
        for label, where in (("no filter", None), ("selective filter", SELECTIVE)):
            mask = mask_for(payloads, where)
            expect = truth(x, queries, mask)

            def wrapped(q: np.ndarray, where: VectorFilter | None = where) -> list[int]:
                return [h.id for h in index.search("bench", q, k=K, where=where)]

            [(p50, p99, rec)] = compare([wrapped], queries, expect)
            rows.append(
                f"| client local | {n:,} | query k=10, {label}, p50 / p99 ms | {fmt(p50, p99)} "
                f"| | {rec:.3f} | |"
            )
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--client-size", type=int, default=10_000)
    parser.add_argument(
        "--dir", type=Path, default=None, help="work directory (default: a temp dir)"
    )
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="bench-vectors-", dir=args.dir))
    rows = [
        "| back end | points | measure | wrapper | raw engine | recall@10 wrapper "
        "| recall@10 raw |",
        "|---|---|---|---|---|---|---|",
    ]
    try:
        for n in (int(s) for s in args.sizes.split(",") if s):
            rows += bench_edge(n, workdir, args.queries)
            print("\n".join(rows[-8:]), file=sys.stderr, flush=True)
        if args.client_size:
            rows += bench_client(args.client_size, min(args.queries, 50))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
