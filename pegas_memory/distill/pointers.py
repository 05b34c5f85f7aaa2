"""Sentences that only send the reader elsewhere, dropped as `pointer` noise (pure logic).

"See LICENSE.txt", "См. также ...", "Please refer to Bash Completions for details.", "Lesen Sie
dazu die Dokumentation.": true in their place, and nothing by themselves; a README or a manual is
full of them. `distill.units` drops such a sentence and counts it, so the ingest result says how
many went and why.
"""

from __future__ import annotations

import re

from pegas_memory.distill.patterns import words_of

# "See X", "cf. X", "См. также X": a bare pointer, whatever it points at, when it is this short.
_POINTER = re.compile(
    r"^(?:see(?: also)?|cf\.|см\.(?: также)?|подробнее см\.|siehe(?: auch)?)\s", re.IGNORECASE
)
_MAX_BARE_POINTER_WORDS = 6

# A sentence that only sends the reader elsewhere: a reading verb in the imperative and a
# destination ("Read more about it in Shell Completions.", "Please refer to Bash Completions for
# details.", "Подробнее см. в документации.", "Lesen Sie dazu die Dokumentation."), or "for
# details, see ...". Short only: a longer sentence says something on its way.
_READ_VERB = re.compile(
    r"^(?:please\s+)?(?:see|read|refer to|consult|check out|head over to|go to|visit|follow"
    r"|look (?:at|into)|more (?:in|at|about)|см\.|смотрите|читайте|подробнее|обратитесь к"
    r"|следуйте|siehe|lesen sie|folgen sie|mehr (?:dazu )?(?:in|unter|bei))\b",
    re.IGNORECASE,
)
_READ_WHERE = re.compile(
    r"\b(?:documentation|docs|guide|readme|reference|tutorial|section|chapter|manual"
    r"|for (?:more |further |complete |full |additional )?(?:details|information|info)"
    r"|документаци\w*|руководств\w*|раздел\w*|глав\w*|за подробност\w*|подробн\w*"
    r"|dokumentation|anleitung|handbuch|abschnitt|kapitel|für (?:weitere )?(?:details"
    r"|informationen|einzelheiten))\b",
    re.IGNORECASE,
)
# ... or, in a short sentence, a place named at its end ("Read more about it in Active Help.")
_READ_IN = re.compile(r"\b(?:in|at|about|в|во|im|unter)\s+(?:\S+\s+){0,3}\S+$", re.IGNORECASE)
_MAX_SHORT_POINTER_WORDS = 8
# only for reading verbs: "Visit the museum in Paris." goes somewhere, it points to no text
_READING = re.compile(
    r"^(?:please\s+)?(?:see|read|refer|consult|more|см\.|смотрите|читайте|siehe|lesen|mehr)\b", re.I
)
_FOR_DETAILS = re.compile(
    r"^for (?:more|further|complete|full|additional)?\s?(?:details|information|info)\b"
    r"(?:[^.]|\.(?=\w))*?"  # a dot inside a word ("express.js") ends no sentence
    r"\b(?:see|read|refer to|consult|check)\b",
    re.IGNORECASE,
)
_MAX_POINTER_WORDS = 16


# "If you find a vulnerability, please see ...": the condition says when, the rest points.
_CONDITION = re.compile(r"^(?:if|when|если|когда|wenn|falls)\b[^,;:]{2,100},\s*", re.IGNORECASE)
_PLEASE = re.compile(r"^(?:please|пожалуйста,?|bitte)\s+", re.IGNORECASE)


def _reading_pointer(body: str) -> bool:
    """Whether the sentence only points elsewhere (`_READ_VERB` and a destination), after a
    condition in front of it."""
    if len(words_of(body)) > _MAX_POINTER_WORDS:
        return False
    body = _CONDITION.sub("", body, count=1)
    if _FOR_DETAILS.match(body):
        return True
    if not _READ_VERB.match(body):
        return False
    short = len(words_of(body)) <= _MAX_SHORT_POINTER_WORDS and _READING.match(body) is not None
    return _READ_WHERE.search(body) is not None or (short and _READ_IN.search(body) is not None)


def is_pointer(body: str) -> bool:
    """Whether the (cleaned) sentence only points elsewhere: a bare "See X" of a few words, or a
    reading verb with a destination (`_reading_pointer`)."""
    core = _PLEASE.sub("", _CONDITION.sub("", body, count=1), count=1)
    short = len(words_of(body)) <= _MAX_POINTER_WORDS
    bare = _POINTER.match(core) is not None and len(words_of(core)) <= _MAX_BARE_POINTER_WORDS
    return (bare and short) or _reading_pointer(body)
