"""The standalone gate: one score says whether a prose draft states something by itself (pure).

The promote stage's soft rules (needs context, fragment, question, pointer, narration,
unresolved reference, no predicate) were each a verdict written against one sample's failures;
here they are signals among general ones (where the sentence sits in its paragraph and chunk,
what it opens with, first and second person, length, digits, code spans, a closing colon,
line breaks inside it), weighed by a small regularised logistic model trained on the labelled
sets (`bench/standalone_gate.py`, leave-one-document-out). The weights are data
(`gate_weights.json`), read here with plain Python; the stage promotes a draft when its score
reaches the threshold stored beside them, and writes the score into the trace.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pegas_memory.distill.patterns import words_of, wordset
from pegas_memory.distill.types import DraftAtom

WEIGHTS = Path(__file__).with_name("gate_weights.json")

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


@dataclass(frozen=True)
class Model:
    """A logistic model: weights by feature name, the bias and the promote threshold."""

    weights: Mapping[str, float]
    bias: float
    threshold: float

    def score(self, values: Mapping[str, float]) -> float:
        z = self.bias + sum(w * values.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-z))


@cache
def model(path: Path = WEIGHTS) -> Model:
    """The shipped model, read once from its data file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return Model(
        weights=dict(data["weights"]), bias=float(data["bias"]), threshold=float(data["threshold"])
    )
