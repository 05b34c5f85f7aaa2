"""Train and measure the standalone gate (`pegas_memory/distill/gate.py`) on the dev labels.

Each labelled sentence of the dev sets (bench/labels/standalone and standalone-regraded: the same
185 sentences graded by two people, both verdicts used as two rows) is distilled as ingest does;
the draft covering it is found before the promote stage, and what the hard rules (blocks,
labelled statements, layout) decide is fixed. Every other draft is a gate candidate: its
features (`gate.features`, the soft rules among them) and its label (atom = 1) train an
L2-regularised logistic regression (Newton's method in numpy; no learning library is shipped).

Leave-one-document-out: for each dev document, the model is trained on the others, its threshold
chosen on them (the highest score threshold at which the training documents keep >= --kept of
their labelled atoms), and the held-out document is scored with both. Printed: junk and kept per
language and kind, LODO beside the rules (no gate), and the LODO trade-off curve over thresholds.
`--write` trains on all dev documents and writes the shipped weights with their threshold.

Run: .venv/bin/python bench/standalone_gate.py [--kept 0.75] [--c 1.0] [--write] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEV = (ROOT / "bench/labels/standalone", ROOT / "bench/labels/standalone-regraded")


@dataclass
class Row:
    """One labelled sentence: its document, its labels, and what the distiller's stages say."""

    doc: str
    language: str
    kind: str
    labels: list[int]  # 1 = atom, one per grader
    fixed: bool | None  # promoted (True) or not (False) without the gate; None: a gate candidate
    rules: bool  # promoted by the rules without the gate (the "before" column)
    values: dict[str, float] | None  # the gate's features of a candidate


def load_dev() -> list[dict[str, Any]]:
    """The dev items with both graders' verdicts (`verdicts`)."""
    by_key: dict[tuple[str, str, int], dict[str, Any]] = {}
    for folder in DEV:
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                key = (item["doc"], item["locator"], item["start"])
                kept = by_key.setdefault(key, {**item, "verdicts": []})
                kept["verdicts"].append(item["verdict"])
    return list(by_key.values())


def _covering(item: dict[str, Any], drafts: Sequence[Any]) -> Any | None:
    start, end = item["start"], item["start"] + len(item["sentence"])
    best, found = 0, None
    for atom in drafts:
        overlap = min(end, atom.quote_end) - max(start, atom.quote_start)
        if overlap > best:
            best, found = overlap, atom
    return found if best * 2 >= end - start else None


def rows_of(items: Sequence[dict[str, Any]]) -> list[Row]:
    """Distil each item's chunk, catch the drafts before the promote stage, and read them."""
    import pegas_memory.distill.gate as gate
    import pegas_memory.distill.offline as offline
    import pegas_memory.distill.promote as promote
    from pegas_memory.distill.types import ChunkContext

    caught: list[tuple[list[Any], str, ChunkContext]] = []
    real = promote.promote

    def catching(drafts: Any, text: str, context: ChunkContext, **_: Any) -> Any:
        caught.append((list(drafts), text, context))
        return real(drafts, text, context, weights=None)

    offline.promote = catching  # type: ignore[assignment]
    distiller = offline.OfflineDistiller()
    rows = []
    try:
        for item in items:
            context = ChunkContext(
                title=item["title"],
                heading_path=tuple(item["heading_path"]),
                language=item["language"],
            )
            caught.clear()
            distiller.distill(item["context"], context)
            drafts, text, ctx = caught[0] if caught else ([], item["context"], context)
            chunk = promote.Chunk(text, ctx)
            atom = _covering(item, drafts)
            fixed: bool | None = False
            rules = False
            values = None
            if atom is not None:
                rules = promote.verdict(atom, chunk).reason is None
                hard = next(
                    (f for r in promote.HARD_RULES if (f := r(atom, chunk)) is not None), None
                )
                if hard is not None:
                    fixed = hard.reason is None
                else:
                    fixed = None
                    fired = {v.rule: True for v in promote.soft_verdicts(atom, chunk)}
                    values = gate.features(atom, text, fired)
            rows.append(
                Row(
                    doc=item["doc"],
                    language=item["language"],
                    kind=item["kind"],
                    labels=[int(v == "atom") for v in item["verdicts"]],
                    fixed=fixed,
                    rules=rules,
                    values=values,
                )
            )
    finally:
        offline.promote = real  # type: ignore[assignment]
    return rows


def _matrix(rows: Sequence[Row], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x, y = [], []
    for row in rows:
        assert row.values is not None
        for label in row.labels:
            x.append([row.values[n] for n in names])
            y.append(label)
    return np.array(x, dtype=float), np.array(y, dtype=float)


def fit(rows: Sequence[Row], names: Sequence[str], c: float) -> tuple[np.ndarray, float]:
    """L2 logistic regression on standardised features (Newton's method), folded back to raw
    features: (weights, bias)."""
    x, y = _matrix(rows, names)
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / sd])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) / c
    penalty[0, 0] = 0.0  # the bias is not shrunk
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + penalty @ w
        hess = (z.T * (p * (1 - p))) @ z + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = w[1:] / sd
    return weights, float(w[0] - (w[1:] * mean / sd).sum())


def scores(
    rows: Sequence[Row], names: Sequence[str], weights: np.ndarray, bias: float
) -> list[float]:
    out = []
    for row in rows:
        if row.values is None:
            out.append(float("nan"))
            continue
        v = np.array([row.values[n] for n in names])
        out.append(float(1 / (1 + np.exp(-(bias + v @ weights)))))
    return out


