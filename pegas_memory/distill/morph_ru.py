"""Russian grammar from pymorphy3 (its OpenCorpora dictionaries), for the promote stage: whether
a word is a verb in the imperative or the first person plural, or a closed-class word.
One analyzer per process, loaded on first use (about 60 ms); parses cached.
"""

from __future__ import annotations

from functools import lru_cache

import pymorphy3


@lru_cache(maxsize=1)
def _analyzer() -> pymorphy3.MorphAnalyzer:
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=50_000)
def _tags(word: str) -> tuple[tuple[str | None, str | None, str | None, str | None], ...]:
    """(part of speech, mood, person, number) of each reading of `word` scored above 0.1."""
    out: list[tuple[str | None, str | None, str | None, str | None]] = []
    try:
        parses = _analyzer().parse(word.casefold())
    except (KeyError, ValueError):  # a character unicodedata has no name for ("𗀀")
        return ()
    for parse in parses:
        if parse.score < 0.1 and out:
            continue
        tag = parse.tag
        out.append((tag.POS, tag.mood, tag.person, tag.number))
    return tuple(out)


def imperative(word: str) -> bool:
    """Whether the most likely reading of `word` is a verb in the imperative ("нажмите",
    "откройте", "используйте")."""
    tags = _tags(word)
    return bool(tags) and tags[0][0] == "VERB" and tags[0][1] == "impr"


def first_plural(word: str) -> bool:
    """Whether `word` is read first as a verb of the first person plural ("рассмотрим",
    "создадим", "напишем"): the tutorial's or the lecture's "we" doing the next step."""
    tags = _tags(word)
    return bool(tags) and tags[0][0] == "VERB" and tags[0][2] == "1per" and tags[0][3] == "plur"


_FUNCTION_POS = frozenset({"CONJ", "PREP", "PRCL", "NPRO", "ADVB", "INTJ", "GRND", "COMP"})


def function_word(word: str) -> bool:
    """Whether `word` is read first as a closed-class word (a conjunction, preposition, particle,
    pronoun or adverb) or a form of "который": what opens the middle of a sentence."""
    tags = _tags(word)
    if not tags:
        return False
    return tags[0][0] in _FUNCTION_POS or word.casefold().startswith("котор")
