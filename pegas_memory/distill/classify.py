"""The classify stage: which prose units and sentence groups are noise (pure).

Noise is never an atom: the distiller counts it by reason in the ingest result's `dropped`. As in
the promote stage (`distill.promote`) and the type stage's fact-or-text verdict
(`distill.fact_rules`), each list below is an ordered list of named rules; a rule is a predicate,
the first one that holds decides, and its name is returned as the trace of what decided. The name
is also the reason the noise is counted under, but for two rules: `LABEL` (a unit skipped
uncounted) and `DIALOGUE` (a group kept).

A prose unit (a paragraph or a list item) before it is cut into sentence groups (`unit_noise`,
`UNIT_RULES`); only a single line is judged, in this order:
1. **heading, caption or label**: no closing punctuation and under 4 words. Skipped, not counted:
   it is no text, so no dropped text either.
2. **related link**: a link or a bold headline pointing to another article, a "[VIDEO]" teaser,
   a "Read more:" line.
3. **caption**: a photo caption or credit, a figure's caption ("![...]", as ingest.html writes).

A sentence group of a unit (`distill.units.sentence_groups` calls `judge_group`; `group_verdict`
also names the rule, `GROUP_RULES`), in this order:
1. **exclamation**, **question**: one short sentence that ends so and quotes nothing
   (`dialogue.outburst`);
2. **lead-in**: one sentence that only introduces what follows it ("It can be installed by
   running:", "Состав команды:");
   then the trim, no rule: a group of several sentences ending in ":" loses its last sentence
   when that one only announces the list or code block after it in at most 4 words ("...
   рекордов в лиге. Среди них:", `_without_empty_lead_in`);
3. **pointer**: it only points elsewhere ("See LICENSE.txt", "См. главу 3", `distill.pointers`)
   or is only a cross-reference (`xrefs.is_reference_only`);
4. **list line**: a flat or a nominal list whose line breaks are gone (`items.flat_list`,
   `items.nominal_list`); a list item is no such line;
5. **short fragment**: in a conversation (fiction, an interview: `units.conversational`), one
   sentence of under 5 words with no speech ("And in she went.");
6. **dialogue line**: a line of speech with no number in it (a number is checkable whatever the
   length) that means something only in its exchange: in a conversation under 12 words of
   speech, no named speaker, or a question; elsewhere under 10 words of speech, where a speaker
   is enough (a news quote: '"It was hard," he said.');
7. **dialogue**: such a line that stands alone: kept, marked `dialogue` (typed as text).
A group no rule takes is kept, trimmed. A fragment (the tail of a sentence cut by a page or chunk
boundary) is not judged: the distiller skips it.

The trim is modelled as a step between two rule lists, `ONE_SENTENCE_RULES` (1-2, on the group as
cut) and `TRIMMED_RULES` (3-7, on the trimmed group); `GROUP_RULES` is both, in order. It gives no
verdict, so as an entry of a rule list it would be the one entry that never decides and whose
name is no reason; and it changes what a verdict applies to (a rule before it marks the group as
cut, a rule after it the trimmed one). Between the lists, every entry is a rule and the boundary
is where the code trims (`group_verdict`). All rules read the claim text of the group as cut
(`SentenceGroup.body`: the trim does not change it); the rules after the trim read the trimmed
group's span and sentence count.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

from pegas_memory.distill.claim_text import INLINE_TAG, clean_claim
from pegas_memory.distill.dialogue import Speech, outburst, speech
from pegas_memory.distill.items import flat_list, item_start, nominal_list
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.pointers import is_pointer
from pegas_memory.distill.sentences import prose_sentences
from pegas_memory.distill.xrefs import is_reference_only

LABEL = "heading, caption or label"  # the unit rule whose verdict is counted nowhere
DIALOGUE = "dialogue"  # the group rule whose verdict keeps the group, marked a line of dialogue

_CLOSED = re.compile(r"[.!?…:;»\")]\s*$")  # a line that ends as a sentence or a quotation does
_MIN_LINE_WORDS = 4  # a single line of fewer words, not closed, is a heading, caption or label
# Single lines that are page furniture rather than text: a link or a bold headline pointing to
# another article, "[VIDEO]"-tagged teasers, captions and photo credits.
_LINK_LINE = re.compile(r"^\W*<u>[^\n]*</u>\W*$|^\W*(?:\*\*|__)[^*_\n]+(?:\*\*|__)\W*$")
_TEASER = re.compile(
    r"\\?\[(?:[A-Z]{3,}|VIDEO|PICTURES|PHOTOS|POLL)\\?\]\W*$|^\W*\\?\[?(?:related|see more|read"
    r" more|don't miss|more|читайте также|по теме)\s*:",
    re.IGNORECASE,
)
_CAPTION = re.compile(
    r"\((?:photo |image )?credit:|\bphotos? ©|©\s*\w|\b(?:photo|image|picture|фото)\s*:\s"
    r"|\bgetty images\b|\b(?:AP|AFP|Reuters) Photo\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"^!\[[^\]\n]*\]$")  # a figure's caption (ingest.html writes it so)
_TERMINAL = re.compile(r"[.!?…:;»\"”)]\W*$")

# A sentence that only introduces what follows it ("It can be installed by running:", "Состав
# команды:", rst's literal-block "::"): it says nothing by itself.
_LEAD_IN = re.compile(r":\s*$")
_EMPTY_LEAD_IN_WORDS = 4  # "Среди них:", "For example:", "These include the following:"
# A line of dialogue stands alone only with this many words of speech ("'You'll see me there,'
# said the Cat." does not); speech with a number in it is checkable whatever its length.
_MIN_SPEECH_WORDS = 12
_MIN_QUOTE_WORDS = 10  # the same outside a conversation, where a speaker is enough
_MIN_ALONE_WORDS = 5  # in a conversation, a sentence without speech shorter than this is noise
_NUMBER = re.compile(r"\d")


# --- prose units ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A prose unit (a paragraph or a list item, as the chunk holds it)."""

    text: str

    @cached_property
    def line(self) -> str | None:
        """The unit stripped when it is a single line (the only kind these rules judge)."""
        stripped = self.text.strip()
        return None if "\n" in stripped else stripped


