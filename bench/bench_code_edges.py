"""Benchmark of code extraction and resolution on real repositories, and of edge accuracy.

1. Scale: for each repository in $PEGAS_REPO_CACHE (default /work/cache/repos: flask, click,
   requests, sqlalchemy, express, ky, cobra, ripgrep, gson; fetched outside this repository, the
   test suite never needs them) extract_file + resolve in a child process: files, lines,
   symbols, edges, unresolved and external shares of calls, seconds, lines/s, peak RSS; a
   one-file re-resolve (one file re-extracted, the whole repository resolved again) and the
   one-file re-index through store_code with the embedded database (bench_code_reindex.py).
   Repositories missing from the cache are listed.
2. Accuracy: the PyCG micro-benchmark (precision >= 0.95, recall >= 0.70 must hold) and click's
   derived who-calls reference, from bench_code.

Prints markdown tables and writes them to bench/results/code-index.md.
Usage: PYTHONPATH=. .venv/bin/python bench/bench_code_edges.py [repo ...]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("PEGAS_REPO_CACHE", "/work/cache/repos"))
WANTED = ("flask", "express", "ky", "cobra", "ripgrep", "gson", "sqlalchemy")
RESULTS = ROOT / "bench" / "results" / "code-index.md"


def measure(repo: Path) -> dict[str, object]:
    """Run in a child process: extract and resolve one repository, then re-resolve one file."""
    from pegas_memory.code_memory.graph import resolve
    from pegas_memory.code_memory.symbols import extract_file, iter_source_files

    started = time.perf_counter()
    files, lines = [], 0
    for path in iter_source_files(repo):
        data = path.read_bytes()
        lines += data.count(b"\n")
        files.append(extract_file(path.relative_to(repo).as_posix(), data))
    deps = resolve(files)
    seconds = time.perf_counter() - started
    unresolved = sum(d.target_kind == "unresolved" for d in deps if d.kind == "calls")
    external = sum(d.target_kind == "external" for d in deps if d.kind == "calls")
    calls = sum(d.kind == "calls" for d in deps)
    # One-file change: the largest file re-extracted, everything resolved again.
    biggest = max(range(len(files)), key=lambda i: len(files[i].symbols)) if files else 0
    again = time.perf_counter()
    if files:
        f = files[biggest]
        files[biggest] = extract_file(f.path, (repo / f.path).read_bytes())
        resolve(files)
    one_file = time.perf_counter() - again
    return {
        "files": len(files),
        "lines": lines,
        "symbols": sum(len(f.symbols) for f in files),
        "edges": len(deps),
        "unresolved_calls": unresolved / calls if calls else 0.0,
        "external_calls": external / calls if calls else 0.0,
        "seconds": seconds,
        "one_file": one_file,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def scale_table(names: list[str]) -> list[str]:
    lines = [
        "| repo | files | lines | symbols | edges | calls unresolved / external | s | lines/s "
        "| peak RSS MB | one-file re-resolve s | one-file re-index (store_code) s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    missing = []
    for name in names:
        repo = CACHE / name
        if not repo.is_dir():
            missing.append(name)
            continue
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(repo)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
        if proc.returncode != 0:
            lines.append(f"| {name} | error: {proc.stderr.strip().splitlines()[-1:]} |")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        again = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "bench_code_reindex.py"), str(repo)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
        reindex = (
            f"{json.loads(again.stdout.strip().splitlines()[-1])['reindex_s']:.2f}"
            if again.returncode == 0
            else "error"
        )
        lines.append(
            f"| {name} | {r['files']:,} | {r['lines']:,} | {r['symbols']:,} | {r['edges']:,} "
            f"| {r['unresolved_calls']:.0%} / {r['external_calls']:.0%} | {r['seconds']:.1f} "
            f"| {r['lines'] / max(r['seconds'], 1e-9):,.0f} | {r['peak_rss_mb']:,.0f} "
            f"| {r['one_file']:.2f} | {reindex} |"
        )
        print(lines[-1], flush=True)
    if missing:
        lines.append(f"\nMissing from {CACHE}: {', '.join(missing)}")
    return lines


def accuracy_tables() -> list[str]:
    from bench_code import DATA, bench_click, bench_pycg

    code = DATA / "code"
    out = ["## PyCG micro-benchmark", ""]
    out += [line for line in bench_pycg(code / "pycg-micro-benchmark" / "snippets") if "|" in line]
    out += ["", "## click 8.1.7 who-calls (derived reference, not a ground truth)", ""]
    out += bench_click(code / "click-8.1.7", code / "click_8.1.7_ast_callsites.json")[-3:]
    out += ["", "## Hand-labelled call sites (bench/labels, bench_code_labels.py)", ""]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_code_labels.py"), "score"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    out += [line for line in proc.stdout.splitlines() if line.startswith("|")]
    return out


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(measure(Path(sys.argv[2]))))
        return
    names = sys.argv[1:] or list(WANTED)
    report = ["# Code indexing and edge accuracy", "", "## Extraction + resolution", ""]
    report += scale_table(names)
    report += ["", *accuracy_tables()]
    text = "\n".join(report) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
