"""The subject a claim carries so that it stands alone (pure logic; `distill.context` says what a
sentence leans on).

An atom whose claim does not say what it is about gets the section's subject in front of it,
"Subject: claim", with the claim's first letter lowered after the colon when it is no name
("Аверкий Борисович Аристов: член ЦК КПСС в 1952—1971 годах."). The quote is never changed, so
a citation still finds it at its locator. Both distillers (offline and Ollama) put their drafts
through `carry`.

- **Why** (`distill.context.refers_back`, rule 2 there): a pronoun or demonstrative among the
  first words, no subject (ru), a category or relational noun whose owner is the section.
- **Rule 4, the subject is no name** (`_unanchored`): a Russian article goes on about its
  subject without naming it in most sentences ("Съёмки сезона начались ...", "Гигантское
  полотно было закончено ...", "В 1901 году пара поженилась ..."), so a Russian claim carries
  the section's subject unless its grammatical subject (the first nominal after a leading
  adverbial, up to the verb) holds a proper name: Latin letters, an acronym, a word with digits
  ("Ан-22"), a capitalised word after the first in the nominative or two capitalised words
  ("композитор Артюр Онеггер", "Бэрри Сираюки"). A lone capitalised genitive is an owner, not a
  subject ("Работа Сарджента": which work). A claim that names one but holds a category noun
  without an owner ("... в фильме все плохо", "... центром города.") carries too. A place
  right after the subject's noun ("районы в Кракове", "единицей деления в Польше") says whose
  the subject is: no carry ("Warsaw" on them was wrong), nor on "Город — это ..." (what any
  town is). "N — name/number" with a common noun N ("Мать — Анастасия Даниловна ...", "Бюджет
  проекта — около 500 тыс.") is a property of the subject: it carries it and is no definition.
  A claim with no subject of its own whose past verb disagrees with the subject in gender or
  number ("Шолохов: долгое время была ...", `distill.agree_ru`) carries nothing and stays
  marked anaphoric; a work's title quoted in a heading ("В бой идут одни «старики»") is a name
  though it holds a verb. "Such" and "такой" point at a kind described before, never at the
  section's one subject: they join (context rule 1) and carry nothing. A definition
  ("X — Y") carries only when X is a relational noun or a prepositional phrase ("Автор
  монумента — ...", "У парка два входа — ..."): it then is no definition (rule 3). In English a
  connector that concludes from or narrows the sentences before ("is therefore
  controversial", "In particular the situation ...") carries, unless the claim names something
  (a capitalised word after the first, an acronym first) or speaks for the authors ("We thus
  ..."): an English manual's sections are labels and an abstract's sentences name their own
  subjects, so no wider rule is safe there.
- **The subject** (`topic`): the nearest heading of the chunk's heading path that names
  something ("Биография", "Results", "Early life", and labels such as "Usage", "Installing",
  "Сюжет" do not: the heading above them does), else the document's title if it is more than
  one word (a file's name is no subject: byte-identical files under two names must give the same
  claims); an inverted Russian name heading "Киссинджер, Генри" is read "Генри Киссинджер".
- **Already named** (`mentions`): a claim that names the subject carries nothing: by a stem of a
  capitalised head word (cases count: "Моне" in "Юность Моне"), of a person's surname when the
  subject is a name ("архитектор Александр Петров" is no mention of "Александр Пересвет"), by
  its acronym ("АЦП"), by a two-letter name ("го" of "История го"); a disambiguating bracket
  ("Сорвиголова (сезон 3)") is not looked for; a long subject (a paper's title) is named when
  half of its content words are. A Russian subject whose head is a common noun ("Вторая
  Пуническая война", `distill.head_ru`) is named only by what tells it apart (a name word, or
  most of its modifiers and numbers), not by its bare head ("В результате войны ..."), which
  is then a category noun that carries it; a head with a modifier of its own ("ртутную лампу"
  under "Люминесцентная лампа") is another one and carries nothing.
- **Role labels** (`items.role_label`): "Reason: ...", "Solution: ...", "Причина: ..." under a
  heading that names a problem carry that heading ("X — reason: ..."); a Russian claim whose
  subject is what the sentence before says (`distill.lean_ru`) carries nothing and stays marked;
  a name built on an acronym ("СКБ-Банк Арена") has no gender its verb could contradict, and a
  name's capitalised word read in lower case ("ареной") is the common noun, no mention.
- A claim of a chunk without a heading or title stays marked anaphoric (confidence 0.4); a
  pronoun carries nothing under a title-cased work title (a story's chapter: "she" is a
  character); a claim that carried a subject because its first noun is a relational one is
  retyped by `fact_rules.is_fact` when it looked like a definition.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pegas_memory.distill.items as items
import pegas_memory.distill.lean_ru as lean_ru
import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.subject_en as subject_en
import pegas_memory.distill.title_ru as title_ru
from pegas_memory.distill.agree_ru import agrees, verb_disagrees
from pegas_memory.distill.context import (
    _BASE_CONFIDENCE,
    _EN_LOWERABLE,
    _GENERIC_HEADINGS,
    _INVERTED_NAME,
    _MAX_SUBJECT_CHARS,
    _NUMBERING,
    _ROMAN,
    _RU_ADVERBS,
    _RU_CATEGORY_NOUN,
    _RU_DEMONSTRATIVES,
    _RU_NOMINATIVE,
    _RU_PREPOSITIONS,
    _RU_PRONOUNS,
    _TITLE_CASE,
    _YEAR_WORDS,
    Reference,
    _first_name,
    _in_phrase,
    _verb,
    clause_pronoun,
    refers_back,
)
from pegas_memory.distill.fact_rules import fact_verdict
from pegas_memory.distill.head_ru import (
    _DISAMBIGUATOR,
    _RU_ADJECTIVE_END,
    _bare_subject,
    _inflected,
    _ru_head,
    head_missing,
    head_reference,
)
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.types import TYPED_BY, ChunkContext, DraftAtom
from pegas_memory.distill.verbfirst_ru import numbered_name
from pegas_memory.models import AtomType

_SECTION_WORDS = en.SECTION_WORDS | ru.SECTION_WORDS
_SECTION_PHRASES = en.SECTION_PHRASES | ru.SECTION_PHRASES


# A part of a book named by its number: "Глава первая", "Первый раздел", "Chapter 3", "Part II".
_PART_NOUNS = (
    r"(?:глава|часть|раздел|книга|том|параграф|приложение|chapter|part|section|book|volume"
    r"|appendix|kapitel|teil|abschnitt|anhang)"
)
_PART_NUMBER = (
    r"(?:[\divxlc]+\.?|[a-zа-я]|(?:перв|втор|трет|четв[её]рт|пят|шест|седьм|восьм|девят|десят"
    r"|one|two|three|four|five|six|seven|eight|nine|ten|first|second|third|erst|zweit|dritt"
    r"|eins|zwei|drei)\w*)"
)
_NUMBERED_PART = re.compile(
    rf"^(?:{_PART_NOUNS}(?:\s+{_PART_NUMBER})?|{_PART_NUMBER}\s+{_PART_NOUNS})$"
)


def _label(heading: str) -> bool:
    folded = " ".join(heading.casefold().split())
    return (
        folded in _SECTION_WORDS or folded in _SECTION_PHRASES
        or _NUMBERED_PART.match(folded) is not None
    )  # fmt: skip


def _named(heading: str) -> str | None:
    heading = _NUMBERING.sub("", heading).strip().strip("#*_ ").rstrip(".:;,").strip()
    if not heading or heading.casefold() in _GENERIC_HEADINGS or _label(heading):
        return None
    if len(heading) > _MAX_SUBJECT_CHARS or len(words_of(heading)) == 0:
        return None
    m = _INVERTED_NAME.match(heading)
    return f"{m[2].strip()} {m[1]}" if m else title_ru.listed_thing(heading)


def topic(context: ChunkContext) -> str | None:
    """The subject a chunk's claims carry: the nearest heading that names something, else the
    document's title when it is a phrase: a one-word title is most often the file's name ("a",
    "report-2020"), and byte-identical files under two names must give the same claims."""
    for heading in reversed(context.heading_path):
        named = _named(heading)
        if named is not None:
            return named
    if not context.title or not re.search(r"\w\s+\w", context.title):
        return None
    return _named(context.title)


_CYRILLIC_NAME = re.compile(r"^[А-ЯЁ][а-яё]+$")
_CYRILLIC = re.compile(r"[А-ЯЁа-яё]")
_SHORT_FUNCTION = en.SHORT_FUNCTION | ru.SHORT_FUNCTION


def _acronym(subject: str) -> str:
    """The initials of a subject of two or more words ("АЦП"), or ""."""
    parts = [w for w in re.split(r"[\s-]+", subject) if w[:1].isalpha()]
    return "".join(w[0] for w in parts).upper() if len(parts) >= 2 else ""


def mentions(claim: str, subject: str) -> bool:
    """Whether the claim already names the subject: for a short subject one of its capitalised
    words (by a stem, so cases count: "Моне" in "Юность Моне"), for a long one (a paper's
    title) half of its content words; for a Russian common-noun head, what tells it apart."""
    lowered = claim.casefold()
    # "Сорвиголова (сезон 3)", "Чернушка (город)": the bracket tells which one, "сезона" in the
    # claim is no mention of the series.
    subject = _bare_subject(subject)
    if _acronym(subject) and re.search(r"(?<!\w)" + _acronym(subject) + r"(?!\w)", claim):
        return True  # "АЦП" names "Аналого-цифровой преобразователь"
    short = [w for w in words_of(subject) if len(w) == 2 and w.casefold() not in _SHORT_FUNCTION]
    if any(re.search(r"(?<!\w)" + re.escape(w.casefold()) + r"(?!\w)", lowered) for w in short):
        return True  # "История го": "го" is the name, though it is two letters long
    heads = [w for w in words_of(subject) if len(w) >= 3 and not w.isdigit()]
    if not heads:
        return False

    def found(w: str) -> bool:
        return _inflected(w, lowered) is not None

    headed = _ru_head(subject)
    if headed is not None:
        # "Вторая Пуническая война": "войны" is any war; "Пуническ" says which (`_ru_head`). A
        # name's first word as the head, capitalised past the claim's first word ("Меган и
        # Гарри", "«Пикнику»"), names it ("Общества" of "... палестинское общество" does not).
        head, marks, names = headed
        hit, named = _inflected(head, lowered, 3), _inflected(head, lowered)  # not "Луганский"
        if named and head[:1].isupper() and named.start() > 0 and claim[named.start()].isupper():
            return True
        most = sum(found(w) for w in marks) * 2 > len(marks)
        return any(found(w) for w in names) or (most and (hit is not None or len(marks) >= 3))
    if len(heads) <= 3:
        names = [w for w in heads if w[:1].isupper()] or heads
        if len(heads) >= 2 and all(_CYRILLIC_NAME.match(w) for w in heads):
            # A person's name ("Александр Пересвет"): the surname says who; "архитектор
            # Александр Петров" is another Alexander.
            names = heads[-1:]
        if len(heads) >= 2 and _CYRILLIC.search(subject):
            # "ареной" is any arena: a name's word is capitalised ("СКБ-Банк Арена"); an
            # English heading keeps its stem match ("handled" under "Error Handlers")
            return any(_capitalised(claim, _inflected(w, lowered)) for w in names)
        return any(found(w) for w in names)
    return sum(found(w) for w in heads) * 2 >= len(heads)


def _capitalised(claim: str, hit: re.Match[str] | None) -> bool:
    return hit is not None and (hit.start() == 0 or claim[hit.start()].isupper())


_RU_CONJUNCTIONS = ru.CARRY_CONJUNCTIONS


def carried_claim(claim: str, subject: str, *, keep_name: bool = False) -> str:
    """ "Subject: claim", the claim's first letter lowered unless it starts a name or acronym: in
    Russian any capitalised word but "Я" (a name rarely opens a claim without a subject), in
    English only a word that is never a name ("These", "The", "In"; "Ford will ..." stays).
    `keep_name`: the claim may well open with a name ("Бок писал ...", carried because it does
    not name the section's subject), so only a preposition, adverb, pronoun, year or verb is
    lowered in Russian."""
    first = words_of(claim)[0] if words_of(claim) else ""
    lead = len(claim) - len(claim.lstrip())
    cyrillic = re.match(r"[А-ЯЁ]", first) is not None
    if cyrillic and keep_name:
        low = first.casefold()
        lower = (
            low in _RU_PREPOSITIONS or low in _RU_ADVERBS or low in _RU_PRONOUNS
            or low in _RU_DEMONSTRATIVES or low in _RU_CONJUNCTIONS or low in _RU_BE
            or _verb(low) or _YEAR_WORDS.match(low) is not None
        )  # fmt: skip
    elif cyrillic:
        # "В 1916 году ...": a one-letter word too, but not an initial ("А. С. Пушкин").
        single = len(first) == 1 and claim[lead + 1 : lead + 2] == " " and first != "Я"
        lower = first[1:2].islower() or single
    else:
        lower = first.casefold() in _EN_LOWERABLE and first != "I"
    body = claim[lead:]
    if lower and body[:1] == first[:1]:
        body = body[:1].lower() + body[1:]
    return f"{subject}: {body}"


# Relational nouns whose owner a definition-looking "X — Y" leaves to the section ("Автор
# монумента — скульптор ...": whose monument): the dash gives a value, not a meaning.
_RU_RELATIONAL = re.compile(
    r"^(?:автор|создател|основател|владел|руководител|директор|режисс[её]р|продюсер|сценарист"
    r"|архитектор|скульптор|глав[аеуы]|председател|президент|владени|адрес|девиз|символ"
    r"|покровител|настоятел|тренер|капитан|солист|вокалист)",
    re.IGNORECASE,
)
_RU_BE = ru.CARRY_BE
_EN_BACK_CONNECTORS = en.BACK_CONNECTORS
_EN_BACK_OPENERS = re.compile(r"^(?:in particular|as a result|in this respect|in turn)\b", re.I)


def _name_like(raw: list[str], j: int) -> bool:
    """Whether `raw[j]` is (part of) a proper name: Latin letters in Russian, an acronym, a word
    with digits ("Ан-22"), a capitalised word that is not the claim's first, in the nominative
    ("композитор Артюр Онеггер") or as one of two capitalised words ("Бэрри Сираюки"); a lone
    capitalised genitive is an owner ("Работа Сарджента": which work), no subject."""
    w = raw[j]
    if re.search(r"[A-Za-z]", w) or (len(w) >= 2 and w.isupper()) or numbered_name(w):
        return True
    if not w[:1].isupper():
        return False
    pair = any(0 <= k < len(raw) and raw[k][:1].isupper() for k in (j - 1, j + 1) if k != 0)
    if j == 0:  # "Алан Тьюринг", not "Работа Репина" (a genitive owner)
        nxt = raw[1] if len(raw) > 1 else ""
        return nxt[:1].isupper() and _RU_NOMINATIVE.search(nxt.casefold()) is not None
    return pair or _RU_NOMINATIVE.search(w.casefold()) is not None


# "X — это Y" opening a claim: a definition of what any X is ("Город — это тоже коммуна").
_GENERIC_DEFINITION = re.compile(r"^\s*[^\W\d_]+\s+[—–-]{1,2}\s+это\b", re.IGNORECASE)


_RU_WHERE = ru.WHERE
_RU_COMPOUND_PREPOSITIONS = ru.COMPOUND_PREPOSITIONS


def _scoped(raw: list[str], j: int, start: int) -> bool:
    """A place named right after the subject's noun says where the subject is ("районы в
    Кракове", "Основной единицей деления в Польше"): the claim is about that place's, not the
    section's ("Warsaw" carried onto them was wrong). A prepositional phrase before the
    subject ("В Москве родился ...") is the leading adverbial, skipped."""
    if j - 2 < start or raw[j - 1].casefold() not in _RU_WHERE or not raw[j][:1].isupper():
        return False
    head = raw[j - 2].casefold()
    return raw[j - 2][:1].isalpha() and not (
        head in _RU_ADVERBS or head in _RU_COMPOUND_PREPOSITIONS or head in _RU_PREPOSITIONS
        or _RU_ADJECTIVE_END.search(head) is not None  # "Крепость, выстроенная на Красной горе"
    )  # fmt: skip


def _ru_section_reference(claim: str) -> Reference | None:
    """A Russian claim whose grammatical subject is no name (rule 4): its first nominal after a
    leading adverbial, up to its verb, holds no proper name; or it names one but a category
    noun in it has no owner ("... центром города."). None when the subject is a name."""
    raw = words_of(claim)
    words = [w.casefold() for w in raw]

    def verb(k: int) -> bool:
        # A capitalised word past the first is a name, though it ends like one ("Карфаген").
        name = k > 0 and raw[k][:1].isupper()
        return (_verb(words[k]) or words[k] in _RU_BE) and not _first_name(raw, k) and not name

    i, prep_at = 0, -2
    while i < len(words) and i < 12:
        w = words[i]
        if w in _RU_PREPOSITIONS:
            prep_at = i
        elif _ROMAN.match(raw[i]) or _YEAR_WORDS.match(w) or w in _RU_ADVERBS:
            prep_at = -2 if w in _RU_ADVERBS else prep_at
        else:
            if verb(i) or not _in_phrase(raw, words, i, prep_at):
                break  # the verb, or the first word of the subject
        i += 1
    start, region = i, list[int]()
    while i < len(words) and len(region) < 10 and not verb(i):
        region.append(i)
        i += 1
    if _GENERIC_DEFINITION.match(claim):
        return None  # "Город — это тоже коммуна ...": what any town is, owned by no section
    named = any(
        (_name_like(raw, j) and words[j - 1] not in _RU_PREPOSITIONS) or _scoped(raw, j, start)
        for j in region
    )
    if not named:
        return Reference("section", words[start] if start < len(words) else words[0])
    for j, w in enumerate(words):
        owner = j + 1 < len(raw) and raw[j + 1][:1].isupper()  # "города Оренбурга", «Пересвет»
        if _RU_CATEGORY_NOUN.match(w) and not owner:
            return Reference("section", w)
    return None


_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
# "Общая площадь — 312,31 км²", "Население — около 1200 человек": a short head before a dash and
# a value after it (a number, at most one word before it).
_RU_MEASURE = re.compile(
    r"^\s*([А-ЯЁа-яё][а-яё]*(?:\s+[а-яё]+){0,2})\s+[—–]\s+(?:[а-яё]+\.?\s+)?\d"
)


def _without_asides(claim: str) -> str:
    """The claim without its bracketed asides, nested ones too: "Некоторое время (с ноября 2013
    года по февраль 2014 года) проходило ..." has no name in its subject, the years of the
    aside are none."""
    while True:
        bare = _ASIDE.sub(" ", claim)
        if bare == claim:
            return claim
        claim = bare


def _ru_measure(claim: str) -> Reference | None:
    """A Russian claim that gives a measure of the section's subject without naming it: a head
    of up to three words with no name in it, a dash, a number ("Общая площадь — 312,31 км²");
    None otherwise ("Фотосинтез — процесс ...": no number; "Ан-22 — 1965": a name)."""
    m = _RU_MEASURE.match(claim)
    return Reference("section", m[1].split()[-1].casefold()) if m else title_ru.label_value(claim)


# "Мать — Анастасия Даниловна Черняк ...", "Бюджет проекта — около 500 тыс. долларов": a common
# noun phrase (no name in it), a dash, then a name, a number or "около/более + number". The
# noun is a property of the section's subject (whose mother, which project's budget), so the
# claim carries it and is no definition; "Фотосинтез — процесс ..." (lower case after the
# dash) defines, and "Город — это ..." says what any town is.
_RU_PROPERTY = re.compile(
    r"^\s*([А-ЯЁ][а-яё]+(?:\s+[а-яё]+){0,2})\s+[—–]\s+"
    r"(?:(?:около|более|свыше|менее|почти|примерно)\s+)?(?:\d|[А-ЯЁA-Z«\"])"
)


def _ru_property(claim: str) -> Reference | None:
    """The rule above: a Reference at the noun phrase's head, or None."""
    m = _RU_PROPERTY.match(claim)
    if m is None or _GENERIC_DEFINITION.match(claim):
        return None
    return Reference("section", m[1].split()[0].casefold())


