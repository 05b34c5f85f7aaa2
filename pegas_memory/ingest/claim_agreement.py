"""Whether two similar sentences agree on what a reader would check (pure but for pymorphy3).

Embedding similarity and the claim guard's fields (ingest.claims: numbers, names, negation ...)
still let through two sentences made of nearly the same words that claim different things:

- the same words in other roles: "the data from the client" / "the data received by the
  client" (who sends and who receives swapped), "данные от клиента" / "данные, полученные
  клиентом";
- the same words grouped otherwise: "the path parameters and the request body" / "the body,
  path and request parameters", "параметры пути и тело запроса" / "параметры тела, пути и
  запроса" (two things against three);
- one claim that says much more than the other: "the data from the client" / "the data sent by
  your program and received by the client".

`claim_frame(text, is_content)` reads a sentence's content words in order, each as its lemma
(pymorphy3's normal form for Cyrillic, a light suffix strip for Latin script) with its role
marker: the preposition that governs it (the last one before it, unless a clause word, "and",
"that" ..., or the next noun phrase's article came between; a Russian preposition governs its
next noun only) or, for a Russian noun without one, its grammatical case. Punctuation decides
nothing, so a duplicate re-punctuated keeps its frame. `disagreements(a, b)` names what two
frames disagree on (empty: they agree):

- "content": more content lemmas on one side only than the tolerance allows (`TOLERANCE` of the
  longer claim's content words, at least one), after pairing inflections;
- "role": a content word both share governed by another preposition or in another case;
- "order": Latin-script words both share with no role marker (subject, object, modifier: what
  word order decides in English) in another relative order.

Identical wording gives identical frames, so a duplicate re-wrapped, re-punctuated or marked up
still agrees; a paraphrase that moves words into other roles does not, which keeps two atoms
where one might have done: the cheap side of the trade (a false merge loses a claim).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import pymorphy3

# Content words only on one side allowed, as a share of the longer claim's content words.
TOLERANCE = 0.2

# Words only: punctuation decides no role, so a duplicate re-punctuated ("Treatment for two
# days, increased ...") reads as the same frame.
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_CYRILLIC = re.compile(r"[а-яё]")

# Words that mark the role of the words after them (prepositions), by language.
ROLE_MARKERS = frozenset(
    {
        # en
        "from", "by", "to", "through", "into", "onto", "of", "for", "with", "in", "on", "at",
        "via", "about", "over", "under", "between", "against", "toward", "towards", "within",
        "across", "after", "before", "during", "among", "as", "than", "without", "out",
        # ru
        "от", "по", "для", "в", "во", "на", "с", "со", "к", "ко", "из", "изо", "у", "о", "об",
        "обо", "при", "под", "над", "за", "через", "между", "без", "до", "после", "про",
        "перед", "около", "вокруг", "из-за", "из-под", "среди", "вместо", "кроме",
        # de
        "von", "durch", "zu", "mit", "für", "im", "auf", "aus", "bei", "nach", "über",
        "unter", "vor", "an", "am", "zum", "zur", "gegen", "ohne", "vom", "ins",
    }
)  # fmt: skip
# Words that start a new clause or a new member of a list: the role marker before them ends.
CLAUSE_BREAKS = frozenset(
    {
        "and", "or", "but", "that", "which", "who", "whom", "whose", "where", "when", "while",
        "because", "although", "if", "it", "they", "he", "she", "we", "you",
        "и", "или", "а", "но", "что", "который", "которая", "которое", "которые", "которого",
        "которой", "которым", "которых", "где", "когда", "если", "потому", "хотя",
        "und", "oder", "aber", "dass", "welche", "welcher", "wenn", "weil",
    }
)  # fmt: skip
# Words that open a noun phrase: after a word the marker already governs, the next phrase is
# not its ("After the war the city was rebuilt": the city is no "after").
DETERMINERS = frozenset(
    {
        "the", "a", "an", "this", "these", "those", "its", "their", "his", "her", "our", "your",
        "my", "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer",
    }
)  # fmt: skip


@dataclass(frozen=True)
class FramedWord:
    """A content word of a claim: its lemma and its role marker ("" when none)."""

    lemma: str
    marker: str
    cyrillic: bool


@dataclass(frozen=True)
class ClaimFrame:
    """A claim's content words in reading order (module docstring)."""

    words: tuple[FramedWord, ...] = ()


