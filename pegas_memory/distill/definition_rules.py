"""Whether a sentence defines a term: the definition rules, in order (pure logic).

`match_definition(sentence)` gives (term, body, confidence, rule name) when the sentence defines a
term, else None; `definition_trace(sentence)` gives the same with the trace of what decided: the
rules that read the sentence before it and the veto that rejected each. `distill.patterns`
re-exports `match_definition` (the distiller, `patterns.block_term` and the tests read it there).

As in the other stages (`distill.classify`, `distill.promote`, `distill.fact_rules`), the rules
are an ordered list, `DEFINITION_RULES`. Each has a name (the pattern's name, the atom's
`pattern`), a confidence, a reader (its regex, matched from the start of the sentence, and how
it picks the term and the body from the match: the groups "term" and "body" unless said) and a
tuple of named vetoes, each a predicate on what the rule read (`Reading`, which computes what
several vetoes share once). The first rule that reads the sentence and that none of its vetoes
rejects decides; a rule rejected lets the next one try. So the explicit markers come first and
the bare dash last.

Before the rules, the sentence loses its stress marks ("Аве́ркий"), a glued abstract label
("BACKGROUND Long non-coding RNAs ...") and a qualifying opener ("Как правило,", "In
mathematics,"), and an aim ("Цель исследования — изучить ...") is no definition whatever its
shape (`SENTENCE_VETOES`: "an aim").

The rules, in order (confidence 0.75 unless said; the vetoes in the order they are asked):
1. **lead** (0.7): a Wikipedia lead whose term carries brackets or aliases before the dash ("Иван
   Петров (1900—1970) — советский писатель", "Аркадий Гайдар, также ... — писатель"): the term
   is the name before the brackets, a comma or an alias, the body the genus after the dash
   without "это" or a domain ("в математике — ..."). Vetoes: a clause before the dash, a head
   over 320 characters, a one-word body, a "!" or "?" after the dash (a final "!" too), a name
   after the dash ("X (1900) — Москва"), a verb after the dash, a name of over 6 words (as it
   stands before the brackets), a term in lower case; then the term's (below) but for its length
   (the name's stands for it) and its letter. A lead vetoed may still be a definition by a
   later rule ("X (1900—1970) — великий поэт!" is one by dash, which reads the genus without its
   final "!").
2. **eto** "X — это Y", "X (Greek: ...) -- это Y". Vetoes: the term's; a finite verb in the term.
3. **pod** "Под X понимается / подразумевается Y". The term's.
4. **nazyv** (both ways) "Энтропией называется мера ...", "Множество ... называется
   окружностью", "именуется": the term is the side in the instrumental case, else the shorter
   one. Vetoes: a side without words, a clause before the verb; the term's.
5. **opredelyaetsya** "X определяется как Y". The term's.
6. **oznachaet** (0.7) "X означает / обозначает Y". The term's.
7. **versteht** "(...) Unter X versteht man Y". The term's.
8. **dann_heisst** "Sei ... Dann heißt X Y". The German term's (the term's, up to 6 words,
   brackets allowed).
9. **heisst** "Y heißt X, wenn ...". The German term's.
10. **nennt** "Y nennt man / nennen wir X". The German term's.
11. **bezeichnet** "Y wird als X bezeichnet / genannt". The German term's.
12. **definiert** "X ist definiert als Y". The German term's.
13. **defined** "X (...) is defined / understood as Y". The term's.
14. **we_call** "(...) we call / define Y X if ...". The term's.
15. **said_to_be** "Y is said to be X (if ...)". The term's.
16. **refers** (0.7) "X refers to Y". The term's.
17. **means** (0.7) "X means / denotes / stands for Y" (not "means that"). The term's.
18. **called** (0.7) "Y is called / known as / termed X". The term's.
19. **is_a** (0.7) "X (...) is a Y", "X is the Y of / by which / that / for / used ...": a genus
   ("X is a lot of", "a few" are none). Vetoes: a subject of over 4 words without brackets, an
   evaluative genus ("a common cause of"), an assessment ("a fast-moving field"), the X of
   something ("The integrity of sperm chromatin is ..."), a judgement with its reason ("a fatal
   disease, primarily due to ..."); the term's, of up to 6 words.
20. **dash** (0.7) "X — Y", the genus in lower case. Vetoes: a one-word body, a relational term
   ("Автор монумента — скульптор X"), two names ("Москва — Санкт-Петербург"), an exclamation or
   a question, an assessment ("одна из самых недооценённых ..."), a quantity ("около 60 тысяч"),
   a value with a name ("город Ораньестад"), a verb after the dash ("характеризуется"), a second
   dash (an aside); the term's, of up to 4 words, a finite verb in the term ("Матерью Ашоки была
   Субхадранги — дочь брамина"), a function word in the term ("Глубокое обучение по Хинтону").

The term's vetoes, that it reads as a defined name rather than the start of an ordinary
sentence (after the rule's own vetoes, in this order): no word in the term, a term of over 5
words (4 for dash, 6 for is_a and the German rules), a digit first, brackets in the term (not
for the German rules), a generic term ("term", "понятие"), an anaphor first ("this", "эта"), an
opener first ("however", "тогда"), a clause word in the term ("that", "is", "said"), a member of
a series ("The first argument", `continues_en`), a range of dates ("Первая четверть XIX века —
наши дни", `labels_ru`), then the rule's term vetoes if any (eto, dash), and last no letter in
the term ("№ 5"; not for lead).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, Protocol

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.continues_en import ordinal_subject
from pegas_memory.distill.findings import AIM
from pegas_memory.distill.labels_ru import period_term
from pegas_memory.distill.mood import relational_term
from pegas_memory.distill.words import ANAPHORS, LETTER, RU_VERB, unbracketed, words_of

Definition = tuple[str, str, float, str]  # (term, body, confidence, rule name)

# --- the words and shapes only these rules read ------------------------------------------------
_GENERIC_TERMS = en.GENERIC_TERMS | ru.GENERIC_TERMS
_OPENERS = en.DEFINITION_OPENERS | ru.DEFINITION_OPENERS
_CLAUSE_WORDS = en.CLAUSE_WORDS
_RU_FUNCTION_WORDS = ru.DEFINITION_FUNCTION_WORDS
# A dash followed by a verb ("Эпоха — характеризуется ...") is a clause, not a genus.
_VERB_LIKE = re.compile(r"(ся|ает|яет|ует|ивает|ывает)$", re.IGNORECASE)
# A finite verb before a dash ("Матерью Ашоки была Субхадранги — дочь брамина"): the left side
# is a clause and the dash opens an apposition to its last noun, not a term's genus. Only the
# copulas and reflexive pasts, lower case: a noun that ends like a verb ("Красная стрела",
# "Вирусный гепатит") may well be a term.
_RU_CLAUSE_VERB = re.compile(
    r"(?<![\w-])(?:был|была|было|были|стал|стала|стало|стали|является|являются|являлся"
    r"|являлась|являлось|являлись|[а-яё]{2,}(?:лся|лась|лось|лись))(?![\w-])"
)
_INSTRUMENTAL = re.compile(r"(ой|ей|ом|ем|ами|ями|ью|ым|им|ыми|ими)$", re.IGNORECASE)
_TERM = r"(?P<term>[^,;:()\n—–]{1,60}?)"
ETYM = r"(?:\s*\((?P<etym>[^()]*)\))?"  # brackets after the term ("X (Greek: ...)"); `leads` too
_END = r"[.!…]?$"
_DE_TERM = r"(?P<term>[^,;:\n]{1,80}?)"
_DE_COND = r"(?:\s*,?\s*(?:wenn|falls|sofern|genau dann)\b.*)?"
# "X is a common cause of Y", "a major target of": a property of X, not what X is (`leads` too).
EVALUATIVE_GENUS = re.compile(
    r"(?:an?|the)\s+(?:\w+\s+(?:and\s+)?)?(?:common|major|leading|frequent|rare|important|key|main"
    r"|primary|significant|potential|possible|useful|powerful|promising|clinical|strong|good|poor"
    r"|independent|novel|new)\s+(?:\w+\s+)?(?:cause|source|reason|factor|target|indicator"
    r"|predictor|determinant|feature|problem|risk|complication|marker|contributor|consequence"
    r"|example|way|means|tool|approach|step)s?\s+(?:of|for|in|to)\b"
    # "Aspirin is a risk factor for bleeding", "X is a cause of Y": a relation of X to Y.
    r"|(?:an?|the)\s+(?:risk\s+)?(?:cause|factor|predictor|determinant|marker|contributor"
    r"|consequence|trigger|mediator|regulator|hallmark)s?\s+(?:of|for|in)\b",
    re.IGNORECASE,
)
# A genus followed by the reason for it ("a fatal disease, primarily due to ...").
_REASONED = re.compile(
    r"[^,;]{0,80},\s+(?:\w+ly\s+)?(?:due to|because|owing to|as a result of|thanks to)\b",
    re.IGNORECASE,
)
# An assessment in a definition's shape: "Children's exercise physiology is a fast-moving field",
# "X is an important open problem": an evaluative adjective before a category noun says how X is
# judged, not what X is ("Bioinformatics is a growing field that combines ..." names its genus in
# the clause and stays a definition). ru "X — одна из самых недооценённых ...", "один из
# наиболее известных": a superlative among others judges X; "один из видов ..." is a genus
# (`leads` reads it too).
ASSESSMENT = re.compile(
    r"^(?:an?|the)\s+(?:(?:very|rather|relatively|increasingly|rapidly|highly|extremely|quite"
    r"|particularly|especially|truly|still|now|fairly)\s+)?(?:(?:fast|rapidly|quickly|ever)"
    r"[-\s](?:moving|growing|paced|changing|evolving|expanding)|growing|emerging|evolving"
    r"|expanding|developing|exciting|interesting|fascinating|challenging|promising|important"
    r"|difficult|hard|easy|complex|complicated|controversial|contentious|underrated|overlooked"
    r"|neglected|underappreciated|under-?studied|popular|successful|remarkable|crucial|critical"
    r"|vital|serious|major|great|good|bad|excellent|poor|valuable|hot|active|vibrant|young|new"
    r"|open|unsolved|thriving|booming|dynamic|burgeoning|mature|fertile|rich|vast|broad|narrow"
    r"|central|pressing|urgent|persistent|recurring|longstanding|long-standing)"
    r"(?:\s+(?:and|but)\s+[\w-]+)?(?:\s+[\w-]+)?\s+(?:field|area|topic|subject|discipline|domain"
    r"|issue|problem|question|challenge|concern|task|matter|endeavou?r|enterprise|business"
    r"|undertaking|science|development|trend|period|era|time|one)s?"
    r"(?!\s+(?:that|which|whose|where|in which|of which|concerned|dealing|devoted|studying"
    r"|focused|focusing|combining|using|based)\b)"
    r"|^од(?:ин|на|но|ни|ного|ной)\s+из\s+(?:самых|наиболее|[а-яё]+(?:ейших|айших)|лучших|худших"
    r"|главных|ведущих)(?![\w-])",
    re.IGNORECASE,
)
# Stress marks ("Аве́ркий") split words for `words_of`; they are dropped before a term is read.
_STRESS = re.compile("[\u0300\u0301]")
# Sentence openers that qualify a definition without being part of its term.
_DEF_OPENERS = re.compile(
    r"^(?:как правило|обычно|в общем случае|вообще говоря|иными словами|другими словами"
    r"|в (?:математике|физике|информатике|химии|биологии|медицине|лингвистике|экономике)"
    r"|in (?:mathematics|physics|computer science|chemistry|biology|medicine|linguistics)"
    r"|generally|usually|typically),?\s+",
    re.IGNORECASE,
)
# An abstract's section label glued on ("BACKGROUND Long non-coding RNAs (lncRNAs) are ...");
# `leads` drops it too.
CAPS_LABEL = re.compile(r"^(?:[A-Z]{3,}(?:\s+(?:AND|OF|[A-Z]{3,}))*:?)\s+(?=[A-Z][a-z])")
# What may follow a lead's term before the dash: aliases ("также Леговек", "она же Элизабет
# Брэддок", "прежде Мраморный Трианон", "по прозванию Мэнжуань").
_ALIAS = re.compile(
    r"\s*,?\s*\b(?:также|она же|он же|оно же|они же|прежде|ранее|иначе|или|сокращённо"
    r"|мн\. ч\.|по прозванию|урожд\w*|в девичестве|известн\w* как|псевдоним\w*"
    r"|писал\w* под псевдонимом|also|formerly|née|aka)\b",
    re.IGNORECASE,
)
_DOMAIN = re.compile(r"^в\s+[^\s,—–]+(?:\s+[^\s,—–]+)?\s+[—–]\s+", re.IGNORECASE)
_MAX_LEAD_HEAD = 320  # "Эрнст Иоганн Бирон (German: ...; 23 ноября 1690, ... (...) ...)" is 200


def strip_term(term: str) -> str:
    """The term without quotes, markup and punctuation around it and a leading article (`leads`
    and `patterns.block_term` read a term so too)."""
    term = term.strip().strip("«»\"'“”„`*_ .,;:!?…")
    return re.sub(r"^(?:a|an|the)\s+", "", term, flags=re.IGNORECASE)


# --- what a rule reads ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What a rule read in a sentence: the term and the body it picked as they stand
    (`raw_term`, `raw_body`) and as a definition gives them (`term`, `body`), with its regex's
    match (None for the lead) and, for the lead, the text before the dash (`head`)."""

    sentence: str
    match: re.Match[str] | None
    raw_term: str
    raw_body: str
    head: str = ""

    @cached_property
    def term(self) -> str:
        return strip_term(self.raw_term)

    @cached_property
    def body(self) -> str:
        return self.raw_body.strip().rstrip(".!…").strip()

    @cached_property
    def term_words(self) -> list[str]:
        return words_of(self.term)

    @cached_property
    def folded_term_words(self) -> list[str]:
        return [w.casefold() for w in self.term_words]

    @cached_property
    def body_words(self) -> list[str]:
        return words_of(self.body)

    def group(self, name: str) -> str | None:
        """A group of the rule's match (None for the lead or a group that took no part)."""
        return None if self.match is None else self.match[name]