def _unanchored(atom: DraftAtom) -> Reference | None:
    """Why a claim that `refers_back` finds standing alone still needs the section's subject
    (rule 4), or None: in Russian, a claim whose subject is no name; a definition only when
    its term is a relational noun or a prepositional phrase ("У парка два входа — ...").
    In English, a connector that concludes from the sentences before."""
    claim = atom.claim
    raw = words_of(claim)
    if not raw:
        return None
    if atom.language == "ru":
        bare = _without_asides(claim)
        bare = bare if words_of(bare) else claim  # "(Например, ... .)": all of it an aside
        if atom.type == "definition":
            head = raw[0].casefold()
            relational = head in _RU_PREPOSITIONS or _RU_RELATIONAL.match(head) is not None
            return Reference("section", head) if relational else _ru_property(bare)
        return _ru_property(bare) or _ru_measure(bare) or _ru_section_reference(bare)
    if atom.language != "en" or raw[0].casefold() in ("we", "i", "our", "you"):
        return None
    if re.search(r"\d", raw[0]) or (len(raw[0]) >= 2 and raw[0].isupper()):
        return None  # "PI3K inhibitors thus ...": the claim names what it is about
    if any(w[:1].isupper() for w in raw[1:]):
        return None  # a name or an acronym after the first word: the claim says what it is about
    for w in [w.casefold() for w in raw[1:12]]:
        if w in _EN_BACK_CONNECTORS:
            return Reference("connector", w)
    opener = _EN_BACK_OPENERS.match(claim)
    return Reference("connector", opener[0].casefold()) if opener else None


