"""Gender and number agreement between a carried subject and what a Russian claim says of it
(pure logic): `distill.carry` carries the section's subject onto a claim with no subject of its
own only when the claim's words can stand for it.

Russian marks the subject on its pronouns ("его/её/их") and on a past verb or short participle
("был/была/были", "родился/родилась", "назван/названа/названы"): "Михаил Александрович
Шолохов: долгое время была в услужении ..." is wrong (the feminine "была" is his mother, the
sentence before), and so is "Normans: ... его население". The checks are cheap and partial on
purpose: only a clear mismatch stops a carry. A neuter verb without a subject is impersonal
("Было решено ..."), an active plural one indefinite ("Его назвали в честь деда"), a present
one says only its number: none of those stops anything. The subject's form: a person's
patronymic ("-вич" / "-вна", "-ична") or surname ("-ов/-ин/-ский" / "-ова/-ина/-ская"), a
leading adjective ("Сельское поселение ..."), one word's ending, a plural first word; a
Latin-script title has a number at most.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.words_ru import _RU_ADVERBS, _RU_PREPOSITIONS, _YEAR_WORDS, _verb

_DISAMBIGUATOR = re.compile(r"\s*\([^()]*\)\s*$")

# Russian third-person pronouns by what they agree with: a singular masculine or neuter owner
# ("его"), a singular feminine one ("её"), or a plural one ("их"). "им"/"ним" are both a plural
# dative and a singular instrumental: they say nothing.
_RU_PRONOUN_FORMS = {
    **dict.fromkeys(("он", "оно", "его", "ему", "него", "нему", "нём", "нем"), ("sg", "mn")),
    **dict.fromkeys(("она", "её", "ее", "ей", "неё", "нее", "ней", "нею", "ею"), ("sg", "f")),
    **dict.fromkeys(("они", "их", "них", "ими"), ("pl", "")),
}
_EN_NOT_PLURAL = re.compile(r"(?:ss|us|is|ics|ous|ws)$")


def _subject_form(subject: str) -> tuple[str, str]:
    """The subject's number and, for one Russian word, its gender ("" when it is not clear):
    what a carried pronoun must agree with. Cheap and partial on purpose. A Russian first word
    in "-ы"/"-ые" is plural ("Норманны", "Звёздные войны"); in "-а/-я/-о/-е", a consonant, "-й"
    or "-ь" singular; in "-и"/"-ие" unclear ("Сочи", "Колонии", "Восстание", "Великие озёра").
    An English head in "-s" is plural ("Normans"), not "-ss/-us/-is/-ics" ("Physics", "Texas").
    Gender only for a lone Russian word: "-а/-я" feminine, a consonant or "-о/-е" masculine or
    neuter ("Москва: его население" is not Moscow's)."""
    words = words_of(_DISAMBIGUATOR.sub("", subject))
    if not words:
        return "", ""
    if re.match(r"[А-Яа-яЁё]", words[0]):
        first = words[0].casefold()
        plural, unclear = first.endswith(("ы", "ые")), first.endswith(("и", "ие"))
        number = "pl" if plural else "" if unclear else "sg"
        gender = ""
        if len(words) == 1 and number == "sg":
            gender = "f" if first.endswith(("а", "я")) else "" if first.endswith("ь") else "mn"
        return number, gender
    head = words[-1].casefold()
    if len(words) > 3 or not head.isascii():
        return "", ""
    plural_en = len(head) > 3 and head.endswith("s") and not _EN_NOT_PLURAL.search(head)
    return ("pl" if plural_en else "sg"), ""


def agrees(pronoun: str, subject: str) -> bool:
    """Whether a Russian pronoun can stand for the subject (`_subject_form`); any other word,
    and a subject whose form is unclear, agrees: only a clear mismatch stops a carry."""
    form = _RU_PRONOUN_FORMS.get(pronoun.casefold())
    if form is None:
        return True
    number, gender = _subject_form(subject)
    if number and number != form[0]:
        return False
    return not (gender and form[1] and gender != form[1])


_PERSON_WORD = re.compile(r"^[А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?$")
_MALE = re.compile(r"(?:вич|ьич|ов|ев|ёв|ин|ын|ский|цкий|ской|ной)$")
_FEMALE = re.compile(r"(?:вна|чна|ова|ева|ёва|ина|ына|ская|цкая|ая)$")


def person_gender(subject: str) -> str:
    """A person's gender from a name of two or three Cyrillic words: the patronymic first
    ("Анастасия Даниловна Черняк" "f"), else the surname ("Михаил Шолохов" "m"); "" when no
    such name or no clear ending."""
    words = words_of(_DISAMBIGUATOR.sub("", subject))
    if not 2 <= len(words) <= 3 or not all(_PERSON_WORD.match(w) for w in words):
        return ""
    for w in (words[1:2] if len(words) == 3 else []) + words[-1:]:
        low = w.casefold()
        if _FEMALE.search(low):
            return "f"
        if _MALE.search(low):
            return "m"
    return ""


_ADJ_GENDER = (("ый", "m"), ("ий", "m"), ("ой", "m"), ("ая", "f"), ("яя", "f"), ("ое", "n"),
               ("ее", "n"))  # fmt: skip


def subject_form(subject: str) -> tuple[str, str]:
    """The number `_subject_form` reads, and a gender a verb can be checked against: a person's
    name (`person_gender`), one word with a surname's ending ("Шолохов", "Ахматова"), or a
    leading adjective ("Сельское поселение Пышлицкое"). A lone word's "-а" is no gender here:
    "Росомаха (Marvel Comics)" is a man, "Никита", "Илья" are too."""
    number, _ = _subject_form(subject)
    person = person_gender(subject)
    if person:
        return "sg", person
    words = words_of(_DISAMBIGUATOR.sub("", subject))
    gender = ""
    if number == "sg" and len(words) == 1 and _PERSON_WORD.match(words[0]):
        low = words[0].casefold()
        gender = "f" if _FEMALE.search(low) else "m" if _MALE.search(low) else ""
    elif number == "sg" and len(words) >= 2:
        first = words[0].casefold()
        gender = next((g for end, g in _ADJ_GENDER if first.endswith(end) and len(first) > 4), "")
    return number, gender


# A past verb's gender and number: "была" f, "родился" m, "были" pl. Plural only for a form of
# "быть"/"стать" ("были отправлены"): an active "-ли" without a subject is indefinite
# ("назвали"). Neuter ("было решено") is impersonal: None. A short participle alone is not read:
# its forms are those of nouns too often ("орбиты", "страна", "цены").
_PAST = re.compile(r"^[а-яё]+?(?:([аяеиыуё]л|[аяеиыуё]лся)|(ла|лась))$")  # "школ" is a noun
_BE_PLURAL = frozenset(("были", "стали"))
_BE = {"был": ("sg", "m"), "стал": ("sg", "m"), "была": ("sg", "f"), "стала": ("sg", "f"),
       "было": None, "стало": None, **dict.fromkeys(_BE_PLURAL, ("pl", ""))}  # fmt: skip


def verb_form(word: str) -> tuple[str, str] | None:
    """(number, gender) the verb asks of its subject, or None when it asks nothing clear."""
    w = word.casefold()
    if w in _BE:
        return _BE[w]
    m = _PAST.match(w)
    if m and _verb(w):
        return ("sg", "m") if m[1] else ("sg", "f")
    return None


# The words of a nominal that can be the verb's own subject, by their ending: "время" and the
# other "-мя" nouns are neuter, "-ь" may be either.
_NOMINAL_GENDER = (
    ("мя", "n"), ("ость", "f"), ("ь", "mf"), ("ая", "f"), ("яя", "f"), ("ый", "m"), ("ий", "m"),
    ("ой", "m"), ("ое", "n"), ("ее", "n"), ("ые", "p"), ("ие", "p"), ("а", "f"), ("я", "f"),
    ("о", "n"), ("е", "n"), ("ы", "p"), ("и", "p"),
)  # fmt: skip


_OBLIQUE_NOUN = ("ом", "ем", "ём", "ов", "ев", "ам", "ям", "ах", "ях", "ами", "ями", "ию", "ью")


def _could_be_subject(word: str, form: tuple[str, str]) -> bool:
    w = word.casefold()
    if not w.isalpha() or w in _RU_ADVERBS or w in _RU_PREPOSITIONS or _YEAR_WORDS.match(w):
        return False
    if w.endswith(_OBLIQUE_NOUN):
        return False  # "приказчиком", "в услужении": no nominative
    gender = next((g for end, g in _NOMINAL_GENDER if w.endswith(end)), "m")
    if form[0] == "pl":
        return "p" in gender
    return form[1] in gender


_CLAUSE_END = re.compile(r"[,.;:!?()«»—–]")
_AFTER_VERB = 4


def _own_subject(claim: str, at: int, form: tuple[str, str]) -> bool:
    """Whether a word of the claim can be the verb's own subject: before the verb (lower case,
    or the first word: "Гигантское полотно было закончено"; two joined by "и" for a plural:
    "красный и зелёный были выбраны"), or right after it, up to a preposition or the clause's
    end ("по проспекту начала ходить конка", "были Макджи, Роберт Сингер")."""
    raw = words_of(claim)
    before = [w for k, w in enumerate(raw[:at]) if k == 0 or not w[:1].isupper()]
    if form[0] == "pl" and "и" in (w.casefold() for w in raw[:at]):
        return True
    if any(_could_be_subject(w, form) for w in before):
        return True
    verb = raw[at]
    tail = claim[claim.find(verb) + len(verb) :] if verb in claim else ""
    for w in words_of(_CLAUSE_END.split(tail, maxsplit=1)[0])[:_AFTER_VERB]:
        low = w.casefold()
        if low in _RU_PREPOSITIONS:
            break
        if _verb(low) or low.endswith(("ть", "ться", "чь")):
            continue  # "были отправлены", "начала ходить": the predicate goes on
        if _could_be_subject(w, form):
            return True
    return False


# A word after an oblique noun or adjective is its genitive owner more often than a verb:
# "продюсерами телесериала" (a noun in "-ла"), "в составе совета"; "семьёй переехала" is lost,
# which only spares a carry.
_OBLIQUE = ("ыми", "ими", "ами", "ями", "ого", "его", "ой", "ей", "ых", "их", "ов", "ев", "ом",
            "ем", "ам", "ям", "ах", "ях")  # fmt: skip


def first_verb(claim: str) -> tuple[int, str] | None:
    """The claim's first finite verb among its first 12 words, with its index (`_OBLIQUE`)."""
    raw = words_of(claim)
    for i, w in enumerate(raw[:12]):
        low = w.casefold()
        if not (i == 0 or w[:1].islower()) or not (low in _BE or _verb(low)):
            continue
        prev = raw[i - 1].casefold() if i else ""
        if low not in _BE and prev.endswith(_OBLIQUE) and prev not in _RU_ADVERBS:
            continue
        if prev in _RU_PREPOSITIONS:
            continue  # "для школ": a preposition's object
        return i, low
    return None


def verb_disagrees(claim: str, subject: str) -> bool:
    """Whether the claim's verb asks for a subject other than `subject` (module docstring): its
    gender or number is clear, no word before it can be its own subject, and the subject's form
    is clear and different."""
    found = first_verb(claim)
    if found is None:
        return False
    at, verb = found
    form = verb_form(verb)
    if form is None:
        return False
    if _own_subject(claim, at, form):
        return False  # "Гигантское полотно было закончено": its own subject
    number, gender = subject_form(subject)
    if number and number != form[0]:
        return True
    return bool(form[0] == "sg" and gender and form[1] not in gender)


# Relatives whose sentence a subjectless one goes on about ("Мать — Анастасия Даниловна ...
# Долгое время была в услужении ..."): Russian drops a subject that the sentence before named,
# and a biography names a relative only to say something of them.
_KIN = {
    **dict.fromkeys(("мать", "дочь", "жена", "сестра", "супруга", "бабушка", "тётя", "тетя",
                     "невеста", "вдова", "мачеха"), "f"),
    **dict.fromkeys(("отец", "сын", "муж", "брат", "супруг", "дед", "дедушка", "дядя", "жених",
                     "отчим"), "m"),
}  # fmt: skip
_OWNERS = ru.OWNERS


def continues_relative(sentence: str, before: str) -> bool:
    """Whether a sentence with no subject of its own goes on about the relative the sentence
    before opens with ("Мать — ...", "Его отец работал ..."): its verb agrees with that
    relative's gender, and no word before the verb can be its own subject."""
    words = [w.casefold() for w in words_of(before)[:3]]
    if words and words[0] in _OWNERS:
        words = words[1:]
    gender = _KIN.get(words[0]) if words else None
    found = first_verb(sentence)
    if gender is None or found is None:
        return False
    at, verb = found
    form = verb_form(verb)
    return form == ("sg", gender) and not _own_subject(sentence, at, form)


# A short sentence whose subject is one bare plural noun ("Проблемы возникли почти сразу же."):
# which problems, and in what, is the sentence before's; Russian has no article to say so. A
# singular noun first may be a name ("Москва была основана ..."), so only a plural noun (-ы,
# -и, -ия) before a plural verb (past "-ли", present "-ют/-ят/-ут/-ат") is read; a modifier
# or a name of its own ("Первые испытания прошли ...", "Испытания «Аполлона» ...") says which.
_BARE_MAX_WORDS = 6
_PLURAL_NOUN = re.compile(r"^[А-ЯЁ][а-яё]{3,}(?:ы|и|ия|ья)$")
_PLURAL_VERB = re.compile(r"^[а-яё]{3,}(?:ли|лись|ют|ят|ут|ат|ются|ятся|утся|атся)$")
_ADJECTIVE_PLURAL = re.compile(r"(?:ые|ие|ых|их)$")


def bare_plural_subject(sentence: str) -> bool:
    """The rule above: at most six words, the first a plural noun alone, the second its verb."""
    raw = words_of(sentence)
    if not 2 <= len(raw) <= _BARE_MAX_WORDS or not _PLURAL_NOUN.match(raw[0]):
        return False
    first, verb = raw[0].casefold(), raw[1].casefold()
    if first in _RU_ADVERBS or _ADJECTIVE_PLURAL.search(first) or _verb(first):
        return False
    return verb in _BE_PLURAL or (_PLURAL_VERB.match(verb) is not None and _verb(verb))
