"""The offline distiller: deterministic, rule-based, no model and no network. Holds the scanning
of code blocks, tables and JSON rules, the prose units, and `OfflineDistiller`; the definition
rules (en/ru/de) live in `distill.definition_rules`, statement labels in `distill.patterns`, the
fact test in `distill.fact_rules`, the self-contained units (labelled statements, joined
sentences, fragments) in `distill.units` and `distill.segment`.

Offline heuristics, in order:
- fenced code (``` or ~~~) is `code`, unless its body is JSON with "if"/"then" keys, which is a
  `logical_rule`; an indented block is `code` only when it looks like code (PDF and EPUB text is
  often indented prose);
- pipe tables (two or more `|` rows) and HTML tables rendered as tab-separated rows are `table`;
  a JSON object with "if"/"then" in prose is a `logical_rule` whose content is the canonical JSON;
- a labelled statement is one atom: "Definition N ..." a `definition` (its term found by pattern
  or title), "Satz/Lemma/Theorem/Теорема N ..." a `fact` with metadata kind=theorem, a proof a
  `text` with kind=proof;
- the rest is cut into paragraphs and list items; navigation and widget lines and fragments are
  skipped; the classify stage (`distill.classify`: ordered lists of named rules, the first that
  holds decides) skips a unit that is a heading, a caption or a label line, uncounted, and drops
  page furniture (a related link, a caption), counted (`unit_noise`); a paragraph that is a list
  of dated entries run together is one `text` atom led in by its heading
  (`distill.items.list_atom`); sentences are grouped so each group stands alone (the segment
  stage, `distill.units.sentence_groups` with the ordered rules `distill.segment.JOIN_RULES`; the
  names of the rules that joined a group's sentences, "leans back", "after a premise", ..., are
  in its atom's metadata, `joined_by`, for a group of several sentences only), the groups that
  are noise (an exclamation, a question or a lead-in alone, a pointer, a list line, a short
  fragment, a line of dialogue) are counted and dropped (the classify stage, which
  `units.sentence_groups` runs), and a group is a `definition` when it matches a definition
  pattern, else a `fact` when it states something checkable (`fact_rules.is_fact`), else `text`;
  the rule that typed it is in its metadata (`typed_by`);
- a short line of a scene (a question, an exclamation, a line of speech) opening a paragraph joins
  the narration before it; outside a conversational chunk a question does not (it opens what
  follows: "How does X work?").
Confidence: code 0.9; table, rule, labelled statements 0.8; definition 0.75 with a marker
("defined as", "это", "heißt"), else 0.7; fact 0.6; text 0.5; a group leaning on a sentence
outside the chunk ("It ...", "Он ...") with no subject to carry (`distill.carry`) 0.4. U+FFFD
(a character the PDF could not map) sets damaged=True. Last, what still leans back with nothing
to carry and what lost words in the source are dropped (`distill.standalone`), as part of the
promote stage (`distill.promote`) that keeps layout, pointers and narration in their passage."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import pegas_memory.distill.items as items
import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.ordered_lists as ordered_lists
import pegas_memory.distill.values_en as values_en
from pegas_memory.distill.carry import carry, document_subject, topic
from pegas_memory.distill.classify import unit_noise
from pegas_memory.distill.code_claim import code_claim, defined_names, says_nothing
from pegas_memory.distill.fact_rules import fact_verdict
from pegas_memory.distill.items import bare_item, heading_lead_in, item_start, subjectless_item
from pegas_memory.distill.leads import lead_carry, match_lead_definition
from pegas_memory.distill.patterns import ANAPHORS, LETTER, block_term, words_of
from pegas_memory.distill.patterns import match_definition as match_definition
from pegas_memory.distill.promote import promote
from pegas_memory.distill.segment import JOINED_BY
from pegas_memory.distill.standalone import settled
from pegas_memory.distill.types import OFFLINE_VERSION, TYPED_BY, AtomType, ChunkContext, DraftAtom
from pegas_memory.distill.units import (
    LabelledBlock,
    clean_claim,
    conversational,
    is_widget_line,
    labelled_blocks,
    list_lead_in,
    next_paragraph,
    sentence_groups,
)
from pegas_memory.text import detect_language

_LETTER = LETTER  # re-exported for distill.ollama
_clean = clean_claim
_words = words_of

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$")
_TABLE_ROW = re.compile(r"^\s*\|?[^|\n]*\|[^\n]*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)+\|?\s*$")
_TAB_ROW = re.compile(r"^[^\t\n]+(?:\t[^\t\n]*)+$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_CODE_HINT = re.compile(r"[;{}]\s*$|:\s*$|=|\w\(.*\)|^\s*(#|//|import |from |return\b)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6}\s|={3,}\s*$|-{3,}\s*$|\*{3,}\s*$)")
# A PDF section heading on its own line ("2 Bar", "3.1 Stetige Abbildungen"): a number and a
# short capitalised title, after a line that ended a sentence and before one that starts one.
_NUMBERED_HEADING = re.compile(
    r"^\s{0,3}\d{1,2}(?:\.\d{1,2})*\.?[ \t]+[A-ZÄÖÜА-ЯЁ][^\n.:;!?,]{1,60}$"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•–]|\d{1,3}[.)])\s+")
_NAV = re.compile(
    r"^\W*(home|menu|skip to( main)? content|read more|continue reading|next|previous|back to"
    r" top|share( this)?|tweet|print|subscribe|sign in|log in|sign up|register|search|cookies?"
    r"|accept( all)?( cookies)?|privacy policy|terms of (use|service)|all rights reserved|главная"
    r"|меню|поиск|подробнее|читать (далее|дальше)|далее|назад|вперёд|вперед|наверх|войти"
    r"|регистрация|подписаться|поделиться|все права защищены|©)\b.{0,40}$",
    re.IGNORECASE,
)
_WS = re.compile(r"\s+")
_CYR = re.compile(r"[\u0400-\u04FF]")
_LAT = re.compile(r"[A-Za-z]")
_DAMAGED = "\ufffd"
_JOINABLE = frozenset(["dialogue line", "exclamation", "question", "short fragment"])
_MAX_JOINED_CHARS = 700
_SELF_CONTAINED = en.SELF_CONTAINED | ru.SELF_CONTAINED
_LABELS = {
    "ru": {"code": "Код", "defines": "определяет", "table": "Таблица", "columns": "столбцы",
           "rows": "строк", "rule": "Правило: если {c}, то {t}", "and": " и "},
    "en": {"code": "Code", "defines": "defines", "table": "Table", "columns": "columns",
           "rows": "rows", "rule": "Rule: if {c} then {t}", "and": " and "},
}  # fmt: skip


def _script_language(text: str, chunk_language: str | None) -> str | None:
    """The chunk's language unless the span is in the other script (mixed ru/en chunks)."""
    cyr, lat = len(_CYR.findall(text)), len(_LAT.findall(text))
    if chunk_language == "ru" and lat > 2 * cyr:
        return detect_language(text) or "en"
    if chunk_language != "ru" and cyr > 2 * lat:
        return detect_language(text) or "ru"
    return chunk_language


