"""A short list of steps in order kept as one atom, its lead-in in front (pure logic).

A docs page tells a sequence as a list: flask's "The following are the steps directly related
to the context." over "- The app context is pushed, the proxies are available.", "- The
request is dispatched.", "- Any Flask.teardown_request() decorated functions are called.", ...;
a numbered "1. Browser or other client makes HTTP request. 1. WSGI server receives request.
...". Each item is a sentence, so each became an atom, but the order is the content: "Any
Flask.teardown_request() decorated functions are called." alone does not say when, and "WSGI
server receives request." says next to nothing. `merged` replaces the atoms of such a list by
one atom whose claim is the lead-in and the items numbered in their order ("The steps directly
related to the context: (1) The app context is pushed, ... (2) The appcontext_pushed signal is
sent. ..."); its quote is the list's text, verbatim.

A list is a sequence (`sequences`) when its items are numbered ("1.", "2)"; rst's "#." reaches
the distiller as "1.") or its lead-in (the last sentence of the paragraph right before it)
speaks of steps, stages, phases, an order, a sequence, a lifecycle or a procedure. It is merged
only when it is short and plain: at least 3 items at one level, every item a whole sentence
(ending in ".", "!" or "?") that made an atom, no nested item, code block or table inside, and
the whole claim within `_MAX_CLAIM_CHARS`. A longer list (flask's 24-step request lifecycle)
keeps its items, as do a list of features or options (no sign of an order) and a list that
starts before the chunk (its lead-in is not there).

The lead: a lead-in ending in ":" as it is, and so a question the items answer ("Why would
you want to build URLs using url_for() ...? (1) Reversing is often more descriptive ...");
one ending in "." that presents the list ("The following are the steps ..." read as "The
steps ...:", `following_en`) or announces it ("... in the following order." with its "."
made a ":"); else the nearest heading (`items.heading_lead_in`), with the chunk's subject in
front when the heading names none. The type is the items' (`fact_rules.is_fact` on them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pegas_memory.distill.fact_rules import fact_verdict
from pegas_memory.distill.following_en import presents_what_follows
from pegas_memory.distill.items import heading_lead_in
from pegas_memory.distill.steps_en import announces_what_follows
from pegas_memory.distill.types import TYPED_BY, ChunkContext, DraftAtom
from pegas_memory.distill.units import clean_claim
from pegas_memory.models import AtomType
from pegas_memory.sentences import split_sentences

_ITEM = re.compile(r"^([ \t]*)([-*+•–]|\d{1,3}[.)])[ \t]+")
_MIN_ITEMS = 3
_MAX_CLAIM_CHARS = 700
_ENDED = re.compile(r"[.!?]$")
# A lead-in that speaks of an order ("the steps ...", "in the following order", "этапы").
_ORDER_WORDS = re.compile(
    r"\b(?:steps?|stages?|phases?|order|ordered|sequence|sequentially|lifecycle|life cycle"
    r"|procedure|in turn|one after (?:the )?other|шаг\w*|этап\w*|стади\w*|порядк\w*"
    r"|последовательн\w*|процедур\w*)\b",
    re.IGNORECASE,
)
# "The following are the steps ...", "The following is a step-by-step procedure for ...":
# the presentative's copula goes, what it presents stays.
_PRESENTATIVE = re.compile(
    r"^(?:here|below|the following)\s+(?:is|are|was|were|will be|lists?|shows?|describes?)\s+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class OrderedList:
    """A list of steps in order: its items' text spans and its lead (claim text, ending ":")."""

    items: tuple[tuple[int, int], ...]
    lead: str | None  # None: the heading leads it in

    @property
    def start(self) -> int:
        return self.items[0][0]

    @property
    def end(self) -> int:
        return self.items[-1][1]


