"""Benchmark: the independent graded samples 6161, 7171, 8181, 9191 re-typed by the current rules.

Each sample's documents are rebuilt as its run built them (`graded_sample.build_documents` with
its dump's doc seed, excluded seeds and extra documents; the XQuAD ru files are written again
from `ru/xquad/source/xquad.ru.json`, articles 0-2, 3-5 and 6-8, the way the 7171, 8181 and
9191 runs wrote them) and distilled chunk by chunk as ingest does. Every graded atom is found
again by its claim's key, else by its quote (the current joins may have changed the claim),
and the type the rules
give it now is compared with the right type: the graded type when the grader said it was right,
else the one the grader's "why" names (`bench/labels/types-graded.json`, `right_type`). An atom
not found again counts as not found, not as wrong; one found by its quote may now be part of a
longer (joined) atom whose type is that atom's, so the by-key column is given apart.

These samples were read when the rules were written: this is tuning data, not a held-out measure.

Run: PEGAS_SHARED_DATA=/work/shared/data PEGAS_REPOS=/work/cache/repos \
    python bench/bench_types_graded.py [--json OUT.json] [--errors]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_atom_quality import distill_source, shared_data  # noqa: E402
from bench_types import repos_dir  # noqa: E402
from graded_sample import atom_key, build_documents  # noqa: E402

import pegas_memory.distill.offline as offline  # noqa: E402
from pegas_memory.config import load_settings  # noqa: E402
from pegas_memory.distill.types import DraftAtom  # noqa: E402
from pegas_memory.ingest.sources import parse_source, read_source  # noqa: E402

LABELS = ROOT / "bench" / "labels"
SEEDS = (6161, 7171, 8181, 9191, 10101)
# The extra documents of each sample's run (its section of bench/results/graded-sample.md).
EXTRAS = {
    6161: ("flask/docs/design.rst", "cobra/README.md"),
    7171: ("gson/GsonDesignDocument.md", "express/Readme.md", "xquad:0-2"),
    8181: ("sqlalchemy/README.rst", "gson/README.md", "xquad:3-5"),
    9191: (
        "sqlalchemy/doc/build/orm/self_referential.rst",
        "ripgrep/crates/globset/README.md",
        "xquad:6-8",
    ),
    10101: (
        "sqlalchemy/doc/build/core/event.rst",
        "ripgrep/crates/ignore/README.md",
        "xquad:9-11",
    ),
}
# Each file as its run wrote it: the 7171 file dropped the byte-order mark XQuAD has at the start
# of some contexts, the 8181 one kept it.
XQUAD_NAMES = {
    "xquad:0-2": ("xquad-ru.md", "\ufeff"),
    "xquad:3-5": ("xquad-ru-b.md", ""),
    "xquad:6-8": ("xquad-ru-c.md", ""),
    "xquad:9-11": ("xquad-ru-d.md", ""),
}


def write_xquad(data: Path, spec: str, folder: Path) -> Path:
    """The XQuAD ru articles `spec` names, each `# <title>` and its contexts as paragraphs."""
    first, last = (int(x) for x in spec.split(":")[1].split("-"))
    articles = json.loads((data / "ru/xquad/source/xquad.ru.json").read_text(encoding="utf-8"))
    name, mark = XQUAD_NAMES[spec]
    lines: list[str] = []
    for article in articles["data"][first : last + 1]:
        lines += [f"# {article['title'].replace('_', ' ')}", ""]
        for p in article["paragraphs"]:
            lines += [p["context"].lstrip(mark).strip(), ""]
    path = folder / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def sample_atoms(data: Path, seed: int, tmp: Path) -> dict[str, list[DraftAtom]]:
    """Document file name -> the atoms the current tree distils from it, for sample `seed`."""
    meta = json.loads((LABELS / f"graded-sample-{seed}.dump.json").read_text(encoding="utf-8"))
    meta = meta["meta"]
    folder = tmp / str(seed)
    folder.mkdir()
    repos = repos_dir()
    extras = tuple(
        write_xquad(data, e, folder) if e.startswith("xquad:") else repos / e for e in EXTRAS[seed]
    )
    exclude = tuple(meta.get("exclude_doc_seed", ()))
    paths = build_documents(data, folder, 30, 40, meta["doc_seed"], exclude, extras)
    settings = load_settings(ingest_roots=[str(data / "docs/pdf"), str(folder), str(repos)])
    atoms: dict[str, list[DraftAtom]] = {}
    for path in paths:
        parsed = parse_source(read_source(str(path), settings), settings)
        atoms[path.name] = distill_source(parsed, offline.OfflineDistiller().distill)
    return atoms


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def find_again(sampled: dict[str, Any], atoms: list[DraftAtom], by_key: dict[str, DraftAtom]
               ) -> tuple[DraftAtom | None, str]:  # fmt: skip
    """The current atom of a sampled one: same claim key, else the atom whose quote holds the
    sampled quote's start (or whose quote start the sampled quote holds), the longest overlap."""
    atom = by_key.get(sampled["key"])
    if atom is not None:
        return atom, "key"
    quote = _norm(sampled["quote"])
    best: tuple[int, DraftAtom | None] = (0, None)
    for a in atoms:
        q = _norm(a.quote)
        if quote[:60] in q or q[:60] in quote:
            overlap = min(len(q), len(quote))
            if overlap > best[0]:
                best = (overlap, a)
    return best[1], "quote" if best[1] is not None else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write every atom's result here")
    parser.add_argument("--errors", action="store_true", help="print every wrong type")
    args = parser.parse_args()
    data = shared_data()
    fixes = json.loads((LABELS / "types-graded.json").read_text(encoding="utf-8"))["right_type"]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pegas-retype-") as tmp:
        for seed in SEEDS:
            atoms = [a for got in sample_atoms(data, seed, Path(tmp)).values() for a in got]
            by_key = {atom_key(a.claim): a for a in atoms}
            dump = json.loads(
                (LABELS / f"graded-sample-{seed}.dump.json").read_text(encoding="utf-8")
            )
            grades = json.loads((LABELS / f"graded-sample-{seed}.json").read_text("utf-8"))
            for s in dump["sample"]:
                grade = grades.get(s["key"])
                if grade is None or s["lang"] not in ("en", "ru"):
                    continue
                right = s["type"] if grade["type"] else fixes.get(s["key"])
                atom, how = find_again(s, atoms, by_key)
                rows.append({"seed": seed, "lang": s["lang"], "key": s["key"], "right": right,
                             "graded": s["type"], "now": atom.type if atom else None,
                             "found": how, "claim": s["claim"][:160]})  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    tally: dict[tuple[int, str], Counter[str]] = {}
    for r in rows:
        c = tally.setdefault((r["seed"], r["lang"]), Counter())
        c["sampled"] += 1
        if r["now"] is None or r["right"] is None:
            continue
        c["found"] += 1
        c[f"by {r['found']}"] += 1
        c["right"] += r["now"] == r["right"]
        c[f"right by {r['found']}"] += r["now"] == r["right"]
    print("| sample | lang | found again (by key, by quote) | type right now, of found |"
          " same claim (by key): type right |")  # fmt: skip
    print("|---|---|---|---|---|")
    for (seed, lang), c in sorted(tally.items()):
        pct = f"{100 * c['right'] / c['found']:.0f}%" if c["found"] else "-"
        found = f"{c['found']}/{c['sampled']} ({c['by key']}, {c['by quote']})"
        same = f"{c['right by key']}/{c['by key']}"
        print(f"| {seed} | {lang} | {found} | {c['right']}/{c['found']} ({pct}) | {same} |")
    if args.errors:
        for r in rows:
            if r["now"] is not None and r["right"] is not None and r["now"] != r["right"]:
                print(f"{r['seed']} {r['lang']} {r['now']} != {r['right']}: {r['claim']}")


if __name__ == "__main__":
    main()
