"""Sphinx pointers, bare :ref: labels and code claims (session 10, rb): the tunable docs pages
distilled chunk by chunk as ingest does it (pointer drops counted, bare :ref: labels resolved as
the pipeline resolves them) by a base commit and the working tree in one run; every claim that
changed, and the drops by reason. Reads /work/cache/repos (a bench may; tests do not).

    PYTHONPATH=. python bench/fixes_s10_rb.py --base main --out bench/results/fixes-s10-rb.md
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
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
REPOS = Path("/work/cache/repos")
DOCS = [
    "sqlalchemy/doc/build/orm/contextual.rst", "flask/docs/signals.rst", "flask/docs/design.rst",
    "cobra/site/content/active_help.md", "cobra/site/content/projects_using_cobra.md",
    "cobra/site/content/user_guide.md", "gson/README.md",
    "sqlalchemy/doc/build/orm/self_referential.rst", "sqlalchemy/doc/build/orm/backref.rst",
    "sqlalchemy/doc/build/orm/versioning.rst", "sqlalchemy/doc/build/core/event.rst",
]  # fmt: skip


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every claim of every chunk and the drops by reason (the child process)."""
    out: list[dict[str, Any]] = []
    for d in distilled_chunks(paths, roots, labels=True):
        doc = "/".join(Path(d.path).parts[-2:])
        out += [{"doc": doc, "type": a.type, "claim": a.claim} for a in d.atoms]
        out += [{"doc": doc, "drop": r, "n": n} for r, n in d.drops.items()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit whose distiller is 'before'")
    parser.add_argument("--out", type=Path, help="write the markdown here")
    add_child_arguments(parser)
    args = parser.parse_args()
    if emit_if_child(args, distill_documents):  # the child: distil with the PYTHONPATH commit
        return
    paths = [str(REPOS / d) for d in DOCS]
    roots = sorted({str(Path(p).parent) for p in paths})
    with base_tree(ROOT, args.base) as base:
        before = run_child(__file__, base, paths, roots)
    after = run_child(__file__, ROOT, paths, roots)
    lines = [f"### Tunable docs pages, every changed claim ({args.base} -> {head_commit(ROOT)})",
             "", "| document | claims before | after | changed | drops before | drops after |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    changes: list[str] = []
    for doc in dict.fromkeys(a["doc"] for a in before + after):
        b = Counter(a["claim"] for a in before if a["doc"] == doc and "claim" in a)
        n = Counter(a["claim"] for a in after if a["doc"] == doc and "claim" in a)
        db, da = Counter(), Counter()
        for side, into in ((before, db), (after, da)):
            for a in side:
                if a["doc"] == doc and "drop" in a:
                    into[a["drop"]] += a["n"]
        lines.append(
            f"| {doc} | {sum(b.values())} | {sum(n.values())} | {len(list((n - b).elements()))}"
            f" | {dict(sorted(db.items()))} | {dict(sorted(da.items()))} |"
        )
        changes += [f"| {doc} | - | {c[:220]} |" for c in sorted((b - n).elements())]
        changes += [f"| {doc} | + | {c[:220]} |" for c in sorted((n - b).elements())]
    lines += ["", "| document | | claim |", "|---|---|---|", *changes]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        args.out.write_text(table, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
