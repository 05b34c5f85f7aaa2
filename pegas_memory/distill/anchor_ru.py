"""A chronology's year as the time of the dateless sentence after its entry (pure logic;
`distill.context.leans_back` asks `undated_after_entry` with the sentence before).

A Wikipedia chronology flattened into one paragraph (TyDi QA passages are) reads "1933 —
переселение института в Новосибирск. Всего в вузе действует уже 13 кафедр. Завершено
строительство ...": the sentences after an entry "<year> — ..." belong to its year, and alone
"Всего в вузе действует уже 13 кафедр" reads as now. The first sentence after an entry with no
year of its own (no number of three or four digits: "В том же году ..." has none either) joins
the entry; it is the one most often told as of the entry's time ("уже", "всего"), and a group
keeps its three sentences and 700 characters (`distill.units`), so the sentences further on are
carried as before. An entry is a year or a period of years, perhaps with a day and month,
before a dash ("1936—1938 — ...", "С 18 мая 1930 — ...").
"""

from __future__ import annotations

import re

_ENTRY = re.compile(
    r"^\s*(?:[Сс]\s+)?(?:\d{1,2}\s+[а-яё]+\s+)?\d{3,4}(?:\s*[—–-]\s*\d{2,4})?"
    r"(?:\s*(?:год[ауы]?|гг?\.))?\s+[—–]\s+\S"
)
_YEAR = re.compile(r"(?<!\d)\d{3,4}(?!\d)")


def entry(sentence: str) -> bool:
    """Whether the sentence opens a chronology entry (module docstring)."""
    return _ENTRY.match(sentence) is not None


def undated_after_entry(sentence: str, before: str | None) -> bool:
    """Whether the sentence has no year of its own and follows an entry (module docstring)."""
    return before is not None and entry(before) and _YEAR.search(sentence) is None
