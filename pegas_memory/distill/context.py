"""What a sentence leans on, and the subject its claim carries so it stands alone (pure logic).

An encyclopedia article states its subject once, in its title, and then goes on without it:
"Член ЦК КПСС в 1952—1971 годах.", "Родился в Москве.", "Столица — город Ораньестад."; an
abstract says "these findings", "this method", "the film". Such a sentence is true in its place
and meaningless as an atom. The rule, en and ru alike:

1. **Join** (`leans_back`, used by `distill.units.sentence_groups`): a sentence whose first
   words hold a personal pronoun or a demonstrative with its noun ("Изначально она была ...",
   "Many of these recovered sites ...", "A generalization of this method ...") is joined with
   the sentence before it in the same paragraph, as one whose first word is one ("This ...",
   "Он ...") already was: the antecedent is most often in that sentence, and the group's quote
   is one contiguous span, verbatim. A reference to the document itself ("this study", "in this
   work") is not joined: it refers to the document, not to the sentence before. An English
   sentence also joins when the word that leans comes later or is no pronoun ("... of these
   cells", "both medications", "But they ...", "is therefore ...": `distill.join_en`); only
   the first words' reference is carried (rule 2). A Russian sentence also joins when its
   subject is "всё/все" right before the verb ("Все началось с работы ..."), when a confirming
   "действительно" comes before the verb, when a bare noun of the sentence before opens it or
   the subject of its complement clause ("..., что ошибки в расчётах вызваны ..." after
   "расчётных"), or by any case of "такой", "данный", "упомянутый", "подобный" ("Такими
   городами являются ..."); "такой ..., как X" names its own term; and by "этот" with its
   noun later in the sentence ("... членом этого братства"), unless the sentence itself named
   that noun first ("образуя дельту ... часть этой дельты") or it is a time ("с этого времени");
   and by a surname alone that the sentence before gave in full ("Ян Бок ..." -> "Бок писал");
   by "другие/некоторые" alone as the subject or "остальные" ("Другие предпочли ..."), by
   "пара/супруги/оба" or "последний" alone, by an opening "А" or "Затем"; and a
   sentence with no subject after one about a relative ("Мать — ... . Долгое время была ...",
   `distill.agree_ru`). A Russian personal pronoun past a group's cap takes the sentence right
   before (`held_referent`), even when that one leans by a repeated noun of its own.
2. **Carry** (`refers_back`; the subject and the carry are `distill.carry`, with its rule 4
   for a Russian claim whose subject is no name): an atom whose claim still opens without a
   subject of its own gets the section's subject in front of it, "Subject: claim", with the
   claim's first letter lowered after the colon ("Аверкий Борисович Аристов: член ЦК КПСС в
   1952—1971 годах."). The quote is never changed, so a citation still finds it at its locator.
   A claim carries the subject when it
   - opens with a personal pronoun or a demonstrative in its first words (it, they, these
     findings, он, её, этот метод; "there", "we", "мы" refer to nothing before);
   - has no subject (ru): after a leading adverbial (a connector such as "Например,", "В
     частности,", "Наконец,", a prepositional phrase, a year, an adverb) the first word is a
     finite verb or a short participle ("В 1916 году уехал в США.", "Впервые использован как
     ...", "В частности, к осложнениям может привести ..."), or the sentence has no verb and no
     dash at all (a predicate noun phrase: "Член ЦК КПСС ...", "В 1957-1961 годах заместитель
     председателя ..."); (en) it opens with a bare verb ("Born in ...", "Served as ..."). A
     prepositional phrase runs on while its words look oblique ("Во время Первой мировой
     войны", "С начала VII века"); a word that looks nominative ends it ("После распада Римской
     империи регион ..."). A connector alone ("Moreover, plant formins ...") is no reason: the
     sentence names its own subject;
   - opens with a category or relational noun whose owner is the section ("Фильм является ...",
     "Столица — ...", "Площадь суши — ...", "The film ...", "In 1999 the company ..."), or
     has such a noun among its first words before the verb ("Игроком матча был признан ...":
     which match).
   A pronoun or demonstrative carries nothing when the subject is a title-cased work title
   ("Down The Rabbit-Hole": "she" is a character), nor does any claim of a chunk of dialogue
   (fiction, an interview: `distill.units.conversational`). "At this moment", "at this, Alice
   ..." refer to nothing before.
   The subject is the nearest heading of the chunk's heading path that names something
   ("Биография", "Results", "Early life" do not: the heading above them does), else the
   document's title if it is more than one word (a file's name is no subject: byte-identical
   files under two names must give the same claims); an inverted Russian name heading
   "Киссинджер, Генри" is read "Генри Киссинджер". A claim that already names the subject (its
   head words are in the claim) carries nothing, and neither does one when the chunk has no
   heading or title: that claim stays marked anaphoric (confidence 0.4), as before.
3. A claim that carries a subject because its first noun is a relational one ("Столица —
   город Ораньестад.") is no definition of that noun: it is retyped by `fact_rules.is_fact`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

import pegas_memory.distill.agree_ru as agree_ru
import pegas_memory.distill.bare_ru as bare_ru
import pegas_memory.distill.join_en as join_en
import pegas_memory.distill.lean_ru as lean_ru
import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.words_ru import (  # re-exported for distill.carry
    _RU_ADVERBS,
    _RU_CATEGORY,
    _RU_CATEGORY_NOUN,
    _RU_DEMONSTRATIVES,
    _RU_NOMINATIVE,
    _RU_PREPOSITIONS,
    _RU_PRONOUNS,
    _YEAR_WORDS,
    _verb,
    agent_after,
)

ReferenceKind = Literal["anaphor", "subjectless", "category", "section", "connector"]


@dataclass(frozen=True)
class Reference:
    """Why a claim does not stand alone: the kind of reference and the word that shows it."""

    kind: ReferenceKind
    word: str
    at: int = 0  # where the word is in the claim: a subject named before it is its antecedent


_EN_PRONOUNS = en.CONTEXT_PRONOUNS
_EN_PERSONAL = en.PERSONAL
_EN_DEMONSTRATIVES = en.CONTEXT_DEMONSTRATIVES
_EN_POSSESSIVES = en.CONTEXT_POSSESSIVES
_EN_FUNCTION = en.CONTEXT_FUNCTION
_PLURAL_DEMONSTRATIVES = en.PLURAL_DEMONSTRATIVES | ru.PLURAL_DEMONSTRATIVES
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_SELF_NOUNS = en.SELF_NOUNS | ru.SELF_NOUNS
# Fixed phrases with a demonstrative that refer to nothing before ("тем не менее", "в том числе").
_FIXED_PHRASES = re.compile(
    r"\b(?:тем не менее|в том числе|тем самым|тем более|к тому же|то есть|вместе с тем"
    r"|в то же время|в то время как|до того как|после того как|с тех пор|that is|in that)\b",
    re.IGNORECASE,
)
_EN_BARE_VERBS = en.BARE_VERBS
_EN_CATEGORY = en.CATEGORY
_EN_LOWERABLE = en.LOWERABLE
_ROMAN = re.compile(r"^[IVXLC]+$")
_GENERIC_HEADINGS = en.GENERIC_HEADINGS | ru.GENERIC_HEADINGS
# A title-cased work title ("Down The Rabbit-Hole", "Advice From A Caterpillar"): a chapter of a
# story, whose "she" is a character, never the title.
_TITLE_CASE = re.compile(r"\s(?:The|Of|And|A|An|In|On|To|From|With|At|For|By)\s")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+")
_INVERTED_NAME = re.compile(r"^([А-ЯЁ][а-яё-]+),\s+((?:[А-ЯЁ][а-яё-]+\s?){1,3})$")
_MAX_SUBJECT_CHARS = 200
_BASE_CONFIDENCE = {"fact": 0.6, "text": 0.5, "definition": 0.7, "logical_rule": 0.8,
                    "code": 0.9, "table": 0.8}  # fmt: skip
_EARLY = 6  # a pronoun or demonstrative this early leans on the sentence before


def _tokens(claim: str) -> list[str]:
    return [w.casefold() for w in words_of(claim)]


def _dash_cut(claim: str) -> str:
    """The claim up to its first spaced dash: "X — это ..." is a definition, not a reference."""
    return re.split(r"\s[—–-]{1,2}\s", claim, maxsplit=1)[0]


def _early_reference(claim: str, language: str | None) -> tuple[str, int] | None:
    """A pronoun, or a demonstrative with its noun, among the claim's first words: in Russian
    before its first verb ("Рудольф Клаузиус ввёл это понятие" names its own subject), in English
    a subject pronoun only first or after a comma ("In 2010, they ..."; "how long it takes" is
    no reference), a possessive or a demonstrative anywhere there."""
    cut = _FIXED_PHRASES.sub(lambda m: " " * len(m[0]), _dash_cut(claim))
    found = list(_WORD.finditer(cut))[: _EARLY + 1]
    words = [m[0].casefold() for m in found]
    ru = language == "ru"
    for i, w in enumerate(words[:_EARLY]):
        if ru and _verb(w):
            return None
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if ru and w in ("всё", "все") and (_verb(nxt) or nxt in _RU_BE_FORMS):
            return w, found[i].start()  # "Все началось с работы ...": what all began
        if ru and w in _RU_PRONOUNS:
            return w, found[i].start()
        if not ru and w == "both" and join_en.coordinates_both(_WORD.findall(cut.casefold()), i):
            continue  # "However, both A and B ...": coordination names them
        if not ru and w in _EN_PRONOUNS:
            subject_slot = i == 0 or cut[: found[i].start()].rstrip().endswith(",")
            if subject_slot or w in _EN_POSSESSIVES:
                return w, found[i].start()
        if (ru and w in _RU_DEMONSTRATIVES) or w in _EN_DEMONSTRATIVES:
            # "this study" is the document ("these studies" are others); "... that": a conjunction
            if (nxt in _SELF_NOUNS and w not in _PLURAL_DEMONSTRATIVES) or (w == "that" and i > 0):
                continue
            if w in ("это", "that") and i == 0 and nxt in ("is", "was", "means"):
                continue
            if ru and w.startswith("так") and _RU_AS.search(cut[found[i].end() :]):
                continue  # "в таком же стиле, как шпалеры ...": the comparison names its term
            after = cut[found[i].end() : found[i].end() + 1]
            if w in _EN_DEMONSTRATIVES and (not nxt or nxt in _EN_FUNCTION or after in ",.;:!?"):
                continue  # "a text like this gives ...", "at this, Alice ...": no noun of its own
            return w, found[i].start()
    return None


def leans_back(sentence: str, language: str | None, before: str | None = None) -> bool:
    """Whether a sentence refers to the sentence before (rule 1): by its first words, or in
    English by a later word (`distill.join_en`: "these cells" mid-sentence, "both medications",
    "But they ...", "The low success rate ..." after `before`, the sentence before it)."""
    if _early_reference(sentence, language) is not None:
        return True
    if language == "ru":
        more = _ru_late_demonstrative(sentence, before) or agree_ru.bare_plural_subject(sentence)
        clause = lean_ru.clause_after_opener(sentence)  # "Считается, что у них ..."
        more = more or lean_ru.described_results(sentence) or clause_pronoun(clause)
        if _ru_confirms(sentence) or more or _ru_deictic(sentence):
            return True
        if lean_ru.goes_on(sentence) or _ru_collective(sentence) or _RU_GOES_ON.match(sentence):
            return True
        return before is not None and (
            _ru_repeated_noun(sentence, before)
            or _ru_clause_repeats(sentence, before)
            or _ru_short_name(sentence, before)
            or agree_ru.continues_relative(sentence, before)
            or bare_ru.leans(sentence, before)  # "Сюжет шел ...", "С тех пор ..."
        )
    return language in _JOIN_EN_LANGUAGES and join_en.leans_on_before(sentence, before)


def clause_pronoun(clause: str | None) -> bool:
    """A personal pronoun among the first words of an impersonal opener's clause (`lean_ru`)."""
    found = _early_reference(clause, "ru") if clause else None
    return found is not None and found[0] in _RU_PRONOUNS


