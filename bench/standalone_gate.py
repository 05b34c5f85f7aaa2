"""Probe: can a learned gate over general sentence signals tell what stands alone? (No.)

A probe of docs/decisions/0010, kept so that it can be run again on new labels. Each labelled
sentence of the dev sets (bench/labels/standalone and standalone-regraded: the same 185 sentences
graded by two people, both verdicts used as two rows) is distilled as ingest does; the draft
covering it is caught before the promote stage, and what the hard rules (blocks, labelled
statements, layout: `promote.HARD_RULES`) decide is fixed. Every other draft is a gate
candidate: its features (`features` below: which soft rules fire, `promote.SOFT_RULES`, and
general signals: position in paragraph and chunk, pronoun or connective opening, first and
second person, length, digits, code spans, citations, a closing colon, line breaks, the chunk's
reader address and line breaks) and its label (atom = 1) train an L2-regularised logistic
regression (Newton's method in numpy).

Leave-one-document-out: for each dev document the model is trained on the others, its threshold
chosen on them (the highest at which the training documents keep >= --kept of their labelled
atoms), and the held-out document scored. Printed: junk and kept per language and kind, LODO
beside the rules; the LODO trade-off curve over one threshold; the all-dev model's weights; and
the trade-off of conservative positive gates (promote only what no soft rule flags and that has
no pronoun or connective opening, no first or second person, no carried subject).
The independent set is not read here: its counts come from `bench/bench_standalone.py` only.

Run: PYTHONPATH=. .venv/bin/python bench/standalone_gate.py [--kept 0.75] [--c 0.1] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEV = (ROOT / "bench/labels/standalone", ROOT / "bench/labels/standalone-regraded")

from pegas_memory.distill.patterns import words_of, wordset  # noqa: E402
from pegas_memory.distill.types import DraftAtom  # noqa: E402

# The soft rules' names, in the order the promote stage evaluates them (`distill.promote`).
SIGNALS = (
    "needs context",
    "cut off",
    "fragment",
    "question",
    "pointer",
    "narration",
    "unresolved reference",
    "no predicate",
)

# Words that make a sentence lean on what came before when it opens with them: personal and
# demonstrative pronouns, and connectives that continue an argument.
_PRONOUN_OPEN = wordset(
    "it its they them their this that these those such he she his her there here"
    " он она оно они его её ее их это этот эта эти этого этой этим этих тот та те такой такая"
    " такое такие там тут здесь"
)
_CONNECTIVE_OPEN = wordset(
    "but however so thus hence therefore then also and or instead otherwise moreover"
    " furthermore finally again similarly likewise still yet now next first second third"
    " besides meanwhile consequently accordingly indeed in for because since"
    " но однако поэтому поэтом также тоже затем потом теперь итак и а или зато иначе кроме"
    " впрочем следовательно значит тогда далее наконец сначала во-первых во-вторых ещё еще"
    " вот ведь например то"
)
_FIRST_PERSON = wordset(
    "we us our ours i my me let's мы нас нам нами наш наша наше наши я мне меня мой"
)
_SECOND_PERSON = wordset(
    "you your yours you'll you're you've вы вас вам вами ваш ваша ваше ваши ты тебя тебе твой"
)
_CITATION = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]|\(\w[^()]{0,40}\d{4}\w?\)")
_MARKUP_OPEN = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#+)\s")


def _paragraph_start(text: str, start: int) -> bool:
    """The quote opens its paragraph: only blank space or a list marker since a blank line."""
    before = text[:start]
    cut = max(before.rfind("\n\n"), -1)
    return not before[cut + 1 :].strip() or bool(_MARKUP_OPEN.match(before[cut + 1 :] + " "))


def features(atom: DraftAtom, text: str, fired: Mapping[str, bool]) -> dict[str, float]:
    """The gate's features of one draft of chunk `text`; `fired` says which soft rules did."""
    body = atom.claim
    quote = atom.quote
    words = [w.lower() for w in words_of(body)]
    first = words[0] if words else ""
    language = atom.language or ""
    meta = atom.metadata
    values: dict[str, float] = {f"rule: {name}": float(bool(fired.get(name))) for name in SIGNALS}
    values.update(
        {
            "type: definition": float(atom.type == "definition"),
            "type: text": float(atom.type == "text"),
            "carried subject": float(isinstance(meta.get("subject"), str)),
            "joined": float(bool(meta.get("joined") or meta.get("lead_in"))),
            "anaphoric mark": float(bool(meta.get("anaphoric"))),
            "opens its chunk": float(not text[: atom.quote_start].strip()),
            "opens its paragraph": float(_paragraph_start(text, atom.quote_start)),
            "position in chunk": atom.quote_start / max(len(text), 1),
            "opens with pronoun": float(first in _PRONOUN_OPEN),
            "opens with connective": float(first in _CONNECTIVE_OPEN),
            "first person": float(any(w in _FIRST_PERSON for w in words)),
            "second person": float(any(w in _SECOND_PERSON for w in words)),
            "log words": math.log1p(len(words)),
            "short": float(len(words) < 6),
            "digits": float(any(c.isdigit() for c in body)),
            "code span": float("`" in quote),
            "citation": float(bool(_CITATION.search(quote))),
            "ends with colon": float(quote.rstrip().endswith(":")),
            "no final stop": float(not re.search(r"[.!?…»\")]\s*$", quote)),
            "line breaks": float(quote.count("\n") > 1),
            "markup opening": float(bool(_MARKUP_OPEN.match(quote))),
            "capitalised opening": float(body[:1].isupper()),
            "russian": float(language == "ru"),
        }
    )
    values.update(_chunk_features(text))
    return values


