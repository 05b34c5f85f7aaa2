"""Benchmark: every claim a flattened-list rule changes, on the tunable documents (issue 15).

Session 9's r2c rules (`distill.items.dated_entries` / `list_atom`: a paragraph of dated entries
run together is one `text` atom led in by its heading, or a dropped `list line`;
`items.nominal_list`: an English ";" list of noun phrases is a `list line`) are checked on what
they may touch beyond the graded atoms (`bench/regress_labels.py` covers those): the documents
of the five labelled samples (their doc-seeds 61/71/81/91/95/99 with the exclusions, their
repository extras), XQuAD ru articles 0-14, flask's docs/*.rst and cobra's site docs, all
tunable. Each is distilled chunk by chunk as ingest does, by a base commit's distiller
(`--base`, in a child process on a `git archive` of it) and by the working tree; the claims
made by one and not the other are printed per document (a multiset difference), with types.
Counts, not timings.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/fixes_s9_r2c.py [--base main]
     [--out bench/results/fixes-s9-r2c-diff.md]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _child import base_tree, head_commit, run_child

ROOT = Path(__file__).resolve().parent.parent
REPOS = Path("/work/cache/repos")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    from _common import log, shared_data_dir
    from graded_sample import build_documents
    from regress_labels import SEEDS, xquad_document

    data = shared_data_dir()
    child = str(ROOT / "bench/regress_labels.py")  # its --emit distills documents
    with tempfile.TemporaryDirectory(prefix="pegas-r2c-docs-") as tmp:
        paths: list[str] = []
        roots = {str(data / "docs/pdf")}
        for seed, (doc_seed, exclude, extras, _xq) in sorted(SEEDS.items()):
            folder = Path(tmp) / str(seed)
            folder.mkdir()
            extra = tuple(REPOS / e for e in extras)
            docs = build_documents(data, folder, 30, 40, doc_seed, exclude, extra)
            paths += [str(p) for p in docs if str(p) not in paths]
            roots |= {str(folder), *(str(p.parent) for p in extra)}
        xquad = xquad_document(data, Path(tmp), 0, 15)
        more = sorted((REPOS / "flask/docs").glob("*.rst"))
        more += sorted((REPOS / "cobra/site/content").rglob("*.md"))
        more = [p for p in more if p.stat().st_size > 400]  # ".. include:: ../CHANGES.rst"
        for p in [*([xquad] if xquad else []), *more]:
            paths.append(str(p))
            roots.add(str(p.parent))
        log(f"distilling {len(paths)} documents with {args.base}")
        with base_tree(ROOT, args.base) as base:
            before = run_child(child, base, paths, sorted(roots))
        log(f"distilling with the working tree ({head_commit(ROOT)})")
        after = run_child(child, ROOT, paths, sorted(roots))
        short = {p: p.replace(tmp, "").lstrip("/") for p in paths}

    lines = [
        f"## Claims changed by the flattened-list rules: {args.base} -> {head_commit(ROOT)}",
        "",
        f"{len(paths)} tunable documents, {len(before)} atoms before, {len(after)} after "
        "(per chunk, before dedup).",
        "",
        "| document | only before | only after |",
        "|---|---|---|",
    ]
    for path in paths:
        b = Counter(f"[{a['type']}] {a['claim']}" for a in before if a["path"] == path)
        h = Counter(f"[{a['type']}] {a['claim']}" for a in after if a["path"] == path)
        gone, new = sorted((b - h).elements()), sorted((h - b).elements())
        if gone or new:
            cells = ["<br>".join(x[:300] for x in side) or "-" for side in (gone, new)]
            lines.append(f"| {short[path]} | {cells[0]} | {cells[1]} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
