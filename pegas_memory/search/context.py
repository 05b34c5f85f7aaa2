"""memory_get_context: the evidence for a question, fitted to a token budget.

Hybrid search picks the atoms and passages; an atom brings its citations (document title,
locator, quote) and the source text around its evidence (small-to-big): the cited chunk of the
current version and its neighbours, cut to `MAX_CONTEXT_CHARS_PER_ITEM` around the quote
(`focus`), so the sentences before and after the atom are what the agent reads. A passage longer
than that is cut around the sentence that matches the question best (`best_sentence`), and
brings the end of the chunk before it and the start of the chunk after it. Near-repeats are
dropped, the rest is ordered by score and cut to the budget, and returned twice: as text with
[n] markers ready to paste into a prompt, and as a structured list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pegas_memory.db.pool import Conn
from pegas_memory.models import CitationOut, ContextItem, DecayProfile, SearchHit
from pegas_memory.search.queries import SEARCH_SQL as Q
from pegas_memory.search.translit import cross_script_prefix
from pegas_memory.text import normalize_text

CHARS_PER_TOKEN = 4  # a conservative average for English and Russian with common tokenizers
NEIGHBOUR_CHUNKS = 1
MAX_CONTEXT_CHARS_PER_ITEM = 1_500


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class Window:
    """A chunk with its neighbours in the same document, joined in order; the chunk itself is
    text[start:end]."""

    doc_id: int
    text: str
    start: int
    end: int

    @property
    def before(self) -> str:
        return self.text[: self.start].rstrip()

    @property
    def after(self) -> str:
        return self.text[self.end :].lstrip()


_PROBE = 24  # characters of a chunk's start looked for in the end of the chunk before it
_MAX_OVERLAP = 600  # the chunker overlaps neighbours by whole sentences, up to 150 characters


def overlap(before: str, after: str) -> int:
    """How many characters `after` starts with that `before` ends with (pure): neighbouring
    chunks of a long section share trailing sentences (`ingest.chunking`), shown once."""
    probe = after[:_PROBE]
    if len(probe) < _PROBE:
        return 0
    tail_start = max(0, len(before) - _MAX_OVERLAP)
    at = before.find(probe, tail_start)
    while at >= 0:
        if after.startswith(before[at:]):
            return len(before) - at
        at = before.find(probe, at + 1)
    return 0


def joined(contents: Sequence[str], index: int) -> tuple[str, int, int]:
    """Neighbouring chunks' texts in order as one text, what two of them share shown once, and
    where contents[index] stands in it (pure)."""
    text, span = "", (0, 0)
    for i, content in enumerate(contents):
        if not text:
            start, text = 0, content
        elif shared := overlap(text, content):
            start, text = len(text) - shared, text + content[shared:]
        else:
            start, text = len(text) + 1, text + "\n" + content
        if i == index:
            span = (start, start + len(content))
    return text, *span


def chunk_windows(conn: Conn, chunk_ids: Sequence[int]) -> dict[int, Window]:
    """For each chunk: its text joined with its neighbours in the same document (`joined`)."""
    if not chunk_ids:
        return {}
    rows = conn.execute(Q.chunk_windows, {"ids": list(chunk_ids), "n": NEIGHBOUR_CHUNKS}).fetchall()
    parts: dict[int, list[str]] = {}
    index: dict[int, int] = {}
    docs: dict[int, int] = {}
    for r in rows:
        cited = int(r["cited"])
        docs[cited] = int(r["doc_id"])
        got = parts.setdefault(cited, [])
        if int(r["id"]) == cited:
            index[cited] = len(got)
        got.append(r["content"])
    return {cid: Window(docs[cid], *joined(parts[cid], index.get(cid, -1))) for cid in docs}


@dataclass(frozen=True)
class Cited:
    """The chunk an atom is first cited from, its quote, and the quote's offset in the chunk as
    the citation recorded it (None when unknown)."""

    chunk_id: int
    quote: str
    offset: int | None

    def span_in(self, window: Window) -> tuple[int, int]:
        """Where the quote stands in the window: found in the cited chunk's text, else at the
        recorded offset, else the chunk's start (an empty span)."""
        chunk = window.text[window.start : window.end]
        at = chunk.find(self.quote) if self.quote else -1
        if at >= 0:
            return window.start + at, window.start + at + len(self.quote)
        if self.offset is not None and 0 <= self.offset < len(chunk):
            return window.start + self.offset, window.start + self.offset
        return window.start, window.start


