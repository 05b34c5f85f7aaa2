"""Russian sentences that lean on a thing the sentence before introduced, told by grammar (pure
logic; `context.leans_back` asks `leans` with the sentence before, `head_ru.head_reference`
asks `ownerless` for `carry`).

Russian has no article: a common noun alone plays "the N" of English, so a TyDi passage's title
carried on it ("Смартфон: ... аппарат не получил ...") is right but not enough, the device is
the one the sentence before named. Such sentences join the sentence before:
- **a bare noun as subject**: a singular common noun with nothing that tells which one (no
  adjective or demonstrative before it, no complement after it: the next word is its verb or
  an adverb), at the sentence's start or after a leading adverbial that opens with a
  preposition or a date and ends in punctuation ("Сюжет шел ...", "Синдром в основном может
  ...", "Вследствие ... (более 1 кг) аппарат не получил ..."). A plural verb is a generic
  statement ("Собаки лают"); a category noun ("Фильм", "Город") is the section's own kind,
  which the carry gives; a capitalised word past the first is a name, and so is a first word
  the sentence before holds capitalised ("Мьюр ... . Мьюр также убедил ..."); after a
  sentence about the passage's subject (`_about_subject`: no subject of its own, or a
  pronoun) a first word is the title's name. A date's noun ("году") is no subject, an
  instrumental before "был/стал" is a predicate ("Композитором был ...") and before a
  reflexive verb an agent ("Законом признаётся ..."), and "является" / "представляет собой"
  define their subject.
- **an existential of parts** ("Клавиш управления не было, ..."): a noun phrase, then "не было":
  the parts of the thing just told.
- **a temporal anaphor** opening the sentence ("С тех пор ...", "После этого", "В то время",
  "К тому времени", "Тогда же", "До этого"): the time is the sentence before's.
- **an ordinal with a bare noun** ("на второй шкале", "третий график", "первый вариант"): a
  member of a series the sentence before introduced.

A dateless sentence right after a chronology's entry ("1933 — ... . Всего в вузе действует уже
13 кафедр.") joins it as well: its time is the entry's (`anchor_ru`).

A relational noun with no owner ("... фильмов серии с ...", "пример прадеда — ...",
"Наибольшее расстояние с севера на юг — ...": whose series, great-grandfather, distance) has the
passage's subject as owner: `ownerless` finds it and the claim carries the title.
"""

from __future__ import annotations

import re

import pegas_memory.distill.anchor_ru as anchor_ru
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.words_ru import (
    _RU_ADVERBS,
    _RU_CATEGORY,
    _RU_DEMONSTRATIVES,
    _RU_PREPOSITIONS,
    _RU_PRONOUNS,
    _YEAR_WORDS,
    _verb,
)

_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|\d+|[^\w\s]")
_CYRILLIC = re.compile(r"^[А-ЯЁа-яё]+$")
_LEAD_PREPOSITIONS = ru.LEAD_PREPOSITIONS
_SHORT_PAST = ru.SHORT_PAST
_PLURAL_VERB = re.compile(r"(?:ли|лись|ют|ят|ут|ат|ются|ятся|утся|атся)$")
_IDIOM_ADVERBS = ru.IDIOM_ADVERBS
_CONJUNCTIONS = ru.BARE_CONJUNCTIONS
# An adjective's, participle's or ordinal's ending; "-ом", "-ем" are left out, nouns end so in
# the nominative too ("Синдром", "альбом").
_MODIFIER_END = re.compile(
    r"(?:ый|ий|ой|ая|яя|ое|ее|ые|ие|ого|его|ому|ему|ую|юю|ых|их|ым|ыми|ими|ья|ье|ьи)$"
)
_OBLIQUE = re.compile(r"(?:а|я|у|ю|е|ов|ев|ой|ей|ом|ем|ам|ям|ами|ями|ах|ях|ых|их|ого|его)$")
_SINGULAR = ru.SINGULAR
_PLACE_ADVERBS = ru.PLACE_ADVERBS
_ADVERB_END = re.compile(r"(?:ьно|вно|чно|тно|жно|йно|нно|ски)$")  # "Серийно произведено"
_PAST = re.compile(r"л(?:а|о|и)?(?:сь|ся)?$")
_FIRST_WORDS = 14
_AUXILIARIES = ru.AUXILIARIES


