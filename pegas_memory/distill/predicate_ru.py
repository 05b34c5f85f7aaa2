"""Russian statements without a verb (pure logic, regexes only): possession and the predicate a
carried subject completes.

Russian states a property without a verb where English needs one, and `fact_rules.is_fact` reads
a Russian statement mostly by its finite verb. Two shapes of it are read here:

- `possessive(sentence)`: "у X (есть) Y" opening the sentence or a clause ("Подобно другим
  ночным видам, у жабы-ага горизонтальные зрачки.", "У парка два входа"): X has Y, a property.
- `predicate_of(claim)`: the claim a carry gave its subject ("Нестор Махно: автор мемуаров
  «Воспоминания».", "Дионисий (Алфёров): бывший епископ ..."), read as "subject — claim", the
  way a Russian lead says what its subject is. A claim that opens on a verbal noun ("Зарождение
  и развитие каталонского национализма.") names a topic, a headline: no predicate.
"""

from __future__ import annotations

import re

# "у" with its owner (one to three words, a hyphenated name too) at the start of the sentence or
# after a comma, colon or semicolon, then the thing owned: no verb needed.
_POSSESSIVE = re.compile(
    r"(?:^|[,;:]\s+)(?:(?:а|и|но|однако|также|ещё|еще|же)\s+)?у\s+(?!(?:меня|нас|вас|тебя)\b)"
    r"[а-яё][\w-]*(?:\s+[а-яё][\w-]*){0,2}\s+(?:есть\s+)?[а-яё«\d]",
    re.IGNORECASE,
)
# A verbal noun opening a claim: a topic or a period's headline, not a predicate of its subject.
_HEADLINE = re.compile(r"^\W*[а-яё]+(?:ние|тие|ция)(?![\w-])", re.IGNORECASE)


def possessive(sentence: str) -> bool:
    """Whether a Russian sentence states what something has ("у X Y", module docstring); not
    the speaker's or the reader's ("у меня", "у вас"): words of a dialogue or of a letter."""
    return _POSSESSIVE.search(sentence.strip()) is not None


def predicate_of(claim: str) -> bool:
    """Whether a claim without a subject can be the predicate of the subject carried onto it
    (module docstring): it ends a sentence and opens on no verbal noun."""
    s = claim.strip()
    return s.endswith((".", "»", ")")) and _HEADLINE.match(s) is None
