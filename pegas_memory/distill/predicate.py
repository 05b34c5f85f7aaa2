"""Whether a claim predicates anything: a statement has a verb, a copula or a dash (pure).

A fact says something of its subject; a phrase without a predicate names a topic instead: a
slide's bullet ("Automatic hyperparameter tuning and ensembling."), a table header, a list of
names ("Sklearn, Keras, Pandas, H2O, XGBoost, etc."), the rest of a reference entry ("Assoc. for
Computing Machinery."). Every kind of document has them, and they stay in their passage.

- English: no word that lemminflect's lexicon reads as an auxiliary or a verb outside an "-ing"
  form, a name or a place after a determiner or preposition ("with values", "the store")
  (`distill.morph_en`).
- Russian: no word read by pymorphy3 as a finite or infinitive verb, a short adjective or
  participle, a predicative ("можно", "нужно", "нет") or a comparative, and no dash between two
  words ("Столица — Москва") nor "у X" of possession (`distill.predicate_ru.possessive`).
- Either: a relation sign between two terms is a predicate ("f(x) → 0 при x → ∞", "a ≤ b"),
  and so is an English aim's infinitive ("To assess the relationship of X with Y.").

What a carry (`distill.carry`) put a subject on is read as "subject — claim" by design ("Нестор
Махно: автор мемуаров ...", "Северное море: основные порты: Роттердам, ..."), and a definition
says what its term is: neither is judged here.
"""

from __future__ import annotations

import re

import pegas_memory.distill.morph_en as morph_en
import pegas_memory.distill.morph_ru as morph
from pegas_memory.distill.predicate_ru import possessive

NO_PREDICATE = "no predicate"
# An aim: "To assess the relationship of X with Y.", "Objective: To provide ...": what a study
# sets out to do, stated by its infinitive.
_AIM = re.compile(r"^(?:[A-Z][\w ]{0,30}:\s*)?To [a-z]+\b")
_RELATION = re.compile(r"\S\s*(?:[=<>≤≥≠≈≡∈∉⊂⊆⊃⊇∼≅∝→⇒⇔↦]|:=|<=|>=|!=|==)\s*\S")
_DASH = re.compile(r"\w[»\")]?\s+[—–-]{1,2}\s+\S")
_RU_WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")
_EN_WORD = re.compile(r"[A-Za-z]{2,}")
_EN_TOKEN = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?|\d+")
_MIN_WORDS = 2


def no_predicate(claim: str, language: str | None) -> bool:
    """Whether `claim` has no predicate (module docstring); a claim of one word is left to the
    other rules, and a relation sign between two terms ("f(x) → 0 при ...", "a ≤ b") is one."""
    text = claim.strip()
    if _RELATION.search(text) or _AIM.match(text):
        return False
    if language == "ru":
        return _no_predicate_ru(text)
    return _no_predicate_en(text)


def _no_predicate_en(text: str) -> bool:
    words = _EN_TOKEN.findall(text)
    if len(words) < _MIN_WORDS:
        return False
    before: str | None = None
    for word in words:
        if morph_en.finite_verb(word, before):
            return False
        before = word.casefold()
    return True


def _no_predicate_ru(text: str) -> bool:
    words = _RU_WORD.findall(text)
    if len(words) < _MIN_WORDS:
        # a bullet in English in a Russian document ("Automatic hyperparameter tuning.")
        latin = len(_EN_WORD.findall(text))
        return latin >= _MIN_WORDS and _no_predicate_en(text)
    if _DASH.search(text) or possessive(text):
        return False
    return not any(morph.predicate(word) for word in words)
