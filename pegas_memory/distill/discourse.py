"""What a draft does in the discourse rather than what it states (pure, en and ru).

- **pointer**: the sentence says where something is in the text ("Section 5.4 will extend this
  rule", "Details are given in Appendix B", "Результаты приведены в таблице 2", "См. главу 3"),
  not what holds. A claim behind a pointer ("As shown in Figure 3, accuracy grows with depth")
  is judged without it.
- **narration**: the sentence walks a reader through steps or a story told to them ("Let's add
  a route", "Then you place your order", "Click Save.", "Давайте создадим файл", "Нажмите
  кнопку", "Рассмотрим функцию f"); a step that says what it is for ("Use --force to overwrite
  files", "Нажмите F5, чтобы обновить страницу") states what the step does and is kept, as is
  "you can/must ..." (what is possible or required).
- **fragment**: the sentence starts inside another one: a lowercase first word that no list
  lead-in explains, at a chunk's start or after a comma.
Grammar of Russian words from pymorphy3 (`distill.morph_ru`); the word lists are in
`distill.lexicon_en` and `distill.lexicon_ru`.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.morph_ru as morph
from pegas_memory.distill.patterns import words_of, wordset

POINTER = "pointer"
NARRATION = "narration"
FRAGMENT = "fragment"

_EN_REF = re.compile(
    rf"(?:\b(?:{en.PARTS})\s*(?:[\dIVX]+[\w.]*|(?-i:[A-Z])\b)|\b{en.SELF}\b|\[\d+(?:[,–-]\s*\d+)*\])",
    re.IGNORECASE,
)
_RU_REF = re.compile(
    rf"(?:(?<!\w)(?:{ru.PARTS})\s*(?:[\dIVX]+[\w.]*|(?-i:[А-ЯA-Z])(?!\w))|(?<!\w){ru.SELF}(?!\w)"
    r"|\[\d+(?:[,–-]\s*\d+)*\])",
    re.IGNORECASE,
)
_EN_ORGANISING = re.compile(rf"\b(?:{en.ORGANISING}|can be found)\b", re.I)
_RU_ORGANISING = re.compile(rf"(?<!\w)(?:{ru.ORGANISING})(?!\w)", re.IGNORECASE)
# What is described is stated too: "... shows that X", "... the composite case, which X".
_EN_CLAUSE = re.compile(r"\b(?:that|whether|how|why)\b|,\s*which\b", re.IGNORECASE)
_RU_CLAUSE = re.compile(r",\s*(?:что|как|почему|где|котор\w+)(?!\w)", re.IGNORECASE)
_SEE = re.compile(r"^\W*(?:see|cf\.|compare|refer to|см\.|смотри(?:те)?|ср\.)\s", re.IGNORECASE)
# "As shown in Figure 3, ...", "Как показано в разделе 2, ...": a pointer leading a claim.
_LEADING_POINTER = re.compile(r"^\W*(?:as|like|как)\b[^,]{0,80},\s*", re.IGNORECASE)
_EN_LEADS = wordset("now then next first finally here also so")
_EN_MODALS = wordset(
    "can could may might must should need needs have has will would shall cannot can't"
    " don't do does"
)
_RU_MODALS = wordset("можете можешь сможете сможешь должны должен должна могли мог могла вправе")


def pointer(claim: str, language: str | None) -> bool:
    """Whether the claim only points to another part of the text (module docstring)."""
    if _SEE.match(claim):
        # "See Chapter 3 for the proof", "See [LICENSE](LICENSE)"; but "See the report: the
        # basin holds 40% ..." and "See how the parser returns a tree ..." state something
        said = claim.partition(":")[2]
        short = len(words_of(claim)) <= 6
        named = (_RU_REF if language == "ru" else _EN_REF).search(claim) is not None
        return (short or named) and len(words_of(said)) < 4
    lead = _LEADING_POINTER.match(claim)
    if lead is not None:
        rest = claim[lead.end() :]
        if len(words_of(rest)) >= 4:
            return False  # the claim behind the pointer stands
    ref, organising, clause = (
        (_RU_REF, _RU_ORGANISING, _RU_CLAUSE) if language == "ru" else
        (_EN_REF, _EN_ORGANISING, _EN_CLAUSE)
    )  # fmt: skip
    if ref.search(claim) is None:
        return False
    verb = organising.search(claim)
    if verb is None:
        return False
    # "In Section 3 we show that X converges": what is shown is stated here.
    return clause.search(claim, verb.end()) is None


def narration(claim: str, language: str | None) -> bool:
    """Whether the claim narrates steps or a story to its reader (module docstring)."""
    words = words_of(claim)
    if len(words) < 2:
        return False
    if language == "ru":
        return _narration_ru(claim, [w.casefold() for w in words])
    return _narration_en(claim, [w.casefold() for w in words])


def _narration_en(claim: str, words: list[str]) -> bool:
    if en.READER.search(claim):
        return True
    i = 0
    while i < len(words) - 1 and words[i] in _EN_LEADS:
        i += 1
    first, second = words[i], words[i + 1] if i + 1 < len(words) else ""
    if first in ("you", "i") and second not in _EN_MODALS:
        return True  # "Then you place your order", "I clicked ..."
    if first not in en.STEP_VERBS or en.PURPOSE.search(claim) is not None:
        return False  # "Use X to do Y" says what X does
    # "Run the tests", "Click Save", "Open `app.py`": the verb takes its object; "Run times
    # were shorter" has a noun after "Run", and its own verb later.
    after = claim.split(maxsplit=i + 1)[i + 1 :]
    return bool(after) and (second in en.STEP_OBJECTS or not after[0][:1].islower())


def _narration_ru(claim: str, words: list[str]) -> bool:
    if ru.READER.search(claim):
        return True
    i = 0
    while i < len(words) - 1 and words[i] in ru.STEP_LEADS:
        i += 1
    first, second = words[i], words[i + 1]
    if first in ("вы", "ты") and second not in _RU_MODALS:
        return True
    if _RU_CLAUSE.search(claim) and morph.first_plural(first):
        return False  # "Заметим, что X" states X
    if morph.first_plural(first):
        return True  # "Рассмотрим функцию f", "Создадим файл"
    return morph.imperative(first) and ru.PURPOSE.search(claim) is None


def fragment(text: str, quote: str, quote_start: int, claim: str, language: str | None) -> bool:
    """Whether the quote starts inside another sentence (module docstring)."""
    head = quote.lstrip(" \t\n\"'“«(*-•–—")
    if not head[:1].islower() or _identifier(head):
        return False
    before = text[:quote_start].rstrip()
    if before:
        return before[-1] in ",;(" or before[-1].isalnum()
    # At the chunk's start: a function word opens a sentence's middle ("and the results ...",
    # "которые были ..."), a name written in lower case opens its own ("globset implements").
    first = words_of(head)[:1]
    if not first:
        return False
    if language == "ru":
        return morph.function_word(first[0])
    return first[0] in en.FUNCTION_WORDS
    return False


def _identifier(head: str) -> bool:
    """A first token that is a name written in lower case: "npm", "iOS", "x86", "pH", "git"."""
    token = head.split(maxsplit=1)[0] if head.split() else ""
    return bool(re.search(r"[A-Z\d_./`()]", token[1:]) or re.search(r"[\d_`]", token[:1]))