def _tokens(sentence: str) -> list[str]:
    return _TOKEN.findall(sentence)


def _finite(word: str) -> bool:
    w = word.casefold()
    return w in _SHORT_PAST or _verb(w)


def _noun_like(word: str) -> bool:
    """A singular common noun by its shape, right before a finite verb: Cyrillic, no modifier
    ending, no past verb's ending (a present one is a noun's too: "аппарат"), no pronoun,
    adverb or preposition, not a plural in -ы/-и."""
    w = word.casefold()
    return (
        len(w) >= 4
        and _CYRILLIC.match(w) is not None
        and _MODIFIER_END.search(w) is None
        and _PAST.search(w) is None
        and w not in _RU_ADVERBS | _RU_PREPOSITIONS | _RU_PRONOUNS | _RU_DEMONSTRATIVES
        and w not in _CONJUNCTIONS
        and not w.endswith(("ы", "и"))
        and _ADVERB_END.search(w) is None
        and w not in _PLACE_ADVERBS
    )


_BE = ru.BARE_BE
_INSTRUMENTAL = re.compile(r"(?:ом|ем|ой|ей|ью|им|ым|ами|ями)$")
_DEFINING = re.compile(r"^(?:явля\w*|представля[ел]\w*|называ\w*)$")  # a definition


def _named_before(word: str, before: str) -> bool:
    """Whether `before` holds `word` capitalised past its first word: a name repeated."""
    stem = word[: max(4, len(word) - 2)]
    return any(w.startswith(stem) for w in re.findall(r"(?<=[\s(«\"])[А-ЯЁ][а-яё]+", before))


def bare_subject(sentence: str, before: str = "") -> bool:
    """The first rule of the module docstring; `before` is the sentence before."""
    tokens = _tokens(sentence)[: _FIRST_WORDS * 2]
    words = [i for i, t in enumerate(tokens) if t[:1].isalpha()]
    if not words:
        return False
    # A word shaped like a verb before "не" or another verb is the subject ("аппарат не получил")
    nexts = dict(zip(words, [*(tokens[k].casefold() for k in words[1:]), ""], strict=True))
    verb = next(
        (i for i in words[:_FIRST_WORDS]
         if tokens[i][:1].islower() and _finite(tokens[i])
         and not (nexts[i] == "не" or _finite(nexts[i]))),
        None,
    )  # fmt: skip
    if verb is None or _PLURAL_VERB.search(tokens[verb].casefold()):
        return False
    j = verb - 1
    while j >= 0 and (
        tokens[j].casefold() in _RU_ADVERBS | _AUXILIARIES
        or (tokens[j].casefold() in _IDIOM_ADVERBS and j > 0 and tokens[j - 1].casefold() == "в")
    ):
        j -= 2 if tokens[j].casefold() in _IDIOM_ADVERBS else 1
    noun = tokens[j].casefold() if j >= 0 else ""
    if not _noun_like(noun) or _RU_CATEGORY.match(noun) or _YEAR_WORDS.match(noun):
        return False
    said = tokens[verb].casefold()
    if _DEFINING.match(said) or (
        _INSTRUMENTAL.search(noun) and (said in _BE or said.endswith(("ся", "сь")))
    ):
        return False  # "Композитором был ...", "Законом признаётся ...": no subject
    if j == 0:
        same = next((t for t in _tokens(before) if t[:1].isalpha()), "")
        named = _named_before(tokens[0], before) or same[:4] == tokens[0][:4]
        return tokens[0][:1].isupper() and not named
    return _after_adverbial(tokens, words, j)