_RU_COLLECTIVE = ru.COLLECTIVE
_RU_LATTER = ru.LATTER


# "А Самир Хашем в своей рецензии ...", "Затем Андерсон забил ...": a sentence that opens by
# going on from the one before (whereas, then) is said in its light.
_RU_GOES_ON = re.compile(r"^\s*(?:А|Затем)\s+(?!также\b)", re.IGNORECASE)


def _ru_collective(sentence: str) -> bool:
    """The rule above, before the sentence's first verb within its first words."""
    found = [m[0].casefold() for m in _WORD.finditer(_dash_cut(sentence))][: _EARLY + 2]
    for i, w in enumerate(found):
        if _verb(w):
            return False
        nxt = found[i + 1] if i + 1 < len(found) else ""
        if w in _RU_COLLECTIVE or (w in _RU_LATTER and (_verb(nxt) or nxt in _RU_BE_FORMS)):
            return True
    return False


def held_referent(
    sentence: str,
    members: list[tuple[int, str, bool]],
    language: str | None,
    end: int,
    bounds: tuple[int, int],
) -> tuple[int, int, bool] | None:
    """Where a leaning sentence past a group's cap (`distill.units`: 3 sentences, 700 chars)
    finds its referent: the nearest of the group before's sentences (`members`: start, claim,
    leans), at most `bounds[0]` back, that names the noun it repeats ("... скит разгромили ...
    Через некоторое время скит восстановили"), else the sentence right before. A span whose
    first sentence leans again gains nothing (unless it names the repeated noun and leans by a
    personal pronoun), nor one opening lower case or with a digit. Returns (start, sentences,
    first sentence leans), or None without a group before or past `bounds[1]` chars."""
    most, max_chars = bounds
    if not members:
        return None
    found = [
        k
        for k in range(1, min(most, len(members)) + 1)
        if _repeats(sentence, members[-k][1], language)
    ]
    # A Russian personal pronoun ("Они были отправлены ...") finds its referent in the sentence
    # right before, even when that one leans by a repeated noun of its own ("Поселение
    # насчитывало 402 жителя"): the carry resolves a repeated noun, not the pronoun.
    own = _early_reference(sentence, language)
    last = members[-1]
    soft = (
        language == "ru" and own is not None and own[0] in _RU_PRONOUNS
        and last[2] and _early_reference(last[1], language) is None
    ) or (language == "ru" and lean_ru.whole_before(sentence))  # fmt: skip
    back = 1 if soft or not found else found[0]
    start, first, leans = members[-back]
    early = _early_reference(first, language) if leans else None
    carried = early is not None and early[0] in _RU_PRONOUNS | _EN_PERSONAL
    head = (_WORD.findall(first) or [""])[0]
    tail = head[:1].isdigit() or (head.isalpha() and head.islower())  # "83%", a quote's tail
    if end - start > max_chars or (leans and not (found and carried) and not soft) or tail:
        return None  # a span that leans again ("Они ...", "этого братства"): no gain
    return start, back + 1, leans


