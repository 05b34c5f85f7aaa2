"""The offline distiller: deterministic, rule-based, no model and no network. Holds the regexes
and word lists, the definition and fact tests (`match_definition`, `_is_fact`), the scanning of
code blocks, tables, JSON rules and prose units, and `OfflineDistiller`.

Offline heuristics, in order:
- fenced code (``` or ~~~) is `code`, unless its body is JSON with "if"/"then" keys, which is a
  `logical_rule`; an indented block is `code` only when it looks like code (PDF and EPUB text is
  often indented prose);
- pipe tables (two or more `|` rows) are `table`; a JSON object with "if"/"then" in prose is a
  `logical_rule` whose content is the canonical JSON;
- the rest is cut into paragraphs and list items; headings, navigation lines and fragments are
  skipped; each sentence (razdel) is a `definition` when it matches a definition pattern ("X is
  a Y", "X means / refers to / is defined as Y", "Y is called X", "X — это Y", "X (от ...) — Y",
  "X называется Y", "Под X понимается Y"), else a `fact` when it is declarative and holds a
  number, a capitalised name after its first word, or a verb of relation, else `text`.
Confidence: code 0.9 (verbatim); table and rule 0.8 (parsed); definition 0.75 with an explicit
marker ("defined as", "это", "называется") and 0.7 otherwise; fact 0.6; text 0.5. A sentence that
opens with a pronoun ("It", "This", "Он", "Это") is not self-contained: 0.4.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pegas_memory.distill.types import OFFLINE_VERSION, AtomType, ChunkContext, DraftAtom
from pegas_memory.sentences import split_sentences
from pegas_memory.text import detect_language


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$")
_TABLE_ROW = re.compile(r"^\s*\|?[^|\n]*\|[^\n]*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)+\|?\s*$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_CODE_HINT = re.compile(r"[;{}]\s*$|:\s*$|=|\w\(.*\)|^\s*(#|//|import |from |return\b)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6}\s|={3,}\s*$|-{3,}\s*$|\*{3,}\s*$)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•–]|\d{1,3}[.)])\s+")
_NAV = re.compile(
    r"^\W*(home|menu|skip to( main)? content|read more|continue reading|next|previous|back to"
    r" top|share( this)?|tweet|print|subscribe|sign in|log in|sign up|register|search|cookies?"
    r"|accept( all)?( cookies)?|privacy policy|terms of (use|service)|all rights reserved|главная"
    r"|меню|поиск|подробнее|читать (далее|дальше)|далее|назад|вперёд|вперед|наверх|войти"
    r"|регистрация|подписаться|поделиться|все права защищены|©)\b.{0,40}$",
    re.IGNORECASE,
)
_DEFINED_NAME = re.compile(
    r"\b(?:def|class|function|func|fn|struct|interface|trait|enum|impl|procedure)\s+([A-Za-z_]\w*)"
)
_WS = re.compile(r"\s+")
_MARKUP = re.compile(r"\*\*|__|`")
_LETTER = re.compile(r"[^\W\d_]")
_CYR = re.compile(r"[\u0400-\u04FF]")
_LAT = re.compile(r"[A-Za-z]")
_ANAPHORS = _wordset(
    "it this that these those there they he she we i you here which what who such its their"
    " our his her my он она оно они это этот эта эти тот та те там тут здесь мы я вы такой"
    " такая такие который которая которые всё все его её их"
)
# Verbs of relation make a sentence a fact; copulas ("is", "was", "был") do not: nearly every
# sentence has one.
_RELATION = re.compile(
    r"\b(contains?|consists?|causes?|caused|leads? to|depends?|owns?|owned|built|wrote|written"
    r"|belongs?|located|founded|invented|discovered|born|died|includes?|produces?|equals?"
    r"|requires?|uses?|являет\w*|содерж\w*|состо\w*|вызыва\w*|привод\w*|завис\w*"
    r"|принадлеж\w*|находит\w*|основан\w*|изобр\w*|открыл\w*|родил\w*|умер\w*|включа\w*"
    r"|равн\w*|составля\w*|использу\w*|требу\w*)\b",
    re.IGNORECASE,
)
# "The term refers to ...": the defined word is elsewhere, so this is no definition of "term".
_GENERIC_TERMS = frozenset(["term", "word", "concept", "notion", "термин", "понятие", "слово"])
# Words that open a sentence or clause but never a defined term.
_OPENERS = _wordset(
    "but so then and or indeed only yet also still now thus hence however helping noting тогда"
    " также затем потом однако поэтому сейчас сам самое другие"
)
_CLAUSE_WORDS = _wordset("there that which who says said is are was were")
_RU_FUNCTION_WORDS = _wordset("в во на по с со к о об от до из за для при и а но или что как")
# A dash followed by a verb ("Эпоха — характеризуется ...") is a clause, not a genus.
_VERB_LIKE = re.compile(r"(ся|ает|яет|ует|ивает|ывает)$", re.IGNORECASE)
_INSTRUMENTAL = re.compile(r"(ой|ей|ом|ем|ами|ями|ью|ым|им|ыми|ими)$", re.IGNORECASE)
_TERM = r"(?P<term>[^,;:()\n—–]{1,60}?)"
_ETYM = r"(?:\s*\((?P<etym>[^()]*)\))?"
_END = r"[.!…]?$"
# (pattern, confidence, name); the first match wins, so explicit markers come first.
_DEFINITIONS: tuple[tuple[re.Pattern[str], float, str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), c, n)
    for p, c, n in (
        (_TERM + _ETYM + r"\s*(?:[—–]|\s-{1,2})\s*это\s+(?P<body>.+)$", 0.75, "eto"),
        (r"под\s+(?P<term>.{1,60}?)\s+(?:понима|подразумева)\w*\s+(?P<body>.+)$", 0.75, "pod"),
        (r"(?P<left>.+?)\s+(?:называ(?:ется|ются|ют|ли|лся|лась|лось|лись)|именуе?тся"
         r"|именую?т)\s+(?P<right>.+?)" + _END, 0.75, "nazyv"),
        (_TERM + r"\s+определя\w*\s+как\s+(?P<body>.+)$", 0.75, "opredelyaetsya"),
        (_TERM + r"\s+(?:означает|обозначает)\s+(?P<body>.+)$", 0.7, "oznachaet"),
        (_TERM + r"\s+(?:is|are)\s+(?:defined|understood)\s+as\s+(?P<body>.+)$", 0.75, "defined"),
        (_TERM + r"\s+(?:refers?|refer)\s+to\s+(?P<body>.+)$", 0.7, "refers"),
        (_TERM + r"\s+(?:means|denotes|stands for)\s+(?P<body>(?!that\b).+)$", 0.7, "means"),
        (r"(?P<body>.{10,}?)\s+(?:is|are)\s+(?:called|known as|termed)\s+(?P<term>[^,;]{1,60}?)"
         + _END, 0.7, "called"),
        # "X is a Y" / "X is the Y of|by which ...": a genus; "X is the best Y" is no definition.
        (_TERM + r"\s+(?:is|are)\s+(?P<body>(?:an?\s(?!lot|bit|little|few|couple|number)"
         r"|the\s+[^\W\d_]+\s+(?:of|by which|in which|that|whereby|for|used)\b).+)$", 0.7,
         "is_a"),
        (_TERM + _ETYM + r"\s+[—–]\s+(?P<body>.+)$", 0.7, "dash"),
    )
)  # fmt: skip
_LABELS = {
    "ru": {"code": "Код", "defines": "определяет", "table": "Таблица", "columns": "столбцы",
           "rows": "строк", "rule": "Правило: если {c}, то {t}", "and": " и "},
    "en": {"code": "Code", "defines": "defines", "table": "Table", "columns": "columns",
           "rows": "rows", "rule": "Rule: if {c} then {t}", "and": " and "},
}  # fmt: skip


def _clean(text: str) -> str:
    """The claim form of a span: markdown emphasis removed, whitespace collapsed."""
    return _WS.sub(" ", _MARKUP.sub("", text)).strip()


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text)


def _script_language(text: str, chunk_language: str | None) -> str | None:
    """The chunk's language unless the span is in the other script (mixed ru/en chunks)."""
    cyr, lat = len(_CYR.findall(text)), len(_LAT.findall(text))
    if chunk_language == "ru" and lat > 2 * cyr:
        return detect_language(text) or "en"
    if chunk_language != "ru" and cyr > 2 * lat:
        return detect_language(text) or "ru"
    return chunk_language