def promoted(row: Row, score: float, threshold: float | None) -> bool:
    """Whether the sentence becomes an atom: the hard rules' verdict, else the gate's (or the
    rules' when `threshold` is None)."""
    if threshold is None:
        return row.rules
    if row.fixed is not None:
        return row.fixed
    return score >= threshold


def counts(rows: Sequence[Row], promoted_flags: Sequence[bool]) -> dict[str, float]:
    """Junk among the promoted and kept among the labelled atoms, each grader's verdict a row."""
    n = {"promoted": 0, "junk": 0, "good": 0, "kept": 0}
    for row, up in zip(rows, promoted_flags, strict=True):
        for label in row.labels:
            n["good"] += label
            if up:
                n["promoted"] += 1
                n["junk"] += 1 - label
                n["kept"] += label
    return n


def choose_threshold(rows: Sequence[Row], s: Sequence[float], kept: float) -> float:
    """The highest threshold at which `rows` keep at least `kept` of their labelled atoms."""
    candidates = sorted({x for x in s if x == x}, reverse=True)
    for t in candidates:
        n = counts(rows, [promoted(r, x, t) for r, x in zip(rows, s, strict=True)])
        if n["good"] and n["kept"] / n["good"] >= kept:
            return t
    return 0.0


def _pct(n: float, d: float) -> str:
    return f"{100 * n / d:.0f}% ({n:.0f}/{d:.0f})" if d else "-"


def lodo(
    rows: Sequence[Row], names: Sequence[str], c: float, kept: float
) -> tuple[list[float], dict[str, float]]:
    """Held-out scores of every row and each document's threshold (trained without it)."""
    held: list[float] = [float("nan")] * len(rows)
    thresholds: dict[str, float] = {}
    for doc in sorted({r.doc for r in rows}):
        train = [r for r in rows if r.doc != doc]
        cand = [r for r in train if r.values is not None]
        weights, bias = fit(cand, names, c)
        thresholds[doc] = choose_threshold(train, scores(train, names, weights, bias), kept)
        for i, r in enumerate(rows):
            if r.doc == doc:
                held[i] = scores([r], names, weights, bias)[0]
    return held, thresholds


def report(rows: Sequence[Row], held: Sequence[float], thresholds: dict[str, float]) -> str:
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[(r.language, r.kind)].append(i)
        groups[(r.language, "all")].append(i)
    out = [
        "| language | kind | sentences | junk rules | junk gate (LODO) | kept rules | kept gate (LODO) |",
        "|---|---|---|---|---|---|---|",
    ]
    for key in sorted(groups, key=lambda k: (k[0], k[1] == "all", k[1])):
        idx = groups[key]
        sub = [rows[i] for i in idx]
        before = counts(sub, [promoted(r, 0, None) for r in sub])
        after = counts(sub, [promoted(rows[i], held[i], thresholds[rows[i].doc]) for i in idx])
        out.append(
            f"| {key[0]} | {key[1]} | {len(sub)} | {_pct(before['junk'], before['promoted'])} | "
            f"{_pct(after['junk'], after['promoted'])} | {_pct(before['kept'], before['good'])} | "
            f"{_pct(after['kept'], after['good'])} |"
        )
    return "\n".join(out)


def curve(rows: Sequence[Row], held: Sequence[float]) -> str:
    out = ["| threshold | junk en | kept en | junk ru | kept ru |", "|---|---|---|---|---|"]
    for t in (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        cells = []
        for lang in ("en", "ru"):
            idx = [i for i, r in enumerate(rows) if r.language == lang]
            n = counts([rows[i] for i in idx], [promoted(rows[i], held[i], t) for i in idx])
            cells += [_pct(n["junk"], n["promoted"]), _pct(n["kept"], n["good"])]
        out.append(f"| {t:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kept", type=float, default=0.75, help="kept share the threshold keeps")
    parser.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    parser.add_argument("--write", action="store_true", help="write the shipped weights")
    parser.add_argument(
        "--threshold", type=float, help="the shipped threshold (default: chosen for --kept)"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    import pegas_memory.distill.gate as gate

    rows = rows_of(load_dev())
    cand = [r for r in rows if r.values is not None]
    assert cand[0].values is not None
    names = list(cand[0].values)
    held, thresholds = lodo(rows, names, args.c, args.kept)
    text = [
        f"Dev sets, {len(rows)} sentences x 2 graders; {len(cand)} gate candidates; C={args.c}, "
        f"threshold for kept >= {args.kept:.0%} on the training documents.",
        "",
        report(rows, held, thresholds),
        "",
        "LODO thresholds: " + ", ".join(f"{d} {t:.2f}" for d, t in thresholds.items()),
        "",
        "Trade-off over one threshold for all documents (LODO scores):",
        "",
        curve(rows, held),
    ]
    weights, bias = fit(cand, names, args.c)
    threshold = choose_threshold(rows, scores(rows, names, weights, bias), args.kept)
    if args.threshold is not None:
        threshold = args.threshold
    ranked = sorted(zip(names, weights, strict=True), key=lambda p: -abs(p[1]))
    text += ["", f"All-dev model: bias {bias:.2f}, threshold {threshold:.2f}; weights:", ""]
    text += [f"- {n}: {w:+.2f}" for n, w in ranked]
    print("\n".join(text))
    if args.out:
        args.out.write_text("\n".join(text) + "\n", encoding="utf-8")
    if args.write:
        data = {
            "trained_on": "bench/labels/standalone + standalone-regraded (bench/standalone_gate.py)",
            "c": args.c,
            "kept_target": args.kept,
            "bias": round(bias, 4),
            "threshold": round(threshold, 4),
            "weights": {n: round(float(w), 4) for n, w in zip(names, weights, strict=True)},
        }
        gate.WEIGHTS.write_text(
            json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
