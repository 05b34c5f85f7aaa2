"""The type stage's verdict on a sentence: a checkable statement (`fact`) or the rest (`text`).

`RULES` is an ordered list of named rules; each reads the sentence (`Sentence`, which computes
what several rules share once) and answers True (a fact), False (text) or None (no verdict). The
first verdict wins, and `fact_verdict` returns it with the rule's name, which the distiller writes
to the atom's metadata (`types.TYPED_BY`); a sentence no rule takes is text ("no predicate
found"). A definition is typed before these run (`definition_rules.match_definition`), a block
by its kind.

In order: a question, an open question or a call for more research is text; an atom of several
sentences whose first one decides (`_joined_type`); grammar (`distill.mood`: an instruction,
advice, a norm, a lead-in, a pointer is text; "We present X ... and identify 25,000 hotspots" a
fact); an aim; a statement before a hypothesis or after a contrast; a statement before an
evaluation, else a hedge, a scope or a method (`distill.findings`) is text; an English phrase
without a verb is text; then what makes a fact: a finding or a state, a Russian predicate
adjective or possession (`distill.predicate_ru`), a number, an acronym or a gene-like symbol, a
verb of relation or finding, an English finite verb, a Russian dash predicate or finite verb by
its ending, or a third-person or past verb pymorphy3 reads (`morph_ru.finite_predicate`). A
capitalised word alone never makes a fact: an aim names things too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from pegas_memory.distill.findings import (
    AIM,
    DISCOURSE,
    FINDING,
    FINDING_CLAUSE,
    FOCUS,
    GAP,
    HYPOTHESIS,
    MEASURED,
    METHOD,
    NEEDS_MORE,
    PROCEDURE,
    RATE,
    RESULT_PARTICIPLE,
    SCOPE,
    SPECULATION,
    STATE,
    UNKNOWN,
)
from pegas_memory.distill.mood import (
    generic_present,
    no_claim,
    presents_result,
    ru_adjective_predicate,
    verbless,
)
from pegas_memory.distill.morph_ru import finite_predicate
from pegas_memory.distill.patterns import _ACRONYM, _MATH_RELATION, _RELATION
from pegas_memory.distill.predicate_ru import possessive
from pegas_memory.distill.words import RU_VERB, unbracketed, words_of

# The narrative regexes (aims, scope, method, findings) are `distill.findings`.
_VERBS = re.compile(_RELATION.pattern + "|" + FINDING.pattern, re.IGNORECASE)
_NUMBER_WORD = re.compile(
    r"(?<![\w-])(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|half|first|second|third"
    r"|один|одна|одно|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|оба|обе|обеими"
    r"|обоих|перв(?:ый|ая|ое|ые|ого|ой|ому|ым|ом|ую|ых|ыми)|втор\w*|трет\w*|половин\w*)(?![\w-])",
    re.IGNORECASE,
)
# A gene, protein or chemical symbol: letters and digits mixed ("Nrf2", "miR-142", "H3K27me3").
_SYMBOL = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_][\w-]*\b")
# A question ends a clause with "?"; a "?" inside a URL ("/hello?name=") asks nothing.
_QUESTION = re.compile(r"\?(?:\s|$|[»\"”’')\]*_`])")
# A clause of contrast after a statement: "X has been tried, but the results ...".
_CONTRAST = re.compile(r"(?:,\s*|\s+)(?:but|whereas|although)\s+|,\s*(?:но|однако)\s+|;\s+")
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CLAUSE_END = re.compile(r"(?:[.!?;,]\s*|\s+and\s*)$")
# Russian states a property with a dash: "Государственный язык — албанский." And "X -- Y", where
# plain text or Markdown types the dash as two hyphens.
_RU_DASH = re.compile(r"[а-яёa-z»)`]\s(?:[—–]|--)\s+[а-яё«\d`]", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-ZА-ЯЁ])")
# A reported count is checkable, even in a method's words: the fronted form of a rate ("Of 1106
# participants assessed, 632 ... were randomized" is "632 of 1106"), or "A total of N <things>".
_COUNTED = re.compile(
    r"^\W*(?:of\s+(?:the\s+|these\s+|all\s+)?\d[\d,]*\s+[^,;:.]{1,120},\s*(?:only\s+)?\d"
    r"|^\W*(?:a\s+total\s+of|in\s+total,?|overall,?)\s+\d[\d,]*\s+(?!%|mg\b|ml\b|g\b|kg\b)[a-z])",
    re.IGNORECASE,
)

NO_PREDICATE = "no predicate found"  # the name of the verdict when no rule has one (text)


@dataclass(frozen=True)
class Sentence:
    """A sentence (or a joined atom's sentences) with what several rules read, computed once."""

    text: str
    language: str | None

    @cached_property
    def lead(self) -> str:
        """The first sentence of a joined atom (English: the break before a capital)."""
        return _FIRST_SENTENCE.split(self.text, maxsplit=1)[0]

    @cached_property
    def hypothesis(self) -> re.Match[str] | None:
        return HYPOTHESIS.search(self.lead)

    @cached_property
    def hedged(self) -> bool:
        """A scope, speculation, hypothesis or measurement; a plan or a scope in the passive, a
        focus of the first sentence ("X is involved in Y. Therapeutic strategies ... are
        discussed." states X)."""
        s = self.text
        return bool(
            SCOPE.search(s) or SPECULATION.search(s) or self.hypothesis or MEASURED.search(s)
            or DISCOURSE.search(self.lead) or FOCUS.search(s)
        )  # fmt: skip

    @cached_property
    def held_back(self) -> bool:
        """Hedged, or told as a method ("... With the identification of X, methods were
        developed to measure ...") without a count, and no finding said."""
        s = self.text
        method = METHOD.search(s) or PROCEDURE.search(self.lead)
        counted = RATE.search(s) or _COUNTED.search(s)  # "Of 1106 assessed, 632 were randomized"
        found = FINDING_CLAUSE.search(s) or RESULT_PARTICIPLE.search(s)
        return bool((self.hedged or (method and not counted)) and not found)

    @cached_property
    def no_verb(self) -> bool:
        """English with no verb, relation or finding, and no generic present."""
        s = self.text
        return self.language == "en" and verbless(s, _VERBS) and not generic_present(s)


Rule = Callable[[Sentence], bool | None]


def _asks(s: Sentence) -> bool | None:
    # a "?" in brackets is an unknown date ("Гормизд (?; ? — 6 августа 523) — ..."), no question
    t = s.text
    asked = _QUESTION.search(unbracketed(t))
    return False if asked or NEEDS_MORE.search(t) or UNKNOWN.search(t) or GAP.search(t) else None


def _first_sentence_decides(s: Sentence) -> bool | None:
    return _joined_type(s.text, s.language)


def _no_claim(s: Sentence) -> bool | None:
    # advice, an instruction, a norm, a lead-in, a pointer (`distill.mood`)
    return False if no_claim(s.text, s.language) else None


def _presents_result(s: Sentence) -> bool | None:
    # "We present a map ... and identify 25,000 hotspots"
    return True if presents_result(s.text, s.language) else None


def _aim(s: Sentence) -> bool | None:
    return False if AIM.search(s.text) else None


def _before_hypothesis(s: Sentence) -> bool | None:
    # a hypothesis or a procedure types an atom from its first sentence: "X recruited 95% of ...
    # These orders ... and we hypothesize that ..." states X (a joined atom keeps its claim)
    before = s.lead[: s.hypothesis.start()] if s.hypothesis else ""
    if _CLAUSE_END.search(before) and is_fact(_CLAUSE_END.sub("", before), s.language):
        return True
    return None


def _after_contrast(s: Sentence) -> bool | None:
    # "DUBs might ...; however, DUBs are ..."
    parts = _CONTRAST.split(s.lead, maxsplit=1) if s.hypothesis else []
    if len(parts) == 2 and not HYPOTHESIS.search(parts[1]) and is_fact(parts[1], s.language):
        return True
    return None


def _before_evaluation(s: Sentence) -> bool | None:
    # "Many treatments have been proposed ... but the results have been disappointing": an
    # evaluation in a later clause leaves the statement of the first one standing.
    if not (s.held_back and s.hedged) or SCOPE.search(s.text) or MEASURED.search(s.text):
        return None
    first = _CONTRAST.split(s.text, maxsplit=1)
    return True if len(first) == 2 and is_fact(first[0], s.language) else None


def _held_back(s: Sentence) -> bool | None:
    return False if s.held_back else None


def _verbless(s: Sentence) -> bool | None:
    # "Fully POSIX-compliant flags (...)": names, states nothing
    return False if s.no_verb and not _MATH_RELATION.search(s.text) else None


def _finding_or_state(s: Sentence) -> bool | None:
    return True if FINDING_CLAUSE.search(s.text) or STATE.search(s.text) else None


def _ru_property(s: Sentence) -> bool | None:
    # "Тип ветвления моноподиальный.", "У растения два вида листьев."
    if s.language == "ru" and (ru_adjective_predicate(s.text) or possessive(s.text)):
        return True
    return None


def _number_acronym_symbol(s: Sentence) -> bool | None:
    t = s.text
    marked = _MATH_RELATION.search(t) or _NUMBER_WORD.search(t) or _ACRONYM.search(t)
    return True if marked or _SYMBOL.search(t) else None


def _relation_or_finding(s: Sentence) -> bool | None:
    return True if _RELATION.search(s.text) or FINDING.search(s.text) else None


def _en_finite_verb(s: Sentence) -> bool | None:
    # A finite verb that no rule above took for an aim, a method, an instruction or a hedge: a
    # statement ("The sender is the application", "Spain will be back on Wednesday").
    return True if s.language == "en" and not s.no_verb else None


def _ru_dash_or_verb(s: Sentence) -> bool | None:
    if s.language == "ru" and (_RU_DASH.search(s.text) or RU_VERB.search(s.text)):
        return True
    return None


def _ru_morph_verb(s: Sentence) -> bool | None:
    # "ищет", "разошлись": a third-person or past verb the endings above miss
    if s.language == "ru" and any(finite_predicate(w) for w in words_of(s.text)):
        return True
    return None


RULES: tuple[tuple[str, Rule], ...] = (
    ("question or research gap", _asks),
    ("its first sentence decides", _first_sentence_decides),
    ("no claim", _no_claim),
    ("presents a result", _presents_result),
    ("aim", _aim),
    ("a statement before a hypothesis", _before_hypothesis),
    ("a statement after a contrast", _after_contrast),
    ("a statement before an evaluation", _before_evaluation),
    ("hedge, scope or method", _held_back),
    ("no verb", _verbless),
    ("a finding or a state", _finding_or_state),
    ("a predicate adjective or possession", _ru_property),
    ("a number, an acronym or a symbol", _number_acronym_symbol),
    ("a relation or a finding", _relation_or_finding),
    ("a finite verb", _en_finite_verb),
    ("a dash predicate or a finite verb", _ru_dash_or_verb),
    ("a finite verb (pymorphy3)", _ru_morph_verb),
)


def fact_verdict(sentence: str, language: str | None) -> tuple[bool, str]:
    """Whether the sentence states something checkable, and the name of the rule that decided
    (the first of `RULES` with a verdict; `NO_PREDICATE` when none has one)."""
    s = Sentence(sentence.strip(), language)
    for name, rule in RULES:
        verdict = rule(s)
        if verdict is not None:
            return verdict, name
    return False, NO_PREDICATE


def is_fact(sentence: str, language: str | None) -> bool:
    """Whether the sentence states something checkable (`fact_verdict` without its rule)."""
    return fact_verdict(sentence, language)[0]


def _joined_type(s: str, language: str | None) -> bool | None:
    """The type of an atom of several sentences that its first one decides, else None: an open
    question first ("Although X is well appreciated, how ... is largely unknown. Here we address
    this issue using ...") is text unless what follows states something; research narrative first
    (a method, a measurement, a procedure: "Total RNA was collected from ... Microarray analysis
    ... identified body site-specific patterns ...") is a fact when a later sentence is one: the
    finding is the atom's claim."""
    first, *rest = _SENTENCE_BREAK.split(s)
    if not rest:
        return None
    after = " ".join(rest)
    if UNKNOWN.search(first) or GAP.search(first):
        return is_fact(after, language)
    narrative = METHOD.search(first) or MEASURED.search(first) or PROCEDURE.search(first)
    narrative = narrative or DISCOURSE.search(first)  # "... are discussed. ... were obtained."
    # a finding, not the next step ("Then the cells were loaded on a collagen gel")
    finding = FINDING_CLAUSE.search(after) or FINDING.search(after) or RATE.search(after)
    if narrative and finding and not is_fact(first, language) and is_fact(after, language):
        return True
    return None