def _repeats(sentence: str, earlier: str, language: str | None) -> bool:
    """Whether `earlier` names what the sentence repeats: its bare noun or surname (ru), its
    definite description's head (en)."""
    if language == "ru":
        return (
            _ru_repeated_noun(sentence, earlier)
            or _ru_clause_repeats(sentence, earlier)
            or _ru_short_name(sentence, earlier)
        )
    return language in _JOIN_EN_LANGUAGES and join_en.repeats_description(sentence, earlier)


_RU_REPEAT_STOP = ru.REPEAT_STOP
_RU_STEM_MIN = 4


def _ru_stem(word: str) -> str:
    return word[: max(_RU_STEM_MIN, len(word) - 2)]


def _ru_repeated_noun(sentence: str, before: str, *, clause: bool = False) -> bool:
    """The rule above: a bare common noun of the sentence before, before this one's first verb
    (`clause`: the words are a complement clause's, whose first word is lower case)."""
    cut = _dash_cut(sentence)
    found = [m[0] for m in _WORD.finditer(cut)][: _EARLY + 2]
    earlier = {w for w in (m[0] for m in _WORD.finditer(before)) if w[:1].islower() and len(w) >= 4}
    for i, word in enumerate(found):
        w = word.casefold()
        candidate = (
            len(w) >= _RU_STEM_MIN
            and w not in _RU_REPEAT_STOP
            and ((i == 0 and not clause) or word[:1].islower())
            and not _RU_PAST.search(w)
            and not (len(w) > _RU_STEM_MIN and _verb(w))  # "содержит" again points nowhere
            and not _named_next(found[i + 1] if i + 1 < len(found) else "")
        )
        if candidate and any(e.casefold().startswith(_ru_stem(w)) for e in earlier):
            return True  # before the verb test: a short "скит" looks like "говорит"
        if _verb(w):
            return False
    return False


