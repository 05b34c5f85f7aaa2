"""Sentence segmentation for Russian, English and German text.

razdel's rules know Russian abbreviations ("т. е.", "проф.", "ч."), «» and "" quotes, initials
and decimal numbers. They are Russian-first: "z. B.", "Abb. 3", "Fig. 2", "St. Petersburg",
"Prof. Dr. X", "S. 12" or "vgl. Abschnitt 3" are cut after the abbreviation's dot. A protective
layer glues such a cut back: a sentence that ends in a known English or German abbreviation
does not end there, so it is joined with the next one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from razdel import sentenize

# Abbreviations that never end a sentence (compared case-insensitively, without the dot).
_ABBREVIATIONS = frozenset(
    [
        "abb",
        "abs",
        "abschn",
        "bd",
        "bsp",
        "bspw",
        "bzgl",
        "bzw",
        "ca",
        "cf",
        "chap",
        "ch",
        "def",
        "dr",
        "eq",
        "eqs",
        "fig",
        "figs",
        "gem",
        "ggf",
        "hr",
        "hrsg",
        "inkl",
        "jh",
        "jr",
        "kap",
        "lit",
        "mr",
        "mrs",
        "ms",
        "nr",
        "no",
        "nos",
        "prof",
        "resp",
        "sec",
        "sect",
        "sog",
        "st",
        "str",
        "tab",
        "vgl",
        "vol",
        "vs",
        "etc",
        "approx",
        "dept",
        "univ",
        "hg",
        "sen",
        "rev",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "mt",
        "ft",
        "art",
        "zb",
        "dh",
        "ua",
        "usf",
        "zit",
        "z",
    ]
)
# "e.g.", "i.e.", "z.B.", "d.h.", "u.a.", "et al.": dotted forms, with or without spaces.
_DOTTED = re.compile(
    r"(?:\b(?:e\.\s?g|i\.\s?e|z\.\s?b|d\.\s?h|u\.\s?a|o\.\s?ä|s\.\s?o|s\.\s?u|u\.\s?u|v\.\s?a"
    r"|et\s+al|a\.\s?m|p\.\s?m))\.$",
    re.IGNORECASE,
)
_LAST_WORD = re.compile(r"([^\W\d_]+)\.$")
# "S. 12", "p. 4", "Nr. 5": a page or number abbreviation only before a number.
_BEFORE_NUMBER = frozenset(["s", "p", "pp", "n", "no", "nr", "bd", "h"])


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    start: int  # character offsets into the text that was split
    end: int


def ends_in_abbreviation(text: str, following: str = "") -> bool:
    """Whether `text` stops at an abbreviation's dot rather than at a sentence end."""
    tail = text.rstrip()
    if not tail.endswith("."):
        return False
    if _DOTTED.search(tail):
        return True
    m = _LAST_WORD.search(tail)
    if m is None:
        return False
    word = m[1].casefold()
    if word in _BEFORE_NUMBER:
        return following.lstrip()[:1].isdigit()
    return (word in _ABBREVIATIONS and word != "etc") or (word == "etc" and _lower(following))


def _lower(text: str) -> bool:
    first = text.lstrip()[:1]
    return bool(first) and first.islower()


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of `text` with their character spans; empty input gives an empty list."""
    raw = [(s.start, s.stop) for s in sentenize(text) if s.text.strip()]
    merged: list[tuple[int, int]] = []
    for start, stop in raw:
        if merged and ends_in_abbreviation(text[merged[-1][0] : merged[-1][1]], text[start:stop]):
            merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((start, stop))
    return [Sentence(text[a:b], a, b) for a, b in merged]
