"""English parts of speech from lemminflect's lexicon, for the promote stage: whether a word can
be a sentence's finite verb. The lexicon ships in the wheel (no download); lookups cached.
"""

from __future__ import annotations

from functools import lru_cache

import lemminflect

import pegas_memory.distill.lexicon_en as en

_NOT_BEFORE_VERB = en.NOT_BEFORE_VERB


@lru_cache(maxsize=50_000)
def _parts(word: str) -> frozenset[str]:
    return frozenset(lemminflect.getAllLemmas(word))


def finite_verb(word: str, before: str | None) -> bool:
    """Whether `word` can be the finite verb of its sentence: an auxiliary, or a verb reading
    that is no "-ing" form, not written with a capital inside the sentence (a name) and not
    after a determiner or preposition (`before`, lower-cased)."""
    if not word.isalpha():
        return False
    lower = word.casefold()
    parts = _parts(lower)
    if "AUX" in parts:
        return True
    if "VERB" not in parts or lower.endswith("ing"):
        return False
    if before is not None and word[:1].isupper():
        return False
    return before not in _NOT_BEFORE_VERB


def adjective_only(word: str) -> bool:
    """Whether the lexicon reads `word` as an adjective and never as a noun ("different",
    "large"): "such different roles" intensifies, "such a change" points back."""
    parts = _parts(word.casefold()) if word.isalpha() else frozenset()
    return "ADJ" in parts and "NOUN" not in parts


def noun_or_adjective(word: str) -> bool:
    """Whether the lexicon reads `word` as a noun or an adjective (what a determiner takes):
    "those values", not "those without", "those receiving", "those."."""
    if not word.isalpha():
        return False
    parts = _parts(word.casefold())
    return bool(parts & {"NOUN", "ADJ", "PROPN"}) and "ADP" not in parts


@lru_cache(maxsize=50_000)
def noun_lemma(word: str) -> str:
    """The word as a noun's lemma ("engines" -> "engine"), the word itself when the lexicon
    knows no noun of it."""
    lemmas = lemminflect.getLemma(word.casefold(), "NOUN")
    return lemmas[0] if lemmas else word.casefold()
