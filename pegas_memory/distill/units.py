"""Self-contained units of prose: what one atom quotes (pure logic, offsets into the chunk).

An atom must mean something without the text around it. So:
- a labelled statement ("Definition 2.3", "Satz 1.1 (Heine-Borel)", "Лемма 2.", "Proof.") is one
  unit from its label to the next label, heading, blank line or end-of-proof mark
  (`labelled_blocks`); premises stay with their conclusions;
- in running prose (`sentence_groups`), a sentence that leans on the one before ("This technique
  ...", "Diese Methode ...", "Он ...", "Dann ...") is joined with it, a premise ("Sei X ...",
  "Let X ...", "Пусть ...") with the sentence after it, and a sentence that starts in lower case
  (an abbreviation split that razdel and sentences.py both missed) with the one before; a group is
  always a contiguous span, so its quote is verbatim chunk text;
- a unit's first sentence that starts in lower case is the tail of a sentence cut by a page or
  chunk boundary: a fragment, marked so, never an atom;
- widget labels ("Share", "Advertisement", "Читайте также", ...) at a sentence start are cut off
  the span, boilerplate sentences (bylines, "subscribe to our newsletter") are dropped, and
  `clean_claim` turns markdown (escapes, emphasis, inline HTML tags) into plain claim text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pegas_memory.distill.patterns import BLOCK_LABEL, PROOF_END, LabelKind, label_kind
from pegas_memory.sentences import split_sentences

_WS = re.compile(r"\s+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*\*|__|\*|_)(?=[^\s*_])(.+?)(?<=[^\s*_\\])\1(?![\w*])")
_MARKUP = re.compile(r"\*\*|__|`")
_WIDGET_WORDS = (
    r"\W{0,3}(?i:summary|share(?: this(?: article| story)?)?|advertisement|advert|sponsored"
    r"|related(?: articles| stories| posts| content)?|see also|read more|read next|more on this"
    r"|recommended|trending|most popular|most read|sign up|newsletter|photo|image|video|listen"
    r"|getty images|click here|top stories|читайте также|читать также|реклама|поделиться"
    r"|смотрите также|см\. также|по теме|фото|видео|новости по теме|anzeige|werbung|teilen"
    r"|mehr zum thema|lesen sie auch|auch interessant|foto|bild)\W{0,3}"
)
# A label glued onto the sentence after it: a line break, or a capital after it.
_WIDGET = re.compile(
    _WIDGET_WORDS + r"(?:\n|\s+(?=[A-ZА-ЯЁÄÖÜ«\"“])|(?=[A-ZА-ЯЁÄÖÜ][a-zа-яёäöüß]))"
)
_WIDGET_LINE = re.compile(_WIDGET_WORDS + "$")
# Page boilerplate that reads like a sentence: bylines, newsletter and follow-us calls.
_BOILERPLATE = re.compile(
    r"\bfollow (?:us|him|her|them|the \w+(?: \w+)?) on\b|\bmay be reached at\b|\bnewsletter\b"
    r"|\bsubscrib(?:e|ing) (?:to|now)\b|\bsign up (?:for|to)\b|\ball rights reserved\b"
    r"|\bpersonal, non-commercial use\b|\bclick here\b|\bcookies?\b.{0,40}\b(?:accept|consent)"
    r"|\b(?:email|e-mail):? [\w.+-]+@[\w-]+\.\w+|\bподписыва\w+ на\b|\bрассылк\w+"
    r"|\bnewsletter abonnieren\b",
    re.IGNORECASE,
)
_TAG = re.compile(r"</?(?:u|b|i|em|strong|sup|sub|span|mark|s|del|ins)>", re.IGNORECASE)
_BACKWARD = frozenset(
    [
        "it",
        "this",
        "that",
        "these",
        "those",
        "they",
        "he",
        "she",
        "its",
        "their",
        "his",
        "her",
        "such",
        "thus",
        "hence",
        "therefore",
        "consequently",
        "then",
        "latter",
        "former",
        "both",
        "er",
        "sie",
        "dies",
        "diese",
        "dieser",
        "dieses",
        "diesen",
        "diesem",
        "damit",
        "daher",
        "dadurch",
        "somit",
        "also",
        "deshalb",
        "dann",
        "folglich",
        "hierbei",
        "dabei",
        "hierzu",
        "ihr",
        "ihre",
        "он",
        "она",
        "оно",
        "они",
        "это",
        "этот",
        "эта",
        "эти",
        "этого",
        "этой",
        "этих",
        "такой",
        "такая",
        "такие",
        "таким",
        "поэтому",
        "следовательно",
        "тогда",
        "его",
        "её",
        "их",
        "при",
    ]
)
_PREMISE = re.compile(
    r"^(?:sei|seien|es\s+sei(?:en)?|let|suppose|assume|пусть|допустим)\b", re.IGNORECASE
)
_HEADING_LINE = re.compile(
    r"^[ \t]*(?:#{1,6}\s.*|\d+(?:\.\d+)*\.?[ \t]+[A-ZÄÖÜА-ЯЁ][^\n.:;]{2,60})[ \t]*$", re.M
)
_PARKED = re.compile("[\U000f0000-\U000ffffd]")
_BLANK = re.compile(r"\n[ \t]*\n")
_MAX_GROUP = 3  # sentences per joined unit


@dataclass(frozen=True)
class LabelledBlock:
    kind: LabelKind
    start: int  # the label line's start: the quoted span begins with the label
    end: int
    label: str  # "Definition 10", "Satz 1.1"
    title: str | None  # "Heine-Borel"
    body_start: int  # after the label: what the statement says


@dataclass(frozen=True)
class Group:
    start: int
    end: int
    sentences: int
    fragment: bool = False  # the tail of a sentence cut by a page or chunk boundary
    anaphoric: bool = False  # leans on a sentence that is not in the chunk


def clean_claim(text: str) -> str:
    """The claim form of a span: markdown escapes and emphasis removed, whitespace collapsed."""
    # Escaped characters are literal: park them in private-use code points while the emphasis
    # markers go, then put them back.
    escaped: list[str] = []

    def park(m: re.Match[str]) -> str:
        escaped.append(m[1])
        return chr(0xF0000 + len(escaped) - 1)

    text = _TAG.sub("", text)
    # Text that already holds such code points is unescaped first (escaped markers then go too).
    text = _ESCAPE.sub(r"\1" if _PARKED.search(text) else park, text)
    for _ in range(2):  # "***x***" and nested emphasis
        text = _EMPHASIS.sub(r"\2", text)
    text = _MARKUP.sub("", text)
    if escaped:
        text = _PARKED.sub(lambda m: escaped[ord(m[0]) - 0xF0000], text)
    return _WS.sub(" ", text).strip()


def is_widget_line(line: str) -> bool:
    return _WIDGET_LINE.match(line.strip()) is not None


def is_boilerplate(sentence: str) -> bool:
    """A byline, a newsletter or follow-us call, a rights notice: page furniture, not content."""
    return _BOILERPLATE.search(sentence) is not None


def labelled_blocks(text: str, covered: Sequence[tuple[int, int]]) -> list[LabelledBlock]:
    """Labelled statements outside `covered` spans (code, tables), in text order. A label of
    the "other" family (remarks, examples) is returned with an empty body: it only ends the
    block before it, and is masked as a heading."""
    labels = [
        (m, kind)
        for m in BLOCK_LABEL.finditer(text)
        if (kind := label_kind(m)) is not None
        and not any(c0 <= m.start() < c1 for c0, c1 in covered)
    ]
    stops = sorted(
        [m.start() for m, _ in labels]
        + [m.start() for m in _BLANK.finditer(text)]
        + [m.start() for m in _HEADING_LINE.finditer(text)]
        + [c0 for c0, _ in covered]
        + [len(text)]
    )
    out: list[LabelledBlock] = []
    for m, kind in labels:
        label = " ".join(p for p in (m["label"], m["num"]) if p)
        if kind == "other":
            out.append(LabelledBlock(kind, m.start(), m.end(), label, m["title"], m.end()))
            continue
        end = next(s for s in stops if s > m.end() or s == len(text))
        if kind == "proof" or kind == "theorem":
            mark = PROOF_END.search(text, m.end(), end)
            if mark is not None:
                end = mark.end()
        while end > m.end() and text[end - 1].isspace():
            end -= 1
        out.append(LabelledBlock(kind, m.start(), end, label, m["title"], m.end()))
    return out


def _first_word(text: str) -> str:
    m = re.match(r"\W*([^\W\d_]+)", text)
    return m[1].casefold() if m else ""


def _starts_lower(text: str) -> bool:
    m = re.match(r"[\s\"'“„«(\[]*(\S)", text)
    return m is not None and m[1].isalpha() and m[1].islower()


def _widget_trim(text: str, start: int, end: int) -> int:
    """The start of the span after widget labels glued onto it."""
    while start < end:
        m = _WIDGET.match(text, start, end)
        if m is None or m.end() >= end:
            return start
        start = m.end()
        while start < end and text[start].isspace():
            start += 1
    return start


def sentence_groups(text: str, start: int, end: int) -> list[Group]:
    """Self-contained sentence groups of the prose span text[start:end] (module docstring)."""
    spans: list[tuple[int, int]] = []
    for s in split_sentences(text[start:end]):
        s0 = _widget_trim(text, start + s.start, start + s.end)
        sentence = text[s0 : start + s.end]
        if s0 < start + s.end and not is_widget_line(sentence) and not is_boilerplate(sentence):
            spans.append((s0, start + s.end))
    groups: list[Group] = []
    premise = False
    whole = len(spans) == 1 and not text[:start].strip() and not text[end:].strip()
    for s0, s1 in spans:
        sentence = text[s0:s1]
        lower = _starts_lower(sentence)
        back = _first_word(sentence) in _BACKWARD
        if groups and (lower or back or premise) and groups[-1].sentences < _MAX_GROUP:
            last = groups[-1]
            groups[-1] = Group(last.start, s1, last.sentences + 1, last.fragment, last.anaphoric)
        elif not groups and lower and not whole:
            # The tail of a sentence cut before this unit; a text of one sentence is kept.
            groups.append(Group(s0, s1, 1, fragment=True))
        else:
            groups.append(Group(s0, s1, 1, anaphoric=back))
        premise = _PREMISE.match(sentence.lstrip()) is not None
    return groups
