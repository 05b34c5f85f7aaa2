"""Benchmark: the seed 9191 errors fixed by the fx2 session (issue 15), on the 9191 documents.

The documents of the seed 9191 graded sample (`bench/graded_sample.py`'s `build_documents`:
doc-seed 91 without doc-seeds 15, 61, 71 and 81, plus sqlalchemy's
`doc/build/orm/self_referential.rst`, ripgrep's `crates/globset/README.md` and
/tmp/xquad-ru-c.md) are distilled chunk by chunk as ingest does it, once by a base commit's
distiller (`--base`, extracted with `git archive`, run in a child process) and once by the
working tree. For each graded atom this session set out to fix (its key in
`bench/labels/graded-sample-9191.json`), the atoms whose claim holds a phrase of its quote are
printed before -> after with their types; and distinct claims per document are counted (ingest
stores one atom per distinct claim). Counts, not timings: the machine's load does not matter.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/fixes_9191.py [--base 1c8cc93]
     [--out bench/results/fixes-9191.md]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from _child import (
    add_child_arguments,
    base_tree,
    distilled_chunks,
    emit_if_child,
    head_commit,
    run_child,
)

ROOT = Path(__file__).resolve().parent.parent
EXTRA = (
    Path("/work/cache/repos/sqlalchemy/doc/build/orm/self_referential.rst"),
    Path("/work/cache/repos/ripgrep/crates/globset/README.md"),
    Path("/tmp/xquad-ru-c.md"),
)
# graded key -> (what was wrong, a phrase of its sentence to find the atom by)
TARGETS = {
    "a6bb2d5ce2": ("junk: cut at the ';' inside '(OR, 4.21; 95% CI ...)'", "4.21;"),
    "96fab214ba": ("junk: 'this crate' not named, carried 'Performance:'", "implements globs by"),
    "ebedacb617": ("junk + type: 'this crate / this library' not named", "performance of this"),
    "0c08a63f76": ("junk: 'Общая площадь — ...' not carried", "Общая площадь — 312,31"),
    "2cb4d9b792": ("junk: 'Некоторое время (...) проходило' not carried", "Некоторое время (с"),
    "97fcf5419e": ("type: the Biron lead typed fact", "фаворит русской императрицы"),
    "ea579e7353": ("type: the Buson lead typed fact", "японский поэт XVIII века"),
}


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every atom of every chunk with its type, as ingest distills them (the child process)."""
    return [{"doc": Path(d.path).name, "type": a.type, "claim": a.claim}
            for d in distilled_chunks(paths, roots) for a in d.atoms]  # fmt: skip


def cell(text: str, limit: int = 240) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def found(atoms: list[dict[str, Any]], needle: str) -> str:
    hits = {(a["type"], a["claim"]) for a in atoms if needle in a["claim"]}
    return "<br>".join(f"**{t}** {cell(c)}" for t, c in sorted(hits)) or "(none)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="1c8cc93", help="the commit whose distiller is 'before'")
    parser.add_argument("--out", type=Path, help="write the markdown here")
    add_child_arguments(parser)
    args = parser.parse_args()
    if emit_if_child(args, distill_documents):  # the child: distil with the PYTHONPATH commit
        return

    sys.path.insert(0, str(ROOT / "bench"))
    from _common import log, shared_data_dir
    from graded_sample import build_documents

    data = shared_data_dir()
    commit = head_commit(ROOT)
    with tempfile.TemporaryDirectory(prefix="pegas-fx9191-docs-") as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        docs = build_documents(data, folder, 30, 40, 91, (15, 61, 71, 81), EXTRA)
        paths = [str(p) for p in docs]
        roots = [str(data / "docs/pdf"), str(folder), *sorted({str(p.parent) for p in EXTRA})]
        log(f"distilling with {args.base}")
        with base_tree(ROOT, args.base) as base:
            before = run_child(__file__, base, paths, roots)
        log(f"distilling with the working tree ({commit})")
        after = run_child(__file__, ROOT, paths, roots)
    lines = [
        f"## The seed 9191 errors of splits, document subjects and Russian leads ({args.base} ->"
        f" {commit})",
        "",
        "The 9191 documents distilled chunk by chunk as ingest does it, by both distillers in one"
        " run (`bench/fixes_9191.py`). Each graded atom: the atoms whose claim holds the phrase,"
        " before -> after.",
        "",
        "| graded atom | was | phrase | before | after |",
        "|---|---|---|---|---|",
    ]
    for key, (was, needle) in TARGETS.items():
        lines.append(
            f"| {key} | {was} | `{needle}` | {found(before, needle)} | {found(after, needle)} |"
        )
    lines += ["", "| document | distinct claims before | after | changed claims |",
              "|---|---|---|---|"]  # fmt: skip
    changes: list[tuple[str, str, str]] = []
    for doc in dict.fromkeys(a["doc"] for a in before + after):
        b = {a["claim"] for a in before if a["doc"] == doc}
        a_ = {a["claim"] for a in after if a["doc"] == doc}
        lines.append(f"| {doc} | {len(b)} | {len(a_)} | {len(a_ - b)} |")
        changes += [(doc, "-", c) for c in sorted(b - a_)] + [(doc, "+", c) for c in sorted(a_ - b)]
    lines += ["", "Every claim that changed (- before only, + after only):", "",
              "| document | | claim |", "|---|---|---|"]  # fmt: skip
    lines += [f"| {doc} | {sign} | {cell(c, 200)} |" for doc, sign, c in changes]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        args.out.write_text(table, encoding="utf-8")


if __name__ == "__main__":
    main()