@dataclass(frozen=True)
class _Block:
    kind: Literal["fence", "table", "indented", "json", "marker"]  # marker: an admonition's fence
    start: int  # what is masked from prose (fences included)
    end: int
    body_start: int  # the quoted span
    body_end: int
    info: str = ""


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end, line) without line terminators; offsets index into `text`."""
    out, pos = [], 0
    for raw in text.splitlines(keepends=True):
        line = raw.splitlines()[0] if raw.strip("\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029") else ""
        out.append((pos, pos + len(line), line))
        pos += len(raw)
    return out


def _rules_in(value: Any) -> list[dict[str, Any]] | None:
    """The if/then rules a JSON value holds (an object or a list of them), else None."""
    items = value if isinstance(value, list) else [value]
    ok = all(isinstance(i, dict) and "if" in i and "then" in i for i in items)
    return items if items and ok else None


def _find_blocks(text: str) -> list[_Block]:
    lines = _lines(text)
    blocks: list[_Block] = []
    closing: set[int] = set()  # the closing fence lines of admonitions read as prose
    i = 0
    while i < len(lines):
        start, _end, line = lines[i]
        fence = _FENCE.match(line)
        if fence and i in closing:
            blocks.append(_Block("marker", start, _end, start, start))
            i += 1
            continue
        if fence:
            mark = fence[1]
            j = i + 1
            while j < len(lines) and not lines[j][2].strip().startswith(mark):
                j += 1
            body = lines[i + 1 : j]
            last = lines[min(j, len(lines) - 1)][1]
            if _prose_fence(body, fence[2]):  # an admonition box fenced like code: prose
                blocks.append(_Block("marker", start, _end, start, start))  # not its info line
                closing.add(j)
                i += 1
                continue
            if body:
                b0, b1 = body[0][0], body[-1][1]
                blocks.append(_Block("fence", start, last, b0, b1, fence[2].strip()))
            else:
                blocks.append(_Block("fence", start, last, start, start))
            i = j + 1
            continue
        if _TABLE_ROW.match(line) and i + 1 < len(lines) and _TABLE_ROW.match(lines[i + 1][2]):
            j = i
            while j < len(lines) and _TABLE_ROW.match(lines[j][2]) and lines[j][2].strip():
                j += 1
            rows = lines[i:j]
            piped = sum(r[2].strip().startswith("|") for r in rows)
            if any(_TABLE_SEP.match(r[2]) for r in rows) or piped == len(rows):
                blocks.append(_Block("table", start, rows[-1][1], start, rows[-1][1]))
                i = j
                continue
        if _TAB_ROW.match(line.strip()):
            # An HTML or spreadsheet table rendered as tab-separated rows of equal width.
            width = line.strip().count("\t")
            j = i
            while j < len(lines) and _TAB_ROW.match(lines[j][2].strip() or "-"):
                if lines[j][2].strip().count("\t") != width:
                    break
                j += 1
            if j - i >= 2:
                rows = lines[i:j]
                blocks.append(_Block("table", start, rows[-1][1], start, rows[-1][1], "tsv"))
                i = j
                continue
        prev_blank = i == 0 or not lines[i - 1][2].strip()
        literal = _after_literal_marker(lines, i)  # rst "::" (ingest.markup writes it so)
        indented = _INDENTED.match(line) and not _LIST_ITEM.match(line)
        if (indented or literal) and line.strip() and prev_blank:
            depth = min(4, _indent_of(line)) if literal else 4
            j = i
            while j < len(lines) and (_indent_of(lines[j][2]) >= depth or not lines[j][2].strip()):
                j += 1
            body = lines[i:j]
            while body and not body[-1][2].strip():
                body.pop()
            if literal or any(_CODE_HINT.search(b[2]) for b in body):
                b0 = body[0][0] + len(body[0][2]) - len(body[0][2].lstrip())
                blocks.append(_Block("indented", start, body[-1][1], b0, body[-1][1]))
                i = j
                continue
        i += 1
    return blocks + _json_rules(text, blocks)


_SENTENCE_END = re.compile(r"[.!?…:»\")]\s*$")
_CODE_CHARS = re.compile(r"[;{}=<>\[\]()]")


# The info string of a fenced admonition: a box's kind or a header attribute, no language.
_ADMONITION = re.compile(
    r"^\s*(?:smart|warn|warning|note|tip|info|danger|caution|important|hint|attention|seealso"
    r"|summary|compare|quote|details)\b|\bheader\s*=",
    re.IGNORECASE,
)


def _prose_fence(body: Sequence[tuple[int, int, str]], info: str = "") -> bool:
    """Whether a fenced block holds prose, not code: its info string names an admonition
    ("```warn header=...", "````smart"), or most of its lines are sentences (five words or
    more, ending as a sentence ends, at most two code characters). Sites fence admonitions
    the way they fence code."""
    lines = [b[2] for b in body if b[2].strip()]
    if not lines:
        return False
    if _ADMONITION.search(info) and not any(_FENCE.match(line) for line in lines):
        return True
    prose = sum(
        1
        for line in lines
        if len(line.split()) >= 5
        and _SENTENCE_END.search(line)
        and len(_CODE_CHARS.findall(line)) <= 2
    )
    return prose / len(lines) >= 0.6


def _indent_of(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _after_literal_marker(lines: Sequence[tuple[int, int, str]], i: int) -> bool:
    """Whether line i opens an rst literal block: the last line before it that is not blank
    ends with "::" and is indented less."""
    for k in range(i - 1, -1, -1):
        before = lines[k][2]
        if before.strip():
            return before.rstrip().endswith("::") and _indent_of(before) < _indent_of(lines[i][2])
    return False


def _json_rules(text: str, blocks: Sequence[_Block]) -> list[_Block]:
    found: list[_Block] = []
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        inside = any(b.start <= pos < b.end for b in blocks)
        end = pos + 1
        if not inside and '"if"' in text[pos : pos + 2000]:
            try:
                value, end = decoder.raw_decode(text, pos)
            except ValueError:
                end = pos + 1
            else:
                if _rules_in(value):
                    found.append(_Block("json", pos, end, pos, end))
                else:
                    end = pos + 1
        pos = text.find("{", end)
    return found


def _prose_units(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Paragraph and list-item spans outside `spans` (blocks, labelled statements), without
    headings, navigation or widget lines."""
    covered = sorted(spans)
    units: list[tuple[int, int]] = []
    current: list[int] = []  # [start, end] of the unit being built

    def flush() -> None:
        if current:
            units.append((current[0], current[1]))
            current.clear()

    lines = _lines(text)
    for n, (start, end, line) in enumerate(lines):
        pieces, cursor = [], start
        for c0, c1 in covered:
            if c1 <= cursor or c0 >= end:
                continue
            if c0 > cursor:
                pieces.append((cursor, c0))
            cursor = max(cursor, c1)
        if cursor < end:
            pieces.append((cursor, end))
        if len(pieces) != 1 or pieces[0] != (start, end):
            flush()  # a block cuts this line: its prose pieces stand alone
            for p0, p1 in pieces:
                if text[p0:p1].strip():
                    units.append((p0, p1))
            continue
        stripped = line.strip()
        if (
            not stripped
            or _HEADING.match(line)
            or (_NAV.match(stripped) and not _goes_on(text, current))
            or _is_crumbs(stripped)
            or is_widget_line(stripped)
            or _numbered_heading(lines, n)
        ):
            flush()
            continue
        item = _LIST_ITEM.match(line)
        if item:
            flush()
        first = start + (item.end() if item else len(line) - len(line.lstrip()))
        if current:
            current[1] = end
        else:
            current.extend((first, end))
    flush()
    return units


