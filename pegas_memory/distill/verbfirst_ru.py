"""Russian claims with no subject of their own: the words that say so (pure logic; `distill.carry`
and `distill.head_ru` ask these, `distill.nearer_ru` reads the verb's form).

A Russian Wikipedia passage names its subject once and then goes on without it: "Является частью
герцогства Ланкашир, ...", "В середине 1930-х годов были установлены связи с ...", "После
окончания войны интернирован ...". Three readings kept such claims from carrying a subject:

- **A number with a case ending is a time, not a name** (`time_number`): "1930-х", "1990-е",
  "1937-го", "4-х", "180-е" (a decade, a year, an ordinal with its ending). Rule 4 of
  `distill.carry` took a word with digits for a name ("Ан-22", "Boeing 747"), so "В середине
  1930-х годов были установлены связи ..." seemed to name its subject and carried nothing. A
  name with digits has letters before them or none after a hyphen ("Ан-22", "Су-27", "2ГИС").
- **A verb first, the subject's name only in an oblique phrase** (`named_obliquely`): a claim
  whose first word is its verb has no subject before it, so the section's name later in it
  ("частью герцогства Ланкашир" under "Ланкашир", "в городе Гроттаферрата" under "Гроттаферрата
  (монастырь)", "членами НАТО", "конусов ...: Большого Арарата") names another thing or an
  owner, not the verb's subject: the claim still carries the section's subject. A name right
  after the verb or after a conjunction, an adverb or punctuation is the verb's subject
  ("Похоронен Михаил Шолохов ...", "Полагают, что Уран имеет ...", "Обнаружены также вирусы"):
  it names the section, as before.
- **A short participle's number and gender** (`participle_form`): "интернирован" (one, masculine
  or a ship), "затоплена", "построено", "отремонтированы". `distill.agree_ru` reads the past
  and "был/была/были" only, since a short participle's forms are often nouns' too ("страна",
  "цены"); here only the forms a noun hardly has are read (`_PARTICIPLE`), and only for
  `distill.nearer_ru`, which needs a clear verb before it looks for a named subject.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.agree_ru import subject_form
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.words_ru import _RU_ADVERBS, _verb

# "1930-х", "1990-е", "1937-го", "4-х", "5-й", "1920-30-х": digits (a range too), a hyphen and a
# case ending of one to three Cyrillic letters.
_TIME_NUMBER = re.compile(r"^\d+(?:[-–—]\d+)?-[а-яё]{1,3}$", re.IGNORECASE)


def time_number(word: str) -> bool:
    """Whether a word with digits is a number with a case ending (module docstring)."""
    return _TIME_NUMBER.match(word) is not None


def numbered_name(word: str) -> bool:
    """A word with digits that may be a name ("Ан-22", "2ГИС"), not a time (`time_number`)."""
    return re.search(r"\d", word) is not None and not time_number(word)


_DISAMBIGUATOR = re.compile(r"\s*\([^()]*\)\s*$")
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_SUBJECT_AFTER = ru.SUBJECT_AFTER
_ADJECTIVE = re.compile(r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ую|юю)$")
_SUBJECT_WORDS = 4  # a longer subject (a paper's title) is left to `carry.mentions`


def _stems(subject: str) -> list[tuple[str, int]]:
    """The subject's name words as (stem, longest form): cases count ("Ланкашира", "Арарата"),
    a derived word does not ("ланкаширский"). Its capitalised words, or all of them."""
    words = [w for w in words_of(_DISAMBIGUATOR.sub("", subject)) if len(w) >= 3]
    if not 0 < len(words) <= _SUBJECT_WORDS:
        return []
    named = [w for w in words if not w.isdigit() and w[:1].isupper()] or words
    return [(w.casefold()[: max(4, len(w) - 2)], len(w) + 2) for w in named]


def _is_name_word(token: str, stems: list[tuple[str, int]]) -> bool:
    low = token.casefold()
    return any(low.startswith(stem) and len(low) <= most for stem, most in stems)


_OWN_SUBJECT_AFTER = ru.OWN_SUBJECT_AFTER
_IMPERSONAL = ru.IMPERSONAL
_EL_NOUNS = ru.EL_NOUNS
_BE = ru.VERBFIRST_BE
_PLURAL_FORM = re.compile(r"(?:ли|лись|ют|ят|ут|ат|ются|ятся|утся|атся|ны|ты)$")


def opens_on_verb(claim: str, plural: bool) -> bool:
    """Whether the claim's first word is its finite verb or short participle, with no subject
    before it: not a plural form unless the subject is plural (`plural`; "Автомобили", "Стены",
    "Детали" are nouns, "Различают ..." is anyone), nor a verb whose subject follows it or an
    impersonal opener (above)."""
    tokens = _TOKEN.findall(claim)
    if len(tokens) < 2:
        return False
    first = tokens[0].casefold()
    if not (_verb(first) or first in _BE) or first in _OWN_SUBJECT_AFTER or first in _EL_NOUNS:
        return False
    plural_form = _PLURAL_FORM.search(first) is not None and first != "были"
    return first not in _IMPERSONAL and (plural or not plural_form)


def named_obliquely(claim: str, subject: str) -> bool:
    """Whether a claim that opens on its verb (`opens_on_verb`, plural forms for a plural
    subject only) names the subject only in oblique
    phrases (module docstring): every run of the subject's name words follows a noun, a
    preposition or another name. False when the subject is not in the claim, or when a run
    follows the verb, a conjunction, an adverb, a lower-case adjective ("чистое кварцевое
    стекло": the noun itself) or punctuation."""
    tokens = list(_TOKEN.finditer(claim))
    if not opens_on_verb(claim, subject_form(subject)[0] == "pl"):
        return False
    stems = _stems(subject)
    runs = 0
    k = 1
    while k < len(tokens):
        if not _is_name_word(tokens[k][0], stems):
            k += 1
            continue
        runs += 1
        prev = tokens[k - 1]
        between = claim[prev.end() : tokens[k].start()]
        word = prev[0]
        low = word.casefold()
        if re.search(r"[^\s«\"„“]", between) or k - 1 == 0:
            return False  # after punctuation, or right after the verb: its subject
        if low in _SUBJECT_AFTER or low in _RU_ADVERBS or _verb(low):
            return False  # "..., что Уран имеет", "Обнаружены также вирусы"
        if word[:1].islower() and _ADJECTIVE.search(low) and tokens[k][0][:1].islower():
            return False  # "кварцевое стекло": the subject's noun with a modifier
        while k < len(tokens) and _is_name_word(tokens[k][0], stems):
            k += 1  # the rest of the name: "Михаил Шолохов"
    return runs > 0


# A short passive participle a noun hardly ends like: "-ован/-ирован" (организован), a
# consonant before "-ан/-ен" or "о" before "-ен" (назван, создан, затоплен, построен), "-ён",
# "-нут" (отвергнут), "-ыт" after "кр/м/в/б/л" (открыт, забыт; not "опыт", "быт"); its ending
# gives number and gender: none masculine, "-а" feminine, "-о" neuter, "-ы" plural. "-мен/-ген"
# (феномен, рентген), "-ан" after a vowel or "р/л/м/г" (океан, экран, роман, ураган) and the
# nouns listed are read as no participle.
_PARTICIPLE = re.compile(
    r"^[а-яё]{2,}(?:ирован|ован|ёван|еван|[бвдзкпстфчшщжн]ан|[бвдзкпстфхчшщжлнро]ен|ён|нут"
    r"|(?:кр|м|в|б|л)ыт)(?P<end>а|о|ы)?$"
)
_NOT_PARTICIPLE = ru.NOT_PARTICIPLE
_FORMS = {None: ("sg", "m"), "а": ("sg", "f"), "о": ("sg", "n"), "ы": ("pl", "")}


def participle_form(word: str) -> tuple[str, str] | None:
    """(number, gender) a short participle asks of its subject ("интернирован" sg m,
    "затоплена" sg f, "построено" sg n, "отремонтированы" pl), or None."""
    low = word.casefold()
    m = _PARTICIPLE.match(low)
    if m is None or low in _NOT_PARTICIPLE or low.rstrip("аоы") in _NOT_PARTICIPLE:
        return None
    return _FORMS[m["end"]]