_RU_CONFIRMING = ru.CONFIRMING
# A complement clause after the verb ("Адамс предположил, что ошибки в расчётах вызваны ...")
# has a subject of its own: a bare noun of the sentence before there points back as well.
_RU_COMPLEMENT = re.compile(r",\s+(?:что|чтобы)\s+(?=\w)", re.IGNORECASE)


_RU_THIS = ru.THIS
_LATE_WORDS = 25
_RU_NEUTER = re.compile(r"(?:ие|ье|ство|мя|ло|ро|во|цо)$")  # "это соотношение"; not "это важно"


def _ru_late_demonstrative(sentence: str, before: str | None = None) -> bool:
    """A form of "этот" followed by a noun, past the first words (the rule above): not a fixed
    phrase ("при этом", "в том числе"), not the document ("в этой статье"); "это" (a particle
    most often) only before a neuter noun `before` names ("измеряют это соотношение")."""
    cut = _FIXED_PHRASES.sub(lambda m: " " * len(m[0]), sentence)
    words = [m[0] for m in _WORD.finditer(cut)][:_LATE_WORDS]
    for i, (w, nxt) in enumerate(itertools.pairwise(words)):
        low, after = w.casefold(), nxt.casefold()
        neuter = low == "это" and _RU_NEUTER.search(after) and after not in _RU_ADVERBS
        neuter = neuter and before is not None and _ru_stem(after) in before.casefold()
        if not (low in _RU_THIS or neuter) or not nxt[:1].islower() or after in _SELF_NOUNS:
            continue
        if _verb(after) or after in _RU_FUNCTION or after in _RU_TIME_NOUNS:
            continue  # "до этого им являлось", "с этого времени": no noun to look for
        stem = _ru_stem(after)
        if not any(e.casefold().startswith(stem) for e in words[:i]):
            return True  # "образуя дельту ..., часть этой дельты": named in the sentence itself
    return False


