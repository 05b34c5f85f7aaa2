"""The segment stage: which sentence of a prose span joins the group before it (pure).

`units.sentence_groups` walks the sentences of a prose span (a paragraph or a list item, its
widget and section labels cut off, its boilerplate set apart) and decides, sentence by sentence,
whether each joins the group before it or starts a group of its own. As in the classify stage
(`distill.classify`), the promote stage (`distill.promote`) and the type stage's fact-or-text
verdict (`distill.fact_rules`), the decision is an ordered list of named rules, `JOIN_RULES`; a
rule reads the sentence and what the walk keeps (`SentenceState`) and answers a `Verdict` or
None, the first verdict decides (`join_verdict`), and its name is the trace of what decided. A
group keeps the names of the rules that formed it (`classify.Group.joined_by`: one per sentence
joined, one for a held referent's span, none for a group of one sentence), and the offline
distiller writes them to the atom's metadata (`JOINED_BY`).

In this order:
1. **quotation tail**: the span is a conversation's paragraph that starts inside a quotation (the
   chunk starts mid-utterance, `dialogue.starts_inside`): its first sentence is the utterance's
   tail, a fragment. The walk keeps nothing else of it (no sentence before, no member).
2. **open quotation**: a quotation is open (`dialogue.quote_state`): the sentence joins it, up to
   8 sentences of one quotation.
   Rules 3-7 join only while the group before holds fewer than 3 sentences and no section label
   of an abstract stands before the sentence ("... placebo. RESULTS There was ..."):
3. **lower-case start**: it starts in lower case, an abbreviation split that razdel and
   `distill.sentences` both missed;
4. **leans back**: it leans on the sentence before: its first word ("This technique ...", "Diese
   Methode ...", "Он ...", "Dann ...", `_BACKWARD`) or a pronoun or demonstrative among its first
   words ("Изначально она ...", "Many of these sites ..."), in English also later ("... of these
   cells", "But they ...", `context.leans_back`); only while the group stays within 700
   characters;
5. **after a premise**: the sentence before is a premise ("Sei X ...", "Let X ...", "Пусть ...")
   or a timeline's period label ("1791—1932 годы.", `labels_ru.period_only`);
6. **outburst**: a short exclamation or question (`dialogue.outburst`) joins its neighbour;
7. **after a lead outburst**: the group before is one such outburst alone;
8. **after a sentence left open**: the group before is left open (a bracket not closed, a clause
   ending in ";": razdel cuts "(-1.30 METs; 95% CI ...)" there, `sentences.left_open`); only while
   the group stays within 900 characters, whatever its sentences and labels;
9. **fragment at the unit start**: the unit's first sentence starts in lower case: the tail of a
   sentence cut by a page or chunk boundary, a fragment (never an atom); a text of one sentence
   is kept, and a list item in lower case ("* поддержка флагов") is cut from nothing;
10. **held referent**: a sentence that leans back past the cap (rule 4) starts a group at the
    nearest sentence before it that holds its referent (`context.held_referent`: at most 2
    sentences back, 700 characters), overlapping the group before; the group is marked
    anaphoric when its own first sentence leans;
11. **anaphoric group**: a sentence that leans back and finds no referent so starts a group of
    its own, marked anaphoric (it still leans on the group before);
12. **new group**: any other sentence starts a group of its own.
The first verdict is the only one read, so the order among rules 2-8 (all "join") decides only
the name recorded.

The rules are pure predicates over a `SentenceState`; the walk (`units.sentence_groups`) cuts
the group the verdict says and keeps its state explicitly: whether a quotation is open, whether
the sentence was a premise, whether the group is one outburst, the sentence before (what
`leans_back` compares with) and the group's members (what `held_referent` searches).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pegas_memory.distill.claim_text import clean_claim
from pegas_memory.distill.classify import Group
from pegas_memory.distill.context import held_referent, leans_back
from pegas_memory.distill.dialogue import outburst
from pegas_memory.distill.items import item_start, period_only
from pegas_memory.distill.sentences import left_open

JOINED_BY = "joined_by"  # the metadata key of the rules that joined an atom's sentences

MAX_GROUP = 3  # sentences per joined unit
MAX_GROUP_CHARS = 700  # a leaning sentence joins a group only while it stays this short
_HELD = (MAX_GROUP - 1, MAX_GROUP_CHARS)  # sentences and characters a held referent may take
_MAX_UTTERANCE = 8  # sentences of one quotation kept together
# A sentence left open (a bracket not closed, a clause ending in ";") goes on in the next one
# that razdel cut off: "(English: Halloween;" / "США, 2018) — фильм ...". Joined up to this size.
_MAX_CONTINUED = 900
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

Member = tuple[int, str, bool]  # a sentence of the group before: start, claim, leans back


def _first_word(text: str) -> str:
    m = re.match(r"\W*([^\W\d_]+)", text)
    return m[1].casefold() if m else ""


def _starts_lower(text: str) -> bool:
    """Whether the sentence's first letter (past quotes and brackets) is lower case."""
    m = re.match(r"[\s\"'“„«(\[]*(\S)", text)
    return m is not None and m[1].isalpha() and m[1].islower()