def cited_chunks(conn: Conn, atom_ids: Sequence[int]) -> dict[int, Cited]:
    """The chunk each atom is first cited from, a current version's first."""
    rows = conn.execute(Q.cited_chunks, (list(atom_ids),)).fetchall()
    return {
        int(r["atom_id"]): Cited(
            int(r["chunk_id"]),
            r["quoted_text"] or "",
            None if r["offset"] is None else int(r["offset"]),
        )
        for r in rows
    }


_SNAP = 200  # how far a cut moves to fall between sentences
# Where one sentence ends and the next begins, roughly: an end mark and space before a capital, a
# digit or an opening quote or bracket, or a line break. A window shown to the agent only needs
# its cuts to look clean ("…" marks them); razdel's exact boundaries cost 1-2 ms a window.
_BOUNDARY = re.compile(r"[.!?…][\"»”')\]]*\s+(?=[A-ZА-ЯЁ0-9\"«“(\[])|\n\s*")


def focus(text: str, start: int, end: int, limit: int = MAX_CONTEXT_CHARS_PER_ITEM) -> str:
    """At most `limit` characters of `text` around its span text[start:end] (pure): the whole
    text when it fits; else the span with as much before and after it as fits, cut at sentence
    boundaries where the cut falls inside a sentence, "…" where text is left out."""
    if len(text) <= limit:
        return text.strip()
    start = max(0, min(start, len(text)))
    end = max(start, min(end, len(text)))
    if end - start >= limit:
        s, e = start, start + limit
    else:
        s = max(0, start - (limit - (end - start)) // 2)
        e = min(len(text), s + limit)
        s = max(0, e - limit)
    if s > 0:  # the first sentence was cut: start at the next one, if it is near
        head = _BOUNDARY.search(text, s, min(start, s + _SNAP))
        if head is not None:
            s = head.end()
    if e < len(text):  # the last sentence was cut: end at the one before, if it is near
        ends = [
            m.start() + len(m[0].rstrip())
            for m in _BOUNDARY.finditer(text, max(end, e - _SNAP, s), e)
        ]
        if ends:
            e = ends[-1]
    piece = text[s:e].strip()
    return ("… " if s > 0 else "") + piece + (" …" if e < len(text) else "")


_WORD = re.compile(r"\w{3,}")
_STEM = 5  # a word's first letters stand for its stem (ru and en inflect at the end)


def _stems(text: str) -> set[str]:
    return {w[:_STEM] for w in _WORD.findall(text.casefold().replace("ё", "е"))}


# A sentence as best_sentence reads it: up to its end mark or line break (a rough cut is enough
# to choose where a passage is cut).
_ROUGH_SENTENCE = re.compile(r"[^.!?…\n]+(?:[.!?…]+|\n|$)")


def best_sentence(text: str, question: str) -> tuple[int, int]:
    """The span of the sentence of `text` that shares the most word stems with the question,
    names across scripts counted too ("Tesla" meets "Теслы", `translit.cross_script_prefix`)
    (pure; the first on a tie, (0, 0) when none shares one): where a long passage is cut."""
    asked = _stems(question)
    crossed = {
        p for w in _WORD.findall(question) if (p := cross_script_prefix(w.replace("ё", "е")))
    }
    best, span = 0, (0, 0)
    for m in _ROUGH_SENTENCE.finditer(text) if asked else ():
        stems = _stems(m[0])
        shared = len(asked & stems) + sum(any(t.startswith(p) for t in stems) for p in crossed)
        if shared > best:
            start = m.start() + len(m[0]) - len(m[0].lstrip())
            best, span = shared, (start, m.start() + len(m[0].rstrip()))
    return span


def _trim(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _source_line(c: CitationOut) -> str:
    where = (
        c.document_title or c.uri or (f"code symbol {c.code_symbol_id}" if c.code_symbol_id else "")
    )
    parts = [p for p in (where, c.locator) if p]
    return ", ".join(parts)


def assemble(
    hits: Sequence[SearchHit],
    windows: dict[tuple[str, int], str],
    *,
    budget_tokens: int,
    question: str = "",
) -> tuple[str, list[ContextItem], bool]:
    """Deduplicate, order and fit the evidence; return (text, items, truncated)."""
    seen_claims: set[str] = set()
    seen_windows: set[str] = set()
    blocks: list[str] = []
    items: list[ContextItem] = []
    used = 0
    truncated = False
    for hit in hits:
        key = normalize_text(hit.claim)
        if key in seen_claims:
            continue
        seen_claims.add(key)
        window = windows.get((hit.store, hit.id), "")
        if window and window in seen_windows:
            window = ""  # the same passage is already shown for an earlier item
        if window:
            seen_windows.add(window)
        marker = len(items) + 1
        claim = hit.claim
        if hit.store == "passage":  # a whole chunk: as long as one item's context may be
            if len(claim) > MAX_CONTEXT_CHARS_PER_ITEM:  # cut around what answers
                claim = focus(claim, *best_sentence(claim, question))
            claim = _trim(claim, MAX_CONTEXT_CHARS_PER_ITEM + 4)
        head = f"[{marker}] {claim}"
        meta = [hit.type]
        if hit.status:
            meta.append(hit.status)
        if hit.confidence is not None:
            meta.append(f"confidence {hit.confidence:.2f}")
        if hit.unsourced:
            meta.append("unsourced")
        if hit.feedback is not None:
            meta.append(f"feedback: {hit.feedback.describe()}")
        if hit.decay and hit.decay != DecayProfile.TIMELESS:  # how it ages, and since when
            meta.append(f"{hit.decay} from {hit.about[:10]}" if hit.about else hit.decay)
        lines = [f"{head} ({', '.join(meta)})"]
        for c in hit.citations[:2]:
            source = _source_line(c)
            if source:
                lines.append(f"    source: {source}")
            if c.quote and normalize_text(c.quote) != key:
                lines.append(f'    quote: "{_trim(c.quote, 400)}"')
        context = _trim(window, MAX_CONTEXT_CHARS_PER_ITEM + 4) if window else ""
        if context:
            lines.append(f"    context: {context}")
        block = "\n".join(lines)
        cost = estimate_tokens(block) + 1
        if used + cost > budget_tokens:
            # Try the item without its surrounding text before giving up on it.
            short = "\n".join(line for line in lines if not line.startswith("    context:"))
            if used + estimate_tokens(short) + 1 > budget_tokens:
                truncated = True
                break
            block, context, cost = short, "", estimate_tokens(short) + 1
            truncated = True
        used += cost
        blocks.append(block)
        items.append(
            ContextItem(
                marker=marker,
                atom_id=hit.id,
                scope=hit.scope,
                store=hit.store,
                type=hit.type,
                status=hit.status,
                confidence=hit.confidence,
                claim=hit.claim,
                score=hit.score,
                citations=hit.citations,
                context=context,
                feedback=hit.feedback,
                decay=hit.decay,
            )
        )
    return "\n\n".join(blocks), items, truncated


def windows_for(conn: Conn, hits: Sequence[SearchHit]) -> dict[tuple[str, int], str]:
    """The small-to-big text of each knowledge hit, keyed by (store, id): an atom's first cited
    chunk (a current version's first) with its neighbours, cut around the quote; for a passage,
    the end of the chunk before it and the start of the chunk after it ("[…]" stands for the
    passage itself, which the hit shows)."""
    out: dict[tuple[str, int], str] = {}
    atom_ids = [h.id for h in hits if h.store == "atom" and h.scope == "knowledge"]
    first = cited_chunks(conn, atom_ids) if atom_ids else {}
    passage_ids = [h.id for h in hits if h.store == "passage"]
    win = chunk_windows(conn, sorted({c.chunk_id for c in first.values()} | set(passage_ids)))
    for a, c in first.items():
        if (w := win.get(c.chunk_id)) is not None:
            out[("atom", a)] = focus(w.text, *c.span_in(w))
    half = MAX_CONTEXT_CHARS_PER_ITEM // 2
    for p in passage_ids:
        if (w := win.get(p)) is None:
            continue
        before, after = w.before, w.after
        tail = focus(before, len(before), len(before), half) if before else ""
        head = focus(after, 0, 0, half) if after else ""
        if tail or head:
            out[("passage", p)] = f"{tail} […] {head}".strip()
    return out


# The best query-passage cosine below which evidence is weak, for models whose similarity scale
# is compressed (e5: unrelated pairs sit near 0.75, a matching passage above 0.83).
MODEL_WEAK_COSINE: dict[str, float] = {"local/multilingual-e5-small-q4": 0.80}


def weak_cosine_for(model_id: str, default: float) -> float:
    return MODEL_WEAK_COSINE.get(model_id, default)


def weak(hits: Sequence[SearchHit], arms: dict[str, Any], threshold: float) -> bool:
    """Is the best evidence weak? No hit, or neither arm found anything convincing."""
    if not hits:
        return True
    cosine, lexical_weight = 0.0, 0.0
    for store in ("atom", "passage"):  # the best evidence of either store
        found = arms.get(store, {})
        dense_note = (found.get("dense") or {}).get("note") or ""
        lexical_weight = max(lexical_weight, (found.get("lexical") or {}).get("weight", 0.0))
        if dense_note.startswith("top cosine"):
            cosine = max(cosine, float(dense_note.split()[-1]))
    return cosine < threshold and lexical_weight < 0.25
