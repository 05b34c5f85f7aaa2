"""Benchmark of the projections and of memory_search on the embedded default stack.

One run, per size (default 10k and 100k atoms), in a fresh temporary data dir (embedded
PostgreSQL through MemoryService, Qdrant Edge, FalkorDB):

1. outbox throughput: N atoms (sentences of SciFact abstracts, topped up with sentences sampled
   from their vocabulary) plus N/2 random links, embedding cache pre-filled with synthetic
   normalised vectors for exactly the texts the projector embeds; `worker.drain()` is timed into
   both slices, then (up to --single-slice-max atoms) into the vector slice and the graph slice
   alone. The inner embedder is wrapped and counts calls: the model must never be called. With
   `--passages` the load is what an ingest leaves: chunks (passages, two atoms each) cited by
   their atoms, so the drain also re-projects every passage its citations touched.
2. lag under a steady write rate (first size): a writer thread stores atoms one transaction each
   at 50/s and 200/s while `OutboxWorker.run` serves in another thread, woken by NOTIFY.
3. rebuild time per 10k atoms (first size): `reconcile.rebuild` for qdrant, graph and all.
4. memory_search latency (`MemoryService.search`, query embedding excluded: query vectors come
   from a table) for the hybrid, dense and lexical presets, next to the vector wrapper's
   `index.search` and the raw `qdrant_edge` shard query on the same vectors; a per-stage
   breakdown of the hybrid preset; 50 queries one at a time vs in one engine batch; and a
   cProfile of the hybrid preset at the largest size.

Run: `.venv/bin/python bench/bench_projection.py [--sizes 10000,100000] [--queries 200]`.
Reads ../shared/data/scifact (or $PEGAS_SHARED_DATA/scifact) when present, else generates text.
Progress goes to stderr; the markdown tables to stdout at the end.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import qdrant_edge as qe
from _common import StageTimer, embedded_service, latencies, log, md_table, ms, percentile
from _projection_data import (
    AtomRow,
    BenchEmbedder,
    ClusteredVectors,
    Corpus,
    bulk_load,
    bulk_load_passages,
    load_corpus,
    make_atoms,
    prefill_cache,
    prefill_passages,
)

from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import AtomInput, insert_atom
from pegas_memory.errors import PegasMemoryError
from pegas_memory.outbox.projection import Projector, Rows, Target
from pegas_memory.outbox.reconcile import rebuild
from pegas_memory.outbox.worker import OutboxWorker
from pegas_memory.qdrant_store.index import plan_search
from pegas_memory.search.presets import POOL

PRESETS = ("hybrid", "dense", "lexical")
LIMIT = 10
DRAIN_TIMEOUT = 3600.0


# ---------------------------------------------------------------------- outbox
def pending(svc: MemoryService) -> int:
    with svc.db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL AND parked_at IS NULL"
        ).fetchone()
    return int(row["n"]) if row else 0


def reset_outbox(svc: MemoryService) -> None:
    """Make every event due again for every slice (to time a projection again)."""
    with svc.db.transaction() as conn:
        conn.execute(
            "UPDATE pm_outbox SET processed_at = NULL, parked_at = NULL, applied = '{}', "
            "attempts = 0, last_error = NULL, next_attempt_at = now()"
        )


def projector(svc: MemoryService, targets: tuple[Target, ...]) -> Projector:
    rt = svc.runtime
    return Projector(
        targets=targets,
        vectors=rt.vectors.get,
        graph=rt.graph.get,
        embedder=rt.embedder.get,
        collection_prefix=svc.settings.qdrant_collection_prefix,
    )


def timed_drain(svc: MemoryService, worker: OutboxWorker, label: str) -> tuple[int, float, int]:
    """(events processed, seconds, events still pending) of one drain."""
    log(f"  drain into {label} ...")
    started = time.monotonic()
    report = worker.drain(timeout=DRAIN_TIMEOUT)
    seconds = time.monotonic() - started
    left = pending(svc)
    if report.parked or report.retried or left:
        log(f"  WARNING {label}: parked {report.parked}, retried {report.retried}, left {left}")
        for error in report.errors[:5]:
            log(f"    {error}")
    log(f"  {label}: {report.processed} events in {seconds:.1f} s")
    return report.processed, seconds, left


class StampingProjector(Projector):
    """The worker's projector, noting when each entity reached each slice (for the lag)."""

    def __init__(self, svc: MemoryService, targets: tuple[Target, ...]):
        base = projector(svc, targets)
        super().__init__(
            targets=targets,
            vectors=base._vectors,
            graph=base._graph,
            embedder=base._embedder,
            collection_prefix=base.prefix,
        )
        self.reached: dict[tuple[str, int, str], float] = {}

    def apply(self, target: Target, entity_type: str, rows: Rows) -> None:
        super().apply(target, entity_type, rows)
        now = time.time()
        for r in rows.present:
            self.reached[(entity_type, int(r["id"]), target)] = now


