"""Benchmark: every claim a distiller change makes or loses on tunable documents nobody graded.

Rule 12 of `distill/join_en.py` (a comparative with nothing to compare with joins the sentence
before), the 1200-character bracket glue of `sentences.close_brackets` and the bare "This"/"It"
drop of `distill/standalone.py` also fire on claims no grader saw. This distills the tunable
documents (flask's docs/*.rst, cobra's docs, express's Readme.md, gson's README.md,
GsonDesignDocument.md and ReleaseProcess.md, sqlalchemy's README.rst and its three tunable doc
pages, the two ripgrep READMEs, and the SciFact abstracts of doc-seed 99 when the shared data is
there) chunk by chunk with a base commit and with the working tree (`regress_labels.py`'s child)
and prints every claim only one side makes, to be read. Counts, not timings.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/claim_changes_tunable.py
     [--base main] [--out /tmp/claim-changes.md]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from _child import before_and_after, head_commit, publish

ROOT = Path(__file__).resolve().parent.parent
REPOS = Path("/work/cache/repos")
CHILD = ROOT / "bench" / "regress_labels.py"


def documents() -> list[Path]:
    docs = sorted((REPOS / "flask/docs").glob("*.rst"))
    docs += sorted((REPOS / "cobra/site/content").rglob("*.md"))
    docs += [REPOS / p for p in (
        "express/Readme.md", "gson/README.md", "gson/GsonDesignDocument.md",
        "gson/ReleaseProcess.md", "sqlalchemy/README.rst",
        "sqlalchemy/doc/build/orm/self_referential.rst", "sqlalchemy/doc/build/orm/backref.rst",
        "sqlalchemy/doc/build/core/event.rst", "ripgrep/crates/globset/README.md",
        "ripgrep/crates/ignore/README.md",
    )]  # fmt: skip
    # "changes.rst", "license.rst": one include directive, nothing to ingest
    return [p for p in docs if p.is_file() and p.stat().st_size > 400]


def claims(atoms: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    return Counter((Path(a["path"]).name, f"[{a['type']}] {' '.join(a['claim'].split())}")
                   for a in atoms)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    paths = [str(p) for p in documents()]
    roots = sorted({str(REPOS)})
    before, after = map(claims, before_and_after(str(CHILD), ROOT, args.base, paths, roots))
    gone, new = before - after, after - before
    lines = [
        f"## Tunable documents re-distilled: {args.base} -> {head_commit(ROOT)}", "",
        f"{len(paths)} documents; claims {sum(before.values())} -> {sum(after.values())}; "
        f"only in base {sum(gone.values())}, only in the working tree {sum(new.values())}.", "",
        "| document | side | claim |", "|---|---|---|",
    ]  # fmt: skip
    for (doc, claim), _ in sorted(gone.items()):
        lines.append(f"| {doc} | base | {claim.replace('|', '/')} |")
    for (doc, claim), _ in sorted(new.items()):
        lines.append(f"| {doc} | tree | {claim.replace('|', '/')} |")
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
