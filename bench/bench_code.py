"""Benchmark of code symbol extraction and call resolution; prints markdown tables.

1. The PyCG micro-benchmark (119 cases, ground-truth call graphs): edge precision, recall and
   cases passed (edge-set equality), overall and per category.
2. click 8.1.7: indexing time and symbols/s of extract_file + resolve next to a bare tree-sitter
   parse of the same files, and precision/recall of resolved call edges against the derived
   who-calls reference (click_8.1.7_ast_callsites.json).

Data: $PEGAS_SHARED_DATA (default: ../shared/data relative to the repository root).
Run: .venv/bin/python bench/bench_code.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pegas_memory.code_memory.graph import Dependency, resolve
from pegas_memory.code_memory.symbols import FileIndex, extract_file, parse

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("PEGAS_SHARED_DATA", ROOT.parent / "shared" / "data"))


def pycg_module(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def pycg_edges(case: Path) -> set[tuple[str, str]]:
    files = []
    for path in sorted(case.rglob("*.py")):
        rel = path.relative_to(case)
        if rel == Path("__init__.py"):
            continue
        files.append(extract_file(rel.as_posix(), path.read_bytes(), module=pycg_module(rel)))
    classes = {s.qualified_name for f in files for s in f.symbols if s.kind == "class"}
    edges = set()
    for dep in resolve(files):
        if dep.kind != "calls" or dep.target_kind == "unresolved":
            continue
        if dep.dst is not None and dep.dst in classes:
            continue  # PyCG records a constructor call only as a call of __init__
        name = dep.dst_name
        if name.startswith("builtins."):
            name = "<builtin>." + name.removeprefix("builtins.")
        edges.add((dep.src, name))
    return edges


def bench_pycg(snippets: Path) -> list[str]:
    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # tp fp fn pass cases
    failures = []
    for truth_file in sorted(snippets.glob("*/*/callgraph.json")):
        case = truth_file.parent
        truth = {(k, v) for k, vs in json.loads(truth_file.read_text()).items() for v in vs}
        got = pycg_edges(case)
        row = per_cat[case.parent.name]
        row[0] += len(got & truth)
        row[1] += len(got - truth)
        row[2] += len(truth - got)
        row[3] += got == truth
        row[4] += 1
        if got != truth:
            failures.append(
                f"{case.parent.name}/{case.name}: +{sorted(got - truth)} -{sorted(truth - got)}"
            )
    lines = ["| category | cases | passed | precision | recall |", "|---|---|---|---|---|"]
    total = [0, 0, 0, 0, 0]
    for cat, row in sorted(per_cat.items()):
        total = [a + b for a, b in zip(total, row, strict=True)]
        lines.append(_row(cat, row))
    lines.append(_row("**all**", total))
    if os.environ.get("BENCH_VERBOSE"):
        print("\n".join(failures), file=sys.stderr)
    return lines


def _row(name: str, row: list[int]) -> str:
    tp, fp, fn, passed, cases = row
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return f"| {name} | {cases} | {passed} | {p:.3f} | {r:.3f} |"


def _best(repeats: int, fn: Callable[[], object]) -> tuple[float, object]:
    """The smallest CPU time of ``repeats`` runs (the machine is shared: wall time is noise)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.process_time()
        result = fn()
        best = min(best, time.process_time() - t0)
    return best, result


def bench_click(click: Path, reference: Path, repeats: int = 3) -> list[str]:
    paths = sorted(click.rglob("*.py"))
    sources = [(p.relative_to(click).as_posix(), p.read_bytes()) for p in paths]
    bare, _ = _best(repeats, lambda: [parse("python", src) for _rel, src in sources])
    t_extract, out = _best(repeats, lambda: [extract_file(rel, src) for rel, src in sources])
    files: list[FileIndex] = out  # type: ignore[assignment]
    t_resolve, deps = _best(repeats, lambda: resolve(files))
    n_symbols = sum(len(f.symbols) for f in files)
    total = t_extract + t_resolve
    n_edges = len(deps)  # type: ignore[arg-type]
    lines = [
        f"CPU seconds, best of {repeats} runs.",
        "",
        "| step | CPU s | symbols/s | x bare parse |",
        "|---|---|---|---|",
        f"| bare tree-sitter parse ({len(sources)} files) | {bare:.3f} | - | 1.0 |",
        f"| extract_file | {t_extract:.3f} | {n_symbols / t_extract:,.0f} | "
        f"{t_extract / bare:.1f} |",
        f"| resolve ({n_edges} edges) | {t_resolve:.3f} | - | {t_resolve / bare:.1f} |",
        f"| extract_file + resolve ({n_symbols} symbols) | {total:.3f} | "
        f"{n_symbols / total:,.0f} | {total / bare:.1f} |",
    ]
    ref = json.loads(reference.read_text())
    src_only = [f for f in files if f.path.startswith("src/click/")]
    lines += ["", *_agreement(ref, resolve(src_only))]
    return lines


def _agreement(ref: dict[str, Any], deps: list[Dependency]) -> list[str]:
    """Who-calls agreement on the reference's unique-name queries."""
    queries = ref["who_calls_unique_names"]
    tp = fp = fn = 0
    callers: dict[str, set[str]] = defaultdict(set)
    for dep in deps:
        if dep.kind == "calls" and dep.dst is not None:
            callers[dep.dst].add(dep.src)
    for q in queries:
        target = q.get("qualname") or q.get("target") or q.get("name")
        expected = set(q["callers"])
        got = callers.get(target, set())
        tp += len(got & expected)
        fp += len(got - expected)
        fn += len(expected - got)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return [
        "| who-calls reference (src/click) | queries | precision | recall |",
        "|---|---|---|---|",
        f"| caller sets of resolved call edges | {len(queries)} | {p:.3f} | {r:.3f} |",
    ]


def main() -> None:
    code = DATA / "code"
    print("## PyCG micro-benchmark\n")
    print("\n".join(bench_pycg(code / "pycg-micro-benchmark" / "snippets")))
    print("\n## click 8.1.7\n")
    print("\n".join(bench_click(code / "click-8.1.7", code / "click_8.1.7_ast_callsites.json")))


if __name__ == "__main__":
    main()
