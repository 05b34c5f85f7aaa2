"""Edge accuracy of the code index against call sites labelled by hand (bench/labels/<lang>.json).

``sample``: pick call sites at random (seed 16) from the index of a cached repository (one site
is a caller and a line) and write a draft label file: the caller, the source line, what the
index answers; ``label`` and ``reason`` are filled in by a person reading the code: the list of
the line's true internal callees, qualified as the index names them (an empty list when every
call of the line leaves the repository: library, builtin, generated code).
``score``: callees precision (resolved internal targets that are right) and recall
(internal true targets found) over the labelled sites; over a sample of sites the callers
relation is the same set of edges read backwards, so its precision/recall are those numbers too.

Usage: PYTHONPATH=. .venv/bin/python bench/bench_code_labels.py sample flask python 30
       (... sample flask python 40 src/flask/ : 40 more sites from src/flask/, appended)
       (... draw REPO NAME N SEED : a new draw into labels/NAME.json with its own seed, sites
        of the other label files of the same repository left out)
       PYTHONPATH=. .venv/bin/python bench/bench_code_labels.py score [lang ...]
       (LABELS_CANDIDATES=1: a site's may_call candidates count as answers too)
       PYTHONPATH=. .venv/bin/python bench/bench_code_labels.py compare BASE_SRC NAME ...
       (label files NAME scored by the code under BASE_SRC, a checkout of an earlier commit,
        and by this one, with and without candidates, side by side)
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("PEGAS_REPO_CACHE", "/work/cache/repos"))
LABELS = Path(__file__).resolve().parent / "labels"
REPOS = {
    "python": "flask",
    "javascript": "express",
    "typescript": "ky",
    "go": "cobra",
    "rust": "ripgrep",
    "java": "gson",
}
SEED = 16


def index_sites(repo: Path) -> tuple[dict[tuple[str, int], list[Any]], dict[str, str]]:
    """Call sites (caller, line) -> their call edges, and caller -> path."""
    from pegas_memory.code_memory.graph import resolve

    try:
        from pegas_memory.code_memory.repo_files import workspace_roots
    except ImportError:  # an earlier checkout (compare): Cargo.toml only
        from pegas_memory.code_memory.repo_files import cargo_crates as workspace_roots
    from pegas_memory.code_memory.symbols import extract_file, iter_source_files

    files = [
        extract_file(p.relative_to(repo).as_posix(), p.read_bytes())
        for p in iter_source_files(repo)
    ]
    where = {s.qualified_name: f.path for f in files for s in f.symbols}
    sites: dict[tuple[str, int], list[Any]] = defaultdict(list)
    # The Rust crates and Go modules as store_code reads them (Cargo.toml, go.mod).
    crates = workspace_roots(repo, [f.path for f in files])
    kinds = {"calls", "may_call"} if os.environ.get("LABELS_CANDIDATES") else {"calls"}
    for d in resolve(files, crates=crates):
        if d.kind in kinds:
            sites[(d.src, d.line)].append(d)
    return sites, where


def _is_test(path: str) -> bool:
    return path.startswith(("test", "tests/", "src/test/")) or path.endswith("_test.go")


def sample(repo_name: str, lang: str, n: int, under: str | None = None) -> None:
    """Draw ``n`` sites; with ``under`` (a path prefix), draw them from there and append them
    to the existing label file (sites already in it are not drawn again)."""
    repo = CACHE / repo_name
    sites, where = index_sites(repo)
    keys = sorted(k for k in sites if not where.get(k[0], "").startswith(("test", "tests/")))
    old: list[dict[str, Any]] = []
    if under is not None:
        old = json.loads((LABELS / f"{lang}.json").read_text())["sites"]
        taken = {(s["caller"], s["line"]) for s in old}
        keys = [k for k in keys if where.get(k[0], "").startswith(under) and k not in taken]
    picked = random.Random(SEED).sample(keys, min(n, len(keys)))
    out = old + _unlabelled(repo, sites, where, picked)
    LABELS.mkdir(exist_ok=True)
    (LABELS / f"{lang}.json").write_text(
        json.dumps({"repo": repo_name, "seed": SEED, "sites": out}, indent=1) + "\n"
    )


def _unlabelled(
    repo: Path, sites: dict[Any, Any], where: dict[str, str], picked: list[tuple[str, int]]
) -> list[dict[str, Any]]:
    """A label-file row per picked call site (its code line and what the index resolved it
    to), its label still to be given."""
    out = []
    for src, line in sorted(picked):
        path = where.get(src, "?")
        text = (repo / path).read_text("utf-8", "replace").splitlines()[line - 1].strip()
        index = sorted(
            d.dst if d.dst else f"{d.target_kind}:{d.dst_name}" for d in sites[(src, line)]
        )
        out.append(
            {
                "path": path,
                "line": line,
                "caller": src,
                "code": text[:200],
                "index": index,
                "label": None,
                "reason": "",
            }
        )
    return out


def draw(repo_name: str, name: str, n: int, seed: int) -> None:
    """A new held-out draw of ``n`` sites (seed ``seed``) into ``labels/<name>.json``; sites
    already in another label file of the same repository are not drawn again."""
    repo = CACHE / repo_name
    sites, where = index_sites(repo)
    taken: set[tuple[str, int]] = set()
    for other in LABELS.glob("*.json"):
        data = json.loads(other.read_text())
        if other.stem != name and isinstance(data, dict) and data.get("repo") == repo_name:
            taken.update((s["caller"], s["line"]) for s in data.get("sites", ()))
    suffix = os.environ.get("LABELS_SUFFIX", "")  # ``.java``: sites of that language only
    keys = sorted(
        k
        for k in sites
        if not _is_test(where.get(k[0], ""))
        and where.get(k[0], "").endswith(suffix)
        and k not in taken
    )
    picked = random.Random(seed).sample(keys, min(n, len(keys)))
    out = _unlabelled(repo, sites, where, picked)
    (LABELS / f"{name}.json").write_text(
        json.dumps({"repo": repo_name, "seed": seed, "sites": out}, indent=1) + "\n"
    )


def score(lang: str) -> tuple[int, int, float, float] | None:
    path = LABELS / f"{lang}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if not (CACHE / data["repo"]).is_dir():
        return None  # the repository is not cached here: nothing to measure
    sites, _ = index_sites(CACHE / data["repo"])
    tp = fp = fn = labelled = 0
    for s in data["sites"]:
        if s["label"] is None:
            continue
        labelled += 1
        got = {d.dst for d in sites.get((s["caller"], s["line"]), []) if d.dst}
        truth = set(s["label"])  # the true internal callees of the line; [] when all external
        if os.environ.get("LABELS_VERBOSE") and got != truth:
            extra, missed = sorted(got - truth), sorted(truth - got)
            print(f"  {s['path']}:{s['line']} extra {extra} missed {missed}")
        tp += len(got & truth)
        fp += len(got - truth)
        fn += len(truth - got)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return labelled, tp + fn, precision, recall


def compare(base: str, names: list[str]) -> None:
    """P and R of label files by the code under `base` and by this checkout, side by side;
    each side in a subprocess with its own PYTHONPATH (and with/without candidates)."""
    here = str(Path(__file__).resolve().parent.parent)
    runs = [("before", base, ""), ("after", here, ""), ("after + candidates", here, "1")]
    found: dict[str, dict[str, Any]] = {}
    for label, src, candidates in runs:
        env = {**os.environ, "PYTHONPATH": src, "LABELS_CANDIDATES": candidates}
        out = subprocess.run(
            [sys.executable, __file__, "score-json", *names],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        found[label] = json.loads(out.stdout)
    print("| labels | sites | true edges | " + " | ".join(f"{r[0]} P / R" for r in runs) + " |")
    print("|---|---|---|" + "---|" * len(runs))
    for name in names:
        first = found["before"].get(name)
        if first is None:
            print(f"| {name} | not labelled or not cached |")
            continue
        cells = []
        for label, _, _ in runs:
            r = found[label][name]
            cells.append(f"{r[2]:.2f} / {r[3]:.2f}")
        print(f"| {name} | {first[0]} | {first[1]} | " + " | ".join(cells) + " |")


def main() -> None:
    if sys.argv[1:2] == ["compare"]:
        compare(sys.argv[2], sys.argv[3:])
        return
    if sys.argv[1:2] == ["score-json"]:
        print(json.dumps({name: score(name) for name in sys.argv[2:]}))
        return
    if sys.argv[1:2] == ["sample"]:
        sample(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
        return
    if sys.argv[1:2] == ["draw"]:
        draw(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    langs = sys.argv[2:] or list(REPOS)
    print(
        "| language | repo | labelled sites | internal true edges "
        "| callees/callers precision | recall |"
    )
    print("|---|---|---|---|---|---|")
    for lang in langs:
        r = score(lang)
        if r is None:
            print(f"| {lang} | {REPOS[lang]} | not labelled | - | - | - |")
        else:
            print(f"| {lang} | {REPOS[lang]} | {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]:.2f} |")
        # Later draws: ``<lang>-<name>.json`` (``heldout2``, or another repository's sample).
        for extra in sorted(LABELS.glob(f"{lang}-*.json")):
            held = score(extra.stem)
            if held is None:
                continue
            data = json.loads(extra.read_text())
            what = extra.stem.removeprefix(f"{lang}-")
            print(
                f"| {lang} ({what} draw, seed {data.get('seed')}) | {data['repo']} "
                f"| {held[0]} | {held[1]} | {held[2]:.2f} | {held[3]:.2f} |"
            )


if __name__ == "__main__":
    main()
