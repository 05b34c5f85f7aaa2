"""Benchmark: chunk overlap by the previous chunk's last whole sentence, through ingest (issue 15).

Two modes, both counts (no timings):

- `--diff BASE.json WT.json [--labels L.json ...]`: two `bench/graded_sample.py --dump` files of
  the same documents with every atom sampled (`--n-en 100000 --n-ru 100000`), one made with the
  base chunking, one with the working tree's. Prints atoms added, lost and changed (a lost and an
  added atom of the same document whose quotes overlap), each claim for reading, and every
  labelled atom (keys of the `--labels` files) that is no longer stored, with what covers it.
- `--chunks PATH ...`: chunk counts and characters of documents (a markdown file of SciFact
  abstracts, say) with this tree's chunker, and how many chunks open on a repeated sentence
  longer than the overlap (what the change adds).

Run: PYTHONPATH=. .venv/bin/python bench/chunk_overlap_diff.py --diff /tmp/base.json /tmp/wt.json
     PYTHONPATH=. .venv/bin/python bench/chunk_overlap_diff.py \
         --chunks /tmp/docs/scifact-abstracts.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def norm(text: str) -> str:
    return " ".join(text.split())


def overlaps(a: str, b: str) -> bool:
    """Do two quotes share a window of text (one inside the other, or a 40-character piece)?"""
    a, b = norm(a), norm(b)
    if a in b or b in a:
        return True
    size = min(40, len(a), len(b))
    return any(a[i : i + size] in b for i in range(0, max(1, len(a) - size + 1), 10))


def diff(base: list[dict[str, Any]], wt: list[dict[str, Any]]) -> dict[str, Any]:
    """Atoms only in base (lost), only in the working tree (added), and pairs among them whose
    quotes overlap in the same document (changed)."""
    base_keys = {(a["doc"], a["claim"]) for a in base}
    wt_keys = {(a["doc"], a["claim"]) for a in wt}
    lost = [a for a in base if (a["doc"], a["claim"]) not in wt_keys]
    added = [a for a in wt if (a["doc"], a["claim"]) not in base_keys]
    changed: list[tuple[dict[str, Any], dict[str, Any]]] = []
    paired_lost: set[int] = set()
    paired_added: set[int] = set()
    for i, old in enumerate(lost):
        for j, new in enumerate(added):
            if old["doc"] == new["doc"] and overlaps(old["quote"], new["quote"]):
                changed.append((old, new))
                paired_lost.add(i)
                paired_added.add(j)
    return {
        "lost": [a for i, a in enumerate(lost) if i not in paired_lost],
        "added": [a for j, a in enumerate(added) if j not in paired_added],
        "changed": changed,
        "same": len(base_keys & wt_keys),
    }


def print_diff(name: str, result: dict[str, Any]) -> None:
    print(f"## {name}\n")
    print(f"same {result['same']}, changed pairs {len(result['changed'])}, "
          f"added {len(result['added'])}, lost {len(result['lost'])}\n")  # fmt: skip
    for old, new in result["changed"]:
        print(f"- changed ({old['doc']}):\n  - base: [{old['type']}] {old['claim']}\n"
              f"  - wt:   [{new['type']}] {new['claim']}")  # fmt: skip
    for a in result["added"]:
        print(f"- added ({a['doc']}): [{a['type']}] {a['claim']}")
    for a in result["lost"]:
        print(f"- lost ({a['doc']}): [{a['type']}] {a['claim']}")
    print()


def near(graded: dict[str, Any], atoms: list[dict[str, Any]]) -> list[str]:
    """The claims stored over a graded atom's quote."""
    return sorted(
        a["claim"]
        for a in atoms
        if a["doc"] == graded["doc"] and overlaps(a["quote"], graded["quote"])
    )


def labelled(labels: dict[str, Any], graded: list[dict[str, Any]], base: list[dict[str, Any]],
             wt: list[dict[str, Any]]) -> list[str]:  # fmt: skip
    """Rows for labelled atoms whose covering claims differ base -> working tree (the graded
    claim came from an older distiller, so "not stored as graded" alone says nothing here)."""
    rows = []
    for g in graded:
        if g["key"] not in labels:
            continue
        before, after = near(g, base), near(g, wt)
        if before == after:
            continue
        junk = "junk" if labels[g["key"]].get("junk") else "good"
        rows.append(f"- labelled {junk}: {g['claim']}\n  - base: {before or 'not stored'}\n"
                    f"  - wt:   {after or 'not stored'}")  # fmt: skip
    return rows


def chunk_counts(paths: list[str]) -> None:
    from pegas_memory.ingest.chunking import chunk_spans, split_markdown_sections

    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        n = chars = repeats = 0
        for section in split_markdown_sections(text):
            spans = chunk_spans(section.text)
            n += len(spans)
            chars += sum(e - s for s, e in spans)
            repeats += sum(1 for k in range(1, len(spans)) if spans[k - 1][1] - spans[k][0] > 150)
        print(f"| {Path(path).name} | {len(text)} | {n} | {chars} | {repeats} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BASE", "WT"))
    parser.add_argument("--labels", type=Path, action="append", default=[],
                        help="labels JSON; its .dump.json holds the graded claims")  # fmt: skip
    parser.add_argument("--chunks", nargs="+")
    args = parser.parse_args()
    if args.diff:
        base = json.loads(args.diff[0].read_text("utf-8"))["sample"]
        wt = json.loads(args.diff[1].read_text("utf-8"))["sample"]
        print_diff(f"{args.diff[0].name} -> {args.diff[1].name}", diff(base, wt))
        for path in args.labels:
            labels = json.loads(path.read_text("utf-8"))
            dump = path.with_name(path.stem + ".dump.json")
            graded = json.loads(dump.read_text("utf-8"))["sample"]
            rows = labelled(labels, graded, base, wt)
            print(f"{path.name}: {len(labels)} labelled, {len(rows)} covered differently")
            print("\n".join(rows) + "\n")
    if args.chunks:
        print("| document | chars | chunks | chunk chars | overlaps > 150 chars |")
        print("|---|---|---|---|---|")
        chunk_counts(args.chunks)


if __name__ == "__main__":
    main()