def lag_run(svc: MemoryService, atoms: Sequence[AtomRow], rate: float, seconds: float) -> list[Any]:
    """Store atoms at `rate` per second while the worker serves; return one table row."""
    n = int(rate * seconds)
    atoms = atoms[:n]
    stamping = StampingProjector(svc, ("vector", "graph"))
    worker = OutboxWorker(svc.settings, svc.db, stamping, name="bench-worker")
    with svc.db.connection() as conn:
        row = conn.execute("SELECT coalesce(max(id), 0) AS m FROM pm_outbox").fetchone()
    first_event = int(row["m"]) if row else 0
    stop = threading.Event()
    serving = threading.Thread(target=worker.run, args=(stop,), name="bench-worker", daemon=True)
    serving.start()
    committed: dict[int, float] = {}
    started = time.monotonic()
    for i, a in enumerate(atoms):
        delay = started + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        with svc.db.transaction() as conn:
            atom_id, _ = insert_atom(
                conn,
                AtomInput(type=a.type, claim=a.claim, content=a.content, topic=a.topic),
            )
        committed[atom_id] = time.time()
    wrote = time.monotonic() - started
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline:
        if all(("atom", i, "graph") in stamping.reached for i in committed) and all(
            ("atom", i, "vector") in stamping.reached for i in committed
        ):
            break
        time.sleep(0.2)
    stop.set()
    serving.join(timeout=120.0)
    if serving.is_alive():
        log("  WARNING: the worker thread did not stop within 120 s")
    with svc.db.connection() as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM processed_at - created_at) AS lag FROM pm_outbox "
            "WHERE id > %s AND processed_at IS NOT NULL",
            (first_event,),
        ).fetchall()
    outbox_lag = [float(r["lag"]) for r in rows]
    visible = [
        max(stamping.reached[("atom", i, "vector")], stamping.reached[("atom", i, "graph")]) - t
        for i, t in committed.items()
        if ("atom", i, "vector") in stamping.reached and ("atom", i, "graph") in stamping.reached
    ]
    return [
        f"{rate:g}/s",
        f"{len(committed) / wrote:.1f}/s",
        len(committed),
        f"{len(visible)}/{len(committed)}",
        ms(percentile(outbox_lag, 50)),
        ms(percentile(outbox_lag, 99)),
        ms(max(outbox_lag, default=float("nan"))),
        ms(percentile(visible, 50)),
        ms(percentile(visible, 99)),
        ms(max(visible, default=float("nan"))),
    ]


# ---------------------------------------------------------------------- search
def raw_shard(index: object, name: str) -> qe.EdgeShard | None:
    """The qdrant_edge shard under the wrapper (private; None if the layout changed)."""
    shards = getattr(index, "_shards", None)
    opened = shards.get(name) if isinstance(shards, dict) else None
    shard = getattr(opened, "shard", None)
    return shard if isinstance(shard, qe.EdgeShard) else None


