"""A Russian subject's head noun and what tells it apart from the other subjects sharing it
(pure logic; `distill.carry` asks it in `mentions` and `carry`).

"Вторая Пуническая война", "76-мм полковая пушка образца 1927 года", "Эволюционная теория
асимметрии В. А. Геодакяна": many sections' subjects share a head ("война", "пушка", "теория"),
so a claim holding only the head ("В результате войны Карфаген потерял ...", "Теория позволяет
...", "Первые серийные полковые пушки ...") does not name this one: it names the subject only
when it holds the distinguishing words (a name word, or most of the modifiers and numbers), and
the bare head is then a category noun whose owner is the section: the claim carries the
subject. A person's or place's name (no lower-case word) has no such head. A bare noun of the
head's family stands for it too ("вуз", "институт" under "... университет": `title_ru`).
"""

from __future__ import annotations

import re

import pegas_memory.distill.bare_ru as bare_ru
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.title_ru as title_ru
import pegas_memory.distill.verbfirst_ru as verbfirst_ru
from pegas_memory.distill.context import Reference
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.words_ru import _RU_PREPOSITIONS, _YEAR_WORDS, _verb

_DISAMBIGUATOR = re.compile(r"\s*\([^()]*\)\s*$")
_CYRILLIC_WORD = re.compile(r"^[А-ЯЁа-яё]+$")
_BE = ru.HEAD_BE


# An adjective or participle: the place after it says where it was done, not whose the noun is.
_RU_ADJECTIVE_END = re.compile(
    r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ую|юю|ых|их|ым|им|ыми|ими)$"
)


def _bare_subject(subject: str) -> str:
    """The subject without a bracket that tells which one, as `mentions` looks for it."""
    bracket = _DISAMBIGUATOR.search(subject)
    if bracket and re.search(r"\(\s*[a-zа-яё\d]|,|\d", bracket[0]):
        return subject[: bracket.start()].strip() or subject
    return subject


def _inflected(word: str, lowered: str, slack: int = 1) -> re.Match[str] | None:
    """The first inflected form of `word` in the casefolded claim ("Гранады", "Линдера"), not a
    derived word ("албанский"), or None; a head noun takes `slack` 3 ("реакторов"). A Russian
    word's forms are at most one letter shorter ("войн", "игуан"): "Валуй" (a river) is no
    form of "Валуйки"."""
    stem = word.casefold()[: max(4, len(word) - 2)]
    hits = re.finditer(r"(?<!\w)" + re.escape(stem) + r"\w*", lowered)
    least = len(word) - 1 if _CYRILLIC_WORD.match(word) else 0
    return next((m for m in hits if least <= len(m[0]) <= len(word) + slack), None)


# An adjective or an ordinal before a Russian subject's head noun ("Вторая", "полковая",
# "Скифские"); "-ние" is left out, it ends nouns as well ("восстание").
_RU_MODIFIER_END = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|[кгхжшщч]ие)$")


def _ru_head(subject: str) -> tuple[str, list[str], list[str]] | None:
    """A Russian subject whose head is a common noun ("Вторая Пуническая война", "76-мм полковая
    пушка образца 1927 года", "Эволюционная теория асимметрии В. А. Геодакяна"): its head
    ("война", "пушка", "теория"), the words that tell it from the other subjects sharing that
    head (the modifiers and the words after it: "Пуническая", "76-мм", "образца", "1927";
    initials, prepositions and "года" say nothing) and the names among them ("Пуническая",
    "Геодакяна": capitalised past the first word). Many subjects share a head, so a claim
    holding only the head ("В результате войны ...") does not name this one. None for a name
    (no lower-case word: "Александр Пересвет", "Река Волга"), a non-Russian subject or one
    without a head noun, or a name followed by what it is ("Меган, герцогиня ...")."""
    words = words_of(subject)
    common = [w for w in words if re.match(r"[а-яё]{3,}$", w) and w not in _RU_PREPOSITIONS]
    if re.search(r"[A-Za-z]", subject) or not common:
        return None  # "Тур де Франс": a name; "де" is no common word
    at = next(
        (j for j, w in enumerate(words)
         if len(w) >= 3 and not re.search(r"\d", w) and not _RU_MODIFIER_END.search(w.casefold())),
        None,
    )  # fmt: skip
    if at is None or (at > 0 and not words[at][:1].islower()):
        return None
    if at == 0 and re.match(rf"\s*{re.escape(words[0])}\s*,", subject):
        return None  # "Меган, герцогиня Сассекская": a name and what it is
    kept = [
        (j, w) for j, w in enumerate(words)
        if j != at and (re.search(r"\d", w) is not None or (
            len(w) >= 3 and w.casefold() not in _RU_PREPOSITIONS
            and _YEAR_WORDS.match(w.casefold()) is None))
    ]  # fmt: skip
    names = [w for j, w in kept if j > 0 and w[:1].isupper()]
    return (words[at], [w for _, w in kept], names) if kept else None


