"""Self-contained units of prose: what one atom quotes (pure logic, offsets into the chunk).

An atom must mean something without the text around it. So:
- a labelled statement ("Definition 2.3", "Satz 1.1 (Heine-Borel)", "Лемма 2.", "Proof.") is one
  unit from its label to the next label, heading, blank line or end-of-proof mark
  (`labelled_blocks`); premises stay with their conclusions;
- in running prose (`sentence_groups`), the segment stage decides, sentence by sentence, whether
  each joins the group before it or starts one: the first of the ordered rules
  `distill.segment.JOIN_RULES` with a verdict decides (that module's docstring has the details),
  and a group keeps the names of the rules that joined it (`Group.joined_by`). In order:
  1. **quotation tail**: a conversation's paragraph that starts inside a quotation: its first
     sentence is a fragment;
  2. **open quotation**: a sentence inside an open quotation joins it, up to 8 sentences;
  rules 3-7 join while the group has fewer than 3 sentences and no section label stands between:
  3. **lower-case start** (an abbreviation split that razdel and sentences.py both missed);
  4. **leans back** ("This technique ...", "Diese Methode ...", "Он ...", "Изначально она ...",
     "Many of these sites ...", "... of these cells", "But they ...",
     `distill.context.leans_back`), while the group stays within 700 characters;
  5. **after a premise** ("Sei X ...", "Let X ...", "Пусть ...");
  6. **outburst**: a short exclamation or question joins its neighbour;
  7. **after a lead outburst**: the sentence after such an outburst standing alone;
  8. **after a sentence left open** (a bracket not closed, a clause ending in ";": razdel cuts
     "(-1.30 METs; 95% CI ...)" there), while the group stays within 900 characters;
  9. **fragment at the unit start** (below);
  10. **held referent**: a leaning sentence past the cap starts a group at the sentence before
      it that holds its referent, overlapping the group before (`context.held_referent`);
  11. **anaphoric group**: a leaning sentence that finds none starts a group marked anaphoric;
  12. **new group**: any other sentence.
  The walk keeps its state (an open quotation, a premise, a lone outburst, the sentence before,
  the group's sentences); the rules only read it. A group is always a contiguous span, so its
  quote is verbatim chunk text;
- each group is then judged by the classify stage (`distill.classify.judge_group`, its ordered
  rules `GROUP_RULES`): an exclamation, a question or a lead-in alone, a pointer, a list line, a
  short fragment or a line of dialogue is marked `noise`, a line of speech that stands alone
  `dialogue`, and a group's last sentence that only announces the list or code after it ("...
  рекордов в лиге. Среди них:") is cut off it;
- a paragraph whose first sentence leans back by a connector ("But that's ...") joins the
  paragraph right before it (`next_paragraph`: only blank lines between), still one span;
- a unit's first sentence that starts in lower case is the tail of a sentence cut by a page or
  chunk boundary: a fragment, marked so, never an atom;
- widget labels ("Share", "Advertisement", "Читайте также", ...) and the section labels of a
  structured abstract ("RESULTS", "METHODS AND MATERIALS", "ВЫВОДЫ") at a sentence start are cut off
  the span (no join crosses such a label, nor a label line of its own), boilerplate sentences
  (bylines, "subscribe to our newsletter") are dropped, and `clean_claim` (`distill.claim_text`,
  imported from here too) turns markdown (escapes, emphasis, inline HTML tags) into plain claim
  text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pegas_memory.distill.claim_text import clean_claim as clean_claim
from pegas_memory.distill.classify import Group, judge_group
from pegas_memory.distill.dialogue import quote_state, speech, starts_inside
from pegas_memory.distill.join_en import opens_with_connector
from pegas_memory.distill.patterns import BLOCK_LABEL, PROOF_END, LabelKind, label_kind, words_of
from pegas_memory.distill.segment import (
    MAX_GROUP,
    MAX_GROUP_CHARS,
    Member,
    SentenceState,
    is_premise,
    join_verdict,
)
from pegas_memory.distill.sentences import inline_split, prose_sentences

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
# Page boilerplate that reads like a sentence: bylines and credits, newsletter, follow-us and
# promotion calls, reprint and affiliate notices.
_BOILERPLATE = re.compile(
    r"\bfollow (?:us|him|her|them|the \w+(?: \w+)?) on\b|\bmay be reached at\b|\bnewsletter\b"
    r"|\bsubscrib(?:e|ing) (?:now|to (?:our|my|this)|to the (?:newsletter|channel|podcast|feed))\b"
    r"|\bsign up (?:for|to)\b|\ball rights reserved\b"
    r"|\bpersonal, non-commercial use\b|\bclick here\b|\bcookies?\b.{0,40}\b(?:accept|consent)"
    r"|\b(?:email|e-mail):? [\w.+-]+@[\w-]+\.\w+|\bподписыва\w+ на\b|\bрассылк\w+"
    r"|\bnewsletter abonnieren\b"
    r"|^\W*(?:additional )?(?:reporting|editing|writing) by\b|\b(?:editing|additional reporting)"
    r" by [A-Z]|\bcontributed (?:reporting|to this (?:report|story|article))\b"
    r"|^\W*follow\b.{0,60}(?:\b(?:on|at) (?:twitter|facebook|instagram|linkedin|youtube)\b|@\w)"
    r"|\bin your inbox\b|\bif you enjoyed this article\b"
    r"|\bpresentation-ready copies\b|\bmay receive a commission\b|\bsubject to change without"
    r" notice\b|^\W*originally published (?:on|in|at)\b|\bretrieved \d{1,2} \w+ \d{4} from\b"
    r"|^\W*(?:tempo de leitura|reading time|время чтения)\b|^\W*(?:фото|текст|автор):\s"
    r"|\bчитайте (?:нас|также)\b|\bподпис\w+ на (?:наш|канал)",
    re.IGNORECASE,
)
# The section label of a structured abstract glued onto its first sentence ("RESULTS The
# baseline ...", "METHODS AND MATERIALS Men entered ..."): upper case only, before a capital.
_ABSTRACT_LABEL = re.compile(
    r"(?:(?:BACKGROUND|INTRODUCTION|CONTEXT|PURPOSE|AIMS?|OBJECTIVES?|GOALS?|METHODS?"
    r"|METHODOLOGY|MATERIALS|PATIENTS|PARTICIPANTS|SUBJECTS|DESIGN|SETTINGS?|INTERVENTIONS?"
    r"|MEASUREMENTS?|MAIN OUTCOME MEASURES?|MAIN OUTCOMES?|OUTCOMES?|RESULTS?|FINDINGS"
    r"|CONCLUSIONS?|INTERPRETATION|SIGNIFICANCE|DISCUSSION|ЦЕЛЬ|ЦЕЛИ|ВВЕДЕНИЕ|МЕТОДЫ"
    r"|МАТЕРИАЛЫ|РЕЗУЛЬТАТЫ|ВЫВОДЫ|ЗАКЛЮЧЕНИЕ|ОБСУЖДЕНИЕ)(?:\(S\))?(?:,? AND |,? И |, )?)+:?[ \t]+"
    r"(?=[A-ZА-ЯЁ\d(«\"“])"
)
# A section label the trim above does not know ("RESULT(S) Patients ...", a line "RESULTS:"):
# capitals (4+ letters, "(S)"), then a line break or a capitalised word of the sentence.
_LABEL_LINE = re.compile(
    r"\s*(?:[A-ZА-ЯЁ][A-ZА-ЯЁ ,]{2,40}:?[ \t]*\n"
    r"|[A-ZА-ЯЁ]{4,}(?:\([SЫ]\))?(?:\s+(?:AND|И)\s+[A-ZА-ЯЁ]{4,}(?:\([SЫ]\))?)*:?\s+"
    r"(?=[A-ZА-ЯЁ][a-zа-яё]))"
)
_HEADING_LINE = re.compile(
    r"^[ \t]*(?:#{1,6}\s.*|\d+(?:\.\d+)*\.?[ \t]+[A-ZÄÖÜА-ЯЁ][^\n.:;]{2,60})[ \t]*$", re.M
)
_BLANK = re.compile(r"\n[ \t]*\n")
_CONVERSATION_LINES = 4
_CONVERSATION_SHARE = 0.4  # a narrative sentence shorter than this joins its neighbour or goes


@dataclass(frozen=True)
class LabelledBlock:
    kind: LabelKind
    start: int  # the label line's start: the quoted span begins with the label
    end: int
    label: str  # "Definition 10", "Satz 1.1"
    title: str | None  # "Heine-Borel"
    body_start: int  # after the label: what the statement says


_ITEM = re.compile(r"^[ \t]*(?:[-*+•–]|\d{1,3}[.)])[ \t]+", re.M)
_MAX_LEAD_IN_WORDS = 25
_BOLD_LABEL = re.compile(r"^(\*\*|__)([^*_\n]{1,60})\1:?$")


def list_lead_in(text: str, start: int) -> str | None:
    """The lead-in of the list whose item starts at `start` ("Cobra provides:" above
    "* Fully POSIX-compliant flags"), as claim text, or None when the item is in no list under
    one. Walks up over the list's items (and their wrapped lines, and blank lines between
    items) to the first line that is none of those: the lead-in is that paragraph's last
    sentence, when it ends in ":" and is short. A bare item ("Nested subcommands") means
    nothing without it; with it the item is a claim ("Cobra provides: Nested subcommands")."""
    line_start = text.rfind("\n", 0, start) + 1
    item = _ITEM.match(text, line_start)
    if item is None or item.end() != start:
        return None
    marker = _marker(item[0])
    pos = line_start
    while pos > 0:
        prev_start = text.rfind("\n", 0, pos - 1) + 1
        line = text[prev_start : pos - 1]
        sibling = _ITEM.match(line)
        same_level = sibling is not None and len(sibling[0]) - len(sibling[0].lstrip()) == len(
            item[0]
        ) - len(item[0].lstrip())
        if sibling is not None and same_level and _marker(sibling[0]) != marker:
            return None  # another list
        if line.strip() and sibling is None and not line[:1].isspace():
            break
        pos = prev_start
    else:
        return None
    para_start = text.rfind("\n\n", 0, pos) + 2 if "\n\n" in text[:pos] else 0
    paragraph = text[para_start:pos].strip()
    label = _BOLD_LABEL.match(paragraph)
    if label is not None:  # "**Improvements**" over the list: a pseudo-heading, its lead-in
        paragraph = clean_claim(label[2]).rstrip(":") + ":"
    if (
        not paragraph.endswith(":")
        or paragraph.endswith("::")  # rst: a literal block, not this list, follows
        or _ITEM.match(paragraph.splitlines()[-1])
    ):
        return None
    sentences = prose_sentences(paragraph)
    lead = clean_claim(paragraph[sentences[-1].start :] if sentences else paragraph)
    if not lead.endswith(":") or len(words_of(lead)) > _MAX_LEAD_IN_WORDS:
        return None
    return lead


def _marker(item: str) -> str:
    """A list item's marker kind: "*", "-", "+", ... or "1." for a numbered item."""
    mark = item.strip()
    return "1." if mark[:1].isdigit() else mark


