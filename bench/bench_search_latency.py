"""Search latency at 100k atoms plus their passages, on the embedded default stack.

One run in a fresh temporary data dir (embedded PostgreSQL, Qdrant Edge, FalkorDB):

1. load N atoms as an ingest leaves them (bench/_projection_data.bulk_load_passages): documents
   of 50 atoms, chunks of 2 atoms each (so N/2 passages), every atom cited from its chunk, N/2
   links; all by COPY, the outbox triggers writing the events. The embedding cache is filled
   with synthetic clustered vectors for exactly the texts the projector embeds, so the drain
   calls no model; the outbox is drained into both slices; HNSW is built on both collections
   (`index.optimize`); the tables are analysed.
2. latency, query embedding excluded (query vectors come from a table): the raw engine query
   (`index.search` k=50 on the atom and on the passage collection) vs `MemoryService.search`
   (the hybrid preset, limit 10) with store=atoms / passages / both, p50/p99/max and the ratio
   of the p50 to the raw engine query on the atoms; the hybrid's time by stage.
3. `memory_search` over MCP end to end: `pegas-memory serve` spawned on the same data dir,
   driven over stdio by the SDK client (tests/mcp_harness.py), the query embedded by the real
   local model in the engine host; fewer queries.

With `--lexical-engine sparse` (or `both`, side by side in one run) the lexical arm of atoms
and passages is served by the vector engine's sparse index (PEGAS_LEXICAL_ENGINE=sparse): the
`_bm25` collections (dense + BM25 vectors) are rebuilt from PostgreSQL the first time
(`reconcile.rebuild`, HNSW included; its seconds are kept with the load's conditions), and the
raw engine rows gain the sparse query alone (`index.search_sparse` k=50).

Run: `python bench/bench_search_latency.py [--atoms 100000] [--queries 200] [--mcp-queries 40]`.
Progress on stderr, markdown tables on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    REPO_ROOT,
    StageTimer,
    embedded_service,
    ensure_sparse,
    latencies,
    log,
    md_table,
    ms,
    percentile,
)
from _projection_data import (
    BenchEmbedder,
    ClusteredVectors,
    bulk_load_passages,
    load_corpus,
    make_atoms,
    prefill_cache,
    prefill_passages,
)

from pegas_memory.app.requests import SearchRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.qdrant_store import sparse_terms
from pegas_memory.search.presets import POOL, StoreChoice

LIMIT = 10
STORES: tuple[StoreChoice, ...] = ("atoms", "passages", "both")
DRAIN_TIMEOUT = 3600.0
LOADED = "bench-search-latency.json"  # in a kept data dir: what was loaded there


def stages(svc: MemoryService, queries: Sequence[str]) -> list[list[Any]]:
    """The hybrid (store=both) by stage: p50 and p99 of each stage's time per query, summed
    over both stores (the lexical arms' parts too: each statement of lexical.LexicalIndex)."""
    timer = StageTimer()
    methods: tuple[str, ...] = tuple(
        m
        for m in (
            "lexical_arm",
            "dense_arm",
            "graph_arm",
            "support",
            "fetch_rows",  # before: each store's rows
            "hydrate",  # after: every store's rows and the citations, one round trip
            "finish",
        )
        if hasattr(svc.searcher, m)
    )
    for method in methods:
        timer.wrap(svc.searcher, method)
    parts = ("analyse", "corpus_stats", "frequencies", "_newest", "_score")
    for method in parts:
        timer.wrap(svc.searcher.lexical, method, f"lexical_arm: {method}")
    methods += tuple(f"lexical_arm: {m}" for m in parts)
    per_query: list[dict[str, float]] = []
    totals: list[float] = []
    try:
        for q in queries:
            timer.current = {}
            started = time.perf_counter()
            svc.search(SearchRequest(query=q, limit=LIMIT, store="both"))
            totals.append(time.perf_counter() - started)
            per_query.append(timer.current)
    finally:
        timer.unwrap()
    rows = []
    for method in methods:
        values = [spent.get(method, 0.0) for spent in per_query]
        rows.append([method, ms(percentile(values, 50)), ms(percentile(values, 99))])
    # the lexical arm runs in a helper thread beside the dense arm: the stages overlap
    rows.append(["total", ms(percentile(totals, 50)), ms(percentile(totals, 99))])
    return rows


def round_trips(svc: MemoryService, queries: Sequence[str]) -> list[list[Any]]:
    """What one PostgreSQL round trip costs here: a pooled connection taken (the pool checks
    it with an empty query) and `SELECT 1` on it, and `SELECT 1` on a connection held."""

    def pooled(_: object) -> None:
        with svc.db.connection() as conn:
            conn.execute("SELECT 1").fetchall()

    held_values: list[float] = []
    with svc.db.connection() as conn:
        for _ in queries:
            started = time.perf_counter()
            conn.execute("SELECT 1").fetchall()
            held_values.append(time.perf_counter() - started)
    rows = []
    for what, values in (
        ("pooled connection + SELECT 1", latencies(pooled, queries)),
        ("SELECT 1 on a held connection", held_values),
    ):
        rows.append([what, ms(percentile(values, 50)), ms(percentile(values, 99))])
    return rows


def profile(svc: MemoryService, queries: Sequence[str], top: int = 15) -> str:
    """cProfile of the hybrid with both stores, the functions with the most own time."""
    prof = cProfile.Profile()
    prof.enable()
    for q in queries:
        svc.search(SearchRequest(query=q, limit=LIMIT, store="both"))
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def vocabulary_collisions(svc: MemoryService) -> str:
    """Distinct terms of every atom and passage, and how many term ids two of them share."""
    terms: set[str] = set()
    with svc.db.connection() as conn:
        for statement in (
            "SELECT claim || ' ' || content AS t FROM pm_atom",
            "SELECT content AS t FROM pm_passage",
        ):
            for row in conn.execute(statement):
                terms.update(sparse_terms.text_terms(row["t"]))
    ids = {sparse_terms.term_id(t) for t in terms}
    return f"{len(terms)} distinct terms, {len(terms) - len(ids)} share an id with another"


def load(svc: MemoryService, n: int, args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Atoms, passages and links loaded, projected and indexed; (conditions, query vectors).
    With --data-dir, a directory this bench already loaded with the same atoms and seed is
    reused as it is (its conditions are read back from LOADED)."""
    rt = svc.runtime
    cached = rt.embedder.get()
    corpus = load_corpus(n + 10, args.queries, args.seed)
    vectors = ClusteredVectors(cached.dim, seed=args.seed)
    qmat = vectors.make(len(corpus.queries))
    qvecs = {q: v.tolist() for q, v in zip(corpus.queries, qmat, strict=True)}
    counting = BenchEmbedder(cached.inner, qvecs)
    cached.inner = counting
    marker = svc.settings.data_dir / LOADED
    key = {"atoms": n, "seed": args.seed}
    if args.data_dir is not None and marker.is_file():
        saved = json.loads(marker.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            log(f"reusing the load in {svc.settings.data_dir}")
            svc.searcher.invalidate_stats()
            conditions = saved["conditions"]
            if args.lexical_engine != "postgres":
                ensure_sparse(svc, conditions)
                saved["conditions"] = conditions
                marker.write_text(json.dumps(saved), encoding="utf-8")
            return {**conditions, "reused": "yes"}, (corpus.queries, qvecs, counting)
        raise SystemExit(f"{svc.settings.data_dir} holds another load ({saved.get('key')})")
    atoms = make_atoms(corpus.sentences, 0, n)
    started = time.monotonic()
    counts, texts = bulk_load_passages(svc, atoms, args.seed)
    load_s = time.monotonic() - started
    prefill_cache(svc, atoms, vectors.make(len(atoms)))
    prefill_passages(svc, texts, vectors.make(len(texts)))
    log(f"loaded {counts} in {load_s:.1f} s")
    started = time.monotonic()
    report = rt.worker("bench").drain(timeout=DRAIN_TIMEOUT)
    drain_s = time.monotonic() - started
    log(f"drained {report.processed} events in {drain_s:.1f} s (parked {report.parked})")
    index = rt.vectors.get()
    started = time.monotonic()
    for entity in ("atom", "passage"):
        name = rt.projector.collection(entity)
        log(f"  optimize {name} ({index.count(name)} points) ...")
        index.optimize(name)
    hnsw_s = time.monotonic() - started
    with svc.db.connection() as conn:
        conn.execute("VACUUM ANALYZE pm_atom")
        conn.execute("VACUUM ANALYZE pm_chunk")
        conn.execute("VACUUM ANALYZE pm_citation")
        conn.execute("VACUUM ANALYZE pm_atom_link")
    svc.searcher.invalidate_stats()
    conditions = {
        **counts,
        "text": corpus.source,
        "load s": f"{load_s:.1f}",
        "drain s": f"{drain_s:.1f}",
        "events": report.processed,
        "HNSW build s": f"{hnsw_s:.1f}",
        "model calls during the load": counting.model_calls,
    }
    if args.lexical_engine != "postgres":
        ensure_sparse(svc, conditions)
    if args.data_dir is not None:
        marker.write_text(json.dumps({"key": key, "conditions": conditions}), encoding="utf-8")
    return conditions, (corpus.queries, qvecs, counting)


async def mcp_latencies(
    data_dir: Path,
    queries: Sequence[str],
    per_store: int,
    warmup: int = 5,
    lexical_engine: str = "postgres",
) -> list[list[float]]:
    """Seconds of each memory_search call per store over the real stdio transport (the server
    embeds the query with the local model). Each store gets queries of its own: the server
    keeps recent query vectors, so a query asked again would skip its embedding."""
    sys.path.insert(0, str(REPO_ROOT))
    from tests.mcp_harness import mcp_client, stop_host_and_wait, structured

    env = {
        "PEGAS_DATA_DIR": str(data_dir),
        "PEGAS_EMBEDDED_WORKER": "off",
        "PEGAS_LEXICAL_ENGINE": lexical_engine,
    }
    out: list[list[float]] = []
    async with mcp_client(env) as client:
        for q in queries[-warmup:]:
            structured(await client.call_tool("memory_search", {"query": q, "limit": LIMIT}))
        for i, store in enumerate(STORES):
            spent = []
            for q in queries[i * per_store : (i + 1) * per_store]:
                started = time.perf_counter()
                structured(
                    await client.call_tool(
                        "memory_search", {"query": q, "limit": LIMIT, "store": store}
                    )
                )
                spent.append(time.perf_counter() - started)
            out.append(spent)
    stop_host_and_wait(data_dir)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--atoms", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--mcp-queries", type=int, default=40, help="per store (distinct ones); 0 skips MCP"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile to stderr")
    parser.add_argument("--label", default="", help="a name for this run in the table")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--lexical-engine",
        choices=("postgres", "sparse", "both"),
        default="postgres",
        help="where the lexical arm runs; both: side by side in one run (see the docstring)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="load into this directory and keep it; a later run with the same --atoms and "
        "--seed reuses the load (the load and HNSW build take minutes at 100k)",
    )
    parser.add_argument(
        "--pools",
        default=str(POOL),
        help="candidates each arm is asked for (Searcher.pool), comma separated: side by side",
    )
    args = parser.parse_args(argv)
    pools = [int(p) for p in args.pools.split(",")]
    rows: list[list[Any]] = []
    with embedded_service(prefix="pegas-bench-latency-", keep=args.data_dir) as svc:
        conditions, (queries, qvecs, counting) = load(svc, args.atoms, args)
        rt = svc.runtime
        index = rt.vectors.get()
        engines = (
            ("postgres", "sparse") if args.lexical_engine == "both" else (args.lexical_engine,)
        )
        if "sparse" in engines:
            conditions["term ids (BLAKE2b, 32 bits)"] = vocabulary_collisions(svc)
        base = 0.0

        def add(what: str, values: list[float]) -> None:
            p50, p99 = percentile(values, 50), percentile(values, 99)
            rows.append(
                [
                    what,
                    ms(p50),
                    ms(p99),
                    ms(max(values)),
                    f"{p50 / base:.1f}x",
                    "yes" if p50 <= 3 * base else "no",
                    "yes" if p99 < 0.050 else "no",
                ]
            )
            log(f"  {what}: p50 {ms(p50)} ms, p99 {ms(p99)} ms")

        def dense_query(name: str, k: int = POOL) -> Callable[[str], object]:
            """The raw engine query of `k` neighbours on one collection, no payload."""
            return lambda q: index.search(name, qvecs[q], k=k, with_payload=False)

        stage_rows: list[list[Any]] = []
        for engine_name in engines:
            rt.projector.sparse = engine_name == "sparse"
            tag = f"[{engine_name}] " if len(engines) > 1 else ""
            raw: dict[str, list[float]] = {}
            sparse_raw: dict[str, list[float]] = {}
            for entity in ("atom", "passage"):
                name = rt.projector.collection(entity)

                raw[entity] = latencies(dense_query(name), queries)
                if rt.projector.sparse:

                    def sparse_engine(q: str, name: str = name) -> object:
                        terms = sparse_terms.query_vector(q)
                        return index.search_sparse(name, terms.vector, k=POOL)

                    sparse_raw[entity] = latencies(sparse_engine, queries)
            base = percentile(raw["atom"], 50)
            add(f"{tag}raw engine: index.search k={POOL}, atoms", raw["atom"])
            add(f"{tag}raw engine: index.search k={POOL}, passages", raw["passage"])
            for entity, values in sparse_raw.items():
                add(
                    f"{tag}raw engine: search_sparse k={POOL} (query terms included), {entity}s",
                    values,
                )
            for pool in pools:
                svc.searcher.pool = pool
                ptag = f"{tag}[pool {pool}] " if len(pools) > 1 else tag
                if pool != POOL:
                    for entity in ("atom", "passage"):
                        deeper = dense_query(rt.projector.collection(entity), pool)
                        add(f"{ptag}raw engine: index.search k={pool}, {entity}s",
                            latencies(deeper, queries))  # fmt: skip
                for store in STORES:

                    def search(q: str, store: StoreChoice = store) -> object:
                        return svc.search(SearchRequest(query=q, limit=LIMIT, store=store))

                    add(f"{ptag}memory_search hybrid store={store}", latencies(search, queries))
                for stage_row in stages(svc, queries):
                    stage_rows.append([f"{ptag}{stage_row[0]}", *stage_row[1:]])
            svc.searcher.pool = POOL
        rt.projector.sparse = False
        floor_rows = round_trips(svc, queries)
        if args.profile:
            log("cProfile, hybrid store=both:\n" + profile(svc, queries[:100]))
        if counting.query_misses:
            log(f"WARNING: {counting.query_misses} queries were embedded by the model")
        mcp_rows: list[list[Any]] = []
        if args.mcp_queries:
            log("  memory_search over MCP (stdio, the local model embeds the query) ...")
            rt.vectors.reset()  # the embedded store admits one process: the server's host
            for engine_name in engines:
                tag = f"[{engine_name}] " if len(engines) > 1 else ""
                spent = asyncio.run(
                    mcp_latencies(
                        svc.settings.data_dir, queries, args.mcp_queries, lexical_engine=engine_name
                    )
                )
                for store, values in zip(STORES, spent, strict=True):
                    p50, p99 = percentile(values, 50), percentile(values, 99)
                    mcp_rows.append(
                        [
                            f"{tag}MCP memory_search store={store} (embedding included)",
                            len(values),
                            ms(p50),
                            ms(p99),
                            ms(max(values)),
                        ]
                    )
                    log(f"  {tag}MCP {store}: p50 {ms(p50)} ms, p99 {ms(p99)} ms")
    load_avg = os.getloadavg()
    label = f" ({args.label})" if args.label else ""
    print(f"# bench_search_latency{label}: {args.atoms} atoms plus their passages\n")
    print(
        f"load average at the end {load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} "
        f"on {os.cpu_count()} cores; {len(queries)} queries, limit {LIMIT}, arm pool {args.pools}\n"
    )
    print(md_table(["condition", "value"], list(conditions.items())) + "\n")
    print("## Latency, query embedding excluded\n")
    headers = ["what", "p50 ms", "p99 ms", "max ms", "p50 / raw atoms", "p50 <= 3x", "p99 < 50"]
    print(md_table(headers, rows) + "\n")
    print(
        "## Hybrid store=both by stage, summed over both stores (the lexical arms run in helper "
        "threads, beside each other and the dense arms)\n"
    )
    print(md_table(["stage", "p50 ms", "p99 ms"], stage_rows) + "\n")
    print("## One PostgreSQL round trip\n")
    print(md_table(["what", "p50 ms", "p99 ms"], floor_rows) + "\n")
    if mcp_rows:
        print("## Over MCP, end to end\n")
        print(md_table(["what", "queries", "p50 ms", "p99 ms", "max ms"], mcp_rows) + "\n")


if __name__ == "__main__":
    main()