def head_reference(claim: str, subject: str) -> Reference | None:
    """A Russian claim that holds the head noun of the section's subject bare, without what
    tells the subject apart (`_ru_head`: "В результате войны Карфаген потерял ..." under "Вторая
    Пуническая война"): a category noun whose owner is the section, so the claim carries it
    (`carry` asks `mentions` first). A head with a modifier of its own names another one
    ("ртутную лампу", "лампы дневного света" under "Люминесцентная лампа"): None, as without
    the head."""
    headed = _ru_head(_bare_subject(subject))
    if headed is None:
        return _ownerless(claim)
    lowered = claim.casefold()
    hit = _inflected(headed[0], lowered, 3)
    if hit is None:  # "вуз", "институт" under "... университет" stand for it too (title_ru)
        kin = title_ru.family_reference(claim, headed[0])
        return Reference("category", *kin) if kin else _ownerless(claim)
    marks = " ".join(headed[1]).casefold()
    near = re.findall(r"[^\W\d_]+", lowered[: hit.start()])[-1:]
    near += re.findall(r"[^\W\d_]+", lowered[hit.end() :])[:1]
    for w in near:
        if _RU_ADJECTIVE_END.search(w) and _inflected(w, marks) is None:
            return None  # "ртутную лампу": a modifier the subject does not have
    return Reference("category", hit[0], hit.start())


def _ownerless(claim: str) -> Reference | None:
    """A relational noun with no owner ("пример прадеда — ...", "Наибольшее расстояние с севера
    на юг ...": `bare_ru.ownerless`): its owner is the section's subject, carried like a head."""
    found = bare_ru.ownerless(claim)
    return Reference("category", found[0], found[1]) if found else None


def head_missing(claim: str, subject: str) -> bool:
    """Whether a subjectless claim ("Проявляется такими симптомами, как трудности концентрации
    внимания, гиперактивность ...", under "Синдром дефицита внимания и гиперактивности") lacks
    the subject's head noun: its verb opens it with no subject before, so the subject's other
    words in it ("внимания", "гиперактивность") are objects and complements, not its subject,
    and `carry.mentions` counting them is no sign that the claim names it. Only a claim whose
    first word is the verb: after a leading adverbial the subject often follows the verb ("14
    июня 1952 в США была заложена первая в мире АПЛ ..."). A subject without a common-noun head
    (a name), or one whose initials the claim holds ("АПЛ", "ИППО"), is left to `mentions`."""
    words = words_of(claim)
    if not words or not (_verb(words[0].casefold()) or words[0].casefold() in _BE):
        return False  # "Был совершён ... лётчиками Джоном Алкоком и Артуром Брауном" too
    bare = _bare_subject(subject)
    parts = [w for w in re.split(r"[\s-]+", bare) if w[:1].isalpha()]
    for initials in {
        "".join(w[0] for w in ws).upper() for ws in (parts, [w for w in parts if len(w) > 1])
    }:
        if len(initials) >= 2 and re.search(r"(?<!\w)" + initials + r"(?!\w)", claim):
            return False  # "СДВГ" of "Синдром дефицита внимания и гиперактивности"
    headed = _ru_head(bare)
    if headed is None or _inflected(headed[0], claim.casefold(), 3) is not None:
        return verbfirst_ru.named_obliquely(claim, bare)  # "Является частью герцогства Ланкашир"
    return True