def conversational(text: str, units: Sequence[tuple[int, int]]) -> bool:
    """Whether the prose units of a chunk are mostly lines of dialogue (fiction, an interview):
    at least 4 units, and 40% of them, open with a quotation that is attributed or bare."""
    lines = 0
    for u0, u1 in units:
        first = text[u0:u1].lstrip(" *_")[:1]
        if first in "\"“«„'‘—–" and speech(clean_claim(text[u0:u1])).attributed:
            lines += 1
    return lines >= _CONVERSATION_LINES and lines >= _CONVERSATION_SHARE * len(units)


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


def _widget_trim(text: str, start: int, end: int) -> int:
    """The start of the span after widget labels and abstract section labels glued onto it."""
    while start < end:
        m = _WIDGET.match(text, start, end) or _ABSTRACT_LABEL.match(text, start, end)
        if m is None or m.end() >= end:
            return start
        start = m.end()
        while start < end and text[start].isspace():
            start += 1
    return start


def _pipe_trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without the cell bars of a layout table rendered as markdown ("| text |")."""
    while start < end and (text[start] == "|" or text[start].isspace()):
        start += 1
    while end > start and (text[end - 1] == "|" or text[end - 1].isspace()):
        end -= 1
    return start, end


def sentence_groups(
    text: str, start: int, end: int, *, conversation: bool = False, language: str | None = None
) -> list[Group]:
    """Self-contained sentence groups of the prose span text[start:end] (module docstring);
    `language` picks the pronouns `leans_back` looks for. Each sentence is decided by the first
    of `segment.JOIN_RULES` with a verdict; the state the rules read is updated here.

    The sentences of one quotation stay together; a short exclamation or question joins its
    neighbour in the paragraph; what is left alone of those, and a line of dialogue with little
    speech, is a group marked `noise` (the distiller counts it, never stores it)."""
    spans: list[tuple[int, int]] = []
    groups: list[Group] = []
    boilerplate: list[Group] = []
    labelled: set[int] = set()  # sentence starts after an abstract's label: no join crosses it
    for s0, s1 in inline_split(text, start, end):
        if _ABSTRACT_LABEL.match(text, s0, s1) or _LABEL_LINE.match(text, s0, s1):
            labelled.add(_pipe_trim(text, _widget_trim(text, s0, s1), s1)[0])
        s0, s1 = _pipe_trim(text, _widget_trim(text, s0, s1), s1)
        sentence = text[s0:s1]
        if s0 >= s1 or is_widget_line(sentence):
            continue
        if is_boilerplate(sentence):
            boilerplate.append(Group(s0, s1, 1, noise="page boilerplate"))
        else:
            spans.append((s0, s1))
    # The walk's state, kept here and read by the rules (`segment.SentenceState`).
    premise = False  # the sentence before is a premise
    # A paragraph that starts inside a quotation (the chunk starts mid-utterance): the
    # utterance's tail is a fragment.
    quoting = conversation and starts_inside(text[start:end])  # a quotation is open
    lead_outburst = False  # the last group is one short exclamation or question
    whole = len(spans) == 1 and not text[:start].strip() and not text[end:].strip()
    before: str | None = None  # the sentence before, for a description that repeats it
    members: list[Member] = []  # the last group's sentences: start, claim, leans
    for s0, s1 in spans:
        s = SentenceState(
            text=text,
            start=s0,
            end=s1,
            group=groups[-1] if groups else None,
            language=language,
            whole=whole,
            labelled=s0 in labelled,
            quoting=quoting,
            premise=premise,
            lead_outburst=lead_outburst,
            before=before,
            members=tuple(members),
        )
        name, verdict = join_verdict(s)  # the first of `segment.JOIN_RULES` with a verdict
        if verdict.cut == "tail":  # the walk keeps nothing of it but the quotation
            groups.append(Group(s0, s1, 1, fragment=True))
            quoting = quote_state(s.sentence, quoting)
            continue
        if verdict.cut == "join":
            last = groups[-1]
            groups[-1] = replace(
                last, end=s1, sentences=last.sentences + 1, joined_by=(*last.joined_by, name)
            )
        elif verdict.cut == "fragment":
            groups.append(Group(s0, s1, 1, fragment=True))
        elif verdict.cut == "held" and verdict.held is not None:
            # Past the cap: the smallest span before it that holds its referent, overlapping the
            # group before (`context.held_referent`), not a run-on and not alone.
            h0, sentences, leans = verdict.held
            groups.append(Group(h0, s1, sentences, anaphoric=leans, joined_by=(name,)))
            members = members[len(members) - sentences + 1 :]
        else:
            groups.append(Group(s0, s1, 1, anaphoric=verdict.anaphoric))
        before = s.claim
        if groups[-1].start == s0:
            members = []
        members.append((s0, s.claim, s.back))
        premise = is_premise(s.sentence)
        quoting = quote_state(s.sentence, quoting)
        lead_outburst = groups[-1].sentences == 1 and s.burst
    judged = [judge_group(text, g, conversation, language) for g in groups]
    return sorted(judged + boilerplate, key=lambda g: g.start)


def next_paragraph(text: str, before: tuple[int, int], start: int, end: int) -> bool:
    """Whether the paragraph text[start:end], whose first sentence leans back by a connector
    ("But that's about where similarities end.", "Instead, ..."; `join_en.opens_with_connector`),
    joins the unit `before` (the last atom's span of the paragraph before): only blank lines
    between (no heading, code block or list marker), and the joined span within a group's
    bounds (3 sentences, 700 characters), so the quote stays one contiguous span and short. A
    paragraph opening "He ..." or "These ..." most often starts a new point (news paragraphs
    do): it is carried or marked anaphoric, as before; joining those too cost the 181 HTML
    pages 4 more junk atoms (bench_atom_quality's rule), and 0.3 points of its share."""
    between = text[before[1] : start]
    if not (before[1] <= start and "\n" in between and not between.strip()):
        return False
    if not opens_with_connector(clean_claim(text[start:end])):
        return False
    span = text[before[0] : end]
    return len(span) <= MAX_GROUP_CHARS and len(prose_sentences(span)) <= MAX_GROUP
