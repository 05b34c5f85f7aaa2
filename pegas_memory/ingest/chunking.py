"""The parsed-source model and the structure-aware chunker (pure logic, no drivers).

A parser (pegas_memory.ingest.sources) turns a source into `Section`s that follow the source's own
structure: a PDF page, an EPUB chapter, a markdown heading section. `chunk_source` cuts each
section into `Chunk`s no longer than `max_chars`, at the best boundary available: between blocks
(paragraphs, fenced code, tables, headings), else between sentences (razdel, which knows Russian
abbreviations and «» quotes), else between words. A code block or table that fits in one chunk is
never split. Neighbouring chunks of a long section overlap by whole trailing sentences, so a fact
cut at a chunk boundary is still read whole once.

A chunk's text is always `section.text[char_start:char_end]`: quotes taken from a chunk can be
found again in the section, and offsets make a precise locator.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pegas_memory.errors import InvalidInput, LimitExceeded
from pegas_memory.sentences import split_sentences
from pegas_memory.text import content_hash, detect_language

SourceKind = Literal["web", "pdf", "epub", "text"]
# The chunker's size limit in characters: a paragraph of an ordinary paper or book stays whole
# (a chunk is a passage search returns and embeds, docs/decisions/0012), within the embedder's
# window (about 450 tokens of English for e5-small's 512). At 1,200, 59% of SciFact's abstracts
# were cut in two or more chunks, each embedded as a part of its abstract: nDCG@10 through
# ingest 0.701 at 1,200 and 0.705 at 2,000 (each arm alone +0.011;
# bench/results/ingest-retrieval.md).
CHUNK_CHARS = 2000


@dataclass(frozen=True)
class Section:
    """A unit of the source's own structure; `locator` is how a reader finds it ("p. 3")."""

    text: str
    locator: str
    heading_path: tuple[str, ...] = ()
    offset: int = 0  # where `text` starts in the whole source text (text and markdown sources)


@dataclass(frozen=True)
class ParsedSource:
    kind: SourceKind
    uri: str
    title: str | None
    author: str | None
    language: str | None
    published_at: str | None
    canonical_url: str | None
    sections: tuple[Section, ...]
    raw_hash: str  # sha256 of the raw bytes: any change of the source is a new version
    metadata: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """All section texts, in order, separated by blank lines."""
        return "\n\n".join(s.text for s in self.sections)


@dataclass(frozen=True)
class Chunk:
    ord: int
    text: str
    locator: str
    heading_path: tuple[str, ...]
    char_start: int  # offsets into the section's text
    char_end: int
    content_hash: str
    language: str | None
    section_locator: str = ""  # the section's own locator ("p. 3", a chapter)
    section_offset: int = 0  # Section.offset: chunk offsets + this = position in the source


def citation_locator(chunk: Chunk, quote_start: int) -> str:
    """How a person finds a quote: the section (page with its printed label, chapter), the
    section path (chapter > section) and the quote's own character position (in the whole text
    for text and markdown, in the page or chapter otherwise), not the chunk's start."""
    path = " > ".join(chunk.heading_path)
    where = chunk.section_locator
    if path and (not where or where in chunk.heading_path or where == path):
        where = path
    elif path:
        where = f"{where}, {path}"
    position = f"char {chunk.section_offset + chunk.char_start + quote_start}"
    return f"{where}, {position}" if where else position


# --- markdown structure --------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_NOT_SETEXT_TITLE = re.compile(r"^\s*([-*+>|#]|\d+[.)]\s)")


@dataclass(frozen=True)
class _Line:
    start: int
    end: int  # without the newline
    text: str


def _lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        lines.append(_Line(pos, pos + len(body), body))
        pos += len(raw)
    return lines


def _heading_at(lines: list[_Line], i: int) -> tuple[int, str, int] | None:
    """(level, title, lines used) when line i starts a heading outside code."""
    m = _ATX.match(lines[i].text)
    if m:
        return len(m.group(1)), m.group(2).strip(), 1
    if i + 1 < len(lines):
        under = _SETEXT.match(lines[i + 1].text)
        title = lines[i].text.strip()
        prev_blank = i == 0 or not lines[i - 1].text.strip()
        if (
            under
            and title
            and prev_blank
            and len(under.group(1)) >= 3
            and not _NOT_SETEXT_TITLE.match(lines[i].text)
        ):
            return (1 if under.group(1)[0] == "=" else 2), title, 2
    return None