def _term_ok(term: str, pattern: str) -> bool:
    """Whether `term` reads as a defined name rather than the start of an ordinary sentence."""
    words = [w.casefold() for w in _words(term)]
    limit = 4 if pattern in ("dash", "is_a") else 5
    if not 0 < len(words) <= limit or term[:1].isdigit() or "(" in term or ")" in term:
        return False
    if term.casefold() in _GENERIC_TERMS:
        return False
    if words[0] in _ANAPHORS or words[0] in _OPENERS or _CLAUSE_WORDS.intersection(words):
        return False
    # "Глубокое обучение по Хинтону — ...": a dash after a phrase with a preposition is prose.
    return not (pattern == "dash" and _RU_FUNCTION_WORDS.intersection(words))


def _strip_term(term: str) -> str:
    term = term.strip().strip("«»\"'“”„`*_ .,;:!?…")
    return re.sub(r"^(?:a|an|the)\s+", "", term, flags=re.IGNORECASE)


def match_definition(sentence: str) -> tuple[str, str, float, str] | None:
    """(term, body, confidence, pattern name) when the cleaned sentence defines a term."""
    for pattern, confidence, name in _DEFINITIONS:
        m = pattern.match(sentence)
        if m is None:
            continue
        if name == "nazyv":
            # "Энтропией называется мера ..." vs "Множество ... называется окружностью": the term
            # is the side in the instrumental case, else the shorter one.
            left, right = m["left"].strip(), m["right"].strip()
            lw, rw = _words(left), _words(right)
            if not lw or not rw:
                continue
            if _INSTRUMENTAL.search(rw[-1]) and len(rw) <= 4:
                term, body = right, left
            elif _INSTRUMENTAL.search(lw[-1]) and len(lw) <= 4:
                term, body = left, right
            else:
                term, body = (right, left) if len(rw) <= len(lw) else (left, right)
        else:
            term, body = m["term"], m["body"]
        term, body = _strip_term(term), body.strip().rstrip(".!…").strip()
        # A dash definition's genus starts in lower case ("Энтропия — мера ..."); a dash
        # between two names ("Москва — Санкт-Петербург") is not a definition.
        if name == "dash" and (len(_words(term)) > 4 or len(_words(body)) < 2):
            continue
        if name == "dash" and (
            not body[:1].islower()
            or _VERB_LIKE.search(_words(body)[0])
            # "X — an aside — goes on": a second dash outside brackets makes the first an aside.
            or re.search(r"\s[—–]\s", re.sub(r"\([^()]*\)", "", body))
        ):
            continue
        if _term_ok(term, name) and _LETTER.search(term):
            return term, body, confidence, name
    return None


