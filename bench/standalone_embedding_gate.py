"""Probe: does a sentence's embedding tell what stands alone? (Not enough: docs/decisions/0010.)

A second probe of the promote stage's gate, beside `bench/standalone_gate.py` (hand-made
sentence signals). Here the features are the sentence's own vector from the offline embedder
(multilingual-e5-small, the embedded default), optionally with the difference to the vector of
the sentence read with the 300 characters before it in its chunk (how much its meaning leans on
what came before) and their cosine.

Rows: every labelled sentence of the dev sets (bench/labels/standalone and standalone-regraded,
the same sentences graded twice) and of the independent set (standalone-independent). Each row
keeps the shipped rules' verdict (`bench_standalone.promoted_type`): the gate can only veto what
the rules promote. Leave-one-document-out: for each document an L2 logistic regression
(`standalone_gate.logistic`) is trained on the others' rows and scores the document's. Printed:
junk among the promoted and kept among the labelled atoms per language, the rules alone beside
the gate at several thresholds. The blind held-out set (standalone-heldout) is read only with
`--heldout T` (one run at the chosen threshold), which the probe has not used.

Run: .venv/bin/python bench/standalone_embedding_gate.py [--context] [--c 30] [--heldout T]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_standalone import distill_items, load_items, promoted_type  # noqa: E402
from standalone_gate import logistic  # noqa: E402

from pegas_memory.embedding.embedders import LocalEmbedder  # noqa: E402

LABELS = ROOT / "bench" / "labels"
TRAIN = ("standalone", "standalone-regraded", "standalone-independent")
HELDOUT = "standalone-heldout"
BEFORE_CHARS = 300
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


def _flat(text: str) -> str:
    return " ".join(text.split())


class Vectors:
    """The embedder's vectors of texts, each text embedded once."""

    def __init__(self) -> None:
        self._embedder = LocalEmbedder("e5-small")
        self._seen: dict[str, np.ndarray] = {}

    def of(self, texts: Sequence[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self._seen})
        for text, vector in zip(todo, self._embedder.embed_documents(todo), strict=True):
            self._seen[text] = np.asarray(vector)
        return np.stack([self._seen[t] for t in texts])


def features(items: Sequence[dict[str, Any]], vectors: Vectors, context: bool) -> np.ndarray:
    """The sentence's vector; with `context`, also its difference to the vector of the sentence
    read after what precedes it, and their cosine."""
    alone = vectors.of([_flat(i["sentence"]) for i in items])
    if not context:
        return alone
    read_after = vectors.of(
        [
            _flat(i["context"][max(0, i["start"] - BEFORE_CHARS) : i["start"]] + i["sentence"])
            for i in items
        ]
    )
    cosine = np.sum(alone * read_after, axis=1, keepdims=True)
    return np.hstack([alone, alone - read_after, cosine])


def rules_promote(items: Sequence[dict[str, Any]]) -> list[bool]:
    return [
        promoted_type(i, a) is not None for i, a in zip(items, distill_items(items), strict=True)
    ]


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def row(
    name: str,
    items: Sequence[dict[str, Any]],
    promoted: Sequence[bool],
    score: np.ndarray,
    t: float,
) -> str:
    cells = []
    for lang in ("en", "ru"):
        mine = [k for k, i in enumerate(items) if i["language"] == lang]
        good = sum(items[k]["verdict"] == "atom" for k in mine)
        up = [k for k in mine if promoted[k] and score[k] >= t]
        junk = sum(items[k]["verdict"] != "atom" for k in up)
        cells += [_pct(junk, len(up)), _pct(len(up) - junk, good)]
    return f"| {name} | " + " | ".join(cells) + " |"


HEADER = "| gate | junk en | kept en | junk ru | kept ru |\n|---|---|---|---|---|"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", action="store_true", help="add the read-after features")
    parser.add_argument("--c", type=float, default=30.0, help="inverse L2 strength")
    parser.add_argument("--heldout", type=float, help="score the blind set once at this threshold")
    args = parser.parse_args()
    vectors = Vectors()
    train = [i for name in TRAIN for i in load_items(LABELS / name)]
    x = features(train, vectors, args.context)
    y = np.array([i["verdict"] == "atom" for i in train], dtype=float)
    promoted = rules_promote(train)
    name = f"embedding{' + read-after' if args.context else ''}, C={args.c:g}"
    print(HEADER)
    if args.heldout is None:
        held = np.zeros(len(train))
        for doc in sorted({i["doc"] for i in train}):
            out = np.array([i["doc"] == doc for i in train])
            weights, bias = logistic(x[~out], y[~out], args.c)
            held[out] = 1 / (1 + np.exp(-(x[out] @ weights + bias)))
        print(row("rules alone (LODO rows)", train, promoted, np.ones(len(train)), 0.0))
        for t in THRESHOLDS:
            print(row(f"{name}, LODO, threshold {t}", train, promoted, held, t))
        return
    test = load_items(LABELS / HELDOUT)
    weights, bias = logistic(x, y, args.c)
    score = 1 / (1 + np.exp(-(features(test, vectors, args.context) @ weights + bias)))
    shipped = rules_promote(test)
    print(row("rules alone (held-out)", test, shipped, np.ones(len(test)), 0.0))
    print(row(f"{name}, held-out, threshold {args.heldout}", test, shipped, score, args.heldout))


if __name__ == "__main__":
    main()