UnitRule = Callable[[Unit], bool]


def _label(u: Unit) -> bool:
    closed = _CLOSED.search(u.text) is not None
    return u.line is not None and not closed and len(u.text.split()) < _MIN_LINE_WORDS


def _related_link(u: Unit) -> bool:
    line = u.line
    if line is None:
        return False
    if _TEASER.search(line):
        return True
    # a link or bold headline, not a bold sentence
    return bool(_LINK_LINE.match(line)) and not _TERMINAL.search(
        INLINE_TAG.sub("", line).rstrip("*_ ")
    )


def _caption(u: Unit) -> bool:
    line = u.line
    return line is not None and bool(_CAPTION.search(line) or _FIGURE.match(line))


UNIT_RULES: tuple[tuple[str, UnitRule], ...] = (
    (LABEL, _label),
    ("related link", _related_link),
    ("caption", _caption),
)


def unit_noise(unit: str) -> tuple[str, str | None] | None:
    """The name of the first of `UNIT_RULES` that holds for a prose unit, with the reason it is
    counted under (None for `LABEL`: skipped, not counted); None when no rule holds and the unit
    is cut into sentence groups."""
    u = Unit(unit)
    for name, rule in UNIT_RULES:
        if rule(u):
            return name, None if name == LABEL else name
    return None


