"""Speech in prose: what part of a sentence is quoted speech, and whether it is a line of
dialogue (pure logic, English and Russian; German quotes are read too).

A novel is mostly dialogue and narration, and a line of dialogue ("'Nor I,' said the March
Hare.") means nothing without the exchange around it: as an atom it is junk. So the distiller
needs to tell, for a sentence group:
- `quote_state(text, state)`: whether a quotation is still open after the text, so that the
  sentences of one utterance ("I hope they'll remember her saucer of milk. Dinah, my dear, I wish
  you were down here with me!") stay one unit instead of two halves;
- `speech(text)`: how many words are inside quotation marks ("...", “...”, «...», „...“, a
  sentence that opens with '...') or in Russian dash dialogue ("— Нет, — сказал он."), how many
  are outside, and whether the outside is only an attribution ("said Alice", "ответил он");
- `outburst(text)`: an exclamation or a question of a few words without quotes ("Down, down,
  down!", "Would the fall never come to an end?", "Какой ужас!"): it states nothing.
Whether such a unit is dropped, joined or kept is decided by the distiller (`distill.units`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.patterns import words_of

# Verbs (and their inflections) that attribute speech to a speaker.
_SPEECH_VERB = re.compile(
    r"\b(?:said|says|say|asked|asks|cried|cries|replied|replies|answered|answers|added|adds"
    r"|shouted|exclaimed|whispered|muttered|murmured|thought|roared|continued|went on|began"
    r"|remarked|observed|called|screamed|sighed|repeated|interrupted|ventured|pleaded|yelled"
    r"|told|explained|insisted|inquired|enquired|grumbled|growled|sobbed|shrieked|sang|sobbed"
    r"|suggested|returned|retorted|protested|persisted|urged|declared|stammered|gasped"
    r"|сказал\w*|говорит|говорил\w*|спросил\w*|ответил\w*|крикнул\w*|закричал\w*|воскликнул\w*"
    r"|прошептал\w*|подумал\w*|продолжал\w*|заметил\w*|проговорил\w*|пробормотал\w*|возразил\w*"
    r"|добавил\w*|произн[её]с\w*|вскрикнул\w*|молвил\w*|отозвал\w*|буркнул\w*|перебил\w*"
    r"|попросил\w*|повторил\w*|вздохнул\w*|согласил\w*|усмехнул\w*|сказано"
    r"|sagte|fragte|rief|antwortete|meinte|dachte|flüsterte)\b",
    re.IGNORECASE,
)
# A dash that opens a line of Russian dialogue, or that separates speech from its attribution.
_DASH_LINE = re.compile(r"^\s*[—–]\s")
_DASH_SPLIT = re.compile(r"\s[—–]\s|,\s?[—–]\s")
_OPENING_SINGLE = re.compile(r"^[\s(\[]*['‘]")
_OPENING = re.compile(r"^[\s(\[]*[\"“«„'‘]")
_ATTRIBUTION_MAX_WORDS = 14  # "said the Caterpillar, sternly" and a short aside
_ATTRIBUTION_HEAD = 4  # the speech verb is among the first words outside the quotation
_OUTBURST_MAX_WORDS = 8
_OUTBURST_CLAIM_WORDS = 4
_COPULAS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "will",
        "является",
        "являются",
        "был",
        "была",
        "было",
        "были",
        "есть",
        "будет",
        "ist",
        "sind",
        "war",
        "waren",
        "hat",
        "haben",
        "wird",
    ]
)
_PRONOUNS = en.DIALOGUE_PRONOUNS | ru.DIALOGUE_PRONOUNS


@dataclass(frozen=True)
class Speech:
    speech_words: int  # words inside quotation marks (or the dash lines' speech)
    other_words: int  # words outside them
    attributed: bool  # the words outside are an attribution ("said Alice") or nothing
    named: bool = False  # the attribution names its speaker ("said the King", not "she said")
    asks: bool = False  # the speech ends in a question: it means something with its answer

    @property
    def is_dialogue(self) -> bool:
        """A line of speech: speech with at most an attribution around it."""
        return self.speech_words > 0 and self.attributed


def quote_state(text: str, open_quote: bool = False) -> bool:
    """Whether a double quotation ("...", “...”, «...», „...“) is open after `text`, given
    whether one was open before it. Straight quotes toggle; typographic ones open and close."""
    for ch in text:
        if ch == '"':
            open_quote = not open_quote
        elif ch in "«„":
            open_quote = True
        elif ch == "“":
            # English opening mark, but the German closing one after „.
            open_quote = not open_quote if open_quote else True
        elif ch in "”»":
            open_quote = False
    return open_quote


def _quoted_split(text: str) -> tuple[list[str], list[str]]:
    """(speech pieces, other pieces) of a sentence, by its quotation marks."""
    speech: list[str] = []
    other: list[str] = []
    if _DASH_LINE.match(text):
        # "— Нет, — сказал он, — не пойду." : speech, attribution, speech, ...
        for n, piece in enumerate(_DASH_SPLIT.split(text.strip().lstrip("—–").strip())):
            (speech if n % 2 == 0 else other).append(piece)
        return speech, other
    marks = '"«»„“”'
    if not any(m in text for m in marks) and _OPENING_SINGLE.match(text):
        # British single quotes: only when the sentence opens with one ('Nor I,' said ...);
        # a closing mark is a quote followed by a space, punctuation or the end, not "don't".
        inside = False
        buf: list[str] = []
        for i, ch in enumerate(text):
            nxt = text[i + 1] if i + 1 < len(text) else " "
            prev = text[i - 1] if i else " "
            opening = (
                ch in "'‘" and not inside and (prev.isspace() or prev in "([—") and nxt.isalpha()
            )
            closing = ch in "'’" and inside and not nxt.isalpha() and not prev.isspace()
            if opening or closing:
                (speech if inside else other).append("".join(buf))
                buf, inside = [], not inside
            else:
                buf.append(ch)
        (speech if inside else other).append("".join(buf))
        return speech, other
    inside = False
    buf = []
    for ch in text:
        toggle = ch == '"' or (ch in "«„" and not inside) or (ch in "”»" and inside)
        if ch == "“":
            toggle = True
        if toggle:
            (speech if inside else other).append("".join(buf))
            buf, inside = [], not inside
        else:
            buf.append(ch)
    # An unclosed quote at the end: the rest is speech (its sentence goes on in the next one).
    (speech if inside else other).append("".join(buf))
    return speech, other


def speech(text: str, *, open_before: bool = False) -> Speech:
    """The speech and the other words of `text`; `open_before`: the text starts inside a
    quotation (the second sentence of an utterance, `... saucer of milk!"`)."""
    if open_before:
        text = '"' + text
    spoken, rest = _quoted_split(text)
    speech_words = sum(len(words_of(p)) for p in spoken)
    outside = " ".join(rest)
    other_words = len(words_of(outside))
    # A line of speech opens with its quotation ("'Nor I,' said ..."), or is mostly speech; a
    # sentence that quotes a few words ('Plague is "always fatal", says WHO.') is narration.
    opens = open_before or _OPENING.match(text) is not None or _DASH_LINE.match(text) is not None
    # The attribution is the verb and its speaker, maybe with a short aside ("said Alice (she
    # had grown to her full size by this time)"): a speech verb among its first words.
    head = " ".join(words_of(outside)[:_ATTRIBUTION_HEAD])
    attributed = (opens or speech_words > other_words) and (
        other_words == 0
        or (other_words <= _ATTRIBUTION_MAX_WORDS and _SPEECH_VERB.search(head) is not None)
    )
    names = [w for w in words_of(outside)[: _ATTRIBUTION_HEAD + 2] if w[:1].isupper()]
    named = any(w.casefold() not in _PRONOUNS for w in names)
    asks = bool(spoken) and spoken[-1].rstrip(" ,—–-").endswith("?")
    return Speech(speech_words, other_words, attributed, named, asks)


def starts_inside(paragraph: str) -> bool:
    """Whether a paragraph begins inside a quotation opened before it (a chunk that starts in
    the middle of an utterance): it closes more quotations than it opens."""
    curly = (
        paragraph.count("”") + paragraph.count("»") - paragraph.count("“") - paragraph.count("«")
    )
    if curly > 0:
        return True
    first = paragraph.lstrip()[:1]
    return (
        paragraph.count('"') % 2 == 1
        and first not in "\"“«„'‘"
        and paragraph.rstrip(" \n*_").endswith('"')
    )


def outburst(text: str) -> str | None:
    """ "exclamation" or "question" for a short sentence that ends so and quotes nothing."""
    stripped = text.strip()
    if any(m in stripped for m in '"«»„“”') or _DASH_LINE.match(stripped):
        return None
    if len(words_of(stripped)) > _OUTBURST_MAX_WORDS:
        return None
    if re.search(r"[^\W\d_]\s*!+\W*$", stripped):
        # "The Volga is the longest river in Europe!" states something: an exclamation of more
        # than a few words that has a copula or a number is a claim said loudly, not an outburst.
        words = words_of(stripped)
        stated = any(w.lower() in _COPULAS for w in words) or re.search(r"\d", stripped)
        if len(words) > _OUTBURST_CLAIM_WORDS and stated:
            return None
        return "exclamation"
    if re.search(r"[^\W\d_]\s*\?+\W*$", stripped):
        return "question"
    return None