class Reader(Protocol):
    """How a rule reads a sentence: the term and the body it picks, or None when the sentence is
    not in the rule's shape (`Matched` for a regex, `Lead` for the lead)."""

    def read(self, sentence: str) -> Reading | None: ...


Pick = Callable[[re.Match[str]], tuple[str, str]]


def _term_and_body(m: re.Match[str]) -> tuple[str, str]:
    return m["term"], m["body"]


def _by_case(m: re.Match[str]) -> tuple[str, str]:
    """nazyv: "Энтропией называется мера ..." vs "Множество ... называется окружностью": the term
    is the side in the instrumental case, else the shorter one (its brackets dropped)."""
    left, right = unbracketed(m["left"]), unbracketed(m["right"])
    lw, rw = words_of(left), words_of(right)
    if rw and _INSTRUMENTAL.search(rw[-1]) and len(rw) <= 4:
        return right, left
    if lw and _INSTRUMENTAL.search(lw[-1]) and len(lw) <= 4:
        return left, right
    return (right, left) if len(rw) <= len(lw) else (left, right)


@dataclass(frozen=True)
class Matched:
    """A rule's regex, matched from the sentence's start, and how it picks the term and the body
    from the match (`pick`: the groups "term" and "body" unless said)."""

    regex: re.Pattern[str]
    pick: Pick = _term_and_body

    def read(self, sentence: str) -> Reading | None:
        m = self.regex.match(sentence)
        if m is None:
            return None
        term, body = self.pick(m)
        return Reading(sentence, m, term, body)


