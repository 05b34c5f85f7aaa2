"""Benchmark: does the offline distiller give each atom the type a careful reader would (issue 15)?

Two measures, each with the typing rules as they were (`distill/patterns.py` of BEFORE_COMMIT,
loaded from git into a temporary module and put in place of the current one's `match_definition`,
`block_term` and fact-or-text verdict inside `distill.offline`) and as they are now; everything
else (chunking, sentence splitting, joins) is the current tree's in both runs, so the difference is
the typing:

1. **The graded-sample documents** (`bench/graded_sample.py`'s `build_documents`, doc seed 15: 30
   SciFact abstracts and 40 TyDi QA Russian Wikipedia passages as markdown, and the three sample
   PDFs), distilled chunk by chunk as ingest does. The atoms the two graded samples (seeds 1515
   and 2626, `bench/labels/graded-sample-*.dump.json`) hold are found again by their claim's key;
   their right type is the graded type when the grade said it was right, else the one the grade's
   "why" names (`bench/labels/types-graded.json`). Atoms whose claim the current tree no longer
   produces are counted as not found.
2. **A labelled set** (`bench/labels/types-en.json`, `types-ru.json`, and the held-out
   `types-en-heldout.json`, `types-ru-heldout.json` labelled after the rules were written and
   never tuned on): sentences from SciFact
   abstracts, TyDi QA and XQuAD ru contexts, each labelled definition / fact / text by hand (the
   file's "how" says how). Each sentence is distilled alone as one chunk in its language; the
   type of the atom that covers most of it is its type (no atom at all counts as wrong).

Data: $PEGAS_SHARED_DATA, else the first `shared/data` found above the repository root.
Run: python bench/bench_types.py [--out bench/results/types.md] [--errors]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_atom_quality import distill_source, shared_data  # noqa: E402
from graded_sample import atom_key, build_documents  # noqa: E402

import pegas_memory.distill.offline as offline  # noqa: E402
from pegas_memory.config import load_settings  # noqa: E402
from pegas_memory.distill.types import ChunkContext, DraftAtom  # noqa: E402
from pegas_memory.ingest.sources import parse_source, read_source  # noqa: E402

BEFORE_COMMIT = "7cdc6f8"  # main when issue 15's type work started
START_COMMIT = "91ecaf7"  # main when session 7's type work (grammar rules) started
COLUMNS = {"before": BEFORE_COMMIT, "start": START_COMMIT, "after": None}
EXTRA_DOCS = ("flask/docs/design.rst", "cobra/README.md")  # seed 6161's markup documents
LABELS = ROOT / "bench" / "labels"
TYPED = ("definition", "fact", "text")
HEADER = """# Atom types of the offline distiller, before and after (issue 15, scope item 3)

Run: `PEGAS_SHARED_DATA=/work/shared/data PYTHONPATH=. python bench/bench_types.py --out
bench/results/types.md` (about 20 s on the shared, loaded 2-core machine). `before` is
`distill/patterns.py` of commit 7cdc6f8 (main when this work started) put in place of the current
`match_definition`, `is_fact` and `block_term`; everything else is the current tree in both
columns, so the difference is the typing rules alone. How the sentences were drawn and labelled
is in each label file's "how" (bench/labels/types-*.json); one reader labelled them all.

Read the rows by how much they were tuned on. The labelled set and held-out draws 1-3 were each
looked at after their first score and the rules were revised, so their `after` numbers are
optimistic. Draw 4 was drawn and labelled, then scored. One rule changed after that: a named
thing with a finite verb makes an English fact. That change came from a spot check of 24 HTML
atoms whose type had changed, and it left draw 4's score as it was, so draw 4 is the honest
number. The first score of each draw, taken before any revision it caused:

| draw | en | ru |
|---|---|---|
| held-out 1 (seed 9), first score | 21/34 (62%) | 34/34 (100%) |
| held-out 2 (seed 10), first score | 31/38 (82%) | 34/37 (92%) |
| held-out 3 (seed 11), first score | 23/37 (62%) | 29/32 (91%) |
| held-out 4 (seed 12), first score | 34/39 (87%) | 30/33 (91%) |