def _lines(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for raw in text.split("\n"):
        out.append((pos, raw))
        pos += len(raw) + 1
    return out


def _lists(text: str) -> list[tuple[int, list[tuple[int, int, str]]]]:
    """Every flat list of the text: the index of its first line, and its items as (text start,
    text end, marker). A nested item, a line indented less than the item text that is no item,
    or a change of marker ends the list; such a list is returned with a `None` marker and is
    never merged."""
    lines = _lines(text)
    found: list[tuple[int, list[tuple[int, int, str]]]] = []
    i = 0
    while i < len(lines):
        m = _ITEM.match(lines[i][1])
        if m is None:
            i += 1
            continue
        first, indent, kind = i, len(m[1]), _kind(m[2])
        items: list[tuple[int, int, str]] = []
        nested = False
        while i < len(lines):
            pos, line = lines[i]
            item = _ITEM.match(line)
            if item is not None:
                if len(item[1]) != indent or _kind(item[2]) != kind:
                    nested = nested or len(item[1]) > indent
                    break
                items.append((pos + item.end(), pos + len(line.rstrip()), kind))
                i += 1
                continue
            if not line.strip():  # a blank line: the list goes on if an item follows
                k = i
                while k < len(lines) and not lines[k][1].strip():
                    k += 1
                nxt = _ITEM.match(lines[k][1]) if k < len(lines) else None
                if nxt is None or len(nxt[1]) != indent:
                    break
                i = k
                continue
            if line[:1].isspace() and items:  # a wrapped line of the item
                items[-1] = (items[-1][0], pos + len(line.rstrip()), kind)
                i += 1
                continue
            break
        if nested:
            items = [(a, b, "") for a, b, _ in items]
        found.append((first, items))
        i = max(i, first + 1)
    return found


def _kind(marker: str) -> str:
    return "1." if marker[:1].isdigit() else marker


def _lead_sentence(text: str, list_start: int) -> tuple[str | None, bool]:
    """The last sentence of the paragraph right before the list (cleaned), and whether there
    is one in the chunk: a list at the chunk's start may have begun before it."""
    before = text[:list_start].rstrip()
    if not before.strip():
        return None, False
    para_start = before.rfind("\n\n") + 2 if "\n\n" in before else 0
    paragraph = before[para_start:].lstrip("\n")
    lines = paragraph.splitlines()
    if not lines or any(_ITEM.match(line) or line[:1].isspace() for line in lines):
        return None, False  # another list, or this one's items above a nested one
    sentences = split_sentences(paragraph)
    last = paragraph[sentences[-1].start :] if sentences else paragraph
    return clean_claim(last), True


def _lead(sentence: str | None) -> str | None:
    """The lead of the merged claim from the lead-in sentence (module docstring), or None when
    the sentence leads nothing in (a statement of its own: the heading leads the list in)."""
    if sentence is None:
        return None
    if sentence.endswith((":", "?")) and not sentence.endswith("::"):
        return sentence  # a lead-in, or the question the items answer
    if presents_what_follows(sentence):
        rest = _PRESENTATIVE.sub("", sentence, count=1)
        if rest != sentence:
            rest = rest[:1].upper() + rest[1:]
        return rest.rstrip(".! ") + ":"
    if announces_what_follows(sentence):
        return sentence.rstrip(".! ") + ":"
    return None


def sequences(text: str) -> list[OrderedList]:
    """The short lists of steps in order in a chunk that `merged` keeps as one atom each."""
    out: list[OrderedList] = []
    lines = _lines(text)
    for first, items in _lists(text):
        if len(items) < _MIN_ITEMS or any(not kind for _, _, kind in items):
            continue
        marker = _ITEM.match(lines[first][1])
        if marker is not None and marker[2][:1].isdigit() and int(marker[2][:-1]) != 1:
            continue  # the list began before this part of it
        sentence, in_chunk = _lead_sentence(text, lines[first][0])
        if not in_chunk:
            continue
        numbered = items[0][2] == "1."
        lead_in = sentence is not None and sentence.endswith(":")
        ordered = sentence is not None and _ORDER_WORDS.search(sentence) is not None
        if not ordered and not (numbered and not lead_in):
            continue  # features, options, alternatives: each item takes its lead-in
        claims = [clean_claim(text[a:b]) for a, b, _ in items]
        if not all(_ENDED.search(c) and len(split_sentences(c)) == 1 for c in claims):
            continue  # an item of several sentences stands by itself
        out.append(OrderedList(tuple((a, b) for a, b, _ in items), _lead(sentence)))
    return out


def merged(
    text: str, atoms: Sequence[DraftAtom], context: ChunkContext, subject: str | None
) -> list[DraftAtom]:
    """The chunk's atoms with those of each short ordered list (`sequences`) replaced by one
    atom of the whole list (module docstring). A list with an item that made no atom, or with
    an atom of a block inside it, is left as it is."""
    result = list(atoms)
    for seq in sequences(text):
        inside = [a for a in result if seq.start <= a.quote_start and a.quote_end <= seq.end]
        if any(a.type not in ("fact", "text", "definition") for a in inside):
            continue  # a code block or a table inside the list
        covered = all(any(a.quote_start < b and a0 < a.quote_end for a in inside)
                      for a0, b in seq.items)  # fmt: skip
        if not inside or not covered:
            continue
        atom = _list_atom(text, seq, inside[0], context, subject)
        if atom is None:
            continue
        result = [a for a in result if a not in inside] + [atom]
    return sorted(result, key=lambda a: a.quote_start)


def _list_atom(
    text: str, seq: OrderedList, first: DraftAtom, context: ChunkContext, subject: str | None
) -> DraftAtom | None:
    heading = context.heading_path[-1] if context.heading_path else None
    lead = seq.lead or heading_lead_in(heading, subject)
    items = [clean_claim(text[a:b]) for a, b in seq.items]
    steps = " ".join(f"({n}) {item}" for n, item in enumerate(items, 1))
    claim = f"{lead} {steps}" if lead else steps
    if len(claim) > _MAX_CLAIM_CHARS:
        return None
    fact, rule = fact_verdict(" ".join(items), first.language)  # the steps say it, not the lead
    meta = {k: v for k, v in first.metadata.items() if k not in ("term", "pattern", "anaphoric")}
    meta.update(kind="ordered list", items=len(seq.items))
    meta[TYPED_BY] = f"an ordered list: {rule}"
    if lead:
        meta["lead_in"] = lead
    quote = text[seq.start : seq.end]
    return replace(
        first, type=AtomType.FACT if fact else AtomType.TEXT, claim=claim, content=claim,
        confidence=0.6 if fact else 0.5, quote=quote, quote_start=seq.start,
        quote_end=seq.end, metadata=meta, term=None,
    )  # fmt: skip
