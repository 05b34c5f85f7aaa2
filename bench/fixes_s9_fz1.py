"""Benchmark: what the fz1 session's English rules change in claims of tunable documents (issue 15).

The fz1 rules (`distill.join_en` rules 7 and 11: a description of the same word family or an
event noun joins the sentence before; `distill.subject_en`: a claim whose subject names nothing
carries its section's subject) change claims beyond the graded atoms that
`bench/regress_labels.py` checks. This bench distills tunable documents chunk by chunk as ingest
does, once by a base commit (`--base`, a child process on its `git archive`) and once by the
working tree, and per document counts the distinct English claims made, the claims of the base
no longer made and the new ones; the new claims are listed for reading (`--list N` per
document). The documents: doc-seed 95's SciFact reading list (the one the seed 10101 grader
read, 30 abstracts) and the tunable repository pages (flask's docs/*.rst, cobra's site pages and
README, express's Readme, gson's README and design document, sqlalchemy's README and the two doc
pages, the two ripgrep READMEs); `--html N` adds the first N of the 181 web pages
(bench_atom_quality's). Counts, not timings.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/fixes_s9_fz1.py [--base main]
     [--list 8] [--out bench/results/fixes-s9-fz1.md]
"""

from __future__ import annotations

import argparse
import gzip
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
REPOS = Path("/work/cache/repos")
PAGES = (
    "cobra/README.md", "express/Readme.md", "gson/README.md", "gson/GsonDesignDocument.md",
    "sqlalchemy/README.rst", "sqlalchemy/doc/build/orm/self_referential.rst",
    "sqlalchemy/doc/build/core/event.rst", "ripgrep/crates/globset/README.md",
    "ripgrep/crates/ignore/README.md",
)  # fmt: skip


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every atom of every chunk with its claim and language, as ingest distills them."""
    return [{"path": d.path, "claim": a.claim, "lang": a.language,
             "context": a.metadata.get("context", "")}
            for d in distilled_chunks(paths, roots) for a in d.atoms]  # fmt: skip


def cell(text: str, limit: int = 300) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--list", type=int, default=8, help="new claims listed per document")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--html", type=int, default=0, help="also the first N web pages")
    add_child_arguments(parser)
    args = parser.parse_args()
    if emit_if_child(args, distill_documents):  # the child: distil with the PYTHONPATH commit
        return

    sys.path.insert(0, str(ROOT / "bench"))
    from _common import log, shared_data_dir
    from graded_sample import pick_documents

    data = shared_data_dir()
    commit = head_commit(ROOT)
    with tempfile.TemporaryDirectory(prefix="pegas-fz1-docs-") as tmp:
        papers, _ = pick_documents(data, 30, 40, 95, (15, 61, 71, 81, 91))
        lines = ["# SciFact abstracts (a reading list)", ""]
        for p in papers:
            lines += [f"## {p['title'].strip()}", "", p["text"].strip(), ""]
        scifact = Path(tmp) / "scifact-abstracts-95.md"
        scifact.write_text("\n".join(lines), encoding="utf-8")
        flask = sorted((REPOS / "flask/docs").glob("*.rst"))
        cobra = sorted((REPOS / "cobra/site/content").rglob("*.md"))
        paths = [str(scifact), *map(str, flask), *map(str, cobra), *(str(REPOS / p) for p in PAGES)]
        for page in sorted((data / "docs/html/html").glob("*.html.gz"))[: args.html]:
            html = Path(tmp) / page.name.removesuffix(".gz")
            html.write_bytes(gzip.decompress(page.read_bytes()))
            paths.append(str(html))
        roots = sorted({str(Path(p).parent) for p in paths})
        log(f"distilling {len(paths)} documents with {args.base}")
        with base_tree(ROOT, args.base) as base:
            before = run_child(__file__, base, paths, roots)
        log(f"distilling with the working tree ({commit})")
        after = run_child(__file__, ROOT, paths, roots)

    table = ["| document | en claims base | en claims head | base claims gone | new claims"
             " | new by a carry |", "|---|---|---|---|---|---|"]  # fmt: skip
    listed: list[str] = []
    totals = [0, 0, 0, 0, 0]
    for path in paths:
        b = {a["claim"] for a in before if a["path"] == path and a["lang"] == "en"}
        h = {a["claim"]: a for a in after if a["path"] == path and a["lang"] == "en"}
        gone, new = b - set(h), sorted(set(h) - b)
        carried = [c for c in new if h[c]["context"]]
        if not b and not h:
            continue
        inside = Path(path).is_relative_to(REPOS)
        name = str(Path(path).relative_to(REPOS)) if inside else Path(path).name[:24]
        row = [len(b), len(h), len(gone), len(new), len(carried)]
        totals = [t + r for t, r in zip(totals, row, strict=True)]
        if gone or new:
            table.append(f"| {name} | " + " | ".join(map(str, row)) + " |")
        for c in new[: args.list]:
            listed.append(f"| {name} | {h[c]['context'] or 'join'} | {cell(c)} |")
    table.append("| **all " + str(len(paths)) + " documents** | "
                 + " | ".join(f"**{t}**" for t in totals) + " |")  # fmt: skip
    text = "\n".join([
        f"## English claims changed: {args.base} -> {commit}", "",
        "`bench/fixes_s9_fz1.py`: distinct English claims per document (rows only where"
        " something changed); counts, not timings.", "", *table, "",
        f"New claims (at most {args.list} per document; `join` = no carry, a wider span):", "",
        "| document | how | new claim |", "|---|---|---|", *listed, "",
    ])  # fmt: skip
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
