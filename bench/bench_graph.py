"""Benchmark of the graph slice on the embedded FalkorDB: batched upserts of 100k edges, 2-hop
neighbourhood latency, deletes, and a restart that replays the AOF. Prints a markdown table.

Synthetic data (a random atom graph), so it needs nothing from ../shared/data.
Usage: .venv/bin/python bench/bench_graph.py [--atoms 20000] [--edges 100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pegas_memory.memgraph_store.cypher import AtomNode, CypherGraphStore, LinkEdge
from pegas_memory.memgraph_store.falkor import open_embedded_graph, stop_embedded_graph

KINDS = ["inference", "cause", "reference", "contradicts", "depends_on", "calls", "defines"]


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _latencies(actions: list[Callable[[], object]]) -> tuple[float, float]:
    samples = sorted(_timed(a) * 1000 for a in actions)
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return statistics.median(samples), p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--atoms", type=int, default=20_000)
    parser.add_argument("--edges", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(42)
    atoms = [
        AtomNode(i, "fact", "verified", rng.random(), f"claim number {i} " * 4)
        for i in range(1, args.atoms + 1)
    ]
    links = [
        LinkEdge(
            i,
            rng.randint(1, args.atoms),
            rng.randint(1, args.atoms),
            rng.choice(KINDS),
            rng.random(),
            rng.random() < 0.2,
            "bench",
        )
        for i in range(1, args.edges + 1)
    ]
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="pegas-bench-graph-") as tmp:
        data_dir = Path(tmp)
        store: CypherGraphStore = open_embedded_graph(data_dir, batch_rows=args.batch)
        try:
            store.ensure_schema()
            t = _timed(lambda: store.upsert_atoms(atoms))
            rows.append((f"upsert {len(atoms):,} atoms", f"{t:.2f} s", f"{len(atoms) / t:,.0f}/s"))
            t = _timed(lambda: store.upsert_links(links))
            rows.append(
                (f"upsert {len(links):,} RELATES edges", f"{t:.2f} s", f"{len(links) / t:,.0f}/s")
            )
            again = links[: len(links) // 10]
            t = _timed(lambda: store.upsert_links(again))
            rows.append(
                (
                    f"re-upsert {len(again):,} edges (no-op)",
                    f"{t:.2f} s",
                    f"{len(again) / t:,.0f}/s",
                )
            )
            starts = [rng.randint(1, args.atoms) for _ in range(args.queries)]
            for label, kwargs in [
                ("2-hop neighbours, both ways", {"direction": "both"}),
                ("2-hop neighbours, out, kinds=[cause, reference]", {
                    "direction": "out", "kinds": ["cause", "reference"],
                }),
            ]:  # fmt: skip
                p50, p99 = _latencies(
                    [
                        lambda s=s, kw=kwargs: store.neighbours("Atom", s, depth=2, limit=50, **kw)  # type: ignore[misc]
                        for s in starts
                    ]
                )
                rows.append(
                    (f"{label} (limit 50) x{len(starts)}", f"p50 {p50:.2f} ms", f"p99 {p99:.2f} ms")
                )
            pairs = [(rng.randint(1, args.atoms), rng.randint(1, args.atoms)) for _ in starts]
            p50, p99 = _latencies(
                [
                    lambda a=a, b=b: store.paths("Atom", a, b, max_depth=3, limit=10)
                    for a, b in pairs
                ]  # type: ignore[misc]
            )
            rows.append(
                (
                    f"paths src->dst, max_depth 3 x{len(pairs)}",
                    f"p50 {p50:.2f} ms",
                    f"p99 {p99:.2f} ms",
                )
            )
            t = _timed(store.edge_counts)
            rows.append(("edge_counts (by kind, inferred)", f"{t * 1000:.0f} ms", ""))
            t = _timed(lambda: sum(1 for _ in store.iter_edge_ids("RELATES")))
            rows.append((f"iter_edge_ids over {len(links):,}", f"{t:.2f} s", ""))
            gone = [link.id for link in links[: len(links) // 10]]
            t = _timed(lambda: store.delete_links(gone))
            rows.append((f"delete {len(gone):,} edges", f"{t:.2f} s", f"{len(gone) / t:,.0f}/s"))
            doomed = [a.id for a in atoms[: len(atoms) // 10]]
            t = _timed(lambda: store.delete_atoms(doomed))
            rows.append(
                (f"detach-delete {len(doomed):,} atoms", f"{t:.2f} s", f"{len(doomed) / t:,.0f}/s")
            )
            edges_left = store.edge_counts()["RELATES"]
        finally:
            store.close()  # last user: the server shuts down
        t = _timed(lambda: open_embedded_graph(data_dir).close())
        reopened = open_embedded_graph(data_dir)
        try:
            assert reopened.edge_counts()["RELATES"] == edges_left
        finally:
            reopened.close()
            stop_embedded_graph(data_dir)
        rows.append(
            (f"restart: start server + replay AOF ({edges_left:,} edges)", f"{t:.2f} s", "")
        )
    print(f"Graph slice on embedded FalkorDB, batches of {args.batch} rows, one process\n")
    print("| operation | time | rate / p99 |")
    print("|---|---|---|")
    for op, time_text, rate in rows:
        print(f"| {op} | {time_text} | {rate} |")


if __name__ == "__main__":
    main()