def _about_subject(before: str) -> bool:
    """Whether the sentence before speaks of the passage's subject, introducing nothing: it opens
    on its verb ("Относится к ...", "Занимал важные посты ...") or a singular personal pronoun
    ("Он граничит ...": "Они страдают ..." are others, and a bare singular noun after it is
    no name of theirs), or on a prepositional phrase whose last word before the verb is oblique
    ("После кончины Юлиана Отступника был провозглашён ..."): no subject of its own."""
    tokens = _tokens(before)
    words = [t for t in tokens if t[:1].isalpha()]
    first = words[0] if words else ""
    if first.casefold() in _SINGULAR or (first[:1].isupper() and _finite(first)):
        return True
    if first.casefold() not in _LEAD_PREPOSITIONS:
        return False
    verb = next((k for k, w in enumerate(words[:_FIRST_WORDS]) if k and w[:1].islower()
                 and _finite(w)), None)  # fmt: skip
    return verb is not None and _OBLIQUE.search(words[verb - 1].casefold()) is not None


def _after_adverbial(tokens: list[str], words: list[int], j: int) -> bool:
    """The noun at `j` after a leading adverbial (the first rule)."""
    if tokens[j][:1].isupper():
        return False  # a name
    # After a leading adverbial that ends in punctuation ("... (более 1 кг) аппарат"); a noun
    # before it is its head ("класс киноринх подразделяется"), and after a date the noun is
    # most often the title's own ("В 1886 году парк был продлён ...").
    lead = tokens[0].casefold()
    return (
        tokens[j - 1] in (",", ")")
        and j > 1
        and (lead in _LEAD_PREPOSITIONS or lead.isdigit())
        and not any(_finite(tokens[i]) for i in words if i < j)
    )


_EXISTENTIAL = re.compile(
    r"^\s*[А-ЯЁ][а-яё]+(?:\s+[а-яё]+)?\s+не\s+(?:было|имелось|существовало)\b", re.IGNORECASE
)


def parts_absent(sentence: str) -> bool:
    """The second rule: "Клавиш управления не было": a noun phrase, then "не было"."""
    m = _EXISTENTIAL.match(sentence)
    if m is None:
        return False
    first = sentence.split()[0].casefold()
    return first not in _RU_PREPOSITIONS | _RU_PRONOUNS | _RU_DEMONSTRATIVES | _RU_ADVERBS


_TEMPORAL = re.compile(
    r"^\s*(?:(?:а|и|но)\s+)?(?:с\s+тех\s+пор|после\s+этого|в\s+то\s+время(?!\s*,?\s*как)"
    r"|к\s+тому\s+времени|тогда\s+же|до\s+этого|с\s+этого\s+времени|с\s+того\s+времени"
    r"|к\s+этому\s+времени|в\s+это\s+время)\b",
    re.IGNORECASE,
)


def temporal(sentence: str) -> bool:
    """The third rule: a temporal anaphor opens the sentence."""
    return _TEMPORAL.match(sentence) is not None


_ORDINAL = re.compile(
    r"^(?:перв|втор|трет|четв[её]рт|пят|шест|седьм|восьм|девят|десят)"
    r"(?:ый|ой|ая|ое|ые|ого|ому|ом|ую|ых|ым|ыми|ий|ья|ье|ьи|ьего|ьей|ьему|ьем|ьём|ью|ьим|ьих)$"
)
_ORDINAL_WORDS = 3  # the clause's opening: "На второй шкале ...", "Третий график ..."
_PLURAL_ORDINAL = re.compile(r"(?:ые|ых|ым|ыми|ьи|ьих|ьим|ьими)$")
_MONTH = re.compile(
    r"^(?:январ|феврал|март|апрел|ма[йяе]|июн|июл|август|сентябр|октябр|ноябр|декабр)"
)
_NOT_SERIES = ru.NOT_SERIES


