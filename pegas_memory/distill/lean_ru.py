"""Russian sentences whose subject is what the sentence before says, not a thing it names (pure
logic; `distill.context.leans_back` joins them, `held_referent` past a group's cap too).

A carried section subject never stands for such a subject ("Граммофон: вкупе с лёгкостью
тиражирования записей это обеспечило ..." says nothing of what "это" was), so these sentences
must join the sentence before or stay marked:
- **"это" as the subject of its verb** ("... это обеспечило быструю победу", "Это привело к
  ..."): the pronoun stands for the facts just told. "Это" before a noun is a demonstrative
  (`context` reads it), "это — ..." / "это был ..." a definition's copula: neither is this rule.
- **results just described** ("Полученные результаты были опубликованы ...", "Описанные
  изменения ...", "Приведённые данные ..."): a participle of obtaining, describing or citing
  right before its noun is "the ... above"; with a complement of its own ("Полученные из нефти
  продукты ...") it says where they come from and names them: no lean.
- **a pronoun in the clause after an impersonal opener** ("Считается, что у них также были
  ...", "Известно, что они ..."): the opener has no subject, the clause's pronoun is its subject
  or owner, and its antecedent is in the sentence before (`clause_after_opener` gives the
  clause, `context` looks for the pronoun in its first words as for any sentence).
"""

from __future__ import annotations

import itertools
import re

import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.words_ru import _RU_PREPOSITIONS, _verb

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# Copula and definition words after "это": "это был первый ...", "это означает": the pronoun
# is a subject here too, but "это — ..." and "это есть" define; they are left to `context`.
_COPULA = frozenset(["есть", "—", "-"])
_CLAUSE_WORDS = ru.CLAUSE_WORDS
_MAX_LEAD = 7  # "это" as a subject after a leading phrase of at most this many words
_DESCRIBED = re.compile(
    r"^(?:(?:а|и|но|однако|все|всё)\s+)?"
    r"(?:полученн|описанн|приведённ|приведенн|изложенн|представленн|названн|обнаруженн"
    r"|выявленн|рассмотренн|отмеченн)(?:ые|ый|ая|ое|ых|ого|ой|ую|ым|ыми)\s+([а-яё]+)",
    re.IGNORECASE,
)
_OPENER = re.compile(
    r"^(?:считается|считалось|известно|предполагается|предполагалось|полагают|полагается"
    r"|говорят|утверждается|вероятно|возможно|очевидно|по-видимому)\s*,\s*(?:что|будто)\s+",
    re.IGNORECASE,
)


def situation_subject(sentence: str) -> bool:
    """ "это" right before a finite verb among the first words (module docstring)."""
    words = [w.casefold() for w in _WORD.findall(sentence)][: _MAX_LEAD + 2]
    for i, (w, nxt) in enumerate(itertools.pairwise(words)):
        if i > _MAX_LEAD:
            return False
        if i > 0 and words[i - 1] in _CLAUSE_WORDS:
            continue  # "того, что это означает": a clause's own "это", not the sentence's subject
        if w == "это" and nxt not in _COPULA and _verb(nxt):
            return True
    return False


def described_results(sentence: str) -> bool:
    """ "Полученные результаты ...": the participle right before its noun (module docstring)."""
    m = _DESCRIBED.match(sentence.lstrip())
    return (
        m is not None
        and m[1].islower()  # "Описанный Линнеем вид": a capitalised agent is its own complement
        and m[1].casefold() not in _RU_PREPOSITIONS
        and not _verb(m[1])
    )


def clause_after_opener(sentence: str) -> str | None:
    """The clause after "Считается, что ...", or None without such an opener."""
    m = _OPENER.match(sentence.lstrip())
    return sentence.lstrip()[m.end() :] if m else None


def whole_before(sentence: str) -> bool:
    """Whether the sentence's subject is what the sentence before says (the first two rules):
    its referent is that sentence's content, whatever that sentence leans on itself."""
    return situation_subject(sentence) or described_results(sentence)


# "Другие предпочли ...", "А некоторые перебрались ...", "Остальные ...": the others of a set
# the sentence before named. "Другие", "некоторые" before a noun of their own ("Некоторые
# учёные считают ...") name it; "остальные" always means the rest of something told before.
_RU_OTHERS = re.compile(
    r"^(?:(?:а|но|и|однако)\s+)?"
    r"(?:(друг|некотор)(?:ие|ые|их|ых|им|ым|ими|ыми)|остальн(?:ые|ых|ым|ыми))"
    r"\b(?:\s+(\w+))?",
    re.IGNORECASE,
)


def others(sentence: str) -> bool:
    """The rule above: "другие/некоторые" alone as the subject (a verb, a preposition or
    punctuation after it), "остальные" in any use."""
    m = _RU_OTHERS.match(sentence.lstrip())
    if m is None:
        return False
    nxt = (m[2] or "").casefold()
    plural_verb = nxt.endswith(("ли", "лись", "ют", "ят", "ут", "ются", "ятся", "утся", "атся"))
    if nxt == "из":
        return False  # "Некоторые из поселенцев ...": the set is named ("из них": a pronoun)
    return not m[1] or not nxt or nxt in _RU_PREPOSITIONS or plural_verb or nxt == "же"


# "Начались переговоры с министром ...", "Последовали аресты.", "Возобновились бои ...": a past
# verb of sequence opening a short sentence, its own subject after it (an event noun). The
# event goes on from the ones the sentence before told (who negotiated, when, where): the
# section's title is not enough, so the sentence joins the one before. A reflexive form only
# ("Продолжил карьеру в ..." has the section's person as its subject, which a carry gives).
_SEQUEL = re.compile(
    r"^(?:(?:а|и|затем|потом|вскоре|тогда|вслед\s+за\s+этим)\s+)?"
    r"(?:начал|продолжил|возобновил|завершил|закончил|прекратил|развернул)(?:ся|ась|ись|ось)"
    r"|^(?:(?:а|и|затем|потом|вскоре|тогда)\s+)?последовал[аио]?\b",
    re.IGNORECASE,
)
_SEQUEL_WORDS = 16  # a short narrative step; a long one says enough of its own


def sequel(sentence: str) -> bool:
    """The rule above: a verb of sequence first, in a sentence of at most `_SEQUEL_WORDS` words."""
    stripped = sentence.lstrip()
    return _SEQUEL.match(stripped) is not None and len(_WORD.findall(stripped)) <= _SEQUEL_WORDS


def goes_on(sentence: str) -> bool:
    """Whether the sentence goes on with what the sentence before named or told: the others of
    its set (`others`) or the next step of its events (`sequel`); `context.leans_back` joins."""
    return others(sentence) or sequel(sentence)
