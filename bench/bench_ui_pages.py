"""Time to answer each page of `pegas-memory ui` at 100k atoms plus their passages, beside the
same pages on a small memory (issue 31: every page under 300 ms on the server at 100k).

Two runs, each in a fresh temporary data dir on the embedded default stack:

1. a memory loaded as bench/bench_search_latency.py loads it (atoms, their passages, citations
   and random links by COPY through `_projection_data.bulk_load_passages`, the outbox drained
   into both slices, tables analysed; HNSW built only with `--hnsw`), then a real repository
   indexed (`--repo`, by default this package's `code_memory/`) and three rules run
   (`memory_infer`), so claims (and code, when its modules import each other) get derived edges;
2. the UI served on loopback (`UiServer`) and each page kind asked `--requests` times over real
   HTTP by one client, different ids each time (a random atom, document, symbol; the corpus's
   queries for search): overview, search, claim, document, graph JSON, graph page, code search,
   code symbol. Times are HTTP round trips on loopback (server time plus one local hop); the
   first `WARMUP` of each kind are not counted.

The small memory (`--baseline`, 2k atoms) and the big one (`--atoms`, 100k) run the same pages;
the table sets them side by side with the ratio of their p50 and p99.

Run: `python bench/bench_ui_pages.py [--atoms 100000] [--baseline 2000] [--requests 200]
[--hnsw] [--out bench/results/ui-pages.md]`; or each size alone (`--only N --raw FILE`, e.g. both
at once on a shared machine) and then `--combine SMALL BIG`. Progress on stderr, the markdown
table on stdout and in --out.

`--data-dir DIR` keeps the memory in DIR and reuses it: a directory bench_search_latency.py
loaded (`--data-dir` there, same atoms and seed: its load, drain and HNSW take most of an hour
at 100k) gets the repository and the rules once, and a later run times its pages again at once
(e.g. before and after a change: `--only N --raw A.json --data-dir DIR`, change, again into
B.json, then `--combine A.json B.json --labels before after`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _common import REPO_ROOT, embedded_service, log, md_table, ms, percentile
from _projection_data import (
    BenchEmbedder,
    ClusteredVectors,
    bulk_load_passages,
    load_corpus,
    make_atoms,
    prefill_cache,
    prefill_passages,
)

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ui.auth import Guard
from pegas_memory.ui.serve import UiServer

WARMUP = 5
TARGET_S = 0.300
LOADED = "bench-ui-pages.json"  # in a kept data dir: what this bench prepared there
LATENCY_LOADED = "bench-search-latency.json"  # what bench_search_latency loaded there
PENDING = "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL"
RULES = (
    {"if": ["depends_on", "depends_on"], "then": "depends_on"},
    {"if": "cause", "then": "related"},
    {"if": "imports", "then": "depends_on"},
)
PAGES = (
    "overview",
    "search",
    "claim",
    "document",
    "graph JSON (claim)",
    "graph JSON (symbol)",
    "graph page",
    "code search",
    "code symbol",
)


def shown_path(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)


def ids(svc: MemoryService, sql: str) -> list[int]:
    with svc.db.connection() as conn:
        return [int(r["id"]) for r in conn.execute(sql.encode()).fetchall()]


def load(svc: MemoryService, n: int, args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """`n` atoms, their passages, citations and links loaded by COPY and projected, as
    bench_search_latency loads them (its query vectors from a table: no model call for a
    search); HNSW built only with `--hnsw` (else the vector engine scans). (conditions, queries)
    A data dir bench_search_latency loaded with the same atoms and seed is taken as it is."""
    rt = svc.runtime
    cached = rt.embedder.get()
    corpus = load_corpus(n + 10, args.queries, args.seed)
    vectors = ClusteredVectors(cached.dim, seed=args.seed)
    qvecs = {
        q: v.tolist()
        for q, v in zip(corpus.queries, vectors.make(len(corpus.queries)), strict=True)
    }
    cached.inner = BenchEmbedder(cached.inner, qvecs)
    loaded = svc.settings.data_dir / LATENCY_LOADED
    if args.data_dir is not None and loaded.is_file():
        saved = json.loads(loaded.read_text(encoding="utf-8"))
        if saved.get("key") != {"atoms": n, "seed": args.seed}:
            raise SystemExit(f"{args.data_dir} holds another load ({saved.get('key')})")
        log(f"reusing bench_search_latency's load in {args.data_dir}")
        return {**saved["conditions"], "loaded by": "bench_search_latency.py"}, corpus.queries
    atoms = make_atoms(corpus.sentences, 0, n)
    started = time.monotonic()
    counts, texts = bulk_load_passages(svc, atoms, args.seed)
    prefill_cache(svc, atoms, vectors.make(len(atoms)))
    prefill_passages(svc, texts, vectors.make(len(texts)))
    load_s = time.monotonic() - started
    started = time.monotonic()
    report = rt.worker("bench").drain(timeout=7200)
    drain_s = time.monotonic() - started
    log(f"loaded {counts} in {load_s:.1f} s, drained {report.processed} events in {drain_s:.1f} s")
    hnsw = "not built (the engine scans)"
    if args.hnsw:
        started = time.monotonic()
        index = rt.vectors.get()
        for entity in ("atom", "passage"):
            index.optimize(rt.projector.collection(entity))
        hnsw = f"built in {time.monotonic() - started:.1f} s"
    with svc.db.connection() as conn:
        for statement in (
            "VACUUM ANALYZE pm_atom",
            "VACUUM ANALYZE pm_chunk",
            "VACUUM ANALYZE pm_citation",
            "VACUUM ANALYZE pm_atom_link",
        ):
            conn.execute(statement.encode())
    svc.searcher.invalidate_stats()
    conditions = {
        **counts,
        "text": corpus.source,
        "load s": f"{load_s:.1f}",
        "drain s": f"{drain_s:.1f}",
        "events": report.processed,
        "HNSW": hnsw,
    }
    return conditions, corpus.queries


def prepare(svc: MemoryService, n: int, args: argparse.Namespace) -> dict[str, Any]:
    """The memory of `n` atoms with a repository and derived edges; what was loaded. A kept
    data dir this bench prepared already (`--data-dir`) is reused as it is."""
    marker = svc.settings.data_dir / LOADED
    if args.data_dir is not None and marker.is_file():
        saved = json.loads(marker.read_text(encoding="utf-8"))
        if saved.get("key") == {"atoms": n, "seed": args.seed}:
            log(f"reusing the prepared memory in {args.data_dir}")
            _, queries = load(svc, n, args)  # the query vectors again; the load is taken
            svc.searcher.invalidate_stats()
            return {"conditions": {**saved["conditions"], "reused": "yes"}, "queries": queries}
        raise SystemExit(f"{args.data_dir} holds another memory ({saved.get('key')})")
    conditions, queries = load(svc, n, args)
    started = time.monotonic()
    indexed = svc.store_code(str(args.repo), repo="bench-repo")
    code_s = time.monotonic() - started
    for rule in RULES:
        text = json.dumps(rule)
        svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text))
    started = time.monotonic()
    inferred = svc.infer()
    infer_s = time.monotonic() - started
    report = svc.runtime.worker("bench").drain(timeout=args.drain_timeout)
    with svc.db.connection() as conn:
        conn.execute("ANALYZE pm_atom_link, pm_code_symbol, pm_code_dependency, pm_code_inferred")
        left = conn.execute(PENDING).fetchone()
    conditions |= {
        "outbox events left unprojected": int(left["n"]) if left else 0,
        "repository": f"{shown_path(args.repo)} ({indexed.symbols_total} symbols, "
        f"{indexed.dependencies} edges)",
        "index s": f"{code_s:.1f}",
        "derived links / code edges": f"{inferred.derived} / {inferred.code_derived}",
        "infer s": f"{infer_s:.1f}",
    }
    log(f"prepared: {conditions} (drain: {report.processed} events)")
    if args.data_dir is not None:
        key = {"atoms": n, "seed": args.seed}
        marker.write_text(json.dumps({"key": key, "conditions": conditions}), encoding="utf-8")
    return {"conditions": conditions, "queries": queries}


def time_pages(
    svc: MemoryService, queries: Sequence[str], requests: int, seed: int
) -> dict[str, list[float]]:
    """Seconds of each request, by page kind, over HTTP on loopback."""
    rng = random.Random(seed)
    atoms = ids(svc, "SELECT id FROM pm_atom WHERE type <> 'logical_rule'")
    docs = ids(svc, "SELECT id FROM pm_document WHERE is_current AND kind <> 'code_repo'")
    symbols = ids(svc, "SELECT id FROM pm_code_symbol WHERE kind <> 'module'")
    with svc.db.connection() as conn:  # code search asks for names of real symbols
        words = [
            r["name"]
            for r in conn.execute(
                b"SELECT DISTINCT name FROM pm_code_symbol WHERE kind <> 'module' LIMIT 500"
            ).fetchall()
        ]
    paths: dict[str, Callable[[], str]] = {
        "overview": lambda: "/",
        "search": lambda: "/search?" + str(httpx.QueryParams({"q": rng.choice(queries)})),
        "claim": lambda: f"/atom/{rng.choice(atoms)}",
        "document": lambda: f"/document/{rng.choice(docs)}",
        "graph JSON (claim)": lambda: f"/graph.json?node=atom:{rng.choice(atoms)}",
        "graph JSON (symbol)": lambda: f"/graph.json?node=symbol:{rng.choice(symbols)}",
        "graph page": lambda: f"/graph?node=atom:{rng.choice(atoms)}",
        "code search": lambda: "/code?" + str(httpx.QueryParams({"q": rng.choice(words)})),
        "code symbol": lambda: f"/code/symbol/{rng.choice(symbols)}",
    }
    out: dict[str, list[float]] = {}
    server = UiServer(svc, Guard("bench-" + "t" * 24), "127.0.0.1", 0).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            for page in PAGES:
                spent = []
                for i in range(requests + WARMUP):
                    path = paths[page]()
                    started = time.perf_counter()
                    answer = http.get(path)
                    took = time.perf_counter() - started
                    if answer.status_code != 200:
                        raise SystemExit(
                            f"{path} answered {answer.status_code}: {answer.text[:300]}"
                        )
                    if i >= WARMUP:
                        spent.append(took)
                out[page] = spent
                log(
                    f"  {page}: p50 {ms(percentile(spent, 50))} ms, "
                    f"p99 {ms(percentile(spent, 99))} ms"
                )
    finally:
        server.stop()
    return out


def run(n: int, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, list[float]]]:
    log(f"memory of {n} atoms ...")
    with embedded_service(
        prefix="pegas-bench-ui-", keep=args.data_dir, ingest_roots=[args.repo]
    ) as svc:
        prepared = prepare(svc, n, args)
        started = os.getloadavg()[0]
        times = time_pages(svc, prepared["queries"], args.requests, args.seed)
        conditions = prepared["conditions"] | {
            "load average (1 min) when timing began / ended": f"{started:.1f} / "
            f"{os.getloadavg()[0]:.1f}",
            "timed at (UTC)": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        }
        return conditions, times


def ratio(r: float) -> str:
    return f"{r:.2f}x" if r < 0.1 else f"{r:.1f}x"


def table(args: argparse.Namespace, small: dict[str, Any], big: dict[str, Any]) -> str:
    load_avg = os.getloadavg()
    rows = []
    for page in PAGES:
        s50, s99 = percentile(small["times"][page], 50), percentile(small["times"][page], 99)
        b50, b99 = percentile(big["times"][page], 50), percentile(big["times"][page], 99)
        rows.append(
            [
                page,
                ms(s50),
                ms(s99),
                ms(b50),
                ms(b99),
                ms(max(big["times"][page])),
                ratio(b50 / s50),
                ratio(b99 / s99),
                "yes" if b99 < TARGET_S else "**no**",
            ]
        )
    sc, bc = small["conditions"], big["conditions"]
    conditions = [[k, sc.get(k, ""), bc.get(k, "")] for k in dict.fromkeys([*sc, *bc])]
    a, b = small["atoms"], big["atoms"]
    if args.labels:  # the same memory twice (before and after a change)
        title = f"# UI page times at {b:,} atoms: {args.labels[0]} and {args.labels[1]}"
        a, b = (f"{n:,} atoms, {label}" for n, label in zip((a, b), args.labels, strict=True))
    else:
        a, b = f"{a:,} atoms", f"{b:,} atoms"
        title = f"# UI page times: {b} beside {a} (bench/bench_ui_pages.py)"
    return "\n".join(
        [
            title,
            "",
            f"load average when the table was made {load_avg[0]:.1f} / {load_avg[1]:.1f} / "
            f"{load_avg[2]:.1f} on {os.cpu_count()} cores; {len(big['times'][PAGES[0]])} "
            f"requests per page kind after {WARMUP} not counted; HTTP round trips on loopback, "
            "one client.",
            "",
            md_table(["condition", a, b], conditions),
            "",
            md_table(
                [
                    "page",
                    f"{a} p50 ms",
                    "p99 ms",
                    f"{b} p50 ms",
                    "p99 ms",
                    "max ms",
                    "p50 ratio",
                    "p99 ratio",
                    "p99 < 300 ms",
                ],
                rows,
            ),
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--atoms", type=int, default=100_000)
    parser.add_argument("--baseline", type=int, default=2_000)
    parser.add_argument("--requests", type=int, default=200, help="per page kind")
    parser.add_argument("--queries", type=int, default=200, help="search queries to draw from")
    parser.add_argument("--hnsw", action="store_true", help="build HNSW after the load")
    parser.add_argument("--repo", type=Path, default=REPO_ROOT / "pegas_memory" / "code_memory")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "ui-pages.md")
    parser.add_argument(
        "--only", type=int, default=None, help="time one memory of this many atoms into --raw"
    )
    parser.add_argument("--raw", type=Path, default=None, help="JSON of one --only run")
    parser.add_argument(
        "--combine", type=Path, nargs=2, default=None, help="two --raw files: small, big"
    )
    parser.add_argument(
        "--labels", nargs=2, default=None, help="with --combine: name the two runs (before after)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the memory here and reuse it (also a dir bench_search_latency.py loaded)",
    )
    parser.add_argument("--drain-timeout", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.repo = args.repo.resolve()
    if args.only is not None:  # one size, e.g. beside another run on a shared machine
        conditions, times = run(args.only, args)
        raw = {"atoms": args.only, "conditions": conditions, "times": times}
        (args.raw or Path(f"ui-pages-{args.only}.json")).write_text(json.dumps(raw))
        return
    if args.combine is not None:
        small, big = (json.loads(p.read_text()) for p in args.combine)
    else:
        conditions, times = run(args.baseline, args)
        small = {"atoms": args.baseline, "conditions": conditions, "times": times}
        conditions, times = run(args.atoms, args)
        big = {"atoms": args.atoms, "conditions": conditions, "times": times}
    text = table(args, small, big)
    print(text)
    args.out.write_text(text, encoding="utf-8")
    log(f"written to {args.out}")


if __name__ == "__main__":
    main()
