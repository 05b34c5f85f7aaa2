"""What a sentence or a block says, by pattern, in English, Russian and German (pure logic).

- `match_definition(sentence)`: (term, body, confidence, pattern) when the sentence defines a term:
  "X is a Y", "X is defined as Y", "Y is called X", "we call X Y", "X is said to be Y if",
  "X — это Y", "X называется Y", "Под X понимается Y", "X heißt Y, wenn ...", "Sei ... Dann heißt
  X Y", "Unter X versteht man Y", "X nennt man Y", "X wird als Y bezeichnet", "X ist definiert als".
- `BLOCK_LABEL`: the label line of a numbered statement ("Definition 2.3", "Satz 1.1
  (Heine-Borel)", "Лемма 2.", "Proof."), and `label_kind` which family the label belongs to:
  definition, theorem (Satz, Lemma, Korollar, Theorem, Proposition, Теорема, Лемма, Следствие),
  proof, or other (remarks and examples, whose sentences stand on their own).
- `is_fact(sentence, language)`: a checkable statement: a number or a date, a measurable or
  mathematical relation, a verb of relation, or a named entity doing something. A capitalised word
  counts as a name only in English and Russian: German capitalises every noun.
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

LabelKind = Literal["definition", "theorem", "proof", "other"]


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


def words_of(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text)


LETTER = re.compile(r"[^\W\d_]")
ANAPHORS = wordset(
    "it this that these those there they he she we i you here which what who such its their"
    " our his her my он она оно они это этот эта эти тот та те там тут здесь мы я вы такой"
    " такая такие который которая которые всё все его её их"
)
# Verbs of relation make a sentence a fact; copulas ("is", "was", "был") do not: nearly every
# sentence has one.
_RELATION = re.compile(
    r"\b(contains?|consists?|causes?|caused|leads? to|depends?|owns?|owned|built|wrote|written"
    r"|belongs?|located|founded|invented|discovered|born|died|includes?|produces?|equals?"
    r"|requires?|uses?|announced|said|says|reported|released|launched|acquired|increased"
    r"|decreased|rose|fell|won|lost|signed|elected|killed|arrested|sold|bought|grew"
    r"|являет\w*|содерж\w*|состо\w*|вызыва\w*|привод\w*|завис\w*"
    r"|принадлеж\w*|находит\w*|основан\w*|изобр\w*|открыл\w*|родил\w*|умер\w*|включа\w*"
    r"|равн\w*|составля\w*|использу\w*|требу\w*|заяв\w*|сообщ\w*"
    r"|enthält|enthalten|besteht|bestehen|gehört|gehören|liegt|liegen|beträgt|entspricht"
    r"|verursacht|führt zu|hängt|gegründet|gründete|erfunden|entdeckt|geboren|starb|gestorben"
    r"|umfasst|erzeugt|erzeugen|besitzt|hat|haben|gilt|gelten|existiert|existieren|ist gleich"
    r"|konvergiert|induziert)\b",
    re.IGNORECASE,
)
_MATH_RELATION = re.compile(r"[=<>≤≥≠⊆⊂⊇⊃∈∉≅≃∼⇒⇔→↦]|\b\d")
_ACRONYM = re.compile(r"\b[A-ZÄÖÜ]{2,}\b")
# "The term refers to ...": the defined word is elsewhere, so this is no definition of "term".
_GENERIC_TERMS = frozenset(
    ["term", "word", "concept", "notion", "термин", "понятие", "слово", "begriff", "wort"]
)
# Words that open a sentence or clause but never a defined term.
_OPENERS = wordset(
    "but so then and or indeed only yet also still now thus hence however helping noting тогда"
    " также затем потом однако поэтому сейчас сам самое другие dann also so und oder aber"
    " damit daher somit"
)
_CLAUSE_WORDS = wordset("there that which who says said is are was were")
_RU_FUNCTION_WORDS = wordset("в во на по с со к о об от до из за для при и а но или что как")
# A dash followed by a verb ("Эпоха — характеризуется ...") is a clause, not a genus.
_VERB_LIKE = re.compile(r"(ся|ает|яет|ует|ивает|ывает)$", re.IGNORECASE)
_INSTRUMENTAL = re.compile(r"(ой|ей|ом|ем|ами|ями|ью|ым|им|ыми|ими)$", re.IGNORECASE)
_TERM = r"(?P<term>[^,;:()\n—–]{1,60}?)"
_ETYM = r"(?:\s*\((?P<etym>[^()]*)\))?"
_END = r"[.!…]?$"
_DE_TERM = r"(?P<term>[^,;:\n]{1,80}?)"
_DE_COND = r"(?:\s*,?\s*(?:wenn|falls|sofern|genau dann)\b.*)?"
# (pattern, confidence, name); the first match wins, so explicit markers come first.
_DEFINITIONS: tuple[tuple[re.Pattern[str], float, str], ...] = tuple(
    (re.compile(p, re.IGNORECASE | re.DOTALL), c, n)
    for p, c, n in (
        (_TERM + _ETYM + r"\s*(?:[—–]|\s-{1,2})\s*это\s+(?P<body>.+)$", 0.75, "eto"),
        (r"под\s+(?P<term>.{1,60}?)\s+(?:понима|подразумева)\w*\s+(?P<body>.+)$", 0.75, "pod"),
        (r"(?P<left>.+?)\s+(?:называ(?:ется|ются|ют|ли|лся|лась|лось|лись)|именуе?тся"
         r"|именую?т)\s+(?P<right>.+?)" + _END, 0.75, "nazyv"),
        (_TERM + r"\s+определя\w*\s+как\s+(?P<body>.+)$", 0.75, "opredelyaetsya"),
        (_TERM + r"\s+(?:означает|обозначает)\s+(?P<body>.+)$", 0.7, "oznachaet"),
        # German: "unter X versteht man Y", "(Sei ... Dann) heißt X Y", "X heißt Y, wenn ...".
        (r"(?:.*?\b)?unter\s+(?P<term>.{1,60}?)\s+versteht\s+man\s+(?P<body>.+)$", 0.75,
         "versteht"),
        (r"(?:.*?\bdann\s+)hei(?:ßt|ßen|sst|ssen)\s+(?P<body>.+?)\s+(?P<term>[^\s,]+(?:\s[^\s,]+){0,3}?)"
         + _DE_COND + _END, 0.75, "dann_heisst"),
        (r"(?P<body>.+?)\s+hei(?:ßt|ßen|sst|ssen)\s+" + _DE_TERM + _DE_COND + _END, 0.75, "heisst"),
        (r"(?P<body>.+?)\s+(?:nennt|nennen)\s+(?:man|wir)\s+" + _DE_TERM + _DE_COND + _END,
         0.75, "nennt"),
        (r"(?P<body>.+?)\s+(?:wird|werden)\s+(?:als\s+)?" + _DE_TERM
         + r"\s+(?:bezeichnet|genannt)" + _DE_COND + _END, 0.75, "bezeichnet"),
        (_DE_TERM + r"\s+(?:ist|sind)\s+definiert\s+als\s+(?P<body>.+)$", 0.75, "definiert"),
        (_TERM + _ETYM + r"\s+(?:is|are)\s+(?:defined|understood)\s+as\s+(?P<body>.+)$", 0.75,
         "defined"),
        (r"(?:.*?\b)?we\s+(?:call|define)\s+(?P<body>.+)\s+(?P<term>[^\W\d_][\w-]*)"
         r"\s+(?:if|when|whenever|provided)\b.*$", 0.75, "we_call"),
        (r"(?P<body>.{3,}?)\s+(?:is|are)\s+said\s+to\s+be\s+(?P<term>[^,;]{1,50}?)"
         r"(?:\s+(?:if|when|whenever)\b.*)?" + _END, 0.75, "said_to_be"),
        (_TERM + r"\s+(?:refers?|refer)\s+to\s+(?P<body>.+)$", 0.7, "refers"),
        (_TERM + r"\s+(?:means|denotes|stands for)\s+(?P<body>(?!that\b).+)$", 0.7, "means"),
        (r"(?P<body>.{10,}?)\s+(?:is|are)\s+(?:called|known as|termed)\s+(?P<term>[^,;]{1,60}?)"
         r"(?:\s+(?:if|when|whenever)\b.*)?" + _END, 0.7, "called"),
        # "X is a Y" / "X is the Y of|by which ...": a genus; "X is the best Y" is no definition.
        (_TERM + r"\s+(?:is|are)\s+(?P<body>(?:an?\s(?!lot|bit|little|few|couple|number)"
         r"|the\s+[^\W\d_]+\s+(?:of|by which|in which|that|whereby|for|used)\b).+)$", 0.7,
         "is_a"),
        (_TERM + _ETYM + r"\s+[—–]\s+(?P<body>.+)$", 0.7, "dash"),
    )
)  # fmt: skip
# Inside a "Definition N" block a plain "X ist ein Y" / "X is a Y" names the term too.
_BLOCK_IS_A = re.compile(
    r"^(?:(?:ein|eine|einer|der|die|das|a|an|the)\s+)?(?P<term>[^,;:()\n]{2,60}?)\s+"
    r"(?:ist|sind|is|are)\s+(?:ein|eine|einer|a|an|the)\s",
    re.IGNORECASE,
)
_GERMAN_PATTERNS = frozenset(["heisst", "dann_heisst", "nennt", "bezeichnet", "definiert"])

_LABELS: dict[str, LabelKind] = {
    **dict.fromkeys(["definition", "def", "определение"], "definition"),
    **dict.fromkeys(
        ["satz", "lemma", "korollar", "folgerung", "theorem", "proposition", "corollary",
         "claim", "теорема", "лемма", "следствие", "утверждение", "предложение"],
        "theorem",
    ),
    **dict.fromkeys(["beweis", "proof", "доказательство"], "proof"),
    **dict.fromkeys(
        ["bemerkung", "beispiel", "beobachtung", "aufgabe", "übungsaufgabe", "notation",
         "remark", "example", "exercise", "note", "замечание", "пример", "упражнение"],
        "other",
    ),
}  # fmt: skip
BLOCK_LABEL = re.compile(
    r"^[ \t]*(?:\*\*|__)?(?P<label>" + "|".join(sorted(_LABELS, key=len, reverse=True))
    + r")(?:\s+(?P<num>\d+(?:\.\d+)*))?\.?(?:\s*\((?P<title>[^()\n]{1,80})\))?"
    r"(?P<sep>[ \t]*[.:][ \t]*|(?:\*\*|__)[ \t]*|[ \t]*$)",
    re.IGNORECASE | re.MULTILINE,
)  # fmt: skip
PROOF_END = re.compile(r"[■□∎]|\bq\.\s?e\.\s?d\.|\bч\.\s?т\.\s?д\.", re.IGNORECASE)


def label_kind(match: re.Match[str]) -> LabelKind | None:
    """The family of a BLOCK_LABEL match, or None when it is prose ("Definition of X is ...")."""
    kind = _LABELS[match["label"].casefold()]
    numbered = match["num"] is not None or match["title"] is not None
    if kind == "proof":
        return kind if match["sep"].strip() or match["sep"] == "" else None
    if not numbered and not match["sep"].strip(" \t*_"):
        return None  # "Satz" alone at a line start is a German word, not a label
    return kind


def _term_ok(term: str, pattern: str) -> bool:
    """Whether `term` reads as a defined name rather than the start of an ordinary sentence."""
    words = [w.casefold() for w in words_of(term)]
    german = pattern in _GERMAN_PATTERNS
    limit = 4 if pattern in ("dash", "is_a") else 6 if german else 5
    if not 0 < len(words) <= limit or term[:1].isdigit():
        return False
    if not german and ("(" in term or ")" in term):
        return False
    if term.casefold() in _GENERIC_TERMS:
        return False
    if words[0] in ANAPHORS or words[0] in _OPENERS or _CLAUSE_WORDS.intersection(words):
        return False
    # "Глубокое обучение по Хинтону — ...": a dash after a phrase with a preposition is prose.
    return not (pattern == "dash" and _RU_FUNCTION_WORDS.intersection(words))


def _strip_term(term: str) -> str:
    term = term.strip().strip("«»\"'“”„`*_ .,;:!?…")
    return re.sub(r"^(?:a|an|the)\s+", "", term, flags=re.IGNORECASE)


def match_definition(sentence: str) -> tuple[str, str, float, str] | None:
    """(term, body, confidence, pattern name) when the cleaned sentence defines a term."""
    for pattern, confidence, name in _DEFINITIONS:
        m = pattern.match(sentence)
        if m is None:
            continue
        if name == "nazyv":
            # "Энтропией называется мера ..." vs "Множество ... называется окружностью": the term
            # is the side in the instrumental case, else the shorter one.
            left, right = m["left"].strip(), m["right"].strip()
            lw, rw = words_of(left), words_of(right)
            if not lw or not rw:
                continue
            if _INSTRUMENTAL.search(rw[-1]) and len(rw) <= 4:
                term, body = right, left
            elif _INSTRUMENTAL.search(lw[-1]) and len(lw) <= 4:
                term, body = left, right
            else:
                term, body = (right, left) if len(rw) <= len(lw) else (left, right)
        else:
            term, body = m["term"], m["body"]
        term, body = _strip_term(term), body.strip().rstrip(".!…").strip()
        # A dash definition's genus starts in lower case ("Энтропия — мера ..."); a dash
        # between two names ("Москва — Санкт-Петербург") is not a definition.
        if name == "dash" and (len(words_of(term)) > 4 or len(words_of(body)) < 2):
            continue
        if name == "dash" and (
            not body[:1].islower()
            or _VERB_LIKE.search(words_of(body)[0])
            # "X — an aside — goes on": a second dash outside brackets makes the first an aside.
            or re.search(r"\s[—–]\s", re.sub(r"\([^()]*\)", "", body))
        ):
            continue
        if _term_ok(term, name) and LETTER.search(term):
            return term, body, confidence, name
    return None


def block_term(text: str, title: str | None) -> str | None:
    """The term a "Definition N" block defines: by a definition pattern in one of its
    sentences, else the block's title in parentheses, else its "X ist ein Y" subject."""
    flat = re.sub(r"\s+", " ", text).strip()
    for part in re.split(r"(?<=[.!?])\s+", flat):
        found = match_definition(part)
        if found is not None:
            return found[0]
    if title:
        return title.strip()
    m = _BLOCK_IS_A.match(flat)
    return _strip_term(m["term"]) if m else None


def is_fact(sentence: str, language: str | None) -> bool:
    """Whether the sentence states something checkable (module docstring)."""
    if sentence.rstrip().endswith("?"):
        return False
    if _MATH_RELATION.search(sentence):
        return True
    if _ACRONYM.search(sentence):
        return True
    words = sentence.split()
    if language != "de" and any(
        w[:1].isupper() and LETTER.match(w) and w != "I" and not prev.endswith((".", ":", "!"))
        for prev, w in itertools.pairwise(words)
    ):
        return True
    return _RELATION.search(sentence) is not None
