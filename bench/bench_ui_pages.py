"""Time to answer each page of `pegas-memory ui` at 100k atoms plus their passages, beside the
same pages on a small memory (issue 31: every page under 300 ms on the server at 100k).

Two runs, each in a fresh temporary data dir on the embedded default stack:

1. a memory loaded as bench/bench_search_latency.py loads it (`load`: atoms, their passages,
   citations and random links by COPY through `_projection_data.bulk_load_passages`, the outbox
   drained into both slices, HNSW built, tables analysed), then a real repository indexed
   (`--repo`, by default this package's `code_memory/`) and two rules run (`memory_infer`), so
   claims and code both have derived edges;
2. the UI served on loopback (`UiServer`) and each page kind asked `--requests` times over real
   HTTP by one client, different ids each time (a random atom, document, symbol; the corpus's
   queries for search): overview, search, claim, document, graph JSON, graph page, code search,
   code symbol. Times are HTTP round trips on loopback (server time plus one local hop); the
   first `WARMUP` of each kind are not counted.

The small memory (`--baseline`, 2k atoms) and the big one (`--atoms`, 100k) run the same pages;
the table sets them side by side with the ratio of their p50 and p99.

Run: `python bench/bench_ui_pages.py [--atoms 100000] [--baseline 2000] [--requests 200]
[--out bench/results/ui-pages.md]`. Progress on stderr, the markdown table on stdout and in --out.
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
from bench_search_latency import load

from pegas_memory.app.requests import StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ui.auth import Guard
from pegas_memory.ui.serve import UiServer

WARMUP = 5
TARGET_S = 0.300
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


def ids(svc: MemoryService, sql: str) -> list[int]:
    with svc.db.connection() as conn:
        return [int(r["id"]) for r in conn.execute(sql.encode()).fetchall()]


def prepare(svc: MemoryService, n: int, args: argparse.Namespace) -> dict[str, Any]:
    """The memory of `n` atoms with a repository and derived edges; what was loaded."""
    conditions, (queries, _qvecs, _counting) = load(svc, n, args)
    started = time.monotonic()
    indexed = svc.store_code(str(args.repo), repo="bench-repo")
    code_s = time.monotonic() - started
    for rule in RULES:
        text = json.dumps(rule)
        svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text))
    started = time.monotonic()
    inferred = svc.infer()
    infer_s = time.monotonic() - started
    svc.runtime.worker("bench").drain(timeout=3600)
    with svc.db.connection() as conn:
        conn.execute("ANALYZE pm_atom_link, pm_code_symbol, pm_code_dependency, pm_code_inferred")
    conditions |= {
        "repository": f"{args.repo.relative_to(REPO_ROOT)} ({indexed.symbols_total} symbols, "
        f"{indexed.dependencies} edges)",
        "index s": f"{code_s:.1f}",
        "derived links / code edges": f"{inferred.derived} / {inferred.code_derived}",
        "infer s": f"{infer_s:.1f}",
    }
    log(f"prepared: {conditions}")
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
    with embedded_service(prefix="pegas-bench-ui-", ingest_roots=[args.repo]) as svc:
        prepared = prepare(svc, n, args)
        return prepared["conditions"], time_pages(
            svc, prepared["queries"], args.requests, args.seed
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--atoms", type=int, default=100_000)
    parser.add_argument("--baseline", type=int, default=2_000)
    parser.add_argument("--requests", type=int, default=200, help="per page kind")
    parser.add_argument("--queries", type=int, default=200, help="search queries to draw from")
    parser.add_argument("--repo", type=Path, default=REPO_ROOT / "pegas_memory" / "code_memory")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "results" / "ui-pages.md")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.repo = args.repo.resolve()
    small_conditions, small = run(args.baseline, args)
    big_conditions, big = run(args.atoms, args)
    load_avg = os.getloadavg()
    rows = []
    for page in PAGES:
        s50, s99 = percentile(small[page], 50), percentile(small[page], 99)
        b50, b99 = percentile(big[page], 50), percentile(big[page], 99)
        rows.append(
            [
                page,
                ms(s50),
                ms(s99),
                ms(b50),
                ms(b99),
                ms(max(big[page])),
                f"{b50 / s50:.1f}x",
                f"{b99 / s99:.1f}x",
                "yes" if b99 < TARGET_S else "**no**",
            ]
        )
    keys = list(dict.fromkeys([*small_conditions, *big_conditions]))
    conditions = [[k, small_conditions.get(k, ""), big_conditions.get(k, "")] for k in keys]
    text = "\n".join(
        [
            f"# UI page times: {args.atoms} atoms beside {args.baseline} (bench/bench_ui_pages.py)",
            "",
            f"load average at the end {load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} "
            f"on {os.cpu_count()} cores; {args.requests} requests per page kind after {WARMUP} "
            "not counted; HTTP round trips on loopback, one client.",
            "",
            md_table(["condition", f"{args.baseline} atoms", f"{args.atoms} atoms"], conditions),
            "",
            md_table(
                [
                    "page",
                    f"{args.baseline:,} atoms p50 ms",
                    "p99 ms",
                    f"{args.atoms:,} atoms p50 ms",
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
    print(text)
    args.out.write_text(text, encoding="utf-8")
    log(f"written to {args.out}")


if __name__ == "__main__":
    main()
