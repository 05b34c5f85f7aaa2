"""Benchmark: transitive closure to fixpoint, semi-naive vs naive vs networkx, 10k and 100k edges.

The graphs are generated (seeded), shaped so that the closure stays tractable in memory: many
small components, since a transitive closure over one big sparse random DAG is quadratic in its
size. Shapes: random DAG components (20 nodes, 40 edges), random recursive trees (100 nodes,
child -> parent) and strongly connected components (8-node cycle plus 4 chords). Each row also
times the truth-maintenance path (:func:`reconcile` after deleting 1% of the extracted edges).

Run: ``.venv/bin/python bench/bench_inference.py``; ``PEGAS_BENCH_SIZES=10000`` limits the sizes,
``PEGAS_BENCH_NAIVE_BUDGET_S`` (default 120) skips naive runs estimated to take longer.
Prints a markdown table of CPU seconds (the machine is shared; wall time would measure the load).
``bench/bench_inference.py code`` runs the inference-over-code comparison instead
(bench/bench_inference_code.py: the seed's rules on click against networkx).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pegas_memory.reasoning.inference import Edge, infer, parse_rule, reconcile

T = TypeVar("T")
RULE = parse_rule(1, '{"if": ["d", "d"], "then": "d"}')


def dag_components(edges: int, rng: random.Random) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    base = 0
    while len(out) < edges:
        pairs = {tuple(sorted(rng.sample(range(20), 2))) for _ in range(60)}
        out.extend((base + a, base + b) for a, b in list(pairs)[:40])
        base += 20
    return out[:edges]


def tree_components(edges: int, rng: random.Random) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    base = 0
    while len(out) < edges:
        out.extend((base + child, base + rng.randrange(child)) for child in range(1, 100))
        base += 100
    return out[:edges]


def cyclic_components(edges: int, rng: random.Random) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    base = 0
    while len(out) < edges:
        ring = {(i, (i + 1) % 8) for i in range(8)}
        while len(ring) < 12:
            a, b = rng.sample(range(8), 2)
            ring.add((a, b))
        out.extend((base + a, base + b) for a, b in sorted(ring))
        base += 8
    return out[:edges]


SHAPES: dict[str, Callable[[int, random.Random], list[tuple[int, int]]]] = {
    "DAG components (20 nodes, 40 edges)": dag_components,
    "trees (100 nodes, child -> parent)": tree_components,
    "cyclic components (8-cycle + 4 chords)": cyclic_components,
}


def timed(run: Callable[[], T]) -> tuple[float, T]:
    """CPU seconds of this process: the machine is shared, so wall time measures the neighbours."""
    started = time.process_time()
    value = run()
    return time.process_time() - started, value


def main() -> None:
    sizes = [int(s) for s in os.environ.get("PEGAS_BENCH_SIZES", "10000,100000").split(",")]
    budget = float(os.environ.get("PEGAS_BENCH_NAIVE_BUDGET_S", "120"))
    rows = []
    naive_rate: dict[str, float] = {}
    for shape, build in SHAPES.items():
        for size in sizes:
            pairs = build(size, random.Random(size))
            edges = [Edge(a, b, "d") for a, b in pairs]
            graph = nx.DiGraph(pairs)
            nx_s, closure = timed(partial(nx.transitive_closure, graph, reflexive=None))
            expected = set(closure.edges())
            semi_s, semi = timed(partial(infer, edges, [RULE]))
            found = {(e.src, e.dst) for e in semi.derived} | set(pairs)
            estimate = naive_rate.get(shape, 0.0) * size
            if estimate <= budget:
                naive_s, naive = timed(partial(infer, edges, [RULE], strategy="naive"))
                naive_rate[shape] = naive_s / size
                naive_cell = f"{naive_s:.2f} ({naive.rounds} rounds)"
                assert naive.derived == semi.derived
            else:
                naive_cell = f"skipped (estimated {estimate:.0f} s > {budget:.0f} s)"
            dead = [(a, b, "d") for a, b in random.Random(7).sample(pairs, max(1, size // 100))]
            tms_s, _ = timed(partial(reconcile, edges, semi.derived, [RULE], deleted_edges=dead))
            rows.append(
                (
                    shape,
                    f"{len(edges):,}",
                    f"{len(expected):,}",
                    f"{semi_s:.2f} ({semi.rounds} rounds)",
                    naive_cell,
                    f"{nx_s:.2f}",
                    f"{tms_s:.2f}",
                    f"{semi.chains_joined:,}",
                    "yes" if found == expected else "NO",
                )
            )
    header = (
        "shape",
        "edges",
        "closure edges",
        "semi-naive CPU s",
        "naive CPU s",
        "networkx CPU s",
        "reconcile 1% deleted CPU s",
        "chains joined (semi)",
        "= networkx",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nPython {sys.version.split()[0]}, networkx {nx.__version__}; one process; load average "
        f"{load} on {os.cpu_count()} cores. Semi-naive and reconcile also record up to 3 "
        "derivations per inferred edge; networkx does not."
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["code"]:
        from bench.bench_inference_code import main as code_main

        code_main()
    else:
        main()
