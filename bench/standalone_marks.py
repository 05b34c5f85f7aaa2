"""Benchmark: which graded atoms carry a "leans back" mark, and how the labels split (issue 15).

`bench/regress_labels.py` finds every graded atom of the five labelled samples again; this bench
asks, of the atom a distiller now makes over each graded quote, what marks it as not standing
alone:

- `anaphoric`: the draft's metadata says it leans on a sentence nothing resolved (confidence
  0.4), the mark join and carry leave when they could not help;
- `refers`: no anaphoric mark, but `distill.context.refers_back` still sees a reference in the
  final claim and no subject was carried (a signal the distiller does not act on);
- `carried`: a subject was carried (metadata `subject`);
- `none`: nothing marks it.

It prints the table marked x junk/good for a base commit and the working tree (each run in a
child process, as `regress_labels` does), the junk atoms with no mark (what signal was missing is
read from the list), the drop reasons the distiller counted, and atoms per document. A graded
atom that the working tree no longer makes at all is `gone` (what a drop should do to junk).

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/standalone_marks.py
     [--base main] [--out bench/results/HISTORY.md]
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import _child
from regress_labels import SEEDS, cell, covers, labelled_documents, norm

ROOT = Path(__file__).resolve().parent.parent


def distill_documents(paths: list[str], roots: list[str]) -> dict[str, Any]:
    """Every atom of every chunk with its marks, and the drop reasons per document (the child)."""
    from pegas_memory.distill.context import refers_back

    atoms: list[dict[str, Any]] = []
    dropped: dict[str, dict[str, int]] = {path: {} for path in paths}
    for d in _child.distilled_chunks(paths, roots):
        reasons = dropped[d.path]
        for reason, n in d.drops.items():
            reasons[reason] = reasons.get(reason, 0) + n
        for atom in d.atoms:
            meta = atom.metadata
            ref = refers_back(atom.claim, atom.language)
            if meta.get("anaphoric"):
                mark = "anaphoric"
            elif meta.get("subject"):
                mark = "carried"
            elif ref is not None:
                mark = f"refers:{ref.kind}"
            else:
                mark = "none"
            atoms.append({"path": d.path, "type": atom.type, "claim": atom.claim,
                          "quote": atom.quote, "confidence": atom.confidence,
                          "mark": mark})  # fmt: skip
    return {"atoms": atoms, "dropped": dropped}


def main() -> None:
    parser = _child.comparison_parser(__doc__.splitlines()[0], "main")
    parser.add_argument("--dump", type=Path, help="write the working tree's atoms here (JSON)")
    args = _child.parse_or_emit(parser, distill_documents)
    if args is None:  # the child: it distilled with the PYTHONPATH commit
        return

    data = _child.shared_data_dir()
    with tempfile.TemporaryDirectory(prefix="pegas-marks-docs-") as tmp:
        by_seed, paths, roots = labelled_documents(data, Path(tmp), SEEDS)
        before, after = _child.before_and_after(__file__, ROOT, args.base, paths, roots)
    if args.dump:
        args.dump.write_text(json.dumps(after, ensure_ascii=False), encoding="utf-8")

    lines = [
        f"## Marks of the graded atoms: {args.base} -> {_child.head_commit(ROOT)} + working tree",
        "",
    ]
    unmarked: list[str] = []
    leaning: list[str] = []
    for name, run in (("base", before), ("working tree", after)):
        table: Counter[tuple[str, str]] = Counter()
        for seed in SEEDS:
            grades = json.loads((ROOT / f"bench/labels/graded-sample-{seed}.json").read_text())
            dump = json.loads((ROOT / f"bench/labels/graded-sample-{seed}.dump.json").read_text())
            docs = set(by_seed[seed])
            atoms = [a for a in run["atoms"] if a["path"] in docs]
            for graded in dump["sample"]:
                grade = grades.get(graded["key"])
                if grade is None:
                    continue
                label = "junk" if grade.get("junk") else "good"
                quote = norm(graded["quote"])
                near = [a for a in atoms if covers(norm(a["quote"]), quote)]
                exact = [a for a in near if a["claim"] == graded["claim"]]
                atom = (exact or near or [None])[0]
                mark = "gone" if atom is None else atom["mark"].split(":")[0]
                table[(mark, label)] += 1
                if name == "working tree" and mark in ("anaphoric", "refers"):
                    leaning.append(
                        f"| {seed} | {graded['key']} | {label} | {atom['mark']}"
                        f" | {cell(atom['claim'], 200)} | {cell(grade.get('why', ''), 160)} |"
                    )
                if name == "working tree" and label == "junk" and mark != "gone":
                    unmarked.append(
                        f"| {seed} | {graded['key']} | {atom['mark']} | {atom['confidence']}"
                        f" | {cell(atom['claim'], 200)} | {cell(grade.get('why', ''), 200)} |"
                    )
        marks = sorted({m for m, _ in table})
        lines += [f"### {name}", "", "| mark | junk | good |", "|---|---|---|"]
        lines += [f"| {m} | {table[(m, 'junk')]} | {table[(m, 'good')]} |" for m in marks]
        atoms_n = len(run["atoms"])
        reasons: Counter[str] = Counter()
        for counts in run["dropped"].values():
            reasons.update(counts)
        lines += [
            "",
            f"atoms on the {len(run['dropped'])} documents: {atoms_n}"
            f" ({atoms_n / max(1, len(run['dropped'])):.1f} per document); dropped: "
            + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())),
            "",
        ]
    lines += [
        "### Graded atoms the working tree marks as leaning back (anaphoric, refers)",
        "",
        "| seed | key | label | mark | claim now | grader's note |",
        "|---|---|---|---|---|---|",
        *leaning,
        "",
        "### Labelled junk the working tree still makes, with its mark",
        "",
        "| seed | key | mark | confidence | claim now | why junk |",
        "|---|---|---|---|---|---|",
        *unmarked,
    ]
    _child.publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
