"""Russian label lines of flattened passages: periods and legends that are no claim (pure).

A Wikipedia passage flattened to text (TyDi) keeps the labels of its timeline and its charts as
"sentences": "1791—1932 годы. Время научного описания и изучения острова. Начинается с ...",
"Конец XVIII — начало XIX века. Наименее изученный период.", "Плейстоценовая эпоха (P). Q
обозначает ...". Read alone such a line states nothing: a period has no predicate, the noun
phrase after it is its title, a legend entry names a code of a chart the text does not hold.
The rules here are grammar, not a list of sentences seen:

- `period_only`: a sentence made only of a time expression (years, centuries in Roman numerals,
  "начало/конец/середина/первая четверть ... века", "наши дни", "до н. э.", ranges by a dash)
  and no other word. It is a premise (`units.sentence_groups`): the sentence after it, its
  title, joins it, so the dates stay with what they date ("1791—1932 годы. Время научного
  описания ..." read with the island carried is a statement, as the graders read "1879—1912
  годы: колониальный период."); left alone, it is dropped (`standalone.unfit`).
- `period_term`: a "defined term" that is a time expression ("Первая четверть XIX века — наши
  дни: поиски сокровищ ..."): the dash is a range, no definition (`definition_rules`: "a range
  of dates").
- `legend_line`: a verbless noun phrase of a few words closed by a one- or two-letter code in
  brackets ("Плейстоценовая эпоха (P)."): a chart's legend, dropped. A phrase with a verb, a
  dash, a colon or a number is no legend: "Население — 1,2 млн человек.", "Площадь — 312 км²."
  are claims and stay.
"""

from __future__ import annotations

import re

_ROMAN = r"[IVXLC]+"
_PART = (
    r"(?:(?:перв|втор|трет|четв[её]рт|последн)\w*\s+(?:четверт|половин|трет)\w*"
    r"|начал\w*|кон(?:ец|ца|це|\.)|середин\w*|сер\.|нач\.|кон\.|рубеж\w*)"
)
_UNIT = (
    r"(?:год|года|году|годы|годов|годах|гг?\.?|век|века|веке|веков|вв?\.?|столети\w*"
    r"|тысячелети\w*|лет)"
)
_ERA = r"(?:до\s+)?(?:н\.\s*э\.|нашей\s+эры)"
_POINT = (
    rf"(?:(?:около|ок\.|с|по|до|примерно)\s+)?(?:{_PART}\s+)?"
    rf"(?:\d{{1,4}}(?:[-–—]\d{{1,4}})?|{_ROMAN}(?:[-–—]{_ROMAN})?)"
    rf"(?:\s+{_UNIT})?(?:\s+{_ERA})?"
    r"|наши\s+дни|настоящее\s+время|по\s+настоящее\s+время"
)
_PERIOD = re.compile(
    rf"^\s*(?:{_POINT})(?:\s*[—–-]\s*(?:{_POINT}))*\s*$",
    re.IGNORECASE,
)
_CLOSED = re.compile(r"[.:]\s*$")


def period_only(sentence: str) -> bool:
    """Whether the sentence is only a time expression, closed by "." or ":" ("1791—1932
    годы.", "Конец XVIII — начало XIX века.", "XVII—XVIII века."): a timeline's label.
    A Roman numeral alone ("II.") counts only with its unit; a bare year ("1991.") is a list
    number or a heading's tail, not a period of a timeline."""
    s = sentence.strip()
    if not _CLOSED.search(s) or not re.search(r"[а-яё\d]", s, re.IGNORECASE):
        return False
    body = _CLOSED.sub("", s).strip()
    if not re.search(r"[а-яё]", body, re.IGNORECASE):
        return False  # "1991.", "II.": no unit, no part of a century
    return _PERIOD.match(body) is not None


def period_term(term: str) -> bool:
    """Whether a would-be defined term is a time expression ("Первая четверть XIX века"):
    the dash after it is a range of dates, not a definition."""
    body = term.strip().rstrip(".:")
    return bool(re.search(r"\d|\b" + _ROMAN + r"\b|наши\s+дни", body)) and (
        _PERIOD.match(body) is not None
    )


# A Russian finite verb, short participle or copula, and a predicate dash: a claim's grammar.
_VERB = re.compile(
    r"(?<![\w-])[а-яё]{2,}(?:[аеиоуыяё]л[аои]?|[её]т|ит|ут|ют|ат|ят|ется|ится|ются|утся|атся"
    r"|ятся|[ая]н[аоы]?|[её]н[аоы]?|ся|сь)(?![\w-])"
    r"|(?<![\w-])(?:был|была|было|были|будет|будут|есть|является|являются)(?![\w-])",
    re.IGNORECASE,
)
_LEGEND = re.compile(r"^(?P<phrase>[^\d:;—–()]+?)\s*\((?P<code>[A-ZА-ЯЁ][a-zа-яё]?)\)\s*\.?\s*$")
_LEGEND_WORDS = 5


def legend_line(sentence: str) -> bool:
    """Whether the sentence is a legend entry: a noun phrase of at most `_LEGEND_WORDS` words,
    no verb, no dash, colon or number, and a one- or two-letter code in brackets last
    ("Плейстоценовая эпоха (P).")."""
    m = _LEGEND.match(sentence.strip())
    if m is None or not re.search(r"[а-яё]", m["phrase"], re.IGNORECASE):
        return False
    words = re.findall(r"[^\W\d_]+", m["phrase"])
    return 0 < len(words) <= _LEGEND_WORDS and _VERB.search(m["phrase"]) is None