def _clean_title(title: str) -> str:
    return title.strip().strip("*_`").strip()


def split_markdown_sections(
    text: str, *, base_path: tuple[str, ...] = (), levels: Mapping[int, int] | None = None
) -> list[Section]:
    """Sections of a markdown (or plain) text, one per heading; the heading line stays at the
    top of its section's text. A heading with no text before the next heading is kept as the
    top of that next section, so every section has a body and no heading text is lost.

    `levels` ({heading line's offset: level}) overrides the level a heading line shows: an rst
    document's levels follow the order of its adornment styles (`ingest.markup`), which its
    normalised `=`/`-` lines cannot tell."""
    lines = _lines(text)
    starts: list[tuple[int, tuple[str, ...]]] = [(0, base_path)]
    stack: list[tuple[int, str]] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i].text
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            i += 1
            continue
        if m:
            fence = m.group(1)
            i += 1
            continue
        heading = _heading_at(lines, i)
        if heading is None:
            i += 1
            continue
        level, title, used = heading
        if levels:
            level = levels.get(lines[i].start, level)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, _clean_title(title)))
        path = base_path + tuple(t for _, t in stack)
        body_before = text[starts[-1][0] : lines[i].start].strip()
        # Body-less heading run: the earlier heading(s) join this section's top.
        if body_before and not _only_headings(text[starts[-1][0] : lines[i].start]):
            starts.append((lines[i].start, path))
        else:
            starts[-1] = (starts[-1][0], path)
        i += used
    sections: list[Section] = []
    for n, (start, path) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(text)
        body = text[start:end].strip()
        if body and not _only_headings(body):
            lead = len(text[start:end]) - len(text[start:end].lstrip())
            sections.append(Section(body, " > ".join(path), path, offset=start + lead))
    return sections


def _only_headings(text: str) -> bool:
    lines = _lines(text)
    i = 0
    while i < len(lines):
        if not lines[i].text.strip():
            i += 1
            continue
        heading = _heading_at(lines, i)
        if heading is None:
            return False
        i += heading[2]
    return True


# --- blocks and units ----------------------------------------------------------------------------

BlockKind = Literal["heading", "code", "table", "para"]


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    kind: BlockKind
    block: int  # index of the block the unit belongs to
    first: bool  # first unit of its block


def _blocks(text: str) -> list[tuple[int, int, BlockKind]]:
    lines = _lines(text)
    blocks: list[tuple[int, int, BlockKind]] = []
    para: list[_Line] = []

    def flush() -> None:
        if para:
            blocks.append((para[0].start, para[-1].end, "para"))
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line.text)
        if fence:
            flush()
            j = i + 1
            while j < len(lines):
                close = _FENCE.match(lines[j].text)
                if close and close.group(1)[0] == fence.group(1)[0]:
                    break
                j += 1
            last = min(j, len(lines) - 1)
            blocks.append((line.start, lines[last].end, "code"))
            i = last + 1
            continue
        if "|" in line.text and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1].text):
            flush()
            j = i + 2
            while j < len(lines) and "|" in lines[j].text and lines[j].text.strip():
                j += 1
            blocks.append((line.start, lines[j - 1].end, "table"))
            i = j
            continue
        literal = _literal_block_end(lines, i)
        if literal is not None:  # rst: the indented block after a paragraph ending in "::"
            flush()
            blocks.append((line.start, lines[literal - 1].end, "code"))
            i = literal
            continue
        heading = _heading_at(lines, i)
        if heading is not None:  # an ATX heading interrupts a paragraph, as in CommonMark
            flush()
            blocks.append((line.start, lines[i + heading[2] - 1].end, "heading"))
            i += heading[2]
            continue
        if not line.text.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return [_trim(text, s, e, k) for s, e, k in blocks if text[s:e].strip()]


