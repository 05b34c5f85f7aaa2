"""The lexical (BM25) arm at scale: latency, and how much of exact BM25's top 10 pruning keeps.

    PEGAS_STATEMENT_TIMEOUT_MS=900000 python bench/bench_lexical.py --sizes 10000,100000

For each size, atoms (SciFact sentences topped up with sentences sampled from their words, as in
bench_projection.py) are loaded by COPY into a throwaway embedded pegas-memory; SciFact claims
are the queries (never stored). Each query runs through `LexicalIndex.search` (k = 50, the arm's
pool in the hybrid) with the shipped candidate budgets, and again with the budgets lifted (every
document sharing a term is scored: exact BM25). Printed: p50/p99 per query, cold (first sight of
the query's terms) and warm (frequencies cached), for both, and the pruned arm's agreement with
the exact one: overlap of the top 10 and same first hit.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from _common import embedded_service, log, md_table, ms, percentile
from _projection_data import bulk_load, load_corpus, make_atoms

from pegas_memory.app.service import MemoryService
from pegas_memory.search import lexical
from pegas_memory.search.lexical import LexicalIndex

K = 50


def run(svc: MemoryService, queries: Sequence[str]) -> tuple[list[float], list[float], dict]:
    """(cold latencies, warm latencies, top-10 ids per query) with a fresh LexicalIndex."""
    index = LexicalIndex()
    cold: list[float] = []
    warm: list[float] = []
    tops: dict[str, list[int]] = {}
    with svc.db.connection() as conn:
        for target in (cold, warm):
            for q in queries:
                started = time.perf_counter()
                found = index.search(conn, q, "atom", K)
                target.append(time.perf_counter() - started)
                tops[q] = [i for i, _ in found.hits[:10]]
    return cold, warm, tops


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    corpus = load_corpus(max(sizes) + 10, args.queries, args.seed)
    queries = corpus.queries[: args.queries]
    log(f"text: {corpus.source}; {len(queries)} queries")
    shipped = (lexical.RARE_BUDGET, lexical.PAIR_BUDGET, lexical.CANDIDATE_CAP)
    rows: list[list[object]] = []
    agreement: list[list[object]] = []
    for n in sizes:
        with embedded_service() as svc:
            log(f"=== {n} atoms: loading ...")
            bulk_load(svc, make_atoms(corpus.sentences, 0, n), args.seed)
            with svc.db.connection() as conn:
                conn.execute("VACUUM ANALYZE pm_atom")
            results = {}
            for label, budgets in (("pruned (shipped)", shipped), ("exact", (10**9,) * 3)):
                lexical.RARE_BUDGET, lexical.PAIR_BUDGET, lexical.CANDIDATE_CAP = budgets
                try:
                    cold, warm, tops = run(svc, queries)
                finally:
                    lexical.RARE_BUDGET, lexical.PAIR_BUDGET, lexical.CANDIDATE_CAP = shipped
                results[label] = tops
                cells = [ms(percentile(v, p)) for v in (cold, warm) for p in (50, 99)]
                rows.append([n, label, *cells])
                log(f"  {label}: cold p50/p99 {cells[0]}/{cells[1]} ms, warm {cells[2]}/{cells[3]}")
            exact, pruned = results["exact"], results["pruned (shipped)"]
            overlap = sum(
                len(set(pruned[q]) & set(exact[q])) / max(1, len(exact[q])) for q in queries
            ) / len(queries)
            same_top = sum(pruned[q][:1] == exact[q][:1] for q in queries) / len(queries)
            agreement.append([n, f"{overlap:.3f}", f"{same_top:.3f}"])
    print(f"\n## Lexical arm latency (k={K}; budgets rare/pair/cap = {shipped})\n")
    print(
        md_table(
            ["atoms", "candidates", "cold p50 ms", "cold p99 ms", "warm p50 ms", "warm p99 ms"],
            rows,
        )
    )
    print("\n## Pruned vs exact BM25\n")
    print(md_table(["atoms", "overlap@10", "same top-1"], agreement))


if __name__ == "__main__":
    main()