@lru_cache(maxsize=1)
def _analyzer() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=100_000)
def _russian(word: str) -> tuple[str, str]:
    """(lemma, case) of the most likely reading of a Russian word; the case only for a noun."""
    try:
        parses = _analyzer().parse(word)
    except (KeyError, ValueError):  # a character unicodedata has no name for
        return word, ""
    if not parses:
        return word, ""
    best = parses[0]
    case = best.tag.case if best.tag.POS == "NOUN" else None
    return str(best.normal_form), str(case or "")


def latin_lemma(word: str) -> str:
    """A light English suffix strip: possessive, plural, past and -ing forms of one word come
    out alike ("parameters" / "parameter", "received" / "receives", "Europe's" / "Europe")."""
    word = re.sub(r"['’]s?$", "", word)
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ing", ""), ("ed", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def claim_frame(text: str, is_content: Callable[[str], bool]) -> ClaimFrame:
    """The frame of `text` (plain text, markup removed); `is_content(lowercase word)` says which
    words carry content (the claim guard's own test, ingest.claims)."""
    words: list[FramedWord] = []
    marker = ""
    governed = False  # a word after the marker took it already
    for m in _TOKEN.finditer(text):
        low = m.group(0).casefold()
        if low in CLAUSE_BREAKS or (governed and low in DETERMINERS):
            marker, governed = "", False
            continue
        if low in ROLE_MARKERS:
            marker, governed = low, False
            continue
        for part in re.split(r"[-'’]", low):
            if not is_content(part):
                continue
            if _CYRILLIC.search(part):
                lemma, case = _russian(part)
                role = marker or case  # a preposition decides its noun's case
                words.append(FramedWord(lemma, role, True))
                if case:
                    marker = ""  # a Russian preposition governs the next noun only
            else:
                words.append(FramedWord(latin_lemma(part), marker, False))
                governed = bool(marker)
    return ClaimFrame(tuple(words))


def _close(a: str, b: str) -> bool:
    """Two lemmas of one word the lemmatiser left apart ("use" / "used", "analys" /
    "analysis")."""
    if a == b:
        return True
    if (a.startswith(b) or b.startswith(a)) and abs(len(a) - len(b)) <= 2:
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= 4 and max(len(a), len(b)) - n <= 3


def _pairs(a: ClaimFrame, b: ClaimFrame) -> tuple[list[tuple[int, int]], int, int]:
    """Words of `a` paired with words of `b` of the same lemma (exact first, then close), in
    reading order; and how many of each side's words are left unpaired."""
    free = list(range(len(b.words)))
    pairs: list[tuple[int, int]] = []
    pending: list[int] = []
    for i, w in enumerate(a.words):
        j = next((j for j in free if b.words[j].lemma == w.lemma), None)
        if j is None:
            pending.append(i)
            continue
        free.remove(j)
        pairs.append((i, j))
    unpaired_a = 0
    for i in pending:
        j = next((j for j in free if _close(a.words[i].lemma, b.words[j].lemma)), None)
        if j is None:
            unpaired_a += 1
            continue
        free.remove(j)
        pairs.append((i, j))
    return sorted(pairs), unpaired_a, len(free)


def disagreements(a: ClaimFrame, b: ClaimFrame, tolerance: float = TOLERANCE) -> tuple[str, ...]:
    """What two claims' frames disagree on, as short reasons (module docstring); empty when
    they agree."""
    pairs, only_a, only_b = _pairs(a, b)
    out: list[str] = []
    longer = max(len(a.words), len(b.words))
    if only_a + only_b > max(1, int(tolerance * longer)):
        out.append(f"content {only_a} -> {only_b} words of {longer} on one side only")
    moved = [a.words[i].lemma for i, j in pairs if a.words[i].marker != b.words[j].marker]
    if moved:
        out.append(f"role {', '.join(moved)}")
    bare = [
        (i, j)
        for i, j in pairs
        if not a.words[i].cyrillic and not a.words[i].marker and not b.words[j].marker
    ]
    order_b = [j for _, j in bare]  # `bare` follows `a`'s order: `b`'s must ascend too
    if any(x > y for x, y in itertools.pairwise(order_b)):
        out.append("order")
    return tuple(out)