# --- sentence groups -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    """A sentence group as the segment stage cuts it (`units.sentence_groups`, its rules
    `segment.JOIN_RULES`) and this stage judges it: a span of the chunk and how many sentences
    it holds."""

    start: int
    end: int
    sentences: int
    fragment: bool = False  # the tail of a sentence cut by a page or chunk boundary
    anaphoric: bool = False  # leans on a sentence that is not in the chunk
    # why it is no atom: "dialogue line", "exclamation", "question" (`distill.classify`)
    noise: str | None = None
    dialogue: bool = False  # a line of speech kept because it stands alone
    # The names of the segment rules that formed it, in order (`segment.JOIN_RULES`): one per
    # sentence joined to its first, or one "held referent" for a span held past the cap; the
    # last name is the rule that added its last sentence. Empty for a group of one sentence.
    joined_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class SentenceGroup:
    """A sentence group with what several rules read, computed once."""

    text: str  # the chunk: a group is offsets into it
    group: Group
    body: str  # the group's claim text as cut (`clean_claim`): the trim leaves it as it is
    conversation: bool  # the chunk is mostly lines of dialogue (`units.conversational`)
    language: str | None

    @cached_property
    def one_sentence(self) -> bool:
        return self.group.sentences == 1

    @cached_property
    def outburst(self) -> str | None:
        """ "exclamation" or "question" (`dialogue.outburst`), or None."""
        return outburst(self.body)

    @cached_property
    def said(self) -> Speech:
        return speech(self.body)

    @cached_property
    def quoted(self) -> bool:
        """A line of speech with no number in it (a number is checkable whatever the length)."""
        return self.said.is_dialogue and _NUMBER.search(self.body) is None

    @cached_property
    def alone(self) -> bool:
        """Enough speech to stand alone; in a conversation also a named speaker, no question."""
        said = self.said
        if self.conversation:
            return said.speech_words >= _MIN_SPEECH_WORDS and said.named and not said.asks
        return said.speech_words >= _MIN_QUOTE_WORDS


GroupRule = Callable[[SentenceGroup], bool]


def _exclamation(g: SentenceGroup) -> bool:
    return g.one_sentence and g.outburst == "exclamation"


def _question(g: SentenceGroup) -> bool:
    return g.one_sentence and g.outburst == "question"


def _lead_in(g: SentenceGroup) -> bool:
    return g.one_sentence and _LEAD_IN.search(g.body) is not None


def _pointer(g: SentenceGroup) -> bool:
    span = g.text[g.group.start : g.group.end]
    return bool(is_pointer(g.body) or is_reference_only(span))


def _list_line(g: SentenceGroup) -> bool:
    # a list whose line breaks are gone; a list item is an item of a list with its breaks
    if item_start(g.text, g.group.start):
        return False
    return flat_list(g.body, g.language) or nominal_list(g.body, g.language)


def _short_fragment(g: SentenceGroup) -> bool:
    # "And in she went."
    short = len(words_of(g.body)) < _MIN_ALONE_WORDS
    return g.conversation and g.one_sentence and short and not g.said.speech_words


def _dialogue_line(g: SentenceGroup) -> bool:
    # little speech, no named speaker, or a question: it means something only in its exchange
    return g.quoted and not g.alone


def _dialogue(g: SentenceGroup) -> bool:
    return g.quoted and g.alone


# Read on the group as cut: one sentence.
ONE_SENTENCE_RULES: tuple[tuple[str, GroupRule], ...] = (
    ("exclamation", _exclamation),
    ("question", _question),
    ("lead-in", _lead_in),
)
# Read on the group without its empty lead-in (`_trimmed`).
TRIMMED_RULES: tuple[tuple[str, GroupRule], ...] = (
    ("pointer", _pointer),
    ("list line", _list_line),
    ("short fragment", _short_fragment),
    ("dialogue line", _dialogue_line),
    (DIALOGUE, _dialogue),
)
GROUP_RULES: tuple[tuple[str, GroupRule], ...] = (*ONE_SENTENCE_RULES, *TRIMMED_RULES)


def _first(rules: tuple[tuple[str, GroupRule], ...], g: SentenceGroup) -> str | None:
    return next((name for name, rule in rules if rule(g)), None)


def _trimmed(g: SentenceGroup) -> SentenceGroup:
    """The group without a last sentence that only announces what follows (module docstring)."""
    if _LEAD_IN.search(g.body) is None:
        return g
    return replace(g, group=_without_empty_lead_in(g.text, g.group))


def _without_empty_lead_in(text: str, group: Group) -> Group:
    """A group of several sentences whose last one only introduces the list or code block after
    it ("... несколько рекордов в лиге. Среди них:") without it: a lead-in that says nothing but
    "what follows" means nothing in the claim, which never holds the block. A longer one says
    something of its own ("This can be disabled by building the iterator with WalkBuilder:")
    and stays, as a lead-in standing alone is dropped (the "lead-in" rule)."""
    span = text[group.start : group.end]
    sentences = prose_sentences(span)
    if len(sentences) < 2 or len(words_of(sentences[-1].text)) > _EMPTY_LEAD_IN_WORDS:
        return group
    end = group.start + len(span[: sentences[-1].start].rstrip())
    # the rule that joined the last sentence (`Group.joined_by`) goes with it
    joined_by = group.joined_by[:-1]
    return replace(group, end=end, sentences=group.sentences - 1, joined_by=joined_by)


def group_verdict(
    text: str, group: Group, conversation: bool = False, language: str | None = None
) -> tuple[str | None, Group]:
    """The name of the first of `GROUP_RULES` that holds for a sentence group of `text`, and the
    group judged: its `noise` set to that name, or marked `dialogue` (`DIALOGUE`). When no rule
    holds, None and the group kept (its empty lead-in trimmed); a fragment is not judged."""
    if group.fragment:
        return None, group
    g = SentenceGroup(
        text, group, clean_claim(text[group.start : group.end]), conversation, language
    )
    name = _first(ONE_SENTENCE_RULES, g)
    if name is None:
        g = _trimmed(g)
        name = _first(TRIMMED_RULES, g)
    if name is None:
        return None, g.group
    if name == DIALOGUE:
        return name, replace(g.group, dialogue=True)
    return name, replace(g.group, noise=name)


def judge_group(
    text: str, group: Group, conversation: bool = False, language: str | None = None
) -> Group:
    """The sentence group judged (`group_verdict` without the rule's name)."""
    return group_verdict(text, group, conversation, language)[1]