def is_premise(sentence: str) -> bool:
    """Whether the sentence after this one joins it: a premise ("Let X ...", "Пусть ..."), or a
    timeline's period label that the sentence after it titles (`labels_ru.period_only`)."""
    return _PREMISE.match(sentence.lstrip()) is not None or period_only(sentence)


@dataclass(frozen=True)
class SentenceState:
    """A sentence of the span, text[start:end], with what the walk keeps before it; what several
    rules read is computed once."""

    text: str  # the chunk: sentences and groups are offsets into it
    start: int
    end: int
    group: Group | None  # the group before, None at the span's first group
    language: str | None  # picks the pronouns `leans_back` looks for
    whole: bool  # the text is this one sentence, nothing around the span
    labelled: bool  # a section label of an abstract stands before it: no join crosses it
    quoting: bool  # a quotation is open
    premise: bool  # the sentence before is a premise (`is_premise`)
    lead_outburst: bool  # the group before is one short exclamation or question
    before: str | None  # the sentence before's claim, for a description that repeats it
    members: tuple[Member, ...]  # the group before's sentences (the ones `held_referent` reads)

    @cached_property
    def sentence(self) -> str:
        return self.text[self.start : self.end]

    @cached_property
    def claim(self) -> str:
        return clean_claim(self.sentence)

    @cached_property
    def lower(self) -> bool:
        return _starts_lower(self.sentence)

    @cached_property
    def back(self) -> bool:
        """It leans on the sentence before (rule 4's reading, whatever the cap)."""
        if _first_word(self.sentence) in _BACKWARD:
            return True
        return leans_back(self.claim, self.language, self.before)

    @cached_property
    def burst(self) -> bool:
        return outburst(self.sentence) is not None

    @cached_property
    def room(self) -> bool:
        """The group before takes one more joined sentence: under 3, no label in between."""
        return self.group is not None and self.group.sentences < MAX_GROUP and not self.labelled

    @cached_property
    def short(self) -> bool:
        """The group before stays within 700 characters with this sentence."""
        return self.group is not None and self.end - self.group.start <= MAX_GROUP_CHARS

    @cached_property
    def goes_on(self) -> bool:
        """The group before is left open and stays within 900 characters with this sentence."""
        g = self.group
        return (
            g is not None
            and self.end - g.start <= _MAX_CONTINUED
            and left_open(self.text[g.start : g.end])
        )

    @cached_property
    def held(self) -> tuple[int, int, bool] | None:
        """The span that holds its referent past the cap (`context.held_referent`)."""
        return held_referent(self.claim, list(self.members), self.language, self.end, _HELD)


Cut = Literal["tail", "join", "fragment", "held", "new"]


