"""Russian words the distiller's context rules share (pure data): personal pronouns and
demonstratives, the category and relational nouns whose owner is the section, prepositions and
adverbs of a leading adverbial, and the shape of a finite verb or short participle.

Moved out of `distill.context` (which re-exports them for `distill.carry`) so that the rules
stay apart from the vocabulary they read; the lists are cheap and partial on purpose. The word
lists themselves are in `distill.lexicon_ru` (one lexicon module per language), under the names
here that the rule modules import; the demonstratives get the modifiers that point back by what
they mean ("данный", "указанный" in every form) here, built from their stems, and the category
nouns and the verb's shape are regular expressions.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_ru as ru

_RU_PRONOUNS = ru.PRONOUNS
_ADJECTIVE_ENDINGS = ("ый", "ая", "ое", "ые", "ого", "ой", "ому", "ом", "ую", "ых", "ым", "ыми")
# Modifiers that point back by what they mean: "данный", "указанный", "упомянутый",
# "вышеописанный", "перечисленные", "подобные" (such) in every case and number.
_RU_BACK_MODIFIERS = frozenset(
    stem + ending
    for stem in ("данн", "указанн", "вышеуказанн", "упомянут", "вышеупомянут",
                 "вышеописанн", "перечисленн", "вышеперечисленн", "вышеназванн", "подобн")
    for ending in _ADJECTIVE_ENDINGS
)  # fmt: skip
_RU_DEMONSTRATIVES = ru.DEMONSTRATIVES | _RU_BACK_MODIFIERS


# Category and relational nouns (stems) whose owner is the section's subject in ru.
_RU_CATEGORY = re.compile(
    r"^(?:фильм|картин[аеу]|лент[аеу]|сериал|мультфильм|матч|игр[аеу]|турнир|чемпионат|регион"
    r"|город|пос[её]лок|сел[оа]|деревн|рек[аеу]|озер|остров|полуостров|стран[аеу]|государств"
    r"|республик|област|район|групп[аеу]|альбом|сингл|песн|роман|книг|повест|журнал|газет"
    r"|компани|фирм|организаци|парти[яи]|вид\b|род\b|семейств|растени|животн|препарат|метод"
    r"|болезн|заболевани|корабл|судн|храм|собор|здани|памятник|персонаж|клуб|команд|университет"
    r"|школ|институт|театр|музе|праздник|усть|исток|столиц|площад|населени|численност|язык"
    r"|валют|климат|название|территори|флаг|герб|длин|высот|глубин|протяж[её]нност|бассейн"
    r"|официальн|государственн|самый|самая|самое|крупнейш)",
    re.IGNORECASE,
)
# The same nouns, whole words in any case, among the first words ("Игроком матча был признан
# ...", "Исполнительным продюсером картины выступил ..."): which match, which film.
_RU_CATEGORY_NOUN = re.compile(
    r"^(?:фильм|картин|лент|сериал|матч|турнир|чемпионат|регион|город|рек|озер|остров|стран"
    r"|альбом|песн|книг|компани|команд|клуб|препарат|метод|болезн|заболевани|корабл|судн|храм"
    r"|собор|здани|памятник|персонаж)(?:а|у|ом|е|ы|и|ой|ою|ю|ей|ях|ах|ами|ями|ям|ам|ия|ии|ию"
    r"|ией|ь|я|ью)?$"
)
_RU_PREPOSITIONS = ru.PREPOSITIONS
_RU_ADVERBS = ru.ADVERBS
# A finite verb or a short participle: past (-л, -ла, -ли, -лся ...), present or future third
# person (-ет, -ит, -ют, -ется ...), short passive participles (-ан, -ен, -ён, -т with -а/-о/-ы).
_RU_VERB = re.compile(
    r"^[а-яё]{2,}(?:(?:[аеиоуыяё]л(?:а|о|и)?(?:сь|ся)?)|(?:[шгкзсбр]л(?:а|о|и)(?:сь|ся)?)"
    r"|(?:[её]т|ит|ут|ют|ат|ят)(?:ся)?"
    r"|(?:ется|ится|утся|ются|атся|ятся)|(?:ован|ирован|ан|ян|ен|ён|нут|ыт|ит|ят)(?:а|о|ы)?)$"
)
_RU_NOT_VERBS = ru.NOT_VERBS
_YEAR_WORDS = re.compile(
    r"^(?:год|года|году|годах|годы|годов|лет|век|века|веке|веках|г|гг|января|февраля|марта"
    r"|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря|\d+(?:[-–—]\d+)*)$"
)
# A word that looks nominative (a consonant, -ь/-й, -ый/-ий/-ая/-ое/-ые/-ие, -ость) ends a
# prepositional phrase; oblique forms (-а/-я, -у/-ю, -е, -ой/-ей, -ом/-ем, -ов/-ев, -ах,
# -ами, -ии, -ы, -ого, -ому, -ых ...) go on in it.
_RU_NOMINATIVE = re.compile(r"(?:[бвгджзклмнпрстфхцчшщ]|ь|ый|ий|ая|яя|ое|ее|ые|ие|ость)$")


def _verb(word: str) -> bool:
    return _RU_VERB.match(word) is not None and word not in _RU_NOT_VERBS


# Wikipedia's stress marks: U+0301 (and the rarer grave U+0300) after a Cyrillic vowel
# ("Те́трис", "Па́пуа"). They split a word for `\w` and keep the term from matching its title
# and the token from matching a search ("те́трис" is not "тетрис"); a Latin "é", precomposed or
# combining, is spelling, not a stress mark.
_STRESS = re.compile(r"(?<=[АЕЁИОУЫЭЮЯаеёиоуыэюя])[\u0301\u0300]")


def unstressed(text: str) -> str:
    """The text without stress marks on Cyrillic vowels (the claim and term; quotes keep them)."""
    return _STRESS.sub("", text) if "\u0301" in text or "\u0300" in text else text


# A short participle or past passive ("Разработана", "Основан", "Написано") before a capitalised
# instrumental ("Биллом Гейтсом", "Петром I", "Пушкиным") is a verb with its agent, not a first
# name before a surname ("Светлана Иванова", "Иван Толстой": the surname is nominative).
_SHORT_PARTICIPLE = re.compile(r"^[а-яё]{3,}(?:[аяе]н|ён|ит|ыт|ут)(?P<end>а|о|ы)?$")
_AGENT = re.compile(r"(?:ом|ем|ём|ами|ями|ыми|ими|ым)$")
_AGENT_FEMININE = re.compile(r"(?:ой|ей)$")  # "Написана Ахматовой": her, an agent too


def agent_after(word: str, nxt: str) -> bool:
    """Whether `word` is a short participle whose agent, the capitalised instrumental `nxt`,
    follows it (the rule above); the first word of a name otherwise."""
    m = _SHORT_PARTICIPLE.match(word.casefold())
    if m is None or not nxt[:1].isupper() or word.casefold() in _RU_NOT_VERBS:
        return False
    low = nxt.casefold()
    # "Иван Толстой": a masculine first name and its -ой surname; a feminine or neuter
    # participle ends in a vowel and takes an -ой/-ей agent as well.
    return _AGENT.search(low) is not None or (
        m["end"] is not None and _AGENT_FEMININE.search(low) is not None
    )
