"""Russian grammar from pymorphy3 (its OpenCorpora dictionaries), for the promote stage: whether
a word is a verb in the imperative or the first person plural, a closed-class word, a noun and
its gender and number, a third-person or demonstrative pronoun, a possible predicate, or a finite
one (for the type stage's last rule, `fact_rules.fact_verdict`).
One analyzer per process, loaded on first use (about 60 ms); parses cached.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import pymorphy3

import pegas_memory.distill.lexicon_ru as ru


@lru_cache(maxsize=1)
def _analyzer() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer()


class Reading(NamedTuple):
    """One reading of a word: its normal form and grammemes, and pymorphy3's score."""

    lemma: str
    pos: str | None
    gender: str | None
    number: str | None
    score: float
    mood: str | None
    person: str | None
    tense: str | None


@lru_cache(maxsize=50_000)
def _readings(word: str) -> tuple[Reading, ...]:
    """Every reading pymorphy3 gives `word`, most likely first."""
    try:
        parses = _analyzer().parse(word.casefold())
    except (KeyError, ValueError):  # a character unicodedata has no name for ("𗀀")
        return ()
    return tuple(_reading(p) for p in parses)


def _reading(parse: pymorphy3.analyzer.Parse) -> Reading:
    tag = parse.tag
    grammemes = (tag.POS, tag.gender, tag.number)
    pos, gender, number = (_str(g) for g in grammemes)
    return Reading(parse.normal_form, pos, gender, number, parse.score, _str(tag.mood),
                   _str(tag.person), _str(tag.tense))  # fmt: skip


def _str(grammeme: object) -> str | None:
    return None if grammeme is None else str(grammeme)


def _top(word: str) -> Reading | None:
    readings = _readings(word)
    return readings[0] if readings else None


_SURE = 0.4  # the share of pymorphy3's score a reading needs: "прокси" is a guessed verb (0.04)


def imperative(word: str) -> bool:
    """Whether `word` is read as a verb in the imperative ("нажмите", "откройте", "запустите")
    with a score of 0.4 or more over its readings; a rare word pymorphy3 guesses ("прокси")
    is none."""
    readings = _readings(word)
    return sum(r.score for r in readings if r.pos == "VERB" and r.mood == "impr") >= _SURE


def first_plural(word: str) -> bool:
    """Whether `word` is read first as a verb of the first person plural ("рассмотрим",
    "создадим", "напишем"): the tutorial's or the lecture's "we" doing the next step."""
    top = _top(word)
    return top is not None and top.pos == "VERB" and top.person == "1per" and top.number == "plur"


def past_verb(word: str) -> bool:
    """Whether `word` is read first as a verb in the past tense ("получили", "использовали")."""
    top = _top(word)
    return top is not None and top.pos == "VERB" and top.tense == "past"


_FUNCTION_POS = frozenset({"CONJ", "PREP", "PRCL", "NPRO", "ADVB", "INTJ", "GRND", "COMP"})


def function_word(word: str) -> bool:
    """Whether `word` is read first as a closed-class word (a conjunction, preposition, particle,
    pronoun or adverb) or a form of "который": what opens the middle of a sentence."""
    top = _top(word)
    if top is None:
        return False
    return top.pos in _FUNCTION_POS or word.casefold().startswith("котор")


def pronoun_lemmas(word: str) -> frozenset[str]:
    """The normal forms of `word`'s pronoun readings ("его" -> он, оно; "эти" -> этот): a
    personal pronoun (NPRO) or a pronominal adjective (этот, такой, данный)."""
    out = set()
    for r in _readings(word):
        if r.pos == "NPRO" or (r.pos == "ADJF" and r.lemma in ("этот", "такой", "данный")):
            out.add(r.lemma)
    return frozenset(out)


def _agreement(gender: str | None, number: str | None) -> set[str]:
    if number == "plur":
        return {"plur"}
    return {gender} if gender else {"masc", "femn", "neut"}  # common gender ("сирота")


def pronoun_agreements(word: str) -> frozenset[str]:
    """What a third-person pronoun may stand for: "masc", "femn", "neut" (singular) or "plur",
    over its readings ("им" -> plur, masc, neut)."""
    out: set[str] = set()
    for r in _readings(word):
        if r.pos == "NPRO" and r.lemma in ("он", "она", "оно", "они"):
            gender = {"он": "masc", "она": "femn", "оно": "neut"}.get(r.lemma)
            out |= _agreement(gender, r.number)
    return frozenset(out)


def noun(word: str) -> bool:
    """Whether `word` is read as a noun: first, or with a score of 0.3 or more."""
    readings = _readings(word)
    if not readings:
        return False
    return readings[0].pos == "NOUN" or any(r.pos == "NOUN" and r.score >= 0.3 for r in readings)


def lemma(word: str) -> str:
    """The normal form of `word`'s most likely reading (the word itself when none)."""
    top = _top(word)
    return top.lemma if top is not None else word.casefold()


def adjective(word: str) -> bool:
    """Whether `word` is read first as a full adjective or participle ("собственное")."""
    top = _top(word)
    return top is not None and top.pos in ("ADJF", "PRTF")


def noun_agreements(word: str) -> frozenset[str]:
    """Gender ("masc", "femn", "neut") or "plur" of `word`'s noun readings (any score: a rare
    word's noun reading comes after a guessed verb, "прокси"); empty when it is no noun."""
    out: set[str] = set()
    for r in _readings(word):
        if r.pos == "NOUN":
            out |= _agreement(r.gender, r.number)
    return frozenset(out)


def finite_predicate(word: str) -> bool:
    """Whether `word` is read first as a finite verb of the third person or the past ("ищет",
    "разошлись", "пришлось") or a short participle ("открыт"): what makes a Russian sentence
    state something. An infinitive or an imperative is no statement; a verb of the first or
    second person is the author or the reader acting ("Мы описываем методы ...", "вы увидите");
    a predicative ("можно", "нельзя") is as often advice as a fact, and is left out."""
    top = _top(word)
    if top is None:
        return False
    if top.pos == "VERB":
        return top.mood != "impr" and top.person not in ("1per", "2per")
    return top.pos == "PRTS"


_PREDICATE_POS = frozenset({"VERB", "INFN", "PRTS", "ADJS", "PRED", "COMP"})
_PREDICATE_WORDS = ru.PREDICATE_WORDS


def predicate(word: str) -> bool:
    """Whether `word` can be a sentence's predicate: read first, or with a score of 0.2 or more,
    as a finite or infinitive verb, a short adjective or participle, a predicative ("можно",
    "нужно") or a comparative; or "есть", "нет", "это"."""
    if word.casefold() in _PREDICATE_WORDS:
        return True
    readings = _readings(word)
    return any(
        r.pos in _PREDICATE_POS and (i == 0 or r.score >= 0.2) for i, r in enumerate(readings)
    )