_QUALITATIVE = (
    en.QUALITATIVE
    | ru.QUALITATIVE
    | frozenset(w for w in _RU_DEMONSTRATIVES if w.startswith("подобн"))
)

_RULE_FOUR_WORDS = 6


def _names_a_thing(subject: str) -> bool:
    """Whether rule 4 may carry `subject`: a name of a few words ("Сорвиголова (сезон 3)",
    "Тополь чёрный"), not a headline that is a sentence of its own ("Путин провёл совещание по
    экономике": a news page's claims do not all belong to its headline)."""
    words = words_of(_DISAMBIGUATOR.sub("", subject))
    verb = title_ru.has_verb(words)  # "Пересвет" is a name, "Чёрный квадрат" has no verb
    work = "«" in subject  # "В бой идут одни «старики»": a film's title, quoted in it
    return 0 < len(words) <= _RULE_FOUR_WORDS and (work or not verb)


# The document speaking of its own subject: "this crate implements ...", "performance of this
# library ...", "The package supports ..." (first), "эта библиотека", "данного пакета", "diese
# Bibliothek". A README's
# section ("Performance") never names what "this crate" is: the document's title does.
_EN_SELF = re.compile(
    r"\b(?:this|these)\s+(?:crates?|librar(?:y|ies)|packages?|modules?|projects?|tools?"
    r"|plugins?|frameworks?|extensions?)\b"
    r"|^the\s+(?:crate|library|package|module|project|tool|plugin|framework|extension)\b",
    re.IGNORECASE,
)
_RU_SELF = re.compile(
    r"(?<!\w)(?:эт|данн)[а-яё]{0,3}\s+(?:библиотек|пакет|модул|проект|утилит|инструмент|плагин"
    r"|фреймворк|расширени)[а-яё]*",
    re.IGNORECASE,
)
_DE_SELF = re.compile(
    r"\b(?:[Dd]iese[srmn]?|[Dd]e[rsmn] vorliegende[nm]?|[Dd]ie vorliegende|[Dd]as vorliegende)\s+"
    r"(?:Bibliothek|Paket(?:e?s)?|Modul(?:s)?|Projekt(?:e?s)?|Werkzeug(?:e?s)?|Crate(?:s)?)\b",
)