def _goes_on(text: str, current: Sequence[int]) -> bool:
    """Whether the paragraph being built stops mid-sentence, so its next line goes on with it
    ("... in case you already have a / cookie with the same name.": no cookie banner)."""
    return bool(current) and not re.search(r"[.!?…:;»\")]\s*$", text[current[0] : current[1]])


def _numbered_heading(lines: Sequence[tuple[int, int, str]], n: int) -> bool:
    """Whether line n is a numbered heading inside running text (`_NUMBERED_HEADING`); a line
    wrapped before a number ("bestehend aus / 3 Punkten und ...") follows no sentence end."""
    line = lines[n][2]
    if _NUMBERED_HEADING.match(line) is None or len(line.split()) > 7:
        return False
    before = lines[n - 1][2].rstrip() if n else ""
    after = lines[n + 1][2].lstrip() if n + 1 < len(lines) else ""
    return (not before or before[-1] in ".!?…:") and after[:1].isupper()


def _is_crumbs(line: str) -> bool:
    # Breadcrumbs and menus: many separators, few words between them (a path in inline code,
    # "``/path/to/config.py``", an autolink "<https://...>" of rst or markdown, or a markdown
    # link's target "[text](https://...#m(a.B))" in running text is no separator; a bare URL
    # line and a list item of links still are).
    target = r"|(?<=\])\((?:[^()\s]|\([^()\s]*\))+\)" if _LIST_ITEM.match(line) is None else ""
    bare = re.sub(r"`[^`\n]*`|<\w+://[^<>\s]+>" + target, "", line)
    seps = len(re.findall(r"[|•·›»/]", bare))
    return seps >= 3 and len(_words(line)) <= 4 * seps


