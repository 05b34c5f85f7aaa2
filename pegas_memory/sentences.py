"""Sentence segmentation for Russian, English and German text.

razdel's rules know Russian abbreviations ("т. е.", "т. к.", "и т. д.", "г.", "гг.", "в.",
"проф.", "ч."), «» and "" quotes, initials ("А. С. Пушкин") and decimal numbers. They are
Russian-first: "z. B.", "Abb. 3", "Fig. 2", "St. Petersburg", "Prof. Dr. X", "S. 12" or "vgl.
Abschnitt 3" are cut after the abbreviation's dot, and so are a few Russian ones razdel does not
list ("род. 27 мая", "табл. 2", "ум. 1621"). A protective layer glues such a cut back: a sentence
that ends in a known abbreviation does not end there, so it is joined with the next one; so is a
German ordinal before a month or a century ("am 5. | Mai", "im 19. | Jahrhundert", "5. | Jh.",
"v. | Chr."), and a month before a number ("Jan. | 1990"). Every cut razdel leaves would make
the tail a fragment that starts mid-sentence (`distill.units` drops a lower-case start, but
"27 мая ...", "Mai 1990 ..." and "Chr. ..." start otherwise).
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
        "bros",  # "Warner Bros. Television": a company name goes on
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
        "gov",
        "pres",
        "adm",
        "supt",
        "rep",
        # Russian abbreviations razdel cuts after ("род. 27 мая 1923", "ум. 1621").
        "род",
        "ум",
        "ок",
        "рис",
        "табл",
        "гл",
        "разд",
        "илл",
        "прим",
        "англ",
        "нем",
        "лат",
        "греч",
        "франц",
        "фр",
        "итал",
        "исп",
        "араб",
        "кит",
        "яп",
        "укр",
        "польск",
        "ср",
        "напр",
        "св",
        "им",
        "ул",
        "просп",
        "обл",
        "оз",
        "пос",
        "кн",
        "акад",
        "доц",
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
_BEFORE_NUMBER = frozenset(
    ["s", "p", "pp", "n", "no", "nr", "bd", "h", "с", "т", "п", "стр", "jan", "feb", "mar", "apr",
     "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
)  # fmt: skip
# A German ordinal ("am 5.", "im 19.") before a month or a century, and "v." / "n." before "Chr."
_ORDINAL = re.compile(r"(?:^|\s)\d{1,2}\.$")
_AFTER_ORDINAL = re.compile(
    r"\s*(?:Jh|Jhd|Jahrhundert\w*|Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August"
    r"|September|Oktober|November|Dezember)\b"
)
_ERA = re.compile(r"(?:^|\s)[vn]\.$")
_CHR = re.compile(r"\s*Chr\.")
# A German street ("Goethestr. 5") before its number.
_STREET = re.compile(r"\w+str\.$", re.IGNORECASE)


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
    if _ORDINAL.search(tail):
        return _AFTER_ORDINAL.match(following) is not None
    if _ERA.search(tail):
        return _CHR.match(following) is not None
    if _STREET.search(tail) and following.lstrip()[:1].isdigit():
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
    return [Sentence(text[a:b], a, b) for a, b in close_brackets(text, merged)]


# A sentence never ends inside an open bracket, as long as the bracket closes within this many
# characters of the sentence's start: an unclosed "(" must not swallow the rest of a page. A
# trial's results sentence runs past 600 ("(... 0·96, 0·81-1·14, p=0·631; CIN grade 2 or worse:
# ... p=0·292), nor for subgroups ...", 755 characters in a SciFact abstract): cut at 600 its
# tail started inside the bracket, a fragment of numbers whose comparison was cut off. At 1200
# a sentence glued whole still fits one chunk (ingest.chunking.CHUNK_CHARS).
_MAX_BRACKETED = 1200


def _bracket_depth(piece: str, depth: int = 0) -> int:
    """Open round and square brackets after `piece`, from `depth`; a closer without an opener
    ("1) ... 2)") is ignored."""
    for ch in piece:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return depth


def close_brackets(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans with the cuts inside an open bracket glued back: razdel ends a sentence at the
    ";" of "(odds ratio [OR], 4.21; 95% CI, 1.31-13.53)" or "(род. 1950; ум. 2001)", and the
    tail "95% CI, ...) after adjustment." would be a fragment. The glue holds only when the
    bracket closes within _MAX_BRACKETED characters; otherwise the cuts stay as razdel made
    them."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, stop = spans[i]
        depth = _bracket_depth(text[start:stop])
        j = i
        while depth > 0 and j + 1 < len(spans) and spans[j + 1][1] - start <= _MAX_BRACKETED:
            j += 1
            depth = _bracket_depth(text[spans[j - 1][1] : spans[j][1]], depth)
        if j > i and depth == 0:
            out.append((start, spans[j][1]))
            i = j + 1
        else:
            out.append((start, stop))
            i += 1
    return out
