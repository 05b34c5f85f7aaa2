"""Sentences whose subject is what comes after them: "The following ...", "Here are ..." (pure).

A docs page introduces its lists, code and tables with a sentence that ends in "." as often as
in ":": "The following are the steps directly related to the context.", "The following is a
step-by-step procedure for releasing a new version of Google-Gson.", "Here are some guidelines
to help you get started.", "Below is a listing of many of the most common inspection targets.",
"The following two rules differ in their use of a trailing slash.", "Ниже приведён список
...". Its subject is the list or block after it, which the claim never holds: alone it says
nothing. A lead-in ending in ":" is `distill.units`'s; `steps_en.announces_what_follows` reads
a sentence that *ends* on "the following" or "below". This module reads one that *opens* on
it (`presents_what_follows`), and `distill.pointers` drops it with the pointers.

Not one: "The following year, he moved ..." and "The following day ..." (a time: the next one,
not the text after), "The following review aims to ..." (the paper itself), and a sentence that
holds what it presents after a colon ("The following options are supported: --foo and --bar.")
or is long enough to say something on its way.
"""

from __future__ import annotations

import re

_MAX_WORDS = 25
# "the following" as the subject (or its determiner) at the sentence's start, after an optional
# adverbial opener ("In general,", "For reference,", "Then"); not after an interjection: the
# blind text "Hello, here is some text without a meaning." presents itself, nothing after it.
_OPENER = (
    r"^(?:(?:in|for|as|at|on|by|with|to)\s+[A-Za-z]+(?:\s+[A-Za-z]+)?,\s+|(?:then|now|so|also"
    r"|finally|first|next|again|however|similarly|likewise|accordingly|thus|hence|therefore)"
    r",?\s+)?"
)
_THE_FOLLOWING = re.compile(_OPENER + r"the\s+following\b\s*(?P<rest>.*)$", re.IGNORECASE)
# "Here are ...", "Below is ...", "Shown below are ...": a presentative with its copula.
_HERE_IS = re.compile(
    _OPENER + r"(?:here|below|(?:shown|listed|given|described)\s+below)\s+(?:is|are)\s+"
    r"(?:an?|the|some|several|many|a\s+few|two|three|four|five|\d+|our|my|how|what|where)\b",
    re.IGNORECASE,
)
# What "the following" may qualify that is no text after it: a time or a turn of events ("the
# following year", "the following season"), or the document itself ("The following review
# aims to ...": this review).
_NOT_TEXT = re.compile(
    r"^(?:\w+\s+)?(?:years?|days?|weeks?|months?|decades?|centur(?:y|ies)|seasons?|mornings?"
    r"|evenings?|nights?|afternoons?|summers?|winters?|springs?|autumns?|falls?|spring|weekends?"
    r"|times?|hours?|minutes?|moments?|periods?|generations?|games?|matches|match|races?"
    r"|elections?|episodes?|semesters?"
    r"|review|paper|study|article|report|thesis|work|dissertation|essay|manuscript|chapter"
    r"|section|document|text)\b",
    re.IGNORECASE,
)
# Russian "Ниже приведены/перечислены/описаны ...", "Далее приводится ...", "Вот список ...".
_RU_BELOW = re.compile(
    r"^(?:ниже|далее|вот)\s+(?:(?:приведен|приведён|перечислен|описан|показан|представлен"
    r"|собран|указан|дан|привод|перечисля|описыва|показыва|следу)[а-яё]*|список|перечень)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\W\d_]+")
_COLON_WITH_CONTENT = re.compile(r":\s*\S")


def presents_what_follows(sentence: str) -> bool:
    """Whether the (cleaned, one) sentence's subject is the list, code or table after it
    (module docstring): it opens on "The following ..." (not a time nor the document itself),
    "Here are/is ...", "Below is/are ...", or ru "Ниже приведены ...", ends in "." or "!" (a ":"
    lead-in is `distill.units`'s), holds nothing after a colon, and is at most 25 words."""
    s = sentence.strip()
    if not s or s[-1] not in ".!" or _COLON_WITH_CONTENT.search(s):
        return False
    if len(_WORDS.findall(s)) > _MAX_WORDS or re.search(r"[.!?]\s+\S", s[:-1]):
        return False  # long, or a second sentence that may say what the first promised
    if _RU_BELOW.match(s) or _HERE_IS.match(s):
        return True
    m = _THE_FOLLOWING.match(s)
    return m is not None and _NOT_TEXT.match(m["rest"]) is None