class OfflineDistiller:
    """Deterministic distillation by heuristics (module docstring); no model, no network."""

    name = "offline"
    prompt_version = OFFLINE_VERSION
    promotes = True  # runs the promote stage itself (`distill.promote`)

    def distill(self, text: str, context: ChunkContext) -> list[DraftAtom]:
        return self.distill_counted(text, context)[0]

    def distill_counted(
        self, text: str, context: ChunkContext
    ) -> tuple[list[DraftAtom], dict[str, int]]:
        """The atoms of a chunk, and how many drafts were dropped as noise, by reason
        ("dialogue line", "exclamation", "question", "related link", ...): what an ingest
        result reports as dropped."""
        chunk_language = context.language or detect_language(text)
        dropped: Counter[str] = Counter()
        blocks = _find_blocks(text)
        atoms: list[DraftAtom] = []
        for block in blocks:
            atom = self._block_atom(text, block, chunk_language, context.heading_path[-1:])
            if atom is not None:
                atoms.append(atom)
        labelled = labelled_blocks(text, [(b.start, b.end) for b in blocks])
        for lb in labelled:
            atom = self._labelled_atom(text, lb, chunk_language)
            if atom is not None:
                atoms.append(atom)
        masked = [(b.start, b.end) for b in blocks] + [(lb.start, lb.end) for lb in labelled]
        # The last atom when it is narration ending the unit before: a short line of speech,
        # exclamation or question opening the next unit joins it ("She looked at the Hatter.
        # / 'Nor I,' said the March Hare." is kept as one atom; two replies in a row are not).
        narration: int | None = None
        subject = topic(context)  # what a claim without a subject of its own carries
        units = _prose_units(text, masked)
        conversation = conversational(text, units)
        # what "this crate" carries; in dialogue, nothing
        document = None if conversation else document_subject(context)
        # The chunk's first sentence is a lead: "X is the N ..." defines X when X is the
        # document's title or the section's heading (`distill.leads`).
        lead_of: tuple[str, ...] = (context.title or "", *context.heading_path[-1:])
        for u0, u1 in units:
            unit = text[u0:u1]
            joinable, narration = narration, None
            noise = unit_noise(unit)  # a heading or a label (uncounted), furniture (classify)
            if noise is not None:
                if noise[1] is not None:
                    dropped[noise[1]] += 1
                continue
            if items.dated_entries(unit, chunk_language):  # one atom led in by its heading, or none
                listed = items.list_atom(self._sentence_atom(text, u0, u1, chunk_language), context)
                if listed is None:
                    dropped["list line"] += 1
                else:
                    atoms.append(listed)
                continue
            groups = sentence_groups(
                text, u0, u1, conversation=conversation, language=chunk_language
            )
            for n, group in enumerate(groups):
                if group.fragment:
                    continue
                if group.noise is not None:
                    joined = None
                    # A question opening a paragraph of expository text starts what follows
                    # ("How does X work?"); in dialogue it is a line of the scene.
                    opens = group.noise == "question" and not conversation
                    if n == 0 and joinable is not None and group.noise in _JOINABLE and not opens:
                        joined = self._joined(text, atoms[joinable], group.end, chunk_language)
                    if joined is not None and joinable is not None:
                        atoms[joinable] = joined
                    else:
                        dropped[group.noise] += 1
                    continue
                if (
                    n == 0
                    and joinable is not None
                    and group.anaphoric
                    and (
                        conversation
                        or next_paragraph(
                            text,
                            (atoms[joinable].quote_start, atoms[joinable].quote_end),
                            u0,
                            group.end,
                        )
                    )
                ):
                    # "She ..." opening a paragraph leans on the narration before it; "But
                    # that's ..." on the paragraph before it.
                    joined = self._joined(text, atoms[joinable], group.end, chunk_language)
                    if joined is not None:
                        atoms[joinable] = (
                            joined if conversation else carry(joined, subject, document=document)
                        )
                        narration = joinable if n == len(groups) - 1 else None
                        continue
                atom = self._sentence_atom(text, group.start, group.end, chunk_language, lead_of)
                lead_of = ()
                if atom is not None and group.joined_by:  # the segment rules that joined it
                    atom = replace(
                        atom, metadata={**atom.metadata, JOINED_BY: list(group.joined_by)}
                    )
                lead = list_lead_in(text, u0) if n == 0 and atom is not None else None
                if atom is not None and lead is not None:  # "Cobra provides: Nested ..."
                    atom = self._led_in(atom, lead)
                elif atom is not None and n == 0 and bare_item(text, u0, atom.claim, atom.language):
                    atom = self._heading_led(atom, context, subject)  # "Features: HTTP ..."
                elif (
                    atom
                    and n == 0
                    and document
                    and subjectless_item(text, u0, atom.claim, atom.language)
                ):
                    atom = self._led_in(atom, f"{document}:")  # "globset: Supports ..."
                if atom is not None and group.anaphoric:
                    atom = replace(
                        atom, confidence=0.4, metadata={**atom.metadata, "anaphoric": True}
                    )
                if atom is not None and group.dialogue and atom.type != "definition":
                    # A character's words are no checkable statement of the source.
                    meta = {**atom.metadata, "kind": "dialogue", TYPED_BY: "dialogue"}
                    atom = replace(atom, type=AtomType.TEXT, confidence=0.5, metadata=meta)
                elif atom is not None:
                    # distill.carry: the claim stands alone (in dialogue "she" is a character)
                    atom = lead_carry(atom, None if conversation else subject, document, text)
                if atom is not None:
                    atoms.append(atom)
                    # A list item is no narration: "And that's ..." after a list leans on
                    # the whole list, not on its last item.
                    last = n == len(groups) - 1 and not item_start(text, u0)
                    narration = len(atoms) - 1 if last and not group.dialogue else None
        atoms = values_en.joined(text, atoms, self._sentence_atom, chunk_language)  # '"0" ...'
        atoms = ordered_lists.merged(text, atoms, context, subject)  # a short list of steps
        # questions and code before (`settled`); then the promote stage decides which drafts
        # become atoms and which stay in their passage only (`distill.promote`)
        kept, passage_only = promote(settled(atoms, text, context), text, context)
        dropped.update(passage_only)
        kept.sort(key=lambda a: a.quote_start)
        return kept, dict(dropped)

    def _led_in(self, atom: DraftAtom, lead: str) -> DraftAtom:
        """A list item's atom with its list's lead-in before its claim, typed again."""
        claim = f"{lead} {atom.claim}"
        if atom.type not in ("fact", "text"):
            return replace(atom, claim=claim, metadata={**atom.metadata, "lead_in": lead})
        fact, rule = fact_verdict(claim, atom.language)
        kind: AtomType = AtomType.FACT if fact else AtomType.TEXT
        meta = {**atom.metadata, "lead_in": lead, TYPED_BY: f"with its lead-in: {rule}"}
        return replace(atom, type=kind, claim=claim, content=claim, metadata=meta)

    def _heading_led(
        self, atom: DraftAtom, context: ChunkContext, subject: str | None
    ) -> DraftAtom:
        """A bare list item under no lead-in, led in by its heading (`units.heading_lead_in`).
        Unless a subject names what it is about, it is a description, not a checkable fact."""
        heading = context.heading_path[-1] if context.heading_path else None
        lead = heading_lead_in(heading, subject)
        led = self._led_in(atom, lead) if lead is not None else atom
        if led.type == "fact" and (lead is None or subject is None):
            meta = {**led.metadata, TYPED_BY: "a list item without a subject"}
            return replace(led, type=AtomType.TEXT, confidence=0.5, metadata=meta)
        return led

    def _joined(self, text: str, atom: DraftAtom, end: int, lang: str | None) -> DraftAtom | None:
        """`atom` extended to `end` (a short line that cannot stand alone), if still short."""
        if end - atom.quote_start > _MAX_JOINED_CHARS or atom.type not in ("fact", "text"):
            return None
        joined = self._sentence_atom(text, atom.quote_start, end, lang)
        if joined is None:
            return None
        return replace(joined, metadata={**atom.metadata, **joined.metadata, "joined": True})

    def _sentence_atom(
        self, text: str, start: int, end: int, lang: str | None, lead_of: tuple[str, ...] = ()
    ) -> DraftAtom | None:
        quote = text[start:end]
        claim = clean_claim(quote)
        words = words_of(claim)
        if len(words) < 3 or len(LETTER.findall(claim)) < 12:
            return None
        if not re.search(r"[.!?…:;»\")]$", claim) and len(words) < 5:
            return None
        language = _script_language(claim, lang)
        meta: dict[str, Any] = {"distiller": self.name}
        if _DAMAGED in quote:
            meta["damaged"] = True
        definition = match_definition(claim) or match_lead_definition(claim, lead_of)
        term = None
        if definition is not None and not claim.endswith("?"):
            term, body, confidence, pattern = definition
            meta.update(term=term, pattern=pattern)
            meta[TYPED_BY] = f"definition pattern: {pattern}"
            kind: AtomType = AtomType.DEFINITION
            content = body
        else:
            fact, meta[TYPED_BY] = fact_verdict(claim, language)
            kind, confidence, content = (
                (AtomType.FACT, 0.6, claim) if fact else (AtomType.TEXT, 0.5, claim)
            )
        if words[0].casefold() in ANAPHORS and words[0].casefold() not in _SELF_CONTAINED:
            confidence = 0.4
            meta["anaphoric"] = True
        return DraftAtom(kind, claim, content, confidence, quote, start, end, language, meta, term)

    def _labelled_atom(self, text: str, lb: LabelledBlock, lang: str | None) -> DraftAtom | None:
        """A "Definition N" / "Satz N" / proof block as one atom (distill.units)."""
        if lb.kind == "other":
            return None
        quote = text[lb.start : lb.end]
        body = clean_claim(text[lb.body_start : lb.end])
        if len(words_of(body)) < 3:
            return None
        claim = clean_claim(quote)
        language = _script_language(body, lang)
        meta: dict[str, Any] = {"distiller": self.name, "kind": lb.kind, "label": lb.label}
        meta[TYPED_BY] = f"labelled {lb.kind}"
        if lb.title:
            meta["title"] = lb.title
        if _DAMAGED in quote:
            meta["damaged"] = True
        term = None
        kind: AtomType = AtomType.TEXT
        if lb.kind == "definition":
            kind, term = AtomType.DEFINITION, block_term(body, lb.title)
            if term:
                meta["term"] = term
        elif lb.kind == "theorem":
            kind = AtomType.FACT
        return DraftAtom(kind, claim, body, 0.8, quote, lb.start, lb.end, language, meta, term)

    def _block_atom(
        self, text: str, block: _Block, lang: str | None, heading: tuple[str, ...] = ()
    ) -> DraftAtom | None:
        quote = text[block.body_start : block.body_end]
        if block.kind == "marker" or not quote.strip() or says_nothing(quote):
            return None
        labels = _LABELS["ru" if lang == "ru" else "en"]
        meta: dict[str, Any] = {"distiller": self.name}
        if block.kind in ("fence", "json"):
            try:
                rules = _rules_in(json.loads(quote))
            except ValueError:
                rules = None
            if rules:
                content = json.dumps(rules[0] if len(rules) == 1 else rules, ensure_ascii=False)
                claims = [
                    labels["rule"].format(
                        c=labels["and"].join(map(str, r["if"]))
                        if isinstance(r["if"], list)
                        else r["if"],
                        t=r["then"],
                    )
                    for r in rules
                ]
                meta["machine_readable"] = _machine_readable(rules)
                meta[TYPED_BY] = "rules in JSON"
                return DraftAtom(
                    AtomType.LOGICAL_RULE, "; ".join(claims), content, 0.8, quote,
                    block.body_start, block.body_end, lang, meta,
                )  # fmt: skip
            if block.kind == "json":
                return None
        if block.kind == "table":
            rows = [r for r in quote.splitlines() if r.strip() and not _TABLE_SEP.match(r)]
            sep = "\t" if block.info == "tsv" else "|"
            header = [_clean(c) for c in rows[0].strip().strip("|").split(sep)]
            header = [h for h in header if h]
            meta.update(columns=header, rows=len(rows) - 1)
            meta[TYPED_BY] = "table block"
            claim = (
                f"{labels['table']}: {labels['columns']} {', '.join(header)} "
                f"({len(rows) - 1} {labels['rows']})"
            )
            return DraftAtom(
                AtomType.TABLE,
                claim,
                quote,
                0.8,
                quote,
                block.body_start,
                block.body_end,
                lang,
                meta,
            )
        code_language = block.info.split()[0].lower() if block.info else None
        names = defined_names(quote)
        head = f"{labels['code']} ({code_language})" if code_language else labels["code"]
        claim = code_claim(head, labels["defines"], names, quote, "".join(heading), lang)
        meta.update(code_language=code_language, names=names)
        meta[TYPED_BY] = "code block"
        return DraftAtom(
            AtomType.CODE, claim, quote, 0.9, quote, block.body_start, block.body_end, None, meta
        )


def _machine_readable(rules: Sequence[Mapping[str, Any]]) -> bool:
    """Whether inference can apply the rules: every relation kind is a single token."""
    kinds = [k for r in rules for part in (r["if"], r["then"]) for k in _as_list(part)]
    return all(isinstance(k, str) and k and " " not in k for k in kinds)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
