"""Benchmark: which sentences become atoms, against the standalone labelled set.

The set (bench/labels/standalone/<lang>.jsonl, drawn by `bench/standalone_sample.py` from
public documents of kinds the distiller was not tuned on; SOURCES.md there) labels random
source sentences: `atom` (states something by itself, with its type) or `passage` (with the
reason it needs its passage). Each item's chunk is distilled as ingest does; a sentence counts
as promoted when an atom's quote covers at least half of it. Printed per language and per kind
of document, for the working tree and a base commit side by side:

- junk: labelled-passage sentences among the promoted ones (target <= 10%);
- type right: promoted labelled-atom sentences whose atom has the labelled type (>= 90%);
- kept: labelled-atom sentences that became atoms (the gate must not starve the store, >= 70%).

The misses of the `dev` split are listed for reading; the `heldout` split's only as counts.

Run: .venv/bin/python bench/bench_standalone.py [--base COMMIT] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "bench" / "labels" / "standalone"


def load_items(labels: Path = LABELS) -> list[dict[str, Any]]:
    """Every labelled item of both languages."""
    return [
        json.loads(line)
        for path in sorted(labels.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def distill_items(items: Sequence[dict[str, Any]]) -> list[list[tuple[int, int, str]]]:
    """(quote start, quote end, type) of each atom the importable distiller makes of each
    item's chunk."""
    from pegas_memory.distill.offline import OfflineDistiller
    from pegas_memory.distill.types import ChunkContext

    distiller = OfflineDistiller()
    out = []
    for item in items:
        context = ChunkContext(
            title=item["title"],
            heading_path=tuple(item["heading_path"]),
            language=item["language"],
        )
        atoms = distiller.distill(item["context"], context)
        out.append([(a.quote_start, a.quote_end, a.type) for a in atoms])
    return out


def promoted_type(item: dict[str, Any], atoms: Sequence[Sequence[Any]]) -> str | None:
    """The type of the atom covering at least half of the item's sentence, or None."""
    start, end = item["start"], item["start"] + len(item["sentence"])
    best, kind = 0, None
    for a0, a1, atom_type in atoms:
        overlap = min(end, a1) - max(start, a0)
        if overlap > best:
            best, kind = overlap, atom_type
    return kind if best * 2 >= end - start else None


def _base_atoms(commit: str, items: Sequence[dict[str, Any]]) -> list[list[list[Any]]]:
    sys.path.insert(0, str(ROOT / "bench"))
    from _child import base_tree

    with base_tree(ROOT, commit) as tree:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [sys.executable, __file__, "--emit"],
            input=json.dumps(list(items)),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    return json.loads(done.stdout)


def score(items: Sequence[dict[str, Any]], atoms: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Counts per (language, kind) and per language."""
    rows: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item, found in zip(items, atoms, strict=True):
        kind = promoted_type(item, found)
        for key in ((item["language"], item["kind"]), (item["language"], "all")):
            row = rows[key]
            good = item["verdict"] == "atom"
            row["items"] += 1
            row["good"] += good
            if kind is not None:
                row["promoted"] += 1
                row["junk"] += not good
                row["typed_right"] += good and kind == item["type"]
                row["kept"] += good
    return rows


def misses(items: Sequence[dict[str, Any]], atoms: Sequence[Sequence[Any]]) -> list[str]:
    """What the distiller got wrong on the dev split, one line each."""
    lines = []
    for item, found in zip(items, atoms, strict=True):
        if item["split"] != "dev":
            continue
        kind = promoted_type(item, found)
        sentence = " ".join(item["sentence"].split())[:140]
        if item["verdict"] == "atom" and kind is None:
            lines.append(f"| lost | {item['type']} | {sentence} |")
        elif item["verdict"] == "atom" and kind != item["type"]:
            lines.append(f"| retyped {item['type']}→{kind} | | {sentence} |")
        elif item["verdict"] == "passage" and kind is not None:
            lines.append(f"| promoted | {item['reason']} | {sentence} |")
    return lines


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def table(base: dict[str, Any] | None, head: dict[str, Any], names: tuple[str, str]) -> str:
    """One row per (language, kind): junk, type right and kept, base beside head."""
    out = [
        "| language | kind | items | labelled atoms | "
        + " | ".join(f"{m} {n}" for m in ("junk", "type right", "kept") for n in names)
        + " |",
        "|---|---|---|---|" + "---|" * 6,
    ]
    for key in sorted(head, key=lambda k: (k[0], k[1] == "all", k[1])):
        h = head[key]
        b = base[key] if base is not None else None
        cells = []
        for num, den in (("junk", "promoted"), ("typed_right", "kept"), ("kept", "good")):
            for side in (b, h):
                cells.append(_pct(side[num], side[den]) if side is not None else "-")
        head_cells = f"| {key[0]} | {key[1]} | {h['items']} | {h['good']} | "
        out.append(head_cells + " | ".join(cells) + " |")
    return "\n".join(out)


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a commit to distil the same items with, side by side")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--labels",
        type=Path,
        default=LABELS,
        help="the labelled set's folder: standalone (the rule writer's), standalone-regraded (the "
        "same items graded by an independent grader) or standalone-independent (new documents, "
        "graded blind)",
    )
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.emit:  # the child: items on stdin, atoms of the PYTHONPATH commit on stdout
        sys.stdout.write(json.dumps(distill_items(json.load(sys.stdin))))
        return
    items = load_items(args.labels)
    head_atoms = distill_items(items)
    base_atoms = _base_atoms(args.base, items) if args.base else None
    head = score(items, head_atoms)
    base = score(items, base_atoms) if base_atoms is not None else None
    names = (args.base or "base", "now")
    report = [
        "# Which sentences become atoms: the standalone labelled set",
        "",
        f"`bench/bench_standalone.py --base {args.base} --labels {_shown(args.labels)}`: "
        f"{len(items)} labelled sentences, each item's chunk distilled offline by both commits.",
        "",
        table(base, head, names),
        "",
        "Misses on the dev split (working tree):",
        "",
        "| miss | label | sentence |",
        "|---|---|---|",
        *misses(items, head_atoms),
    ]
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