def ordinal_bare(sentence: str) -> bool:
    """The fourth rule: a singular ordinal among the first three words, a noun right after it,
    and after the noun nothing that tells which series: the sentence's end, a preposition
    (not of a date: "в ноябре 1917"), a verb or a conjunction. A comma, a bracket, a quote or
    a number after the noun may bring its complement ("Первым реактором, построенным ...",
    "первой ленты 1978 года")."""
    tokens = _tokens(sentence)
    words = [i for i, t in enumerate(tokens) if t[:1].isalpha()][:_ORDINAL_WORDS]
    for i in words:
        if _PLURAL_ORDINAL.search(tokens[i].casefold()):
            continue  # "Первые проблемы ...": a set, not a member of a series
        if _ORDINAL.match(tokens[i].casefold()) is None or i + 1 >= len(tokens):
            continue
        if "(" in tokens[:i]:
            continue  # an aside in brackets ("(первый брак с ... был бездетным)")
        noun = tokens[i + 1].casefold()
        if not tokens[i + 1][:1].islower() or _MODIFIER_END.search(noun) or len(noun) < 4:
            continue
        if _finite(noun) or _PAST.search(noun):
            continue  # "первым предположил": an adverbial ordinal before its verb
        if noun in _NOT_SERIES or _YEAR_WORDS.match(noun) or noun in _RU_PREPOSITIONS:
            continue
        after = tokens[i + 2].casefold() if i + 2 < len(tokens) else "."
        later = tokens[i + 3].casefold() if i + 3 < len(tokens) else ""
        dated = later[:1].isdigit() or _YEAR_WORDS.match(later) or _MONTH.match(later)
        if after in ".!?" or (after in _RU_PREPOSITIONS and not dated):
            return True
        if after in _CONJUNCTIONS or _finite(after):
            return True
    return False


def leans(sentence: str, before: str | None) -> bool:
    """Whether the sentence leans on a thing the sentence before (`before`, within its
    paragraph) introduced (the four rules), or on its year (`anchor_ru`: a chronology's entry
    before a dateless sentence); nothing without a sentence before, and no bare
    subject after a sentence about the passage's subject (`_about_subject`): a name there is
    the title's ("Занимал важные посты ... . Гормизду удалось ...")."""
    if before is None:
        return False
    return (
        (bare_subject(sentence, before) and not _about_subject(before))
        or parts_absent(sentence)
        or temporal(sentence)
        or ordinal_bare(sentence)
        or anchor_ru.undated_after_entry(sentence, before)  # "1933 — ... . Всего в вузе ..."
    )


# Relational nouns whose owner is a person, a place or a work: kin, measures of a place, a
# series, a decision. Stems; the forms are checked by `_RELATIONAL_FORM`.
_RELATIONAL = re.compile(
    r"^(?:родител|прадед|прабабушк|праде?душк|дед|бабушк|предк|потомк|супруг|сери[яиюей]"
    r"|расстояни|площад|населени|численност|протяж[её]нност|решени)"
    r"(?:ь|и|ей|ям|ями|ях|а|у|ом|е|я|ю|ем|ы|ой|ою|ия|ии|ию|ием|ью)?$"
)
_POSSESSIVES = ru.POSSESSIVES


def ownerless(claim: str) -> tuple[str, int] | None:
    """A relational noun of the claim with no owner (module docstring), and where it is; None
    when every one has its owner: a possessive before it, or a genitive or a name after it."""
    for m in re.finditer(r"[^\W\d_]+", claim):
        w = m[0].casefold()
        if _RELATIONAL.match(w) is None:
            continue
        before = re.findall(r"[^\W\d_]+", claim[: m.start()])[-1:]
        if before and before[0].casefold() in _POSSESSIVES:
            continue
        rest = claim[m.end() :]
        nxt = re.match(r"\s*([^\W\d_]+)", rest)
        if nxt is not None and not re.match(r"\s*[^\w\s]", rest):
            word = nxt[1].casefold()
            owned = not (
                word in _RU_PREPOSITIONS
                or word in _CONJUNCTIONS
                or _finite(word)
                or word.endswith(("ть", "ти", "чь"))  # "решение стать врачом"
            )
            if owned:
                continue
        return w, m.start()
    return None
