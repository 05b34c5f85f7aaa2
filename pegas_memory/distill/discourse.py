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
- **question**: it opens on a short or tag question ("Почему?", "..., не правда ли?").
- **fragment**: the sentence starts inside another one: a lowercase first word that no list
  lead-in explains, at a chunk's start or after a comma; or the chunk's end cut it off.
Grammar of Russian words from pymorphy3 (`distill.morph_ru`); the word lists are in
`distill.lexicon_en` and `distill.lexicon_ru`.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
import pegas_memory.distill.morph_ru as morph
from pegas_memory.distill.patterns import words_of

POINTER = "pointer"
NARRATION = "narration"
FRAGMENT = "fragment"
QUESTION = "question"

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
# The lesson's "we" as the one who has or needs: "У нас есть массив", "Нам нужна функция".
_RU_OURS = re.compile(r"^\W*(?:у нас (?:есть|был|будет)|нам (?:нужн|надо|понадоб|потребу))", re.I)
_SEE = re.compile(r"^\W*(?:see|cf\.|compare|refer to|см\.|смотри(?:те)?|ср\.)\s", re.IGNORECASE)
# "As shown in Figure 3, ...", "Как показано в разделе 2, ...": a pointer leading a claim.
_LEADING_POINTER = re.compile(r"^\W*(?:as|like|как)\b[^,]{0,80},\s*", re.IGNORECASE)
# The authors announcing what comes next: "We then discuss ...", "Next, we describe ...".
_EN_AUTHORS_NEXT = re.compile(
    rf"^\W*(?:(?:next|then|finally|first|below|later|in what follows),?\s+)?we\s+"
    rf"(?:(?:then|next|now|first|finally|also|will|shall|briefly)\s+)+(?:{en.ORGANISING})\b",
    re.IGNORECASE,
)
_EN_ADVERBS = en.ADVERBS
_EN_LEADS = en.LEADS
_EN_MODALS = en.DISCOURSE_MODALS
_RU_MODALS = ru.MODALS


_SENTENCE_END = re.compile(r"(?<=[^\W_]|[»\"')`])[.!?…](?=\s|$)")
_TAG_QUESTION = re.compile(
    r"(?:не правда ли|не так ли|верно|правда|right|isn't it|aren't they|don't you think)\?$",
    re.IGNORECASE,
)
_SHORT_QUESTION = 4  # words


def question(claim: str) -> bool:
    """Whether the claim opens on a question that asks nothing by itself: a short one
    ("Почему?", "Why not?", "Что такое AutoML?") or a tag question ("Отлично выглядит, не правда
    ли?"). A question that names what it asks about ("Why do identical FFLs play different
    roles?") is an open question of its text, typed text, and is judged by the other rules."""
    end = _SENTENCE_END.search(claim)
    if end is None or end.group() != "?":
        return False
    first = claim[: end.end()]
    return len(words_of(first)) <= _SHORT_QUESTION or _TAG_QUESTION.search(first) is not None


def pointer(claim: str, language: str | None) -> bool:
    """Whether the claim only points to another part of the text (module docstring)."""
    if _SEE.match(claim):
        # "See Chapter 3 for the proof", "See [LICENSE](LICENSE)"; but "See the report: the
        # basin holds 40% ..." and "See how the parser returns a tree ..." state something
        said = claim.partition(":")[2]
        short = len(words_of(claim)) <= 6
        named = (_RU_REF if language == "ru" else _EN_REF).search(claim) is not None
        return (short or named) and len(words_of(said)) < 4
    if language != "ru" and _EN_AUTHORS_NEXT.match(claim):
        return True  # "We then discuss the API ...", "Next, we describe ..."
    lead = _LEADING_POINTER.match(claim)
    if lead is not None:
        rest = claim[lead.end() :]
        if len(words_of(rest)) >= 4:
            # the claim behind the pointer stands, unless it points too ("As an example,
            # Figure 1 depicts ...")
            return pointer(rest, language)
    ref, organising, clause = (
        (_RU_REF, _RU_ORGANISING, _RU_CLAUSE) if language == "ru" else
        (_EN_REF, _EN_ORGANISING, _EN_CLAUSE)
    )  # fmt: skip
    if ref.search(claim) is None:
        return False
    verb = organising.search(claim)
    if verb is None:
        return False
    # "In Section 3 we show that X converges": what is shown is stated here; a relative
    # clause further on ("Listing 4 shows an example of a function that returns ...") is not.
    for stated in clause.finditer(claim, verb.end()):
        if stated.group().startswith(","):
            return False  # "... describes the composite case, which needs X": X is stated
        gap = [w.casefold() for w in words_of(claim[verb.end() : stated.start()])]
        if all(w in _EN_ADVERBS or w.endswith("ly") for w in gap):
            return False  # "... shows (here) that X"
    return True