_RU_FUNCTION = ru.CONTEXT_FUNCTION
_RU_TIME_NOUNS = ru.TIME_NOUNS


def _ru_confirms(sentence: str) -> bool:
    """A confirming word before the sentence's first verb (the rule above)."""
    for m in _WORD.finditer(_dash_cut(sentence)):
        w = m[0].casefold()
        if w in _RU_CONFIRMING:
            return True
        if _verb(w):
            return False
    return False


def _ru_clause_repeats(sentence: str, before: str) -> bool:
    """The repeated-noun rule on the first complement clause's own words (the rule above)."""
    m = _RU_COMPLEMENT.search(_dash_cut(sentence))
    return m is not None and _ru_repeated_noun(sentence[m.end() :], before, clause=True)


_RU_NAME_WORD = re.compile(r"^[А-ЯЁ][а-яё]{2,}$")
# "здесь", and "выше"/"ниже" as adverbs ("в приведённом выше примере", "как показано ниже,"):
# what the page shows, most often introduced by the sentence before (join_en's rule 10 in
# English). "выше 30 градусов", "ниже уровня моря" compare: not pointers.
_RU_DEICTIC = re.compile(
    r"\bздесь\b|(?:\b(?:как|\w+(?:нн|т|ан|ен)(?:ый|ая|ое|ые|ого|ой|ом|ых|ым|ую|о|а|ы))\s+)"
    r"(?:выше|ниже)\b|\b(?:выше|ниже)\s*(?=[,.;:)]|$)",
    re.IGNORECASE,
)