def _is_fact(sentence: str) -> bool:
    if sentence.rstrip().endswith("?"):
        return False
    if re.search(r"\d", sentence):
        return True
    words = sentence.split()
    # A capitalised word after the first one is taken as a named entity.
    if any(w[:1].isupper() and _LETTER.match(w) and w != "I" for w in words[1:]):
        return True
    return _RELATION.search(sentence) is not None


@dataclass(frozen=True)
class _Block:
    kind: Literal["fence", "table", "indented", "json"]
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
    i = 0
    while i < len(lines):
        start, _end, line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            mark = fence[1]
            j = i + 1
            while j < len(lines) and not lines[j][2].strip().startswith(mark):
                j += 1
            body = lines[i + 1 : j]
            last = lines[min(j, len(lines) - 1)][1]
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
        prev_blank = i == 0 or not lines[i - 1][2].strip()
        if _INDENTED.match(line) and line.strip() and prev_blank and not _LIST_ITEM.match(line):
            j = i
            while j < len(lines) and (_INDENTED.match(lines[j][2]) or not lines[j][2].strip()):
                j += 1
            body = lines[i:j]
            while body and not body[-1][2].strip():
                body.pop()
            if any(_CODE_HINT.search(b[2]) for b in body):
                b0 = body[0][0] + len(body[0][2]) - len(body[0][2].lstrip())
                blocks.append(_Block("indented", start, body[-1][1], b0, body[-1][1]))
                i = j
                continue
        i += 1
    return blocks + _json_rules(text, blocks)


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


def _prose_units(text: str, blocks: Sequence[_Block]) -> list[tuple[int, int]]:
    """Paragraph and list-item spans outside blocks, without headings or navigation lines."""
    covered = sorted((b.start, b.end) for b in blocks)
    units: list[tuple[int, int]] = []
    current: list[int] = []  # [start, end] of the unit being built

    def flush() -> None:
        if current:
            units.append((current[0], current[1]))
            current.clear()

    for start, end, line in _lines(text):
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
        if not stripped or _HEADING.match(line) or _NAV.match(stripped) or _is_crumbs(stripped):
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