def document_subject(context: ChunkContext) -> str | None:
    """What "this crate / library / package" of a claim is: the document's title when it is
    the document's own first heading ("# globset", one word is enough then: a heading is no
    file name) or a phrase, as `topic` reads titles; None without a title."""
    title = context.title
    if not title:
        return None
    if context.heading_path[:1] != (title,) and not re.search(r"\w\s+\w", title):
        return None
    return _named(title)


def self_reference(claim: str) -> Reference | None:
    """Where the claim speaks of the document's own subject ("this crate", "эта библиотека"),
    as an anaphor at that word, or None."""
    m = _EN_SELF.search(claim) or _RU_SELF.search(claim) or _DE_SELF.search(claim)
    return Reference("anaphor", m[0].casefold(), m.start()) if m else None


# A name built on an acronym ("СКБ-Банк Арена", "ЦСКА Москва") takes the gender of what it
# names (a stadium, a club), not of its last word: its verbs are no sign of another subject.
_ACRONYM_NAME = re.compile(r"(?<![^\W\d_])[А-ЯЁ]{2,}(?![^\W\d_])")


def _leans_on_content(claim: str) -> bool:
    return lean_ru.whole_before(claim) or clause_pronoun(lean_ru.clause_after_opener(claim))


def _role_carried(atom: DraftAtom, role: tuple[str, str, bool], subject: str) -> DraftAtom:
    """A role-labelled claim ("Reason: ...", `items.role_label`) with the heading it is the
    reason, fix, ... of in front; a symptom that names its heading's problem stays as it is."""
    label, rest, restates = role
    if restates and mentions(rest, subject):
        return atom
    claim = items.role_claim(label, rest, subject, atom.language)
    meta = {**atom.metadata, "subject": subject, "context": "role"}
    content = claim if atom.content == atom.claim else atom.content
    return replace(atom, claim=claim, content=content, metadata=meta)


