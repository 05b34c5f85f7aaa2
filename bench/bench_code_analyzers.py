"""Call edges with and without the type-checker analyzers, on the hand-labelled call sites.

For each label file of bench/labels whose repository is cached ($PEGAS_REPO_CACHE, default
/work/cache/repos; fetched there outside this repository, as for bench_code_labels.py), the
repository is extracted and resolved by the heuristic (code_memory.graph), then the analyzer of
its language (scip-python, scip-typescript: PATH or $PEGAS_CODE_ANALYZER_PATH) is run over it
and its calls laid over the heuristic's (code_memory.analyzer_stage), exactly as store_code
does. Both edge sets are scored against the labels the way bench_code_labels.py scores them:
over a sample of call sites, callees and callers are the same edges read in opposite
directions, so one precision/recall pair says both.

Usage: PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py [LABEL_NAME ...]
       (LABELS_VERBOSE=1: every site where an answer differs from its label)
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py reindex itsdangerous PATH
       (a one-file re-index with the analyzer against a full index of the same bytes)
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py scale slice REPO PATH OUT --fresh
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py scale whole REPO PATH OUT
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py scale-compare OUT
       (a large repository: whole index, graph slice, determinism, one-file re-index over the
       slice against the analyzer run whole; the table in bench/results/code-index.md)
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py kept DOCUMENTS.pickle
       (an analyzer's run kept in PostgreSQL: written whole, a slice written again, read back
       by a new process; DOCUMENTS.pickle as `scale slice ... --docs` writes it)
       PYTHONPATH=. .venv/bin/python bench/bench_code_analyzers.py fanout jinja
       (call lines with 5 or more internal targets, heuristic and with the analyzer)
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from pegas_memory.code_memory.analyzer_stage import apply_analyzers
from pegas_memory.code_memory.analyzers import analyzer_version, find_analyzers
from pegas_memory.code_memory.graph import resolve
from pegas_memory.code_memory.model import Dependency, FileIndex
from pegas_memory.code_memory.repo_files import cargo_crates
from pegas_memory.code_memory.store import repo_edges
from pegas_memory.code_memory.symbols import extract_file, iter_source_files

CACHE = Path(os.environ.get("PEGAS_REPO_CACHE", "/work/cache/repos"))
LABELS = Path(__file__).resolve().parent / "labels"
DEFAULT = [
    "python",
    "python-itsdangerous",
    "typescript",
    "typescript-heldout",
    "typescript-p-queue",
    "javascript",
    "javascript-heldout",
    "javascript-heldout2",
    "javascript-router",
    "javascript-session",
]


def _sites(deps: list[Dependency]) -> dict[tuple[str, int], set[str]]:
    out: dict[tuple[str, int], set[str]] = defaultdict(set)
    for d in deps:
        if d.kind == "calls" and d.dst:
            out[(d.src, d.line)].add(d.dst)
    return out


def _score(
    sites: list[dict[str, Any]], got: dict[tuple[str, int], set[str]], tag: str
) -> tuple[float, float, int]:
    tp = fp = fn = 0
    for s in sites:
        answer = got.get((s["caller"], s["line"]), set())
        truth = set(s["label"])
        if os.environ.get("LABELS_VERBOSE") and answer != truth:
            print(
                f"  [{tag}] {s['path']}:{s['line']} extra {sorted(answer - truth)} "
                f"missed {sorted(truth - answer)}",
                file=sys.stderr,
            )
        tp += len(answer & truth)
        fp += len(answer - truth)
        fn += len(truth - answer)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, tp + fn


def measure(name: str) -> dict[str, Any] | None:
    path = LABELS / f"{name}.json"
    if path.exists():
        data = json.loads(path.read_text())
    elif (CACHE / name).is_dir():  # a repository without labels: times and coverage only
        data = {"repo": name, "sites": []}
    else:
        return None
    repo = CACHE / data["repo"]
    if not repo.is_dir():
        return {"name": name, "repo": data["repo"], "missing": True}
    sites = [s for s in data["sites"] if s["label"] is not None]
    started = time.monotonic()
    files: list[FileIndex] = [
        extract_file(p.relative_to(repo).as_posix(), p.read_bytes())
        for p in iter_source_files(repo)
    ]
    deps = resolve(files, crates=cargo_crates(repo, [f.path for f in files]))
    heuristic_s = time.monotonic() - started
    analyzers = find_analyzers("auto", os.environ.get("PEGAS_CODE_ANALYZER_PATH"))
    warnings: list[str] = []
    started, cpu = time.monotonic(), _children_cpu()
    merged, runs = apply_analyzers(
        list(deps), files, repo, analyzers, None, timeout=900, say=lambda m: None,
        warnings=warnings,
    )  # fmt: skip
    analyzer_s, analyzer_cpu = time.monotonic() - started, _children_cpu() - cpu
    lines = sum(len(p.read_text("utf-8", "replace").splitlines()) for p in iter_source_files(repo))
    labelled_sites = {(s["caller"], s["line"]) for s in sites}
    analyzer_lines = {(d.src, d.line) for d in merged if d.provenance == "analyzer"}
    return {
        "name": name,
        "repo": data["repo"],
        "sites": len(sites),
        "files": len(files),
        "lines": lines,
        "heuristic": _score(sites, _sites(deps), "heuristic"),
        "analyzer": _score(sites, _sites(merged), "analyzer"),
        "decided_sites": len(labelled_sites & analyzer_lines),
        "heuristic_s": heuristic_s,
        "analyzer_s": analyzer_s,
        "analyzer_cpu": analyzer_cpu,
        "runs": [r.model_dump() for r in runs],
        "edges": {
            "internal": sum(d.provenance == "analyzer" and d.dst is not None for d in merged),
            "external": sum(d.provenance == "analyzer" and d.dst is None for d in merged),
        },
        "warnings": warnings,
    }


def _pr(score: tuple[float, float, int], sites: int) -> str:
    return f"{score[0]:.2f} / {score[1]:.2f}" if sites else "- (no labels)"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fanout(repo_name: str, wide: int = 5) -> None:
    """Call lines with ``wide`` or more internal targets (calls and may_call), and the callers
    of the most-called symbol, by the heuristic and with the analyzer."""
    repo = CACHE / repo_name
    files = [
        extract_file(p.relative_to(repo).as_posix(), p.read_bytes())
        for p in iter_source_files(repo)
    ]
    deps = resolve(files)
    analyzers = find_analyzers("auto", os.environ.get("PEGAS_CODE_ANALYZER_PATH"))
    merged, runs = apply_analyzers(
        list(deps), files, repo, analyzers, None, timeout=900, say=lambda m: None, warnings=[]
    )
    print(f"{repo_name}: {', '.join(r.analyzer + ' ' + r.status for r in runs)}")
    print(
        f"| edges | call lines with >= {wide} internal targets | internal call edges "
        f"| of them from sites with >= {wide} targets |"
    )
    print("|---|---|---|---|")
    for label, edges in (("heuristic", deps), ("with analyzer", merged)):
        lines: dict[tuple[str, int], set[str]] = defaultdict(set)
        for d in edges:
            if d.kind in ("calls", "may_call") and d.dst:
                lines[(d.src, d.line)].add(d.dst)
        many = [k for k, v in lines.items() if len(v) >= wide]
        total = sum(len(v) for v in lines.values())
        from_many = sum(len(lines[k]) for k in many)
        print(f"| {label} | {len(many)} | {total} | {from_many} |")


def reindex(repo_name: str, rel: str) -> None:
    """A one-file re-index with the analyzer against a full index of the same bytes: a copy is
    indexed, ``rel`` gets a function appended and is indexed again; a second database indexes
    the edited copy whole. Prints both times and whether the stored edges are equal."""
    import shutil
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import embedded_service

    from pegas_memory.code_memory.index import CodeMemory

    work = Path(tempfile.mkdtemp(prefix="pegas-analyzer-reindex-", dir="/tmp"))
    copy = work / repo_name
    shutil.copytree(CACHE / repo_name, copy, ignore=shutil.ignore_patterns(".git"))
    extra: dict[str, Any] = {"ingest_roots": [str(work)], "code_analyzer": "auto"}
    path = os.environ.get("PEGAS_CODE_ANALYZER_PATH")
    if path:
        extra["code_analyzer_path"] = path
    edit = (
        "\n\ndef _bench_added():\n    return 1\n"
        if rel.endswith(".py")
        else ("\nexport function benchAdded() { return 1 }\n")
    )
    try:
        with embedded_service("pegas-bench-a-", **extra) as service:
            code = CodeMemory(service.settings, service.db, service.runtime)
            first = code.store_code(str(copy))
            with (copy / rel).open("a") as fh:
                fh.write(edit)
            started = time.monotonic()
            again = code.store_code(str(copy))
            one_file = time.monotonic() - started
            with service.db.connection() as conn:
                incremental = repo_edges(conn, repo_name)
        with embedded_service("pegas-bench-b-", **extra) as service:
            code = CodeMemory(service.settings, service.db, service.runtime)
            whole = code.store_code(str(copy))
            with service.db.connection() as conn:
                full = repo_edges(conn, repo_name)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"{repo_name}: first index {first.seconds:.1f} s, one-file re-index of {rel} "
        f"{one_file:.1f} s ({again.files_changed} file), full index of the same bytes "
        f"{whole.seconds:.1f} s; analyzers {[r.analyzer + ' ' + r.status for r in again.analyzers]}"
    )
    print(
        f"stored edges: one-file re-index {len(incremental)}, full {len(full)}, "
        f"equal: {incremental == full} (only in re-index {len(incremental - full)}, "
        f"only in full {len(full - incremental)})"
    )


def _drain_graph(service: Any) -> tuple[int, float, int]:
    """Project every pending outbox event into the graph slice: (events, seconds, left)."""
    from pegas_memory.outbox.projection import Projector
    from pegas_memory.outbox.worker import OutboxWorker

    rt = service.runtime
    projector = Projector(
        targets=("graph",),
        vectors=rt.vectors.get,
        graph=rt.graph.get,
        embedder=rt.embedder.get,
        collection_prefix=service.settings.qdrant_collection_prefix,
    )
    worker = OutboxWorker(service.settings, service.db, projector, name="bench-graph")
    started = time.monotonic()
    report = worker.drain(timeout=3600.0)
    seconds = time.monotonic() - started
    with service.db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL AND parked_at IS NULL"
        ).fetchone()
    return report.processed, seconds, int(row["n"]) if row else 0


def _rss() -> tuple[float, float]:
    """Peak RSS in MB of this process and of its largest finished child (an analyzer)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, child


