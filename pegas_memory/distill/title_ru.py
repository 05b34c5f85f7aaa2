"""A Russian article's title as the subject its claims carry (pure logic; `distill.carry` asks
`has_verb`, `listed_thing` and `label_value`, `distill.head_ru` asks `family_reference`).

A TyDi passage or a Wikipedia section names its subject once, in the title, and its sentences go
on with a generic noun for it ("В 1989 году вуз возглавил ...", "коллектив института возглавил
...") or with none ("Основные порты: Роттердам, Амстердам, ..."). What the title is and what such
a sentence holds decide whether the title is carried:

- **A title's noun read as a verb** (`has_verb`): "университет", "метрополитен", "квадрат",
  "игуана" end like verb forms ("-ет", "-ен", "-ат", "-ана"), so "Новосибирский государственный
  архитектурно-строительный университет" looked like a headline with a verb, which `carry`'s
  rule 4 never carries. A word right after an adjective is that adjective's noun ("Чёрный
  квадрат", "Обыкновенная игуана"), not a verb; "Понедельник начинается в субботу" keeps its verb.
- **A list's title** (`listed_thing`): "Список персонажей телесериала «Агенты Щ.И.Т»" names a
  list, and a passage under it speaks of the work the list belongs to ("Является частью
  кинематографической вселенной Marvel."): its quoted or Latin-script name is the subject
  ("«Агенты Щ.И.Т»", "Kingdom Hearts"). A list's title with no such name stays as it is.
- **A label and its values** (`label_value`): "Основные порты: Роттердам, Амстердам, Антверпен,
  ...", "Население: 12 000 человек": a short lower-case noun phrase (no name, no verb), a colon,
  and values (names, numbers, a list) with no verb: the label is a property of the title's
  subject, as "Площадь — 750 тыс. км²" is (`carry._ru_property`).
- **A generic noun of the title's kind** (`family_reference`): under "... университет" the
  words "вуз", "институт", "академия" stand for it, as the title's own head does
  (`head_ru.head_reference`): bare (no adjective before, no name, number or complement after:
  "Новосибирский институт инженеров геодезии", "вуз имени ..." are others), the claim carries
  the title. Only nouns of the title head's own family: "университет" in a faculty's article
  is the faculty's university, not the faculty.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.context import Reference
from pegas_memory.distill.words_ru import _RU_ADVERBS, _RU_PREPOSITIONS, _verb

# An adjective's or participle's ending: the word after it is its noun ("-ие" only after a
# velar or sibilant: "переселение" is a noun).
_ADJECTIVE = re.compile(
    r"(?:ый|ий|ой|ая|яя|ое|ее|ые|[кгхжшщч]ие|ого|его|ому|ему|ых|их|ым|ими|ыми|ую|юю)$"
)


def has_verb(words: list[str]) -> bool:
    """Whether a title holds a finite verb (a headline, not a name): a lower-case word shaped
    like one that does not follow an adjective (module docstring)."""
    for i, w in enumerate(words):
        if not (w[:1].islower() and _verb(w)):
            continue
        before = words[i - 1].casefold() if i else ""
        if before and _ADJECTIVE.search(before) and not _verb(before):
            continue  # "Московский метрополитен": the adjective's noun
        return True
    return False


_LIST = re.compile(r"^(?:Список|Перечень)\s+\S")
_QUOTED = re.compile(r"«[^«»]+»$")
_LATIN_TAIL = re.compile(r"(?<![\w-])[A-Z][\w'’.:-]*(?:\s+[A-Za-z0-9][\w'’.:-]*)*$")


def listed_thing(heading: str) -> str:
    """The thing a list's title names ("«Агенты Щ.И.Т»" of "Список персонажей телесериала
    «Агенты Щ.И.Т»"), or the heading itself (module docstring)."""
    if _LIST.match(heading) is None:
        return heading
    found = _QUOTED.search(heading) or _LATIN_TAIL.search(heading)
    return found[0] if found else heading


_LABEL = re.compile(r"^\s*([А-ЯЁ][а-яё]+(?:[\s-]+[а-яё]+){0,2})\s*:\s+(?=[^\W_]|[«\"])")
_VALUE_WORDS = 8  # a short value ("12 000 человек") or a list (commas)