def _ru_deictic(sentence: str) -> bool:
    """A pointer at what the page shows or a place told before (the rule above)."""
    return _RU_DEICTIC.search(sentence) is not None


def _ru_short_name(sentence: str, before: str) -> bool:
    """A surname alone before the verb ("Бок писал стихотворения ...") that the sentence before
    gave with a first name or initial ("Родом из Нижней Лужицы был Ян Бок"): who Бок is, is
    said there."""
    raw = [m[0] for m in _WORD.finditer(_dash_cut(sentence))][: _EARLY + 2]
    full = [m[0] for m in _WORD.finditer(before)]
    # a word of a name of two words or more, after the other or, past the sentence's first
    # word, before it ("Чивас USA")
    following = [*full[1:], ""]
    introduced = {
        w
        for k, w in enumerate(full)
        if _RU_NAME_WORD.match(w)
        and w.casefold() not in _RU_ADVERBS | _RU_PREPOSITIONS
        and ((k and full[k - 1][:1].isupper()) or (k and following[k][:1].isupper()))
    }
    for i, word in enumerate(raw):
        if _verb(word.casefold()):
            return False
        # "Однако Чивас ...": a capitalised connector first is no part of the name
        opener = i == 1 and raw[0].casefold() in _RU_ADVERBS | _RU_PREPOSITIONS
        alone = i == 0 or not raw[i - 1][:1].isupper() or opener
        nxt = raw[i + 1] if i + 1 < len(raw) else ""
        if word in introduced and alone and not nxt[:1].isupper():
            return True
    return False


def _named_next(word: str) -> bool:
    """A name or a number right after the noun says which ("передачи Общества", "Статья 2")."""
    return word[:1].isupper() or word[:1].isdigit()


_RU_PAST = re.compile(r"(?:л|ла|ли|ло|лся|лась|лись|лось)$")  # a repeated verb points nowhere
# "такой ..., как X" within its first words: "such as X", no reference to the sentence before.
_RU_AS = re.compile(r"^(?:\s+[^\W\d_]+){0,4},?\s+как\b", re.IGNORECASE)
_RU_BE_FORMS = ru.BE_FORMS


_JOIN_EN_LANGUAGES = (None, "en")  # whose sentences join_en reads (ru and de have their own)


def _ru_subjectless(words: list[str], claim: str) -> str | None:
    """A finite verb or short participle before any subject (ru), or a verbless noun phrase."""
    i, prep_at, first = 0, -2, None
    raw = words_of(claim)
    while i < len(words) and i < 12:
        w = words[i]
        if w in _RU_PREPOSITIONS:
            prep_at = i
        elif _ROMAN.match(w.upper()) or _YEAR_WORDS.match(w):
            pass
        elif w in _RU_ADVERBS:
            prep_at = -2
        elif _INSTRUCTION.match(w):
            return None  # "Нарезать лайм ...", "Добавьте соль ...": an instruction, no claim
        elif _verb(w) and not _first_name(raw, i):  # "Алан Тьюринг": a name, no participle
            return w
        elif _in_phrase(raw, words, i, prep_at):
            pass  # the object of a preposition ("во время Первой мировой войны")
        else:
            first = w  # a subject candidate, or a predicate noun
            break
        i += 1
    if re.search(r"\s[—–]\s", claim) or len(words) > 30 or first is None:
        return None
    if not any(_verb(w) or _INSTRUCTION.match(w) for w in words):
        return first  # "Член ЦК КПСС в 1952—1971 годах.", "В 1957-1961 годах заместитель ..."
    return None