def carry(atom: DraftAtom, subject: str | None, *, document: str | None = None) -> DraftAtom:
    """The atom with its claim made to stand alone (module docstring), or the atom unchanged.
    Only the claim (and a content equal to it) changes; quote and offsets stay. `document`
    (`document_subject`) is what a claim about "this crate / эта библиотека" carries instead."""
    own = self_reference(atom.claim) if document else None
    if own is not None:
        subject = document
    if subject is None or atom.type not in ("fact", "text", "definition"):
        return atom
    if own is None and (role := items.role_label(atom.claim)) is not None:
        return _role_carried(atom, role, subject)
    reference = own or refers_back(atom.claim, atom.language)
    if reference is None:
        reference = _unanchored(atom)
        if reference is not None and reference.kind == "section" and not _names_a_thing(subject):
            reference = None  # rule 4 carries a name, not a headline
    headed = False  # the claim has a subject of its own and holds the head noun bare
    if reference is None and atom.language == "ru" and atom.type in ("fact", "text"):
        reference = head_reference(atom.claim, subject)  # "В результате войны ..." (head_ru)
        headed = reference is not None
    if reference is None and atom.language == "en" and atom.type in ("fact", "text"):
        found = subject_en.carried(atom.claim, subject, document)  # its rules 1-2
        reference, subject = found if found is not None else (None, subject)
    if reference is None or (reference.kind == "anaphor" and reference.word in _QUALITATIVE):
        return atom
    if atom.language == "ru" and _leans_on_content(atom.claim):
        # "... это обеспечило ...", "Полученные результаты ...": what the sentence before says
        # (`lean_ru`), never the section's subject; the claim still leans back and says so.
        meta = {**atom.metadata, "anaphoric": True, "context": "content before"}
        return replace(atom, confidence=0.4, metadata=meta)
    if reference.kind == "anaphor" and not agrees(reference.word, subject):
        return atom  # "Normans: ... его население": whose population is not the Normans'
    own_verb = reference.kind in ("subjectless", "section")
    acronym_named = _ACRONYM_NAME.search(subject) is not None
    if (
        atom.language == "ru"
        and own_verb
        and not acronym_named
        and verb_disagrees(atom.claim, subject)
    ):
        # "Шолохов: долгое время была ...": the verb is someone else's; the claim still leans
        # back, and says so (agree_ru).
        meta = {**atom.metadata, "anaphoric": True, "context": "disagrees"}
        return replace(atom, confidence=0.4, metadata=meta)
    # A pronoun's antecedent comes before it ("Юность Моне, как он ..."); a subject named after
    # "These studies ..." does not say which studies.
    named = atom.claim[: reference.at] if reference.kind == "anaphor" else atom.claim
    titled = own is None and reference.kind == "anaphor" and _TITLE_CASE.search(subject)
    bare = (own_verb or reference.kind == "category") and head_missing(atom.claim, subject)
    if (mentions(named, subject) and not bare) or titled:
        return atom
    keep_name = reference.kind == "section" or headed
    claim = carried_claim(atom.claim, subject, keep_name=keep_name)
    meta = {**atom.metadata, "subject": subject, "context": reference.kind}
    meta.pop("anaphoric", None)
    kind, term, content = atom.type, atom.term, atom.content
    if atom.type == "definition" and reference.kind != "connector":
        # "Столица — город Ораньестад.": the section's capital, not a definition of "capital".
        fact, rule = fact_verdict(atom.claim, atom.language)
        kind = AtomType.FACT if fact else AtomType.TEXT
        term, content = None, atom.claim
        meta.pop("term", None)
        meta.pop("pattern", None)
        meta[TYPED_BY] = f"a definition of the section's subject: {rule}"
    if content == atom.claim:
        content = claim
    # A claim that leaned on a sentence outside the chunk (0.4) stands alone now.
    confidence = _BASE_CONFIDENCE[kind] if atom.confidence == 0.4 else atom.confidence
    return replace(
        atom, type=kind, claim=claim, content=content, term=term, metadata=meta,
        confidence=confidence,
    )  # fmt: skip