def _say(line: str) -> None:
    print(line, flush=True)


def scale(role: str, source: Path, rel: str, out: Path, fresh: bool, docs: bool = False) -> None:
    """A large repository with the analyzers on (issue 29's "done when"), in two processes
    that run side by side on their own copies and databases and write their stored edges to
    ``out`` (compared by ``scale-compare``):

    - role ``slice``: a whole index (time, peak RSS; the graph slice drained: events, seconds),
      then ``rel`` gets a function appended and the same CodeMemory re-indexes it (the analyzer
      runs over the slice the change can move); with ``fresh``, a third database then indexes
      the edited bytes whole;
    - role ``whole``: a whole index of the same bytes (determinism), then the same edit
      re-indexed by a new CodeMemory with the analyzers' kept runs deleted: the analyzer runs
      whole, as every re-index did before the slice;
    - role ``restart``: the same, the kept runs left in place: the new CodeMemory (a new
      process, as after a restart) reads the analyzer's last run from PostgreSQL and runs it
      over the slice;
    - role ``fresh``: the edited bytes indexed whole into a new database (what ``--fresh``
      adds to ``slice``, as a process of its own).
    ``docs``: the analyzers' documents after the re-index are written too, for ``scale-docs``.
    Prints one line per step."""
    import shutil
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import embedded_service

    from pegas_memory.code_memory.index import CodeMemory

    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"pegas-analyzer-scale-{role}-", dir="/tmp"))
    name = source.name
    copy = work / name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    lines = sum(p.read_bytes().count(b"\n") for p in iter_source_files(copy))
    extra: dict[str, Any] = {"ingest_roots": [str(work)], "code_analyzer": "auto"}
    path = os.environ.get("PEGAS_CODE_ANALYZER_PATH")
    if path:
        extra["code_analyzer_path"] = path
    load = os.getloadavg()
    _say(f"{role} {name}: {lines:,} lines of source; load average {load[0]:.1f} {load[1]:.1f}")

    def index(code: CodeMemory, label: str) -> Any:
        cpu = _children_cpu()
        started = time.monotonic()
        result = code.store_code(str(copy))
        wall = time.monotonic() - started
        own, child = _rss()
        runs = "; ".join(
            f"{r.analyzer} {r.status} {r.seconds:.1f} s, indexed {r.indexed} of {r.files}, "
            f"reused {r.reused}"
            for r in result.analyzers
        )
        _say(
            f"{label}: {wall:.1f} s wall, analyzer CPU {_children_cpu() - cpu:.1f} s, "
            f"{result.files_changed} files changed, {result.symbols_added} symbols added, "
            f"edges +{result.dependencies_added} -{result.dependencies_removed}; [{runs}]; "
            f"peak RSS {own:.0f} MB (largest analyzer {child:.0f} MB); "
            f"load {os.getloadavg()[0]:.1f}; warnings {result.warnings[:3]}"
        )
        return result

    def dump(service: Any, label: str) -> None:
        with service.db.connection() as conn:
            edges = sorted(repo_edges(conn, name), key=repr)
        (out / f"{label}.json").write_text(json.dumps(edges))
        _say(f"{label}: {len(edges)} stored edges written")

    def drain(service: Any, label: str) -> None:
        events, seconds, left = _drain_graph(service)
        _say(f"{label} graph slice: {events} events in {seconds:.1f} s, {left} left pending")

    edit = (
        "\n\ndef _bench_added():\n    return 1\n"
        if rel.endswith(".py")
        else "\nexport function benchAdded() { return 1 }\n"
    )
    try:
        if role == "fresh":  # the edited bytes, indexed whole into a new database
            with (copy / rel).open("a") as fh:
                fh.write(edit)
            with embedded_service("pegas-bench-fresh-", **extra) as svc:
                index(CodeMemory(svc.settings, svc.db, svc.runtime), "fresh whole index, edited")
                dump(svc, "fresh-whole")
            return
        with embedded_service(f"pegas-bench-{role}-", **extra) as svc:
            code = CodeMemory(svc.settings, svc.db, svc.runtime)
            index(code, f"{role}: whole index")
            if role == "slice":
                drain(svc, role)
            dump(svc, f"{role}-whole")
            with (copy / rel).open("a") as fh:
                fh.write(edit)
            if role == "slice":
                index(code, f"{role}: one-file re-index of {rel} (the analyzer over a slice)")
                drain(svc, f"{role} after the re-index:")
            elif role == "restart":
                code = CodeMemory(svc.settings, svc.db, svc.runtime)
                index(code, f"{role}: one-file re-index of {rel} by a new CodeMemory")
            else:
                with svc.db.transaction() as conn:
                    conn.execute(b"DELETE FROM pm_code_analyzer_run")
                code = CodeMemory(svc.settings, svc.db, svc.runtime)
                index(code, f"{role}: one-file re-index of {rel} (the analyzer whole)")
            dump(svc, f"{role}-reindexed")
            if docs:
                _dump_documents(code, name, out / f"{role}-documents.pickle")
        if fresh:
            with embedded_service("pegas-bench-fresh-", **extra) as svc:
                index(CodeMemory(svc.settings, svc.db, svc.runtime), "fresh whole index, edited")
                dump(svc, "fresh-whole")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    own, child = _rss()
    _say(f"{role} done: peak RSS {own:.0f} MB, largest analyzer {child:.0f} MB")


