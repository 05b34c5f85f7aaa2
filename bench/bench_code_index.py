"""Benchmark of code memory on click 8.1.7: indexing into a fresh embedded database next to a bare
tree-sitter parse and extract+resolve alone (same files, same run), a re-index with no change,
projecting the graph slice, and who-calls agreement through CodeMemory.code_graph with the
derived reference `click_8.1.7_ast_callsites.json` (see ../shared/data/code/SOURCE.md: a
name-based baseline, not a ground truth). Prints markdown tables on stdout, among them the
ratios to the bare parse that issue 7 sets a target for (within 3x).

The bare parse, extract_file and resolve are timed as the best wall time of a few runs (the
machine is shared); store_code's first index can only run once per database, so it is one run.

Usage: .venv/bin/python bench/bench_code_index.py   (PEGAS_SHARED_DATA overrides the data path)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import embedded_service, log, md_table, shared_data_dir

from pegas_memory.app.requests import CodeGraphRequest
from pegas_memory.code_memory.graph import resolve
from pegas_memory.code_memory.index import CodeMemory
from pegas_memory.code_memory.symbols import (
    extract_file,
    iter_source_files,
    language_for,
    parse,
)

T = TypeVar("T")


REPEATS = 3
TARGET_X = 3.0  # issue 7: indexing within 3x a bare tree-sitter parse


def _best(fn: Callable[[], T]) -> tuple[float, T]:
    """The smallest wall time of REPEATS runs of ``fn`` and its last result."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _ratio_row(step: str, seconds: float, bare: float) -> list[str]:
    x = seconds / bare
    return [step, f"{seconds:.3f}", f"{x:.1f}x", "yes" if x <= TARGET_X else "no"]


def main() -> None:
    code_dir = shared_data_dir() / "code"
    repo_dir = code_dir / "click-8.1.7"
    reference = json.loads((code_dir / "click_8.1.7_ast_callsites.json").read_text("utf-8"))
    files = [
        (p.relative_to(repo_dir).as_posix(), p.read_bytes()) for p in iter_source_files(repo_dir)
    ]

    log(f"bare parse, extract_file, resolve of {len(files)} files (best of {REPEATS})")
    bare, _ = _best(lambda: [parse(language_for(rel) or "python", data) for rel, data in files])
    extract, indexes = _best(lambda: [extract_file(rel, data) for rel, data in files])
    resolve_s, deps = _best(lambda: resolve(indexes))
    n_symbols = sum(len(i.symbols) for i in indexes)

    with embedded_service("pegas-bench-code-", ingest_roots=[str(code_dir)]) as service:
        code = CodeMemory(service.settings, service.db, service.runtime)
        log("store_code, first index")
        first = code.store_code(str(repo_dir))
        log("store_code, no change")
        start = time.perf_counter()
        again = code.store_code(str(repo_dir))
        unchanged = time.perf_counter() - start
        log("store_code, forced re-extraction (no row changes)")
        forced = code.store_code(str(repo_dir), force=True)
        log("code_graph build (drain the outbox into FalkorDB)")
        start = time.perf_counter()
        code.code_graph(
            CodeGraphRequest(repo=first.repo, symbol="click.core.Context.invoke", build=True)
        )
        build = time.perf_counter() - start

        log(f"who-calls: {len(reference['who_calls_unique_names'])} queries")
        tp = fp = fn = exact = 0
        latencies: list[float] = []
        sources: set[str] = set()
        for case in reference["who_calls_unique_names"]:
            start = time.perf_counter()
            answer = code.code_graph(
                CodeGraphRequest(
                    repo=first.repo, symbol=case["target"], relation="callers", limit=200
                )
            )
            latencies.append(time.perf_counter() - start)
            sources.add(answer.source)
            # The reference covers src/click only: callers from tests and examples are not in it.
            got = {p.end.qualified_name for p in answer.paths if p.end.path.startswith("src/")}
            want = set(case["callers"])
            tp += len(got & want)
            fp += len(got - want)
            fn += len(want - got)
            exact += got == want
        latencies.sort()

    rows = [
        ["files / symbols / dependency edges", f"{len(files)} / {n_symbols} / {len(deps)}"],
        ["bare tree-sitter parse (s)", f"{bare:.2f}"],
        ["extract_file, all files (s)", f"{extract:.2f}"],
        ["resolve, whole repository (s)", f"{resolve_s:.2f}"],
        ["store_code, first index (s)", f"{first.seconds:.2f}"],
        ["store_code symbols/s", f"{first.symbols_total / first.seconds:.0f}"],
        ["store_code / (extract + resolve)", f"{first.seconds / (extract + resolve_s):.2f}x"],
        [
            "rows written: symbols / dependencies (unresolved)",
            f"{first.symbols_total} / {first.dependencies} ({first.unresolved})",
        ],
        ["re-index, no change (s)", f"{unchanged:.3f} ({again.files_changed} files changed)"],
        [
            "re-index, force=True (s)",
            f"{forced.seconds:.2f} ({forced.symbols_updated} rows updated)",
        ],
        ["code_graph build=True: drain outbox to FalkorDB (s)", f"{build:.2f}"],
    ]
    print("### Indexing click 8.1.7\n")
    print(md_table(["measure", "value"], rows))
    print(f"\n### Time relative to a bare tree-sitter parse (target: within {TARGET_X:.0f}x)\n")
    print(
        md_table(
            ["step", "s", "x bare parse", f"within {TARGET_X:.0f}x"],
            [
                [f"bare tree-sitter parse ({len(files)} files)", f"{bare:.3f}", "1.0x", "-"],
                _ratio_row("extract_file + resolve", extract + resolve_s, bare),
                _ratio_row("store_code, first index (with Postgres writes)", first.seconds, bare),
            ],
        )
    )
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    cases = len(reference["who_calls_unique_names"])
    print("\n### Who-calls agreement with the derived ast reference (src/click callers)\n")
    print(
        md_table(
            ["queries", "answered from", "precision", "recall", "exact sets", "p50 ms", "max ms"],
            [
                [
                    cases,
                    "/".join(sorted(sources)),
                    f"{precision:.3f}",
                    f"{recall:.3f}",
                    f"{exact}/{cases}",
                    f"{latencies[len(latencies) // 2] * 1000:.1f}",
                    f"{latencies[-1] * 1000:.1f}",
                ]
            ],
        )
    )


if __name__ == "__main__":
    main()