def _literal_block_end(lines: list[_Line], i: int) -> int | None:
    """The end (a line index) of the rst literal block line i opens: the line is indented
    deeper than the last non-blank line before it, which ends in "::"; the block runs while
    lines are blank or indented deeper than that line."""
    if not lines[i].text.strip() or i == 0 or lines[i - 1].text.strip():
        return None
    k = i - 1
    while k >= 0 and not lines[k].text.strip():
        k -= 1
    if k < 0 or not lines[k].text.rstrip().endswith("::"):
        return None
    depth = _depth(lines[k].text)
    if _depth(lines[i].text) <= depth:
        return None
    j, last = i, i
    while j < len(lines) and (not lines[j].text.strip() or _depth(lines[j].text) > depth):
        if lines[j].text.strip():
            last = j
        j += 1
    return last + 1


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _trim(text: str, start: int, end: int, kind: BlockKind) -> tuple[int, int, BlockKind]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end, kind


def _windows(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut [start, end) into trimmed pieces of at most max_chars, at whitespace if possible."""
    pieces: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        stop = min(end, pos + max_chars)
        if stop < end:
            cut = max(text.rfind(" ", pos + 1, stop + 1), text.rfind("\n", pos + 1, stop + 1))
            if cut > pos:
                stop = cut
        piece = _trim(text, pos, stop, "para")
        if piece[1] > piece[0]:
            pieces.append((piece[0], piece[1]))
        pos = stop
    return pieces


def _line_groups(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut an oversize code block or table at line ends into pieces of at most max_chars."""
    pieces: list[tuple[int, int]] = []
    cur_start: int | None = None
    cur_end = start
    for line in _lines(text[start:end]):
        ls, le = start + line.start, start + line.end
        if le - ls > max_chars:
            if cur_start is not None:
                pieces.append((cur_start, cur_end))
                cur_start = None
            pieces.extend(_windows(text, ls, le, max_chars))
            continue
        if cur_start is not None and le - cur_start > max_chars:
            pieces.append((cur_start, cur_end))
            cur_start = None
        if cur_start is None:
            cur_start = ls
        cur_end = le
    if cur_start is not None:
        pieces.append((cur_start, cur_end))
    return [(s, e) for s, e, _ in (_trim(text, s, e, "code") for s, e in pieces) if e > s]


def _sentences(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Sentence spans of a paragraph; sentences inside one «...» quote stay together (razdel
    splits «Это важно. Очень». in two) as long as the quote fits in a chunk."""
    spans: list[tuple[int, int]] = []
    depth = 0
    for sent in split_sentences(text[start:end]):
        s, e = start + sent.start, start + sent.end
        if depth > 0 and spans and e - spans[-1][0] <= max_chars:
            spans[-1] = (spans[-1][0], e)
        else:
            spans.append((s, e))
        piece = text[s:e]
        depth = max(0, depth + piece.count("«") - piece.count("»"))
    return spans


def _units(text: str, max_chars: int) -> list[_Unit]:
    units: list[_Unit] = []
    for b, (start, end, kind) in enumerate(_blocks(text)):
        if kind == "para":
            spans: list[tuple[int, int]] = []
            for sent_start, sent_end in _sentences(text, start, end, max_chars):
                s, e, _ = _trim(text, sent_start, sent_end, kind)
                if e - s > max_chars:
                    spans.extend(_windows(text, s, e, max_chars))
                elif e > s:
                    spans.append((s, e))
        elif end - start <= max_chars:
            spans = [(start, end)]
        elif kind == "heading":
            spans = _windows(text, start, end, max_chars)
        else:
            spans = _line_groups(text, start, end, max_chars)
        units.extend(_Unit(s, e, kind, b, n == 0) for n, (s, e) in enumerate(spans))
    return units


# --- packing -------------------------------------------------------------------------------------


def chunk_spans(
    text: str, *, max_chars: int = CHUNK_CHARS, overlap: int = 150
) -> list[tuple[int, int]]:
    """(start, end) offsets of the chunks of one section's text."""
    units = _units(text, max_chars)
    block_span: dict[int, tuple[int, int]] = {}
    for u in units:
        s, e = block_span.get(u.block, (u.start, u.end))
        block_span[u.block] = (min(s, u.start), max(e, u.end))
    spans: list[tuple[int, int]] = []
    cur: list[_Unit] = []
    cur_start = 0
    i = 0
    while i < len(units):
        u = units[i]
        if not cur:
            cur, cur_start = [u], u.start
            i += 1
            continue
        fits = u.end - cur_start <= max_chars
        bs, be = block_span[u.block]
        # Close early rather than split a block that would fit whole in the next chunk.
        block_breaks = (
            u.first
            and be - cur_start > max_chars
            and be - bs <= max_chars
            and (u.kind != "para" or cur[-1].end - cur_start >= max_chars // 2)
        )
        if fits and not block_breaks:
            cur.append(u)
            i += 1
            continue
        # A chunk must not end on a heading, nor on the lead-in of a code block ("Like
        # this::"): they belong to what follows them.
        while len(cur) > 1 and (
            cur[-1].kind == "heading"
            or (u.kind == "code" and u.first and text[cur[-1].start : cur[-1].end].endswith(":"))
        ):
            cur.pop()
            i -= 1
        spans.append((cur_start, cur[-1].end))
        nxt = units[i]
        start = nxt.start
        if nxt.kind != "heading" and overlap > 0:
            start = _overlap_start(text, cur, cur_start, nxt, max_chars, overlap)
        cur, cur_start = [nxt], start
        i += 1
    if cur:
        spans.append((cur_start, cur[-1].end))
    return spans


def _overlap_start(
    text: str, prev: list[_Unit], prev_start: int, nxt: _Unit, max_chars: int, overlap: int
) -> int:
    """Where the next chunk starts so it repeats the previous chunk's last sentences."""
    end = prev[-1].end
    # The gap between the chunks counts too: the next chunk must still fit in max_chars.
    limit = min(overlap, max_chars - (nxt.end - end))
    if prev[-1].kind != "para" or limit <= 0:
        return nxt.start
    best = nxt.start
    for u in reversed(prev):
        if u.kind != "para" or end - u.start > limit or u.start <= prev_start:
            break
        best = u.start
    if best != nxt.start:
        return best
    # No whole sentence is short enough: repeat the last words instead.
    cut = text.find(" ", end - limit, end)
    if cut == -1 or cut + 1 <= prev_start:
        return nxt.start
    s, _, _ = _trim(text, cut, end, "para")
    return s if s < end else nxt.start


def chunk_source(
    parsed: ParsedSource,
    *,
    max_chars: int = CHUNK_CHARS,
    overlap: int = 150,
    max_chunks: int | None = None,
) -> list[Chunk]:
    """Chunks of every section, numbered in reading order, each with its own language.

    Raises InvalidInput (max_chars below 50 or overlap not below max_chars/2), LimitExceeded
    (more than `max_chunks` chunks; the pipeline passes settings.max_chunks).
    """
    if max_chars < 50:
        raise InvalidInput(f"max_chars={max_chars} is too small; use at least 50")
    if not 0 <= overlap < max_chars // 2:
        raise InvalidInput(f"overlap={overlap} must be >= 0 and below max_chars/2")
    chunks: list[Chunk] = []
    for section in parsed.sections:
        for start, end in chunk_spans(section.text, max_chars=max_chars, overlap=overlap):
            if max_chunks is not None and len(chunks) >= max_chunks:
                raise LimitExceeded(
                    f"{parsed.uri} gives more than max_chunks={max_chunks} chunks; raise "
                    "PEGAS_MAX_CHUNKS or ingest the source in parts"
                )
            body = section.text[start:end]
            where = f"char {start}"
            chunks.append(
                Chunk(
                    ord=len(chunks),
                    text=body,
                    locator=f"{section.locator}, {where}" if section.locator else where,
                    heading_path=section.heading_path,
                    char_start=start,
                    char_end=end,
                    content_hash=content_hash(body),
                    language=detect_language(body) or parsed.language,
                    section_locator=section.locator,
                    section_offset=section.offset,
                )
            )
    return chunks