def _dump_documents(code: Any, repo: str, path: Path) -> None:
    """The documents each analyzer's last run keeps for ``repo`` (after a re-index: spliced)."""
    import pickle

    found = find_analyzers("auto", os.environ.get("PEGAS_CODE_ANALYZER_PATH"))
    kept = {}
    for analyzer in found:
        with code.db.transaction() as conn:
            runs = code._analyzer_cache.bind(conn, repo)
            snapshot = runs.get(analyzer.name, analyzer_version(analyzer))
        if snapshot is not None:
            kept[analyzer.name] = dict(snapshot.documents)
    path.write_bytes(pickle.dumps(kept))
    _say(f"documents written: {', '.join(f'{k} {len(v)}' for k, v in kept.items())}")


def scale_docs(source: Path, rel: str, out: Path) -> None:
    """A whole analyzer run over a copy of ``source`` with ``rel`` edited as ``scale`` edits
    it, its documents compared with those ``scale slice ... --docs`` kept after its re-index
    (when written; run both side by side, then this compares)."""
    import pickle
    import shutil
    import tempfile

    from pegas_memory.code_memory.analyzers import run_analyzer

    work = Path(tempfile.mkdtemp(prefix="pegas-analyzer-docs-", dir="/tmp"))
    copy = work / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    with (copy / rel).open("a") as fh:
        fh.write("\n\ndef _bench_added():\n    return 1\n")
    files = [
        extract_file(p.relative_to(copy).as_posix(), p.read_bytes())
        for p in iter_source_files(copy)
    ]
    whole: dict[str, Any] = {}
    try:
        for analyzer in find_analyzers("auto", os.environ.get("PEGAS_CODE_ANALYZER_PATH")):
            own = [f.path for f in files if f.language in analyzer.languages]
            if not own:
                continue
            started, cpu = time.monotonic(), _children_cpu()
            index = run_analyzer(analyzer, copy, own, timeout=7200)
            _say(
                f"{analyzer.name} whole over {len(own)} files: {time.monotonic() - started:.1f} s "
                f"wall, {_children_cpu() - cpu:.1f} s CPU, peak RSS {_rss()[1]:.0f} MB"
            )
            whole[analyzer.name] = {d.path: d for d in index.documents}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (out / "whole-documents.pickle").write_bytes(pickle.dumps(whole))
    sliced = out / "slice-documents.pickle"
    while not sliced.exists():
        time.sleep(30)  # the slice process writes it after its re-index
    kept = pickle.loads(sliced.read_bytes())
    for name, docs in whole.items():
        mine = kept.get(name, {})
        differ = sorted(p for p in set(docs) | set(mine) if docs.get(p) != mine.get(p))
        _say(
            f"{name} documents: whole run {len(docs)}, after the slice re-index {len(mine)}, "
            f"differing {len(differ)} {differ[:10]}"
        )