def narration(claim: str, language: str | None, *, steps: bool = True) -> bool:
    """Whether the claim narrates steps or a story to its reader (module docstring). With
    `steps` False a bare instruction is no narration: a heading carried onto it names the
    procedure it is a step of ("Release Checklist: Update the CHANGELOG ...")."""
    words = words_of(claim)
    if len(words) < 2:
        return False
    if language == "ru":
        return _narration_ru(claim, [w.casefold() for w in words], steps)
    return _narration_en(claim, [w.casefold() for w in words], steps)


def _narration_en(claim: str, words: list[str], steps: bool) -> bool:
    if en.READER.search(claim):
        return True
    i = 0
    while i < len(words) - 1 and words[i] in _EN_LEADS:
        i += 1
    first, second = words[i], words[i + 1] if i + 1 < len(words) else ""
    if first in ("you", "i") and second not in _EN_MODALS:
        return True  # "Then you place your order", "I clicked ..."
    if not steps or first not in en.STEP_VERBS or en.PURPOSE.search(claim) is not None:
        return False  # "Use X to do Y" says what X does
    # "Run the tests", "Click Save", "Open `app.py`": the verb takes its object; "Run times
    # were shorter" has a noun after "Run", and its own verb later.
    after = claim.split(maxsplit=i + 1)[i + 1 :]
    return bool(after) and (second in en.STEP_OBJECTS or not after[0][:1].islower())


def _narration_ru(claim: str, words: list[str], steps: bool) -> bool:
    if ru.READER.search(claim):
        return True
    i = 0
    while i < len(words) - 1 and words[i] in ru.STEP_LEADS:
        i += 1
    first, second = words[i], words[i + 1]
    if first in ("вы", "ты") and second not in _RU_MODALS:
        return True
    if (morph.first_plural(first) or morph.imperative(first)) and _RU_CLAUSE.match(
        claim, _after_word(claim, first)
    ):
        return (
            False  # "Заметим, что X", "Смотрите, как X" state X; not "Сделаем ... и подумаем, что"
        )
    if _RU_OURS.match(claim):
        return True  # "У нас есть набор элементов", "Нам нужна функция": the lesson's "we"
    if first == "мы" and morph.past_verb(second) and not _RU_CLAUSE.search(claim):
        return True  # "Мы получили лучшую обёртку": what the lesson did; not "Мы показали, что X"
    if morph.first_plural(first):
        return True  # "Рассмотрим функцию f", "Создадим файл"
    return steps and morph.imperative(first) and ru.PURPOSE.search(claim) is None


def _after_word(claim: str, word: str) -> int:
    """Where the first occurrence of `word` (case-folded) ends in the claim."""
    found = claim.casefold().find(word)
    return 0 if found < 0 else found + len(word)


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


_EN_DETERMINERS = en.DISCOURSE_DETERMINERS
_LIST_MARK = re.compile(r"^\s*(?:[-*•–+]|\d+[.)]|[a-z][.)])\s")


def cut_off(text: str, quote: str, quote_end: int) -> bool:
    """Whether the quote is a sentence cut in two: it ends on a letter or a comma with no
    closing punctuation, and either on a word no sentence ends on (an article, a preposition,
    a conjunction: "... until the end of the" where the source wraps its lines) or at the
    chunk's end inside a line (the next chunk, which overlaps this one, holds the whole
    sentence). A list item need not end on a stop."""
    line = text[text.rfind("\n", 0, quote_end - len(quote)) + 1 :]
    if _LIST_MARK.match(line):
        return False  # a list item need not end on a stop
    tail = quote.rstrip()
    words = words_of(tail)
    if not tail or len(words) <= 3 or not (tail[-1].isalpha() or tail[-1] in ",("):
        return False
    last = words[-1].casefold()
    if last in en.FUNCTION_WORDS or last in _EN_DETERMINERS or morph.function_word(last):
        return True  # no sentence ends on "the", "of", "в": its end is elsewhere
    # the chunk's end, inside a line
    return not text[quote_end:].strip() and not text.endswith("\n")


def _identifier(head: str) -> bool:
    """A first token that is a name written in lower case: "npm", "iOS", "x86", "pH", "git"."""
    token = head.split(maxsplit=1)[0] if head.split() else ""
    return bool(re.search(r"[A-Z\d_./`()]", token[1:]) or re.search(r"[\d_`]", token[:1]))