# An infinitive or an imperative: a step of an instruction, whose subject is the reader.
# ("-ость", "безопасности", "мать", "путь" are nouns).
_INSTRUCTION = re.compile(
    r"^(?!(?:мать|сеть|печать|треть|нить|путь|суть|знать|ртуть|рать)$)"
    r"[а-яё]{2,}(?:[аяеиуыо]ть(?:ся)?|йте|ьте)$"
)


def _in_phrase(raw: list[str], words: list[str], i: int, prep_at: int) -> bool:
    """Whether word `i` goes on in the prepositional phrase opened at `prep_at`: its object, an
    oblique word after it ("во время Первой мировой войны"), or a name in apposition to a
    lowercase oblique noun ("с молодой женой Элен Петерс"); a nominative word ends it."""
    if prep_at == i - 1 or (prep_at >= 0 and not _RU_NOMINATIVE.search(words[i])):
        return True
    k = i
    while k > 0 and raw[k][:1].isupper() and raw[k - 1][:1].isupper():
        k -= 1  # the name's first word: "Элен" of "Элен Петерс"
    before = words[k - 1] if k > 0 else ""
    return (
        prep_at >= 0 and k - 1 > prep_at and raw[i][:1].isupper() and raw[k - 1][:1].islower()
        and not _YEAR_WORDS.match(before) and not _RU_NOMINATIVE.search(before)
    )  # fmt: skip


def _first_name(raw: list[str], i: int) -> bool:
    """A capitalised word before another one in the nominative: "Алан Тьюринг"."""
    nxt = raw[i + 1] if i + 1 < len(raw) else ""
    pair = raw[i][:1].isupper() and nxt[:1].isupper() and _RU_NOMINATIVE.search(nxt) is not None
    return pair and not agent_after(raw[i], nxt)  # "Разработана Биллом ...": a verb, its agent


def refers_back(claim: str, language: str | None) -> Reference | None:
    """Why the claim does not stand alone (rule 2), or None."""
    words = _tokens(claim)
    if not words:
        return None
    early = _early_reference(claim, language)
    if early is not None:
        return Reference("anaphor", *early)
    if language == "ru":
        generic = re.match(r"^\s*[^\W\d_]+\s+[—–-]{1,2}\s+это\b", claim) is not None
        if _RU_CATEGORY.match(words[0]) and not generic:  # "Город — это ...": any town
            return Reference("category", words[0])
        for w in words[1:5]:
            if _verb(w):
                break
            if _RU_CATEGORY_NOUN.match(w):
                return Reference("category", w)
        verb = _ru_subjectless(words, claim)
        return Reference("subjectless", verb) if verb is not None else None
    if words[0] in _EN_BARE_VERBS and claim[:1].isupper():
        return Reference("subjectless", words[0])
    raw = words_of(claim)
    for i, w in enumerate(words[:5]):
        # "The film ...", "In 1999 the company ..."; "the river Volga" says which one.
        category = w == "the" and i + 1 < len(words) and words[i + 1] in _EN_CATEGORY
        if category and not _named_after(raw[i + 2 : i + 6]):
            return Reference("category", words[i + 1])
    return None


def _named_after(after: list[str]) -> bool:
    """Whether a name says which one: "the river Volga", "the river delta of the Volga"."""
    if after and after[0][:1].isupper():
        return True
    for j, w in enumerate(after[:-1]):
        if w.casefold() == "of":
            name = (
                after[j + 2]
                if after[j + 1].casefold() == "the" and j + 2 < len(after)
                else after[j + 1]
            )
            return name[:1].isupper()
    return False