def scale_compare(out: Path) -> None:
    """Whether the stored edges the two ``scale`` processes wrote are equal."""

    def load(label: str) -> set[tuple[Any, ...]] | None:
        path = out / f"{label}.json"
        if not path.exists():
            return None
        return {tuple(e) for e in json.loads(path.read_text())}

    pairs = (
        ("determinism: two whole indexes of the same bytes", "slice-whole", "whole-whole"),
        ("one-file re-index: slice vs whole analyzer", "slice-reindexed", "whole-reindexed"),
        ("one-file re-index: slice vs a fresh whole index", "slice-reindexed", "fresh-whole"),
        (
            "one-file re-index after a restart vs a fresh whole index",
            "restart-reindexed",
            "fresh-whole",
        ),
    )
    for what, left, right in pairs:
        a, b = load(left), load(right)
        if a is None or b is None:
            _say(f"{what}: not measured ({left if a is None else right} missing)")
            continue
        _say(
            f"{what}: {len(a)} / {len(b)} edges, equal {a == b} "
            f"(only in {left} {len(a - b)}, only in {right} {len(b - a)})"
        )
        for e in sorted(a ^ b, key=repr)[:10]:
            _say(f"  {left if e in a else right} only: {e}")


def kept(pickled: Path) -> None:
    """The cost of keeping an analyzer's run in PostgreSQL (code_memory.analyzer_cache) for the
    documents ``pickled`` holds: the whole run written, a 10-file slice written again, the run
    read back by a new process (decoded), and its stored bytes."""
    import pickle

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import embedded_service

    from pegas_memory.code_memory.analyzer_cache import SnapshotCache
    from pegas_memory.code_memory.analyzer_slice import Snapshot
    from pegas_memory.code_memory.queries import Q

    for tool, documents in pickle.loads(pickled.read_bytes()).items():
        digests = {p: f"h-{p}" for p in documents}
        modules = {p: p.removesuffix(".py").replace("/", ".") for p in documents}
        run = Snapshot(tool, "0", "file:///r", digests, modules, documents)
        part = set(sorted(documents)[:10])
        occurrences = sum(len(d.occurrences) for d in documents.values())
        with embedded_service("pegas-bench-kept-") as svc:
            with svc.db.transaction() as conn:
                conn.execute(Q.upsert_repo, ("r", "/r", None))
            times: dict[str, float] = {}
            for label, paths in (("whole written", None), ("10-file slice written", part)):
                started = time.monotonic()
                with svc.db.transaction() as conn:
                    SnapshotCache().bind(conn, "r").put(tool, "0", run, paths)
                times[label] = time.monotonic() - started
            started = time.monotonic()
            with svc.db.transaction() as conn:
                back = SnapshotCache().bind(conn, "r").get(tool, "0")
            times["read by a new process"] = time.monotonic() - started
            assert back == run
            with svc.db.connection() as conn:
                row = conn.execute(
                    b"SELECT bytes, pg_total_relation_size('pm_code_analyzer_document') AS rel"
                    b" FROM pm_code_analyzer_run"
                ).fetchone()
                assert row is not None
        print(
            f"{tool}: {len(documents):,} documents, {occurrences:,} occurrences; "
            + "; ".join(f"{k} {v:.2f} s" for k, v in times.items())
            + f"; stored {row['bytes'] / 1e6:.1f} MB packed, table {row['rel'] / 1e6:.1f} MB; "
            f"load {os.getloadavg()[0]:.1f}"
        )