def label_value(claim: str) -> Reference | None:
    """The label of a claim "Основные порты: Роттердам, Амстердам, ..." as a category reference
    at its head noun (the last word, whose owner is the section), or None (module docstring):
    the label lower case past its first letter with no verb or preposition, the value with no
    lower-case verb, a list or short."""
    m = _LABEL.match(claim)
    if m is None:
        return None
    label = m[1].split()
    value = claim[m.end() :]
    words = re.findall(r"[^\W\d_]+", value)
    if any(_verb(w.casefold()) or w.casefold() in _RU_PREPOSITIONS for w in label[1:]):
        return None  # "Впадают крупные реки: ..." has a verb (and a category noun of its own)
    if _verb(label[0].casefold()) or label[0].casefold() in _RU_PREPOSITIONS | _RU_ADVERBS:
        return None
    if any(w[:1].islower() and _verb(w) for w in words):
        return None  # "Итог: Россия выиграла ...": a statement of its own after the label
    if "," not in value and len(words) > _VALUE_WORDS:
        return None
    return Reference("category", label[-1].casefold(), m.start(1))


# Generic nouns by kind (regular expressions of a word's stem; the endings follow): a title's
# head in one of them is stood for by the others.
_FAMILIES = (
    ("университет", "институт", "академи", "вуз", "консерватори"),
    ("школ", "гимнази", "лице", "училищ"),
    ("компани", "фирм", "корпораци", "концерн", "предприяти", "холдинг", "авиакомпани"),
    ("завод", "фабрик", "комбинат", "предприяти"),
    ("парти", "организаци", "движени"),
    ("город", "пос[её]л(?:ок|к)", "сел", "деревн", "станиц", "поселени"),
    ("фильм", "кинофильм", "картин", "лент"),
    ("сериал", "телесериал", "мультсериал", "шоу"),
    ("метрополитен", "метро"),
    ("стадион", "арен"),
    ("храм", "собор", "церк[оа]?в", "монастыр"),
    ("судн", "корабл", "теплоход", "пароход"),
)
_ENDINGS = r"(?:а|у|ом|е|ы|и|ой|ою|ю|ей|ях|ах|ами|ями|ям|ам|ия|ии|ию|ией|ь|я|ью|о|ов|ев)?"
_NAMED_AFTER = ru.NAMED_AFTER
_CONJUNCTIONS = ru.TITLE_CONJUNCTIONS


def _family(head: str) -> tuple[str, ...]:
    low = head.casefold()
    for family in _FAMILIES:
        if any(re.match(rf"^{stem}{_ENDINGS}$", low) for stem in family):
            return family
    return ()


def _bare_after(rest: str) -> bool:
    """Nothing after the noun says which one: the clause's end, a verb, an adverb, a preposition
    or a conjunction (not "имени", a name, a number, a quote or a genitive complement)."""
    if re.match(r"\s*(?:[.,;:!?)—–]|$)", rest):
        return True
    nxt = re.match(r"\s+([^\W\d_]+)", rest)
    if nxt is None:
        return False
    w = nxt[1]
    low = w.casefold()
    if w[:1].isupper() or low in _NAMED_AFTER:
        return False
    return (
        _verb(low) or low in _RU_ADVERBS or low in _RU_PREPOSITIONS or low in _CONJUNCTIONS
        or low in ("был", "была", "было", "были", "стал", "стала", "не")
    )  # fmt: skip


def family_reference(claim: str, head: str) -> tuple[str, int] | None:
    """A bare noun of the title head's family in the claim (module docstring), and where it is;
    None without one, for the head itself (`head_ru` reads it) or for a title head of no
    family."""
    family = _family(head)
    if not family:
        return None
    own = head.casefold()
    for m in re.finditer(r"[^\W\d_]+", claim):
        low = m[0].casefold()
        if not any(re.match(rf"^{stem}{_ENDINGS}$", low) for stem in family):
            continue
        if low[:4] == own[:4] or (m[0][:1].isupper() and m.start() > 0):
            continue  # the head itself, or a name's word ("Академия наук")
        before = list(re.finditer(r"[^\W\d_]+", claim[: m.start()]))[-1:]
        if before and (
            _ADJECTIVE.search(before[0][0].casefold())
            or (before[0][0][:1].isupper() and before[0].start() > 0)
        ):
            continue  # "Сибирского технологического института", "НИСИ институт": another one
        if claim[: m.start()].rstrip().endswith(("«", '"')):
            continue
        if _bare_after(claim[m.end() :]):
            return low, m.start()
    return None
