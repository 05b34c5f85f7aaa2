"""Probe: does a Russian dependency parse tell which sentences stand alone? (Partly; dev only.)

A probe of docs/decisions/0010. slovnet's syntax and morphology models (the news models natasha
ships inside its PyPI wheel, with navec's embeddings) parse each Russian gate candidate of the
dev sets (`bench/standalone_gate.py` says which drafts are candidates); the signals read from the
parse are the root's own nominal subject, a pronoun subject, a demonstrative, a third-person
pronoun, first or second person, the imperative. Printed: each signal's share of labelled atoms,
and positive gates (the rules, and the rules plus a signal) per kind, junk and kept.

Nothing here is a project dependency; to run it, install into a scratch folder and unpack the
models from natasha's wheel (no download at run time):

    pip install --target /tmp/slovnet slovnet==0.6.0 navec
    pip download --no-deps -d /tmp/natasha natasha==1.6.0
    unzip /tmp/natasha/*.whl 'natasha/data/*' -d /tmp/natasha
    PYTHONPATH=.:/tmp/slovnet .venv/bin/python bench/standalone_syntax_ru.py \
        --models /tmp/natasha/natasha/data
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import standalone_gate as gate

from pegas_memory.distill.patterns import wordset

_DEMONSTRATIVE = wordset(
    "этот эта это эти этого этой этим этих такой такая такое такие таких такого данный данная"
    " данные тот та те"
)


def parse_signals(models: Path) -> Callable[[str], dict[str, bool]]:
    """A function from a sentence to its parse's signals (slovnet with navec)."""
    from navec import Navec  # type: ignore[import-not-found]
    from razdel import tokenize
    from slovnet import Morph, Syntax  # type: ignore[import-not-found]

    navec = Navec.load(str(models / "emb/navec_news_v1_1B_250K_300d_100q.tar"))
    syntax = Syntax.load(str(models / "model/slovnet_syntax_news_v1.tar")).navec(navec)
    morph = Morph.load(str(models / "model/slovnet_morph_news_v1.tar")).navec(navec)

    def signals(sentence: str) -> dict[str, bool]:
        tokens = [t.text for t in tokenize(" ".join(sentence.split()))][:120]
        parsed = list(
            zip(next(syntax.map([tokens])).tokens, next(morph.map([tokens])).tokens, strict=True)
        )
        roots = [i for i, (t, _) in enumerate(parsed) if t.head_id == "0"]
        root = str(roots[0] + 1) if roots else None
        subjects = [m for t, m in parsed if t.rel.startswith("nsubj") and t.head_id == root]
        return {
            "own noun subject": any(m.pos in ("NOUN", "PROPN", "X") for m in subjects),
            "pronoun subject": any(m.pos == "PRON" for m in subjects),
            "demonstrative": any(t.text.lower() in _DEMONSTRATIVE for t, _ in parsed),
            "third-person pronoun": any(
                m.pos == "PRON" and m.feats.get("Person") == "3" for _, m in parsed
            ),
            "first or second person verb": any(
                m.pos == "VERB" and m.feats.get("Person") in ("1", "2") for _, m in parsed
            ),
            "imperative": any(m.feats.get("Mood") == "Imp" for _, m in parsed),
        }

    return signals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, required=True, help="natasha's data folder")
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        help="labelled folders to read instead of the dev sets (bench/labels/standalone-...)",
    )
    args = parser.parse_args()
    signals = parse_signals(args.models)
    folders = tuple(args.labels or gate.DEV)
    items = gate.load_dev(folders)
    rows = gate.rows_of(items)
    parsed: dict[int, dict[str, bool]] = {}
    share: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for i, (item, row) in enumerate(zip(items, rows, strict=True)):
        if row.language != "ru" or row.values is None:
            continue
        parsed[i] = signals(item["sentence"])
        for name, on in parsed[i].items():
            if on:
                share[name][0] += 1
                share[name][1] += sum(row.labels)
                share[name][2] += len(row.labels)
    cand = [rows[i] for i in parsed]
    base = sum(sum(r.labels) for r in cand) / sum(len(r.labels) for r in cand)
    where = ", ".join(str(p) for p in folders)
    print(f"Russian gate candidates of {where}: {len(cand)}, labelled atoms {base:.0%}\n")
    print("| signal | candidates | labelled atoms among them |\n|---|---|---|")
    for name, (n, good, graded) in share.items():
        print(f"| {name} | {n} | {good / graded:.0%} |")

    def fired(row: Any) -> bool:
        return any(row.values[n] for n in row.values if n.startswith("rule: "))

    gates: dict[str, Callable[[int], bool]] = {
        "the rules": lambda i: not fired(rows[i]),
        "the rules, and an own noun subject": lambda i: (
            not fired(rows[i]) and parsed[i]["own noun subject"]
        ),
        "the rules, and no pronoun subject, demonstrative or 3rd-person pronoun": lambda i: (
            not fired(rows[i])
            and not parsed[i]["pronoun subject"]
            and not parsed[i]["demonstrative"]
            and not parsed[i]["third-person pronoun"]
        ),
    }
    print("\n| gate | kind | junk | kept |\n|---|---|---|---|")
    ru = [i for i, r in enumerate(rows) if r.language == "ru"]
    for name, up in gates.items():
        flags = {i: rows[i].fixed if rows[i].fixed is not None else up(i) for i in ru}
        for kind in [*sorted({rows[i].kind for i in ru}), "all"]:
            idx = [i for i in ru if kind in ("all", rows[i].kind)]
            counted = gate.counts([rows[i] for i in idx], [bool(flags[i]) for i in idx])
            junk, kept = (
                gate._pct(counted["junk"], counted["promoted"]),
                gate._pct(counted["kept"], counted["good"]),
            )
            print(f"| {name} | {kind} | {junk} | {kept} |")


if __name__ == "__main__":
    main()