def main() -> None:
    if sys.argv[1:2] == ["kept"]:
        kept(Path(sys.argv[2]))
        return
    if sys.argv[1:2] == ["scale"]:
        args = sys.argv[2:]
        flags = {"--fresh", "--docs"}
        role, repo, rel, out = [a for a in args if a not in flags]
        scale(role, Path(repo), rel, Path(out), "--fresh" in args, "--docs" in args)
        return
    if sys.argv[1:2] == ["scale-docs"]:
        scale_docs(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
        return
    if sys.argv[1:2] == ["scale-compare"]:
        scale_compare(Path(sys.argv[2]))
        return
    if sys.argv[1:2] == ["reindex"]:
        reindex(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1:2] == ["fanout"]:
        fanout(sys.argv[2])
        return
    names = sys.argv[1:] or DEFAULT
    print(
        "| labels | repo | files / lines | labelled sites | true internal edges "
        "| heuristic P / R | with analyzer P / R | sites with analyzer edges "
        "| analyzer | heuristic extract + resolve s | analyzer run + overlay s (analyzer CPU s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    coverage: dict[str, dict[str, Any]] = {}
    for name in names:
        r = measure(name)
        if r is None:
            continue
        if r.get("missing"):
            print(f"| {name} | {r['repo']} | not cached | | | | | | | | |")
            continue
        for run in r["runs"]:
            coverage[r["repo"]] = {**run, **r["edges"]}
        h, a = r["heuristic"], r["analyzer"]
        tools = ", ".join(f"{x['analyzer']} ({x['status']})" for x in r["runs"]) or "none found"
        print(
            f"| {name} | {r['repo']} | {r['files']} / {r['lines']:,} | {r['sites']} | {h[2]} "
            f"| {_pr(h, r['sites'])} | {_pr(a, r['sites'])} | {r['decided_sites']} "
            f"| {tools} | {r['heuristic_s']:.1f} "
            f"| {r['analyzer_s']:.1f} ({r['analyzer_cpu']:.1f}) |"
        )
        for w in r["warnings"]:
            print(f"  warning: {w}", file=sys.stderr)
    print(
        "\n| repo | analyzer | call lines | decided | mixed | left to the heuristic "
        "| analyzer edges internal / external |"
    )
    print("|---|---|---|---|---|---|---|")
    for repo, run in sorted(coverage.items()):
        print(
            f"| {repo} | {run['analyzer']} | {run['call_lines']:,} | {run['decided']:,} "
            f"| {run['mixed']:,} | {run['heuristic']:,} "
            f"| {run['internal']:,} / {run['external']:,} |"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = os.getloadavg()
    print(f"\npeak RSS of this process {rss:.0f} MB; load average {load[0]:.1f} {load[1]:.1f}")


if __name__ == "__main__":
    main()