def _top_level_dash(text: str) -> int:
    """The index of the first " — " / " – " outside brackets and quotes, else -1."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([«“":
            depth += 1
        elif ch in ")]»”" and depth:
            depth -= 1
        elif ch in "—–" and depth == 0 and text[i - 1 : i] == " " and text[i + 1 : i + 2] == " ":
            return i
    return -1


class Lead:
    """The lead's reader: the first dash outside brackets and quotes, with brackets or an alias
    before it ("Пер Лагерквист (Swedish: ...) (23 мая 1891 — 11 июля 1974) — шведский
    писатель"); the term is the name before the first bracket, comma or alias, the body what
    follows the dash without "это" or a domain ("в математике — "). No brackets and no alias:
    no lead (the dash rule reads it)."""

    def read(self, sentence: str) -> Reading | None:
        dash = _top_level_dash(sentence)
        if dash <= 0:
            return None
        head, body = sentence[:dash].strip(), sentence[dash + 1 :].strip()
        flat = unbracketed(head)
        parts = _ALIAS.split(flat, maxsplit=1)
        if flat == head and len(parts) == 1:
            return None
        term = parts[0].split(",")[0].strip()
        body = _DOMAIN.sub("", re.sub(r"^это\s+", "", body, flags=re.IGNORECASE))
        return Reading(sentence, None, term, body, head=head)


# --- the vetoes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Veto:
    """A named reason why what a rule read is no definition."""

    name: str
    holds: Callable[[Reading], bool]


def veto(name: str) -> Callable[[Callable[[Reading], bool]], Veto]:
    """The decorated predicate as a `Veto` called `name`."""

    def make(holds: Callable[[Reading], bool]) -> Veto:
        return Veto(name, holds)

    return make


# the lead's
@veto("a clause before the dash")
def clause_before_dash(r: Reading) -> bool:
    # "Достигнув расцвета ..., Тямпа ...; около 1470 года ... — ...": a ";" outside brackets
    # (one in brackets parts the bracket) or a lower-case finite verb: clauses, no name
    flat = unbracketed(r.head)
    return ";" in flat or any(w[:1].islower() and RU_VERB.fullmatch(w) for w in words_of(flat))


@veto(f"a head over {_MAX_LEAD_HEAD} characters")
def long_head(r: Reading) -> bool:
    return len(r.head) > _MAX_LEAD_HEAD


@veto("a '!' or '?' after the dash")
def exclaims_after_dash(r: Reading) -> bool:
    return re.search(r"[!?]", r.raw_body) is not None  # a final "!" counts


@veto("a name after the dash")
def name_after_dash(r: Reading) -> bool:
    # "X (1900) — Москва": a name, not a genus; "X (1900) — 19-летний ..." is one
    return not (r.raw_body[:1].islower() or re.match(r"\d+-[^\W\d_]", r.raw_body))


@veto("a name of over 6 words")
def long_name(r: Reading) -> bool:
    # the name as it stands before its brackets (the term has no more words)
    return len(words_of(r.raw_term)) > 6


@veto("a term in lower case")
def lower_case_name(r: Reading) -> bool:
    return not (r.raw_term[:1].isupper() or r.raw_term[:1] in '«"“')


# nazyv's
@veto("a side without words")
def side_without_words(r: Reading) -> bool:
    return not words_of(r.raw_term) or not words_of(r.raw_body)


@veto("a clause before the verb")
def clause_before_verb(r: Reading) -> bool:
    # "...; для японских версий ... называют местом X": a clause, not a term
    return re.search(r"[;:]", unbracketed(r.group("left") or "")) is not None


# is_a's
@veto("a subject of over 4 words without brackets")
def long_subject(r: Reading) -> bool:
    return r.group("etym") is None and len(r.term_words) > 4


@veto("an evaluative genus")
def evaluative_genus(r: Reading) -> bool:
    # "Hypoxia is a common cause of ...", "Aspirin is a risk factor for bleeding": a property
    return EVALUATIVE_GENUS.match(r.body) is not None


@veto("an assessment")
def assessment(r: Reading) -> bool:
    # "X is a fast-moving field", "Карьера X — одна из самых недооценённых ..."
    return ASSESSMENT.match(r.body) is not None


@veto("the X of something")
def attribute_of(r: Reading) -> bool:
    # "The integrity of sperm chromatin is a clinical indicator": an attribute of something,
    # not a term; "A set of vectors is a basis if ..." keeps its term
    definite = re.match(r"(?i)the\s", r.raw_term.strip())
    return bool(definite and re.search(r"(?i)\sof\s", r.term))


@veto("a judgement with its reason")
def reasoned(r: Reading) -> bool:
    # "HCC is a fatal disease, primarily due to the limited effective therapies": a property;
    # a genus needs no cause
    return _REASONED.match(r.body) is not None


# the dash's (and the lead's, where said)
@veto("a one-word body")
def one_word_body(r: Reading) -> bool:
    return len(r.body_words) < 2


@veto("a relational term")
def relational(r: Reading) -> bool:
    return relational_term(r.term)  # "Автор монумента — скульптор X": the monument's author


@veto("two names")
def two_names(r: Reading) -> bool:
    # a dash genus starts in lower case ("Энтропия — мера ..."); "Москва — Санкт-Петербург" is none
    return not r.body[:1].islower()


@veto("an exclamation or a question")
def exclaims(r: Reading) -> bool:
    return re.search(r"[!?]", r.body) is not None  # "Kjift – not at all! A blind text ..."


@veto("a quantity")
def quantity(r: Reading) -> bool:
    # "Численность — около 60 тысяч человек": a quantity, not a genus
    return re.match(r"(?i)(?:около|более|менее|свыше|примерно|почти|порядка)\s", r.body) is not None


@veto("a value with a name")
def value_with_a_name(r: Reading) -> bool:
    # "Столица — город Ораньестад": a value with a name, not a genus
    return len(r.body_words) <= 3 and any(w[:1].isupper() for w in r.body_words)


@veto("a verb after the dash")
def verb_after_dash(r: Reading) -> bool:
    # "Эпоха — характеризуется ..."
    return any(_VERB_LIKE.search(w) for w in r.body_words[:1])


@veto("a second dash")
def second_dash(r: Reading) -> bool:
    # "X — an aside — goes on": a second dash outside brackets makes the first an aside
    return re.search(r"\s[—–]\s", re.sub(r"\([^()]*\)", "", r.body)) is not None


# the term's
@veto("no word in the term")
def no_word(r: Reading) -> bool:
    return not r.term_words


def _over(limit: int) -> Veto:
    return Veto(f"a term of over {limit} words", lambda r: len(r.term_words) > limit)


over_4, over_5, over_6 = _over(4), _over(5), _over(6)


@veto("a digit first")
def digit_first(r: Reading) -> bool:
    return r.term[:1].isdigit()


@veto("brackets in the term")
def brackets_in_term(r: Reading) -> bool:
    return "(" in r.term or ")" in r.term


@veto("a generic term")
def generic_term(r: Reading) -> bool:
    return r.term.casefold() in _GENERIC_TERMS  # "The term is ...", "Понятие — ..."


@veto("an anaphor first")
def anaphor_first(r: Reading) -> bool:
    return any(w in ANAPHORS for w in r.folded_term_words[:1])


@veto("an opener first")
def opener_first(r: Reading) -> bool:
    return any(w in _OPENERS for w in r.folded_term_words[:1])


@veto("a clause word in the term")
def clause_word(r: Reading) -> bool:
    return bool(_CLAUSE_WORDS.intersection(r.folded_term_words))


@veto("a member of a series")
def series_member(r: Reading) -> bool:
    # "The first argument is the function ...": a member of a series, no term (`continues_en`)
    term = r.term
    return ordinal_subject(term if term[:4].casefold() == "the " else f"the {term}")


@veto("a range of dates")
def date_range(r: Reading) -> bool:
    return period_term(r.term)  # "Первая четверть XIX века — наши дни: ...": `labels_ru`


@veto("a finite verb in the term")
def finite_verb_in_term(r: Reading) -> bool:
    # "Матерью Ашоки была Субхадранги — дочь ...": a clause, the dash an aside
    return _RU_CLAUSE_VERB.search(r.term) is not None


@veto("a function word in the term")
def function_word(r: Reading) -> bool:
    # "Глубокое обучение по Хинтону — ...": a dash after a phrase with a preposition is prose
    return bool(_RU_FUNCTION_WORDS.intersection(r.folded_term_words))


@veto("no letter in the term")
def no_letter(r: Reading) -> bool:
    return LETTER.search(r.term) is None


# A defined name, not the start of an ordinary sentence (after its length and brackets).
_NAME = (generic_term, anaphor_first, opener_first, clause_word, series_member, date_range)
_TERM_5 = (no_word, over_5, digit_first, brackets_in_term, *_NAME)  # the term's, up to 5 words
_GERMAN_TERM = (no_word, over_6, digit_first, *_NAME)  # German: 6 words, brackets allowed


# --- the rules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DefinitionRule:
    """A definition rule: its name (the atom's `pattern`), how it reads a sentence, the
    confidence of what it finds and the vetoes that reject what it read, asked in order."""

    name: str
    reader: Reader
    confidence: float
    vetoes: tuple[Veto, ...]


def _regex(pattern: str, pick: Pick = _term_and_body) -> Matched:
    return Matched(re.compile(pattern, re.IGNORECASE | re.DOTALL), pick)


# The order decides: the first rule that reads the sentence and survives its vetoes wins, so
# explicit markers come first and the bare dash last (module docstring).
DEFINITION_RULES: tuple[DefinitionRule, ...] = (
    DefinitionRule("lead", Lead(), 0.7, (
        clause_before_dash, long_head, one_word_body, exclaims_after_dash, name_after_dash,
        verb_after_dash, long_name, lower_case_name,
        no_word, digit_first, brackets_in_term, *_NAME,
    )),
    DefinitionRule("eto", _regex(
        _TERM + ETYM + r"\s*(?:[—–]|\s-{1,2})\s*это\s+(?P<body>.+)$"
    ), 0.75, (*_TERM_5, finite_verb_in_term, no_letter)),
    DefinitionRule("pod", _regex(
        r"под\s+(?P<term>.{1,60}?)\s+(?:понима|подразумева)\w*\s+(?P<body>.+)$"
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("nazyv", _regex(
        r"(?P<left>.+?)\s+(?:называ(?:ется|ются|ют|ли|лся|лась|лось|лись)|именуе?тся"
        r"|именую?т)\s+(?P<right>.+?)" + _END, _by_case,
    ), 0.75, (side_without_words, clause_before_verb, *_TERM_5, no_letter)),
    DefinitionRule("opredelyaetsya", _regex(
        _TERM + r"\s+определя\w*\s+как\s+(?P<body>.+)$"
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("oznachaet", _regex(
        _TERM + r"\s+(?:означает|обозначает)\s+(?P<body>.+)$"
    ), 0.7, (*_TERM_5, no_letter)),
    # German: "unter X versteht man Y", "(Sei ... Dann) heißt X Y", "X heißt Y, wenn ...".
    DefinitionRule("versteht", _regex(
        r"(?:.*?\b)?unter\s+(?P<term>.{1,60}?)\s+versteht\s+man\s+(?P<body>.+)$"
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("dann_heisst", _regex(
        r"(?:.*?\bdann\s+)hei(?:ßt|ßen|sst|ssen)\s+(?P<body>.+?)\s+(?P<term>[^\s,]+(?:\s[^\s,]+){0,3}?)"
        + _DE_COND + _END
    ), 0.75, (*_GERMAN_TERM, no_letter)),
    DefinitionRule("heisst", _regex(
        r"(?P<body>.+?)\s+hei(?:ßt|ßen|sst|ssen)\s+" + _DE_TERM + _DE_COND + _END
    ), 0.75, (*_GERMAN_TERM, no_letter)),
    DefinitionRule("nennt", _regex(
        r"(?P<body>.+?)\s+(?:nennt|nennen)\s+(?:man|wir)\s+" + _DE_TERM + _DE_COND + _END
    ), 0.75, (*_GERMAN_TERM, no_letter)),
    DefinitionRule("bezeichnet", _regex(
        r"(?P<body>.+?)\s+(?:wird|werden)\s+(?:als\s+)?" + _DE_TERM
        + r"\s+(?:bezeichnet|genannt)" + _DE_COND + _END
    ), 0.75, (*_GERMAN_TERM, no_letter)),
    DefinitionRule("definiert", _regex(
        _DE_TERM + r"\s+(?:ist|sind)\s+definiert\s+als\s+(?P<body>.+)$"
    ), 0.75, (*_GERMAN_TERM, no_letter)),
    DefinitionRule("defined", _regex(
        _TERM + ETYM + r"\s+(?:is|are)\s+(?:defined|understood)\s+as\s+(?P<body>.+)$"
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("we_call", _regex(
        r"(?:.*?\b)?we\s+(?:call|define)\s+(?P<body>.+)\s+(?P<term>[^\W\d_][\w-]*)"
        r"\s+(?:if|when|whenever|provided)\b.*$"
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("said_to_be", _regex(
        r"(?P<body>.{3,}?)\s+(?:is|are)\s+said\s+to\s+be\s+(?P<term>[^,;]{1,50}?)"
        r"(?:\s+(?:if|when|whenever)\b.*)?" + _END
    ), 0.75, (*_TERM_5, no_letter)),
    DefinitionRule("refers", _regex(
        _TERM + r"\s+(?:refers?|refer)\s+to\s+(?P<body>.+)$"
    ), 0.7, (*_TERM_5, no_letter)),
    DefinitionRule("means", _regex(
        _TERM + r"\s+(?:means|denotes|stands for)\s+(?P<body>(?!that\b).+)$"
    ), 0.7, (*_TERM_5, no_letter)),
    DefinitionRule("called", _regex(
        r"(?P<body>.{10,}?)\s+(?:is|are)\s+(?:called|known as|termed)\s+(?P<term>[^,;]{1,60}?)"
        r"(?:\s+(?:if|when|whenever)\b.*)?" + _END
    ), 0.7, (*_TERM_5, no_letter)),
    # "X is a Y" / "X is the Y of|by which ...": a genus; "X is the best Y" is no definition.
    DefinitionRule("is_a", _regex(
        _TERM + ETYM + r"\s+(?:is|are)\s+(?P<body>(?:an?\s(?!lot|bit|little|few|couple|number)"
        r"|the\s+[^\W\d_]+\s+(?:of|by which|in which|that|whereby|for|used)\b).+)$"
    ), 0.7, (
        long_subject, evaluative_genus, assessment, attribute_of, reasoned,
        no_word, over_6, digit_first, brackets_in_term, *_NAME, no_letter,
    )),
    DefinitionRule("dash", _regex(
        _TERM + ETYM + r"\s+[—–]\s+(?P<body>.+)$"
    ), 0.7, (
        one_word_body, relational, two_names, exclaims, assessment, quantity, value_with_a_name,
        verb_after_dash, second_dash,
        no_word, over_4, digit_first, brackets_in_term, *_NAME, finite_verb_in_term,
        function_word, no_letter,
    )),
)  # fmt: skip


def _aim(sentence: str) -> bool:
    return AIM.search(sentence) is not None  # "Цель исследования — изучить ...": no term "Цель"


# Vetoes of the sentence as a whole, before any rule reads it.
SENTENCE_VETOES: tuple[tuple[str, Callable[[str], bool]], ...] = (("an aim", _aim),)
ALL_RULES = "all rules"  # the rule a sentence veto rejects in a trace


class DefinitionTrace(NamedTuple):
    """What the definition rules made of a sentence: the sentence as they read it (cleaned), the
    definition (None when no rule decided), and the (rule, veto) of each rule that read the
    sentence before the one that decided and was rejected, in order (`ALL_RULES` for a veto of
    the sentence as a whole)."""

    sentence: str
    definition: Definition | None
    vetoed: tuple[tuple[str, str], ...]


def _cleaned(sentence: str) -> str:
    """The sentence without stress marks, a glued abstract label and a qualifying opener."""
    return _DEF_OPENERS.sub("", CAPS_LABEL.sub("", _STRESS.sub("", sentence.strip())))


def definition_trace(sentence: str) -> DefinitionTrace:
    """`match_definition` with its trace: which vetoes rejected which rules before the one that
    decided (or before none did)."""
    sentence = _cleaned(sentence)
    for name, holds in SENTENCE_VETOES:
        if holds(sentence):
            return DefinitionTrace(sentence, None, ((ALL_RULES, name),))
    vetoed: list[tuple[str, str]] = []
    for rule in DEFINITION_RULES:
        reading = rule.reader.read(sentence)
        if reading is None:
            continue
        rejected = next((v for v in rule.vetoes if v.holds(reading)), None)
        if rejected is not None:
            vetoed.append((rule.name, rejected.name))
            continue
        found = (reading.term, reading.body, rule.confidence, rule.name)
        return DefinitionTrace(sentence, found, tuple(vetoed))
    return DefinitionTrace(sentence, None, tuple(vetoed))


def match_definition(sentence: str) -> Definition | None:
    """(term, body, confidence, rule name) when the sentence defines a term: the first of
    `DEFINITION_RULES` that reads it and survives its vetoes (module docstring), else None."""
    return definition_trace(sentence).definition