def bench_search(
    svc: MemoryService, n: int, queries: list[str], qvecs: dict[str, list[float]], tables: Tables
) -> tuple[dict[str, float], dict[str, float]]:
    """Time the presets, the wrapper and the raw engine; return (p50, p99) by row name."""
    rt = svc.runtime
    index = rt.vectors.get()
    name = rt.projector.collection("atom")
    p50: dict[str, float] = {}
    p99: dict[str, float] = {}
    vecs = [qvecs[q] for q in queries]

    def add(what: str, values: list[float]) -> None:
        p50[what], p99[what] = percentile(values, 50), percentile(values, 99)
        tables.add("search", n, "HNSW built", what, ms(p50[what]), ms(p99[what]), ms(max(values)))
        log(f"  {what}: p50 {ms(p50[what])} ms, p99 {ms(p99[what])} ms")

    for preset in PRESETS:

        def run(q: str, preset: str = preset) -> object:
            return svc.search(SearchRequest(query=q, preset=preset, limit=LIMIT))

        add(f"memory_search {preset}", latencies(run, queries))
    add(f"index.search k={POOL}", latencies(lambda v: index.search(name, v, k=POOL), vecs))
    shard = raw_shard(index, name)
    plan = plan_search(
        int(shard.count(qe.CountRequest(exact=False))) if shard else n,
        POOL,
        exact_limit=getattr(index, "_exact_limit", 20_000),
        hnsw_ef=getattr(index, "_hnsw_ef", 128),
    )
    params = qe.SearchParams(exact=True) if plan.exact else qe.SearchParams(hnsw_ef=plan.hnsw_ef)

    def request(v: list[float], with_params: bool) -> qe.QueryRequest:
        return qe.QueryRequest(
            limit=POOL,
            query=qe.Query.Nearest(v),
            with_payload=True,
            with_vector=False,
            params=params if with_params else None,
        )

    if shard is not None:
        add(
            f"raw shard.query k={POOL}, engine default params",
            latencies(lambda v: shard.query(request(v, False)), vecs),
        )
        plan_name = "exact" if plan.exact else f"hnsw_ef={plan.hnsw_ef}"
        add(
            f"raw shard.query k={POOL}, wrapper's plan ({plan_name})",
            latencies(lambda v: shard.query(request(v, True)), vecs),
        )
    else:
        log("  the raw qdrant_edge shard is not reachable: raw rows skipped")

    # Where the hybrid preset spends its time, stage by stage.
    timer = StageTimer()
    for method in (
        "lexical_arm",
        "dense_arm",
        "graph_arm",
        "support",
        "hydrate",
        "finish",
    ):
        timer.wrap(svc.searcher, method, method)
    timer.wrap(index, "search", "index.search")
    per_query: list[dict[str, float]] = []
    totals: list[float] = []
    try:
        for q in queries:
            timer.current = {}
            started = time.perf_counter()
            svc.search(SearchRequest(query=q, preset="hybrid", limit=LIMIT))
            totals.append(time.perf_counter() - started)
            per_query.append(timer.current)
    finally:
        timer.unwrap()
    nested = {"index.search": "dense_arm"}
    for stage in timer.calls:
        values = [spent.get(stage, 0.0) for spent in per_query]
        where = f"{stage} (inside {nested[stage]})" if stage in nested else stage
        calls = f"{timer.calls[stage] / len(queries):.2f}"
        cells = [ms(percentile(values, 50)), ms(percentile(values, 99))]
        tables.add("stages", n, where, calls, *cells)
    rest = [
        total - sum(v for stage, v in spent.items() if stage not in nested)
        for total, spent in zip(totals, per_query, strict=True)
    ]
    for what, values in (
        ("rest (fusion, row assembly, pool waits)", rest),
        ("total hybrid", totals),
    ):
        tables.add("stages", n, what, "1", ms(percentile(values, 50)), ms(percentile(values, 99)))

    # 50 queries one at a time vs one engine batch; the Protocol has no batch call.
    group = vecs[:50]

    def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
        return sorted(times)[len(times) // 2]

    runs: list[tuple[str, Callable[[], object]]] = [
        (
            "memory_search dense, 50 calls",
            lambda: [
                svc.search(SearchRequest(query=q, preset="dense", limit=LIMIT))
                for q in queries[:50]
            ],
        ),
        (
            "index.search (wrapper), 50 calls",
            lambda: [index.search(name, v, k=POOL) for v in group],
        ),
    ]
    if shard is not None:
        runs += [
            ("raw shard.query, 50 calls", lambda: [shard.query(request(v, True)) for v in group]),
            (
                "raw shard.query_batch, 1 call of 50",
                lambda: shard.query_batch(qe.QueryBatchRequest([request(v, True) for v in group])),
            ),
        ]
    for what, fn in runs:
        seconds = best_of(fn)
        tables.add("batch", n, what, ms(seconds), ms(seconds / len(group)))
    return p50, p99


def profile_hybrid(svc: MemoryService, queries: list[str], top: int = 18) -> list[list[Any]]:
    """cProfile of the hybrid preset; the functions with the most own time, per query."""
    for q in queries[:10]:
        svc.search(SearchRequest(query=q, preset="hybrid", limit=LIMIT))
    prof = cProfile.Profile()
    prof.enable()
    for q in queries:
        svc.search(SearchRequest(query=q, preset="hybrid", limit=LIMIT))
    prof.disable()
    text = io.StringIO()
    stats = pstats.Stats(prof, stream=text)
    stats.sort_stats("tottime").print_stats(top)
    log("cProfile of the hybrid preset (sorted by own time):\n" + text.getvalue())
    rows = []
    entries = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
    for (path, line, func), (_cc, ncalls, tottime, cumtime, _callers) in entries:
        where = f"{Path(path).name}:{line} {func}" if line else func
        rows.append(
            [
                where,
                f"{ncalls / len(queries):.1f}",
                ms(tottime / len(queries)),
                ms(cumtime / len(queries)),
            ]
        )
    return rows


# ---------------------------------------------------------------------- one size
SECTIONS: dict[str, tuple[str, str]] = {
    "load": ("Load (COPY; the triggers write the outbox)", "atoms|links|documents|load s|cache s"),
    "throughput": (
        "1. Outbox throughput, embeddings from the cache",
        "atoms|slices|events|seconds|events/s|left pending|model calls",
    ),
    "lag": (
        "2. Lag under a steady write rate (one transaction per atom, worker woken by NOTIFY)",
        "atoms before|target rate|achieved|written|visible|outbox lag p50 ms|p99 ms|max ms"
        "|commit->both slices p50 ms|p99 ms|max ms",
    ),
    "rebuild": (
        "3. Rebuild from Postgres alone",
        "atoms|target|seconds|s per 10k atoms|model calls",
    ),
    "hnsw": ("HNSW build (index.optimize)", "atoms|seconds|built"),
    "gin": (
        "GIN pending list of pm_atom_tsv (fastupdate) and the lexical preset",
        "atoms|pending pages|lexical p50 ms|p99 ms|after VACUUM p50 ms|p99 ms",
    ),
    "search": (
        f"4. Search latency, query embedding excluded (limit {LIMIT}, arm pool {POOL})",
        "atoms|state|what|p50 ms|p99 ms|max ms",
    ),
    "stages": ("Hybrid preset by stage", "atoms|stage|calls/query|p50 ms|p99 ms"),
    "batch": (
        "Batched vs one at a time (50 queries, median of 5)",
        "atoms|what|total ms|ms/query",
    ),
    "targets": (
        "Issue 5 target: p50 <= 3x the raw engine query, p99 < 50 ms",
        "atoms|preset|p50 ms|raw engine p50 ms|ratio|within 3x|p99 ms|p99 < 50 ms",
    ),
    "profile": (
        "cProfile, hybrid preset at the largest size (per query)",
        "function|calls|own ms|cumulative ms",
    ),
}


class Tables:
    def __init__(self) -> None:
        self.rows: dict[str, list[list[Any]]] = {key: [] for key in SECTIONS}

    def add(self, key: str, *cells: Any) -> None:
        self.rows[key].append(list(cells))

    def print(self, header: str) -> None:
        print(header)
        for key, (title, columns) in SECTIONS.items():
            if self.rows[key]:
                print(f"## {title}\n\n{md_table(columns.split('|'), self.rows[key])}\n")


def gin_pending_pages(svc: MemoryService) -> int | None:
    """Pages in the GIN pending list of the atoms' tsvector index (None: pgstattuple missing)."""
    try:
        with svc.db.connection() as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
            row = conn.execute("SELECT pending_pages FROM pgstatginindex('pm_atom_tsv')").fetchone()
    except PegasMemoryError as exc:
        log(f"  pgstattuple unavailable ({exc}); GIN pending list not measured")
        return None
    return int(row["pending_pages"]) if row else None


def run_size(
    n: int, corpus: Corpus, args: argparse.Namespace, tables: Tables, *, first: bool, last: bool
) -> None:
    log(f"=== {n} atoms ===")
    with embedded_service() as svc:
        rt = svc.runtime
        cached = rt.embedder.get()
        vectors = ClusteredVectors(cached.dim, seed=args.seed)
        qmat = vectors.make(len(corpus.queries))
        qvecs = {q: v.tolist() for q, v in zip(corpus.queries, qmat, strict=True)}
        counting = BenchEmbedder(cached.inner, qvecs)
        cached.inner = counting
        atoms = make_atoms(corpus.sentences, 0, n)
        live = int(sum(args.rates) * args.lag_seconds)
        lag_atoms = make_atoms(corpus.sentences, n + 1, live, suffix=" (written live)")
        started = time.monotonic()
        texts: list[str] = []
        if args.passages:
            counts, texts = bulk_load_passages(svc, atoms, args.seed)
        else:
            counts = bulk_load(svc, atoms, args.seed)
        load_s = time.monotonic() - started
        started = time.monotonic()
        prefill_cache(svc, atoms, vectors.make(n))
        prefill_passages(svc, texts, vectors.make(len(texts)))
        prefill_cache(svc, lag_atoms, vectors.make(len(lag_atoms)))
        cache_s = time.monotonic() - started
        log(f"loaded {counts} in {load_s:.1f} s; cache filled in {cache_s:.1f} s")
        tables.add(
            "load", n, counts["links"], counts["documents"], f"{load_s:.1f}", f"{cache_s:.1f}"
        )

        # 1. throughput into both slices (the runtime's own worker), then each slice alone.
        drains: list[tuple[str, OutboxWorker]] = [("vector + graph", rt.worker("bench"))]
        if n <= args.single_slice_max:
            drains += [
                (f"{t} only", OutboxWorker(svc.settings, svc.db, projector(svc, (t,)), name=t))
                for t in ("vector", "graph")
            ]
        index, graph = rt.vectors.get(), rt.graph.get()
        name = rt.projector.collection("atom")
        for label, worker in drains:
            if label != "vector + graph":
                reset_outbox(svc)
                index.drop(name) if label == "vector only" else graph.clear()
            events, seconds, left = timed_drain(svc, worker, label)
            rate = f"{events / seconds:.0f}"
            tables.add(
                "throughput", n, label, events, f"{seconds:.1f}", rate, left, counting.model_calls
            )
        rt.projector.collection("atom")  # re-created if the vector-only run dropped it
        log(f"  slices: {index.count(name)} points; {graph.node_counts()} {graph.edge_counts()}")

        # 4. search. Nothing calls optimize() in the product (see the report): measure the dense
        # path as shipped, then build HNSW as the worker is meant to when idle.
        queries = corpus.queries
        if n > args.exact_limit_hint:
            log("  dense search before optimize() (no HNSW built yet) ...")
            before = {
                "memory_search dense": latencies(
                    lambda q: svc.search(SearchRequest(query=q, preset="dense", limit=LIMIT)),
                    queries[:60],
                ),
                f"index.search k={POOL}": latencies(
                    lambda q: index.search(name, qvecs[q], k=POOL), queries[:60]
                ),
            }
            for what, values in before.items():
                p50, p99 = ms(percentile(values, 50)), ms(percentile(values, 99))
                tables.add("search", n, "no HNSW (as shipped)", what, p50, p99, ms(max(values)))
        log("  optimize() (HNSW build) ...")
        started = time.monotonic()
        built = index.optimize(name)
        tables.add("hnsw", n, f"{time.monotonic() - started:.1f}", built)

        pages = gin_pending_pages(svc)
        if pages:
            lexical = latencies(
                lambda q: svc.search(SearchRequest(query=q, preset="lexical", limit=LIMIT)), queries
            )
            with svc.db.connection() as conn:
                conn.execute("VACUUM pm_atom")  # flushes the pending list into the index
            after = latencies(
                lambda q: svc.search(SearchRequest(query=q, preset="lexical", limit=LIMIT)), queries
            )
            cells = [ms(percentile(v, p)) for v in (lexical, after) for p in (50, 99)]
            tables.add("gin", n, pages, *cells)
        log(f"  search latency (GIN pending pages were {pages}; now flushed) ...")
        lat50, lat99 = bench_search(svc, n, queries, qvecs, tables)
        raw = next((k for k in lat50 if k.startswith("raw shard.query") and "default" in k), None)
        for preset in PRESETS:
            what = f"memory_search {preset}"
            ratio = lat50[what] / lat50[raw] if raw else float("nan")
            ok3 = "yes" if ratio <= 3 else "no"
            ok50 = "yes" if lat99[what] < 0.050 else "no"
            raw_ms = ms(lat50[raw]) if raw else "-"
            cells = [ms(lat50[what]), raw_ms, f"{ratio:.1f}x", ok3, ms(lat99[what]), ok50]
            tables.add("targets", n, preset, *cells)
        if last and args.profile:
            log("  profiling the hybrid preset ...")
            tables.rows["profile"] = profile_hybrid(svc, queries[:100])

        # 3. rebuild from Postgres alone (vectors from the cache).
        if n <= args.rebuild_max:
            for target in ("qdrant", "graph", "all"):
                log(f"  rebuild {target} ...")
                calls = counting.model_calls
                res = rebuild(rt, target)  # type: ignore[arg-type]
                per = f"{res['seconds'] * 10_000 / n:.1f}"
                tables.add("rebuild", n, target, res["seconds"], per, counting.model_calls - calls)

        # 2. lag under a steady write rate (last: it adds atoms).
        if first and args.lag_seconds > 0:
            offset = 0
            for rate in args.rates:
                log(f"  lag at {rate:g} writes/s for {args.lag_seconds:g} s ...")
                count = int(rate * args.lag_seconds)
                row = lag_run(svc, lag_atoms[offset : offset + count], rate, args.lag_seconds)
                offset += count
                tables.add("lag", n, *row)
                log(f"  {row}")
        if counting.model_calls:
            log(f"WARNING: the model was called {counting.model_calls} times")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated atom counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rates", default="50,200", help="writes/s of the lag test (first size)")
    parser.add_argument("--lag-seconds", type=float, default=20.0, help="0 skips the lag test")
    parser.add_argument(
        "--single-slice-max",
        type=int,
        default=10_000,
        help="drain each slice alone up to this size",
    )
    parser.add_argument("--rebuild-max", type=int, default=10_000, help="rebuild up to this size")
    parser.add_argument("--no-profile", dest="profile", action="store_false")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--passages",
        action="store_true",
        help="load as an ingest leaves it: chunks (passages) cited by their atoms",
    )
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.rates = [float(r) for r in args.rates.split(",") if r.strip()]
    args.exact_limit_hint = 20_000  # EdgeVectorIndex's default exact_limit
    needed = max(args.sizes) + int(sum(args.rates) * args.lag_seconds) + 10
    corpus = load_corpus(needed, args.queries, args.seed)
    log(f"text: {corpus.source}; {len(corpus.queries)} queries")
    tables = Tables()
    try:
        for i, n in enumerate(args.sizes):
            run_size(n, corpus, args, tables, first=i == 0, last=i == len(args.sizes) - 1)
    finally:
        load = os.getloadavg()
        tables.print(
            f"# bench_projection: sizes {args.sizes}, {len(corpus.queries)} queries\n"
            f"text: {corpus.source}\nload average at the end {load[0]:.1f} / {load[1]:.1f} / "
            f"{load[2]:.1f} on {os.cpu_count()} cores\n"
        )


if __name__ == "__main__":
    main()
