"""One-file Python re-resolve: the files py_scope selects against the whole repository.

For a repository of the cache (default /work/cache/repos; the test suite never reads it): every
file is extracted, one Python file is edited in memory (a function appended, as
bench_code_reindex.py does) and re-extracted, then
- scoped: `py_scope.python_scope` picks the affected files (the changed one and its importers)
  and the files their analysis reads; `resolve` runs over those, keeping the affected files'
  edges (what store_code now does for a one-file change);
- whole (with --whole): `resolve` over every Python file (what store_code did before), and the
  two edge sets of the affected files compared.
Two files are tried: the Python file with the most symbols (the one bench_code_reindex edits),
and (unless --first-only) the one with the most symbols outside tests. Wall and CPU seconds.
Prints one JSON line per file, and with --table appends markdown rows to
bench/results/code-python-reresolve.md.

With --seeds 0,1: the whole resolve of the tree's Python files once per PYTHONHASHSEED, each in
a subprocess (the seed is fixed at start-up): dependency count and a digest of the sorted edges,
which must be equal (issue 16: two whole sqlalchemy runs had found 294,399 and 295,185).

Usage: PYTHONPATH=. .venv/bin/python bench/bench_python_reresolve.py /work/cache/repos/flask --whole
       PYTHONPATH=. .venv/bin/python bench/bench_python_reresolve.py <tree> --seeds 0,1 [--table]
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

EDIT = b"\n\ndef _bench_added():\n    return 1\n"


def run(repo: Path, whole: bool, first_only: bool = False) -> list[dict[str, object]]:
    from pegas_memory.code_memory.graph import resolve
    from pegas_memory.code_memory.py_scope import python_scope, sources_of
    from pegas_memory.code_memory.symbols import extract_file, iter_source_files

    started = time.perf_counter()
    files = [
        extract_file(p.relative_to(repo).as_posix(), p.read_bytes())
        for p in iter_source_files(repo)
    ]
    python = [f for f in files if f.language == "python"]
    extract_s = time.perf_counter() - started
    by_symbols = sorted(python, key=lambda f: len(f.symbols), reverse=True)
    targets = [by_symbols[0]]
    lib = [f for f in by_symbols if "test" not in f.path.lower()]
    if lib and lib[0].path != targets[0].path and not first_only:
        targets.append(lib[0])
    out: list[dict[str, object]] = []
    for target in targets:
        edited = extract_file(target.path, (repo / target.path).read_bytes() + EDIT)
        now = [edited if f.path == target.path else f for f in python]
        t0, c0 = time.perf_counter(), time.process_time()
        plan = python_scope(now, [target.path])
        if plan is None:
            scoped_s = scoped_cpu = None
            affected = analysed = len(now)
            scoped = None
        else:
            keep = sources_of(f for f in now if f.path in plan.affected)
            scoped = {
                d for d in resolve([f for f in now if f.path in plan.analysed]) if d.src in keep
            }
            scoped_s = time.perf_counter() - t0
            scoped_cpu = time.process_time() - c0
            affected, analysed = len(plan.affected), len(plan.analysed)
        row: dict[str, object] = {
            "repo": repo.name,
            "file": target.path,
            "python_files": len(now),
            "affected": affected,
            "analysed": analysed,
            "scoped_s": None if scoped_s is None else round(scoped_s, 2),
            "scoped_cpu_s": None if scoped_cpu is None else round(scoped_cpu, 2),
            "extract_s": round(extract_s, 1),
        }
        if whole:
            print(json.dumps({**row, "whole": "running"}), flush=True)  # the scoped half first
            t1, c1 = time.perf_counter(), time.process_time()
            full = resolve(now)
            row["whole_s"] = round(time.perf_counter() - t1, 2)
            row["whole_cpu_s"] = round(time.process_time() - c1, 2)
            if scoped is not None and plan is not None:
                keep = sources_of(f for f in now if f.path in plan.affected)
                expected = {d for d in full if d.src in keep}
                row["affected_edges"] = len(expected)
                row["missing_vs_whole"] = len(expected - scoped)
                row["extra_vs_whole"] = len(scoped - expected)
        row["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        out.append(row)
        print(json.dumps(row), flush=True)
    return out


def seeded(tree: Path) -> dict[str, object]:
    """Resolve every Python file of ``tree`` in this process: count, digest, CPU seconds."""
    from pegas_memory.code_memory.graph import resolve
    from pegas_memory.code_memory.symbols import extract_file, iter_source_files

    files = [
        extract_file(p.relative_to(tree).as_posix(), p.read_bytes())
        for p in iter_source_files(tree)
    ]
    python = [f for f in files if f.language == "python"]
    c0 = time.process_time()
    deps = resolve(python)
    digest = hashlib.sha256("\n".join(map(repr, deps)).encode()).hexdigest()[:12]
    cpu = round(time.process_time() - c0, 1)
    rss = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {"files": len(python), "deps": len(deps), "sha": digest, "cpu_s": cpu, "rss_mb": rss}


def run_seeds(tree: Path, seeds: list[int], table: bool) -> None:
    rows = []
    for seed in seeds:
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run(
            [sys.executable, __file__, str(tree), "--seeded-child"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        row = {"tree": str(tree), "seed": seed, **json.loads(out.stdout.splitlines()[-1])}
        print(json.dumps(row), flush=True)
        rows.append(row)
    if table:
        results = Path(__file__).resolve().parent / "results" / "code-python-reresolve.md"
        with results.open("a") as fh:
            for r in rows:
                fh.write(
                    f"| {r['tree']} | {r['seed']} | {r['files']} | {r['deps']:,} | {r['sha']} | "
                    f"{r['cpu_s']} | {r['rss_mb']:,} |\n"
                )


if __name__ == "__main__":
    if "--seeded-child" in sys.argv:
        print(json.dumps(seeded(Path(sys.argv[1]))))
        sys.exit(0)
    if "--seeds" in sys.argv:
        given = sys.argv[sys.argv.index("--seeds") + 1]
        run_seeds(Path(sys.argv[1]), [int(x) for x in given.split(",")], "--table" in sys.argv)
        sys.exit(0)
    rows = run(Path(sys.argv[1]), "--whole" in sys.argv, "--first-only" in sys.argv)
    if "--table" in sys.argv:
        results = Path(__file__).resolve().parent / "results" / "code-python-reresolve.md"
        with results.open("a") as fh:
            for r in rows:
                scoped = (
                    "whole"
                    if r["scoped_s"] is None
                    else f"{r['scoped_s']} ({r['scoped_cpu_s']} CPU)"
                )
                fh.write(
                    f"| {r['repo']} | {r['file']} | {r['python_files']} | {r['affected']} | "
                    f"{r['analysed']} | {scoped} | {r.get('whole_s', 'not run')} "
                    f"({r.get('whole_cpu_s', '-')} CPU) | {r.get('missing_vs_whole', '')} / "
                    f"{r.get('extra_vs_whole', '')} | {r['peak_rss_mb']:,} |\n"
                )