@cache
def _chunk_features(text: str) -> dict[str, float]:
    """What the whole chunk is like: a tutorial addresses its reader, a PDF breaks its lines."""
    words = [w.lower() for w in words_of(text)] or [""]
    lines = text.count("\n") - 2 * text.count("\n\n")
    return {
        "chunk second person": 100 * sum(w in _SECOND_PERSON for w in words) / len(words),
        "chunk first person": 100 * sum(w in _FIRST_PERSON for w in words) / len(words),
        "chunk code fence": float("```" in text),
        "chunk line breaks": 100 * max(lines, 0) / max(len(text), 1),
    }


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


def load_dev(folders: Sequence[Path] = DEV) -> list[dict[str, Any]]:
    """The labelled items of `folders` (the dev sets) with every grader's verdict (`verdicts`)."""
    by_key: dict[tuple[str, str, int], dict[str, Any]] = {}
    for folder in folders:
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
    import pegas_memory.distill.offline as offline
    import pegas_memory.distill.promote as promote
    from pegas_memory.distill.types import ChunkContext

    caught: list[tuple[list[Any], str, ChunkContext]] = []
    real = promote.promote

    def catching(drafts: Any, text: str, context: ChunkContext, **_: Any) -> Any:
        caught.append((list(drafts), text, context))
        return real(drafts, text, context)

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
                    values = features(atom, text, fired)
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


def logistic(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """L2 logistic regression on standardised features (Newton's method), folded back to raw
    features: (weights, bias)."""
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


def fit(rows: Sequence[Row], names: Sequence[str], c: float) -> tuple[np.ndarray, float]:
    """The gate's model over the named features of `rows`."""
    return logistic(*_matrix(rows, names), c)


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


def counts(rows: Sequence[Row], promoted_flags: Sequence[bool]) -> dict[str, int]:
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
        "| language | kind | sentences | junk rules | junk gate (LODO) | kept rules"
        " | kept gate (LODO) |",
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


_POSITIVE = {
    "no soft rule fires (the rules)": (),
    "and no pronoun or connective opening": ("opens with pronoun", "opens with connective"),
    "and no first or second person": ("first person", "second person"),
    "and no carried subject, join or anaphoric mark": (
        "carried subject",
        "joined",
        "anaphoric mark",
    ),
    "and none of the three above": (
        "opens with pronoun",
        "opens with connective",
        "first person",
        "second person",
        "carried subject",
        "joined",
        "anaphoric mark",
    ),
}


def positive(rows: Sequence[Row]) -> str:
    """Conservative positive gates: a candidate is promoted only when no soft rule fires and
    none of the named signals is on."""
    out = ["| gate | junk en | kept en | junk ru | kept ru |", "|---|---|---|---|---|"]
    for name, off in _POSITIVE.items():

        def up(row: Row, off: tuple[str, ...] = off) -> bool:
            if row.fixed is not None or row.values is None:
                return bool(row.fixed)
            v = row.values
            return not any(v[n] for n in v if n.startswith("rule: ")) and not any(v[n] for n in off)

        cells = []
        for lang in ("en", "ru"):
            sub = [r for r in rows if r.language == lang]
            n = counts(sub, [up(r) for r in sub])
            cells += [_pct(n["junk"], n["promoted"]), _pct(n["kept"], n["good"])]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kept", type=float, default=0.75, help="kept share the threshold keeps")
    parser.add_argument("--c", type=float, default=0.1, help="inverse L2 strength")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
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
    ranked = sorted(zip(names, weights, strict=True), key=lambda p: -abs(p[1]))
    text += ["", f"All-dev model: bias {bias:.2f}, threshold {threshold:.2f}; weights:", ""]
    text += [f"- {n}: {w:+.2f}" for n, w in ranked]
    text += ["", "Conservative positive gates (dev, no fitting):", "", positive(rows)]
    print("\n".join(text))
    if args.out:
        args.out.write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
