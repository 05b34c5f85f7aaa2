"""Russian instructions and norms: whether a sentence tells the reader what to do (pure logic).

Moved out of `distill.mood`, which asks `ru_instructs` for a Russian sentence. What is read:

- an imperative ("Установите ...", "Сначала не забудьте ...", after "Если ..., ");
- a norm: "следует", "нужно", "надо", "необходимо", "рекомендуется", "обязательно", "должен"
  with an infinitive ("Необходимо установить пакет", "Файл должен лежать в домашнем каталоге").

Not a norm of the sentence, and so no text by itself:
- one after a statement: a clause with a finite verb of its own ends before the norm's clause,
  at a sentence's end, a semicolon or a clause joined on ("Аптекарь ... считается специалистом
  ... . Аптекарь ... должен зарегистрироваться в ГФС.", "парламент обладает ... полномочиями,
  при этом рекомендации должны реально соблюдаться Комиссией"): what the atom states is its
  claim, and the norm a requirement stated along with it, checkable in an encyclopedia's text;
- one in brackets, an aside ("(... революция не обязательно должна быть политической ...)");
- "не обязательно / не всегда должен" (not necessarily);
- one after a verb of saying, an order or in a relative clause ("утверждал, что нужно ...",
  "дал поручение ... о том, что «в плену не должно остаться ...»", "дар, который следует ...
  принимать": what someone held or ordered);
- an expectation of a measure ("должно составлять около ...");
- a remark ("Следует отметить, что ...": the claim is what follows).
"""

from __future__ import annotations

import re

from pegas_memory.distill.words_ru import _verb

_RU_IMPERATIVE = re.compile(
    r"^(?:(?:если|когда|чтобы|для того чтобы)\b[^,;:]{2,120},\s*)?(?:(?:сначала|затем|потом"
    r"|теперь|далее|просто|также|и|но|пожалуйста),?\s+)*(?:не\s+)?[а-яё]{3,}(?:йте|ите|ьте)\b",
    re.IGNORECASE,
)
_RU_OBLIGED = re.compile(
    r"(?<![\w-])(?P<modal>следует|нужно|надо|необходимо|рекомендуется|обязательно|должн[аоы]"
    r"|должен)(?:\s+(?!был|была|было|были)[\w-]+){0,2}?\s+[а-яё]+(?:ть|ти|чь|ться|тись)(?![\w-])"
    r"(?!,?\s+что\b)",
    re.IGNORECASE,
)
_RU_REMARK = re.compile(
    r"(?:следует|нужно|надо|необходимо)\s+(?:\w+\s+)?(?:отметить|подчеркнуть|сказать|заметить"
    r"|упомянуть|учесть|признать)",
    re.IGNORECASE,
)
_RU_EXPECTED = re.compile(
    r"(?<![\w-])(?:должн[аоы]|должен)\s+(?:\w+\s+)?(?:быть|составлять|занимать|длиться)\s+"
    r"(?:\w+\s+)?(?:примерно|около|приблизительно|порядка|сопоставим\w*|сравним\w*|не более"
    r"|не менее|до\s+\d|\d)",
    re.IGNORECASE,
)
# A Russian norm inside a relative clause, after a verb of saying or an order ("..., что месса —
# это дар, который следует с благодарностью принимать всем приходом"; "утверждал, что нужно
# ..."; "дал поручение ... о том, что ..."): the content of what someone held or ordered, not the
# sentence's own norm.
_RU_REPORTED = re.compile(
    r"(?<![\w-])(?:котор\w+|утвержда\w*|считал\w*|писал\w*|заявля\w*|заявил\w*|полагал\w*"
    r"|призыва\w*|призвал\w*|настаива\w*|учил\w*|поручени\w*|приказ\w*)(?![\w-])"
    r"|(?<![\w-])о\s+том,\s+что(?![\w-])",
    re.IGNORECASE,
)
# What a norm after a statement follows: a sentence's end, a semicolon, or a clause joined on
# ("..., при этом рекомендации должны ...", "ЕС соблюдает ... и должен быть основан ...").
_BOUNDARY = re.compile(
    r"[.!?…]\s+|;\s+|,\s+(?:при этом|а|но|однако|причём|причем|и|поэтому)\s+"
    r"|\s(?:и|а|но)\s+(?:при этом\s+)?",
    re.IGNORECASE,
)
_WORD = re.compile(r"[а-яё]+", re.IGNORECASE)
_NOT_NECESSARILY = re.compile(r"(?<![\w-])не\s+(?:обязательно|всегда)\s+$", re.IGNORECASE)


def _in_brackets(text: str) -> bool:
    """Whether the end of `text` is inside an open bracket."""
    return text.count("(") > text.count(")")


def _stated_before(before: str) -> bool:
    """Whether a clause with a finite verb of its own ends before the norm's clause (at a
    `_BOUNDARY`): the statement is the atom's claim, the norm goes on about it."""
    ends = [m.start() for m in _BOUNDARY.finditer(before)]
    if not ends:
        return False
    head = re.sub(r"\([^()]*\)", " ", before[: ends[-1]])
    return any(_verb(w) for w in _WORD.findall(head) if w.islower())


def _own_norm(sentence: str, m: re.Match[str]) -> bool:
    """Whether the obligation `m` is the sentence's own norm (module docstring)."""
    before = sentence[: m.start()]
    if _RU_REPORTED.search(before) or _RU_EXPECTED.match(sentence, m.start()):
        return False
    if _NOT_NECESSARILY.search(before) or (
        m["modal"].casefold() == "обязательно" and before.endswith("не ")
    ):
        return False  # "не обязательно должна быть политической": not necessarily
    return not (_in_brackets(before) or _stated_before(before))


def ru_norm(sentence: str) -> bool:
    """A Russian obligation that is the sentence's own norm (module docstring)."""
    return any(_own_norm(sentence, m) for m in _RU_OBLIGED.finditer(sentence))


def ru_instructs(sentence: str) -> bool:
    """Whether the Russian sentence tells the reader what to do: an imperative or a norm of its
    own (module docstring); a remark ("Следует отметить, что ...") states what follows."""
    s = sentence.strip()
    if _RU_REMARK.search(s):
        return False
    return bool(_RU_IMPERATIVE.search(s) or ru_norm(s))