@dataclass(frozen=True)
class Verdict:
    """What a rule decides for the sentence: `join` the group before; or start a group of its
    own: the quotation's `tail` or a `fragment` (never an atom), a `new` group (`anaphoric` or
    not), or the `held` referent's span (start, sentences, first sentence leans), which overlaps
    the group before."""

    cut: Cut
    anaphoric: bool = False
    held: tuple[int, int, bool] | None = None


JOIN = Verdict("join")
TAIL = Verdict("tail")
FRAGMENT = Verdict("fragment")
NEW = Verdict("new")
ANAPHORIC = Verdict("new", anaphoric=True)

JoinRule = Callable[[SentenceState], Verdict | None]


def _cuts_the_quotation_tail(s: SentenceState) -> Verdict | None:
    return TAIL if s.quoting and s.group is None and not s.whole else None


def _continues_the_open_quotation(s: SentenceState) -> Verdict | None:
    open_quote = s.quoting and s.group is not None and s.group.sentences < _MAX_UTTERANCE
    return JOIN if open_quote else None


def _joins_a_lower_case_start(s: SentenceState) -> Verdict | None:
    return JOIN if s.room and s.lower else None


def _joins_a_leaning_sentence(s: SentenceState) -> Verdict | None:
    return JOIN if s.room and s.back and s.short else None


def _joins_after_a_premise(s: SentenceState) -> Verdict | None:
    return JOIN if s.room and s.premise else None


def _joins_an_outburst(s: SentenceState) -> Verdict | None:
    return JOIN if s.room and s.burst else None


def _joins_after_a_lead_outburst(s: SentenceState) -> Verdict | None:
    return JOIN if s.room and s.lead_outburst else None


def _joins_after_a_sentence_left_open(s: SentenceState) -> Verdict | None:
    return JOIN if s.goes_on else None


def _cuts_a_fragment_at_the_unit_start(s: SentenceState) -> Verdict | None:
    # The tail of a sentence cut before this unit; a text of one sentence is kept, and a list
    # item in lower case ("* поддержка флагов") is cut from nothing.
    cut = s.group is None and s.lower and not s.whole and not item_start(s.text, s.start)
    return FRAGMENT if cut else None


def _holds_the_referent_past_the_cap(s: SentenceState) -> Verdict | None:
    # A chain of leaning sentences stops at 3 sentences or 700 characters (rule 4): the next one
    # takes the smallest span before it that holds its referent, not a run-on and not alone.
    if not s.back or s.labelled or s.held is None:
        return None
    return Verdict("held", held=s.held)


def _starts_an_anaphoric_group(s: SentenceState) -> Verdict | None:
    return ANAPHORIC if s.back else None


def _starts_a_group(s: SentenceState) -> Verdict | None:
    return NEW


JOIN_RULES: tuple[tuple[str, JoinRule], ...] = (
    ("quotation tail", _cuts_the_quotation_tail),
    ("open quotation", _continues_the_open_quotation),
    ("lower-case start", _joins_a_lower_case_start),
    ("leans back", _joins_a_leaning_sentence),
    ("after a premise", _joins_after_a_premise),
    ("outburst", _joins_an_outburst),
    ("after a lead outburst", _joins_after_a_lead_outburst),
    ("after a sentence left open", _joins_after_a_sentence_left_open),
    ("fragment at the unit start", _cuts_a_fragment_at_the_unit_start),
    ("held referent", _holds_the_referent_past_the_cap),
    ("anaphoric group", _starts_an_anaphoric_group),
    ("new group", _starts_a_group),
)


def join_verdict(s: SentenceState) -> tuple[str, Verdict]:
    """The name of the first of `JOIN_RULES` with a verdict on the sentence, and the verdict (the
    last rule, "new group", always has one)."""
    for name, rule in JOIN_RULES:
        verdict = rule(s)
        if verdict is not None:
            return name, verdict
    raise ValueError("no join rule had a verdict")  # only when "new group" is taken out