"""
FOOTER = """
What is left wrong on draw 4, and more generally:
- English method and setting lines with no verb of method ("SETTING Four eastern European
  nations ...") and evaluations ("Current research is shedding new light on ...") are still
  `fact` when they hold an acronym or a number. English facts with no number, acronym or verb
  from the lists ("a major task of the kidney is to reabsorb water", "we isolated a cell
  population with ...") are still `text`. A capitalised word alone no longer makes a fact; it
  takes a finite verb as well. So the English `fact` test leans on word lists, and that is why its
  held-out scores vary between draws (62-87% at first score).
- Russian: a lead behind page noise ("Coordinates:  Россия — ...") is not a definition, and the
  dash rule allows a term of at most 4 words ("Талисманы зимних Олимпийских игр 2014 года — ...").
  In Russian any finite verb makes a fact, so a quote's introduction ("Тесла заявил:") is one.
- Graded-sample rows: the atoms of the two graded samples (seeds 1515 and 2626) that the current
  distiller still produces with the same claim. Their right type is the one the grade gave or
  named (bench/labels/types-graded.json). These documents were used to find the error classes,
  so they are tuned on too.
"""
SECTION = """## Session 7: grammar rules for instructions, norms, findings, verbless phrases (t15)

Run: `PYTHONPATH=. python bench/bench_types.py --out bench/results/types.md --section` on the
shared, loaded 2-core machine. Columns: the rules of 7cdc6f8 (before issue 15's type work), of
91ecaf7 (main when this change started) and of this tree. Held-out draw 5 was drawn and labelled
by reading before any rule of this change was written, draw 6 before the rules were first run on
it (bench/labels/types-*-heldout5.json, -heldout6.json); the notes under the tables say which
rows were tuned on and give each draw's first score.

"""


def old_patterns(commit: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:pegas_memory/distill/patterns.py"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    spec = importlib.util.spec_from_loader("_old_patterns", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_old_patterns"] = module
    exec(compile(source, "patterns.py", "exec"), module.__dict__)
    return module


@contextlib.contextmanager
def rules(name: str) -> Iterator[None]:
    """The offline distiller with the typing rules of `name` (a key of COLUMNS)."""
    commit = COLUMNS[name]
    if commit is None:
        yield
        return
    old = old_patterns(commit)
    saved = {k: getattr(offline, k) for k in ("match_definition", "fact_verdict", "block_term")}
    offline.match_definition, offline.block_term = old.match_definition, old.block_term
    # the old rules' fact-or-text verdict (`distill.fact_rules` now), under one name
    offline.fact_verdict = lambda s, language: (old.is_fact(s, language), f"rules of {commit}")
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(offline, k, v)


def graded_truth() -> dict[str, dict[str, str]]:
    """key -> {"type": right type, "lang", "claim", "seed"} over the three graded samples."""
    labels = json.loads((LABELS / "types-graded.json").read_text(encoding="utf-8"))
    fixes, either = labels["right_type"], labels["either"]
    grades = json.loads((LABELS / "graded-sample.json").read_text(encoding="utf-8"))
    truth: dict[str, dict[str, str]] = {}
    for seed in (1515, 2626, 6161):
        dump = json.loads((LABELS / f"graded-sample-{seed}.dump.json").read_text(encoding="utf-8"))
        own = LABELS / f"graded-sample-{seed}.json"
        seed_grades = json.loads(own.read_text(encoding="utf-8")) if own.exists() else grades
        for s in dump["sample"]:
            grade = seed_grades.get(s["key"])
            if grade is None:
                continue
            right = s["type"] if grade["type"] else fixes[s["key"]]
            accepted = ",".join(either.get(s["key"], [right]))
            truth[s["key"]] = {"type": right, "accepted": accepted, "lang": s["lang"],
                               "claim": s["claim"], "seed": str(seed)}  # fmt: skip
    return truth


def graded_documents(data: Path) -> dict[str, list[DraftAtom]]:
    """doc-seed/document name -> its atoms: the documents of doc-seed 15 (samples 1515, 2626)
    and of doc-seed 61 without 15's, with seed 6161's two markup documents (sample 6161)."""
    repos = repos_dir()
    atoms: dict[str, list[DraftAtom]] = {}
    with tempfile.TemporaryDirectory(prefix="pegas-types-") as tmp:
        for seed, exclude, extra in ((15, (), ()), (61, (15,), EXTRA_DOCS)):
            folder = Path(tmp) / str(seed)
            folder.mkdir()
            extras = tuple(repos / e for e in extra)
            paths = build_documents(data, folder, 30, 40, seed, exclude, extras)
            roots = [str(data / "docs/pdf"), str(folder), str(repos)]
            settings = load_settings(ingest_roots=roots)
            for path in paths:
                parsed = parse_source(read_source(str(path), settings), settings)
                got = distill_source(parsed, offline.OfflineDistiller().distill)
                atoms[f"{seed}/{path.name}"] = got
    return atoms


def repos_dir() -> Path:
    """The cloned repositories ($PEGAS_REPOS, else the first `cache/repos` above the root)."""
    if "PEGAS_REPOS" in os.environ:
        return Path(os.environ["PEGAS_REPOS"])
    for parent in ROOT.parents:
        if (parent / "cache" / "repos").is_dir():
            return parent / "cache" / "repos"
    raise SystemExit("set PEGAS_REPOS to the directory of cloned repositories")


def typed_alone(sentence: str, language: str) -> str:
    """The type the distiller gives a sentence distilled alone (module docstring)."""
    atoms = offline.OfflineDistiller().distill(sentence, ChunkContext(language=language))
    if not atoms:
        return "none"
    best = max(atoms, key=lambda a: a.quote_end - a.quote_start)
    return best.type


Tally = dict[str, Counter[str]]


def score_graded(
    data: Path, truth: dict[str, dict[str, str]], errors: list[str]
) -> tuple[Tally, dict[str, Counter[str]]]:
    """Per "lang/doc-seed group": graded atoms found again and typed right; and the type mix of
    every graded-sample document."""
    documents = graded_documents(data)
    mix = {name: Counter(a.type for a in got) for name, got in documents.items()}
    atoms = {atom_key(a.claim): a for got in documents.values() for a in got}
    tally: Tally = {}
    for key, t in truth.items():
        group = "61" if t["seed"] == "6161" else "15"
        c = tally.setdefault(f"{t['lang']}/{group}", Counter())
        c["graded"] += 1
        atom = atoms.get(key)
        if atom is None:
            continue
        c["found"] += 1
        c["right"] += atom.type == t["type"]
        c["accepted"] += atom.type in t["accepted"].split(",")
        if atom.type != t["type"]:
            errors.append(
                f"graded {t['seed']} {t['lang']} {atom.type} != {t['type']}: {t['claim'][:140]}"
            )
    return tally, mix


def score_labelled(errors: list[str]) -> tuple[Tally, dict[str, Counter[tuple[str, str]]]]:
    tally: Tally = {}
    confusion: dict[str, Counter[tuple[str, str]]] = {}
    for lang in ("en", "ru"):
        c, conf = Counter[str](), Counter[tuple[str, str]]()
        for part, suffix in (
            ("labelled", ""),
            ("heldout", "-heldout"),
            ("heldout2", "-heldout2"),
            ("heldout3", "-heldout3"),
            ("heldout4", "-heldout4"),
            ("heldout5", "-heldout5"),
            ("heldout6", "-heldout6"),
            ("heldout7", "-heldout7"),
            ("heldout8", "-heldout8"),
        ):
            path = LABELS / f"types-{lang}{suffix}.json"
            for item in json.loads(path.read_text(encoding="utf-8"))["items"]:
                got = typed_alone(item["sentence"], lang)
                c[part] += 1
                c[f"{part} right"] += got == item["type"]
                if part == "labelled":
                    conf[(item["type"], got)] += 1
                if got != item["type"]:
                    errors.append(
                        f"{part} {lang} {got} != {item['type']}: {item['sentence'][:140]}"
                    )
        tally[lang], confusion[lang] = c, conf
    return tally, confusion


def pct(right: int, total: int) -> str:
    return f"{right}/{total} ({100 * right / total:.0f}%)" if total else "-"


def row(what: str, lang: str, cells: list[str]) -> str:
    return f"| {what} | {lang} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--errors", action="store_true", help="print every wrong type")
    parser.add_argument(
        "--section", action="store_true", help="write this run's section on top of --out"
    )
    parser.add_argument(
        "--only", choices=list(COLUMNS), help="run one column (to compare whole trees)"
    )
    args = parser.parse_args()
    if args.only:
        for name in [n for n in COLUMNS if n != args.only]:
            del COLUMNS[name]
    data = shared_data()
    truth = graded_truth()
    results: dict[str, Any] = {}
    for name in COLUMNS:
        errors: list[str] = []
        with rules(name):
            graded, mix = score_graded(data, truth, errors)
            labelled, confusion = score_labelled(errors)
        results[name] = (graded, labelled, confusion, errors, mix)
    names = [f"{n} ({c})" if c else n for n, c in COLUMNS.items()]
    lines = ["| measure | lang | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for group, what in (("15", "samples 1515+2626 (doc-seed 15)"),
                        ("61", "sample 6161 (doc-seed 61)")):  # fmt: skip
        for lang in ("en", "ru"):
            key = f"{lang}/{group}"
            tallies = [results[n][0].get(key, Counter()) for n in COLUMNS]
            graded_n = tallies[-1]["graded"]
            lines.append(row(f"graded {what}: atoms found again (of {graded_n}), type right", lang,
                             [pct(t["right"], t["found"]) for t in tallies]))  # fmt: skip
            if group == "15":
                lines.append(row("same, fact accepted where the lenient grade took text", lang,
                                 [pct(t["accepted"], t["found"]) for t in tallies]))  # fmt: skip
    for lang in ("en", "ru"):
        for part, what in (("labelled", "labelled sentences (tuned on)"),
                           ("heldout", "held-out draw 1 (seed 9; rules revised after it)"),
                           ("heldout2", "held-out draw 2 (seed 10; rules revised after it)"),
                           ("heldout3", "held-out draw 3 (seed 11; rules revised after it)"),
                           ("heldout4", "held-out draw 4 (seed 12)"),
                           ("heldout5", "held-out draw 5 (seed 5151, labelled before the change)"),
                           ("heldout6", "held-out draw 6 (seed 6262, labelled before its 1st run)"),
                           ("heldout7", "held-out draw 7 (seed 7373, labelled before session 8)"),
                           ("heldout8", "held-out draw 8 (seed 8383, labelled before fy2)"),
                           ):  # fmt: skip
            tallies = [results[n][1][lang] for n in COLUMNS]
            lines.append(row(f"{what}, type right", lang,
                             [pct(t[f"{part} right"], t[part]) for t in tallies]))  # fmt: skip
    lines += ["", "Atoms by type on the graded-sample documents (doc-seed/document):", ""]
    lines += ["| document | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for doc in results[list(COLUMNS)[-1]][4]:
        cells = []
        for n in COLUMNS:
            mix = results[n][4][doc]
            cells.append(", ".join(f"{k} {v}" for k, v in sorted(mix.items())) or "-")
        lines.append(f"| {doc} | " + " | ".join(cells) + " |")
    lines += ["", "Confusion of the labelled set (label -> type given: count):", ""]
    for name in COLUMNS:
        for lang in ("en", "ru"):
            conf = results[name][2][lang]
            cells_ = ", ".join(
                f"{k[0]}->{k[1]}: {v}" for k, v in sorted(conf.items()) if k[0] != k[1]
            )
            lines.append(f"- {name}, {lang}: wrong {cells_ or 'none'}")
    table = "\n".join(lines)
    print(table)
    if args.errors:
        for name in COLUMNS:
            print(f"\n## errors {name}")
            print("\n".join(results[name][3]))
    if args.out and args.section:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        args.out.write_text(SECTION + table + "\n\n" + old, encoding="utf-8")
    elif args.out:
        args.out.write_text(HEADER + table + "\n" + FOOTER, encoding="utf-8")


if __name__ == "__main__":
    main()