def _is_crumbs(line: str) -> bool:
    # Breadcrumbs and menus: many separators, few words between them.
    seps = len(re.findall(r"[|•·›»/]", line))
    return seps >= 3 and len(_words(line)) <= 4 * seps


class OfflineDistiller:
    """Deterministic distillation by heuristics (module docstring); no model, no network."""

    name = "offline"
    prompt_version = OFFLINE_VERSION

    def distill(self, text: str, context: ChunkContext) -> list[DraftAtom]:
        chunk_language = context.language or detect_language(text)
        blocks = _find_blocks(text)
        atoms: list[DraftAtom] = []
        for block in blocks:
            atom = self._block_atom(text, block, chunk_language)
            if atom is not None:
                atoms.append(atom)
        for u0, u1 in _prose_units(text, blocks):
            unit = text[u0:u1]
            single_line = "\n" not in unit.strip()
            if single_line and not re.search(r"[.!?…:;»\")]\s*$", unit) and len(unit.split()) < 4:
                continue  # a heading, a caption or a label
            for s in split_sentences(unit):
                atom = self._sentence_atom(text, u0 + s.start, u0 + s.end, chunk_language)
                if atom is not None:
                    atoms.append(atom)
        atoms.sort(key=lambda a: a.quote_start)
        return atoms

    def _sentence_atom(self, text: str, start: int, end: int, lang: str | None) -> DraftAtom | None:
        quote = text[start:end]
        claim = _clean(quote)
        words = _words(claim)
        if len(words) < 3 or len(_LETTER.findall(claim)) < 12:
            return None
        if not re.search(r"[.!?…:;»\")]$", claim) and len(words) < 5:
            return None
        language = _script_language(claim, lang)
        meta: dict[str, Any] = {"distiller": self.name}
        definition = match_definition(claim)
        if definition is not None and not claim.endswith("?"):
            term, body, confidence, pattern = definition
            meta.update(term=term, pattern=pattern)
            kind: AtomType = "definition"
            content = body
        else:
            kind, confidence, content = (
                ("fact", 0.6, claim) if _is_fact(claim) else ("text", 0.5, claim)
            )
        if words[0].casefold() in _ANAPHORS:
            confidence = 0.4
            meta["anaphoric"] = True
        return DraftAtom(kind, claim, content, confidence, quote, start, end, language, meta)

    def _block_atom(self, text: str, block: _Block, lang: str | None) -> DraftAtom | None:
        quote = text[block.body_start : block.body_end]
        if not quote.strip():
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
                return DraftAtom(
                    "logical_rule", "; ".join(claims), content, 0.8, quote,
                    block.body_start, block.body_end, lang, meta,
                )  # fmt: skip
            if block.kind == "json":
                return None
        if block.kind == "table":
            rows = [r for r in quote.splitlines() if r.strip() and not _TABLE_SEP.match(r)]
            header = [_clean(c) for c in rows[0].strip().strip("|").split("|")]
            header = [h for h in header if h]
            meta.update(columns=header, rows=len(rows) - 1)
            claim = (
                f"{labels['table']}: {labels['columns']} {', '.join(header)} "
                f"({len(rows) - 1} {labels['rows']})"
            )
            return DraftAtom(
                "table", claim, quote, 0.8, quote, block.body_start, block.body_end, lang, meta
            )
        code_language = block.info.split()[0].lower() if block.info else None
        names = list(dict.fromkeys(_DEFINED_NAME.findall(quote)))[:8]
        first = next(ln.strip() for ln in quote.splitlines() if ln.strip())
        head = f"{labels['code']} ({code_language})" if code_language else labels["code"]
        claim = (
            f"{head} {labels['defines']} {', '.join(names)}" if names else f"{head}: {first[:120]}"
        )
        meta.update(code_language=code_language, names=names)
        return DraftAtom(
            "code", claim, quote, 0.9, quote, block.body_start, block.body_end, None, meta
        )


def _machine_readable(rules: Sequence[Mapping[str, Any]]) -> bool:
    """Whether inference can apply the rules: every relation kind is a single token."""
    kinds = [k for r in rules for part in (r["if"], r["then"]) for k in _as_list(part)]
    return all(isinstance(k, str) and k and " " not in k for k in kinds)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
