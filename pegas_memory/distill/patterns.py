"""What a sentence or a block says, by pattern, in English, Russian and German (pure logic).

- `match_definition(sentence)`: (term, body, confidence, pattern) when the sentence defines a term:
  a lead that names what X is, with brackets or aliases after the term ("Иван Петров (1900—1970)
  — советский писатель", "X (born 1950) is an American writer": the term without its brackets
  and stress marks), "X is a Y" (a genus after "a"/"an": "The Volga is the longest river" is a
  fact, "Hypoxia is a common cause of ..." a property), "X is defined as Y", "Y is called X",
  "we call X Y", "X is said to be Y if", "X — это Y", "X — Y", "X называется Y", "Под X
  понимается Y", "X heißt Y, wenn ...", "Sei ... Dann heißt X Y", "Unter X versteht man Y",
  "X nennt man Y", "X wird als Y bezeichnet", "X ist definiert als". An aim ("Цель исследования
  — изучить ...") is never a definition.
- `BLOCK_LABEL`: the label line of a numbered statement ("Definition 2.3", "Satz 1.1
  (Heine-Borel)", "Лемма 2.", "Proof."), and `label_kind` which family the label belongs to:
  definition, theorem (Satz, Lemma, Korollar, Theorem, Proposition, Corollary, Теорема, Лемма,
  Следствие), proof, or other (remarks and examples, whose sentences stand on their own). A theorem
  block becomes a `fact` atom with metadata kind=theorem (`distill.types`).
- `is_fact(sentence, language)`: a checkable statement. Not a question, an aim or plan, a scope or
  method statement, speculation, an open question ("it is unclear whether") or a call for more
  research. Else a number, a relation, an acronym or gene-like symbol, a verb of finding, relation
  or property ("associated with", "показали, что", "связан с"), a comparison; in Russian also a
  finite verb or a dash predicate ("Государственный язык — албанский"); never a capitalised word
  alone. Grammar comes first (`distill.mood`): an instruction, advice, a norm, a lead-in or a
  verbless phrase is text; "We present X ... and identify 25,000 hotspots" is a fact; a hedge in
  a later contrast clause leaves the first clause's statement; then an English finite verb and a
  Russian closing predicate adjective ("Тип ветвления моноподиальный.") make a fact.
"""

from __future__ import annotations

import re
from typing import Literal

from pegas_memory.distill.mood import (
    no_claim,
    presents_result,
    relational_term,
    ru_adjective_predicate,
    verbless,
)

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
# Verbs of relation make a sentence a fact; copulas ("is", "был") do not: nearly all have one.
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
_RU_FUNCTION_WORDS = wordset("в во на по с со к о об от до из за для при и а но или что как у")
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
        (_TERM + _ETYM + r"\s+(?:is|are)\s+(?P<body>(?:an?\s(?!lot|bit|little|few|couple|number)"
         r"|the\s+[^\W\d_]+\s+(?:of|by which|in which|that|whereby|for|used)\b).+)$", 0.7,
         "is_a"),
        (_TERM + _ETYM + r"\s+[—–]\s+(?P<body>.+)$", 0.7, "dash"),
    )
)  # fmt: skip
# "X is a common cause of Y", "a major target of": a property of X, not what X is.
_EVALUATIVE_GENUS = re.compile(
    r"(?:an?|the)\s+(?:\w+\s+(?:and\s+)?)?(?:common|major|leading|frequent|rare|important|key|main"
    r"|primary|significant|potential|possible|useful|powerful|promising|clinical|strong|good|poor"
    r"|independent|novel|new)\s+(?:\w+\s+)?(?:cause|source|reason|factor|target|indicator"
    r"|predictor|determinant|feature|problem|risk|complication|marker|contributor|consequence"
    r"|example|way|means|tool|approach|step)s?\s+(?:of|for|in|to)\b"
    # "Aspirin is a risk factor for bleeding", "X is a cause of Y": a relation of X to Y.
    r"|(?:an?|the)\s+(?:risk\s+)?(?:cause|factor|predictor|determinant|marker|contributor"
    r"|consequence|trigger|mediator|regulator|hallmark)s?\s+(?:of|for|in)\b",
    re.IGNORECASE,
)
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
    limit = 4 if pattern == "dash" else 6 if german or pattern in ("lead", "is_a") else 5
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
    """(term, body, confidence, pattern name) when the cleaned sentence defines a term.

    A lead ("X (1900—1970) — советский писатель", `_lead`) is tried first; a glued abstract label
    ("BACKGROUND"), stress marks and a qualifying opener ("Как правило,") are no part of a term."""
    sentence = _DEF_OPENERS.sub("", _CAPS_LABEL.sub("", _STRESS.sub("", sentence.strip())))
    if _AIM.search(sentence):
        return None  # "Цель исследования — изучить ...": an aim, not a definition of "Цель"
    lead = _lead(sentence)
    if lead is not None and _term_ok(_strip_term(lead[0]), "lead"):
        return _strip_term(lead[0]), lead[1].rstrip(".!…").strip(), 0.7, "lead"
    for pattern, confidence, name in _DEFINITIONS:
        m = pattern.match(sentence)
        if m is None:
            continue
        if name == "nazyv":
            # "Энтропией называется мера ..." vs "Множество ... называется окружностью": the term
            # is the side in the instrumental case, else the shorter one.
            left, right = _unbracketed(m["left"]), _unbracketed(m["right"])
            lw, rw = words_of(left), words_of(right)
            if not lw or not rw or re.search(r"[;:]", left):
                continue  # "...; для японских версий ... называют местом X": a clause
            if _INSTRUMENTAL.search(rw[-1]) and len(rw) <= 4:
                term, body = right, left
            elif _INSTRUMENTAL.search(lw[-1]) and len(lw) <= 4:
                term, body = left, right
            else:
                term, body = (right, left) if len(rw) <= len(lw) else (left, right)
        else:
            term, body = m["term"], m["body"]
        term, body = _strip_term(term), body.strip().rstrip(".!…").strip()
        if name == "is_a" and (
            (m["etym"] is None and len(words_of(term)) > 4)
            or _EVALUATIVE_GENUS.match(body)
            # "The integrity of sperm chromatin is a clinical indicator": an attribute of
            # something, not a term; "A set of vectors is a basis if ..." keeps its term.
            or (re.match(r"(?i)the\s", m["term"].strip()) and re.search(r"(?i)\sof\s", term))
        ):
            continue
        # A dash definition's genus starts in lower case ("Энтропия — мера ..."); a dash
        # between two names ("Москва — Санкт-Петербург") is not a definition.
        if name == "dash" and (
            len(words_of(term)) > 4 or len(words_of(body)) < 2 or relational_term(term)
        ):
            continue  # "Автор монумента — скульптор X": the monument's author, not a term
        if (
            name == "dash"
            and (
                not body[:1].islower()
                or re.search(r"[!?]", body)  # "Kjift – not at all! A blind text ..."
                # "Численность — около 60 тысяч человек": a quantity, not a genus.
                or re.match(r"(?i)(?:около|более|менее|свыше|примерно|почти|порядка)\s", body)
                # "Столица — город Ораньестад": a value with a name, not a genus.
                or (len(words_of(body)) <= 3 and any(w[:1].isupper() for w in words_of(body)))
                or _VERB_LIKE.search(words_of(body)[0])
                # "X — an aside — goes on": a second dash outside brackets makes the first an aside.
                or re.search(r"\s[—–]\s", re.sub(r"\([^()]*\)", "", body))
            )
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


# --- Wikipedia-style leads: "Иван Петров (1900—1970) — советский писатель." ---------------------
# Stress marks ("Аве́ркий") split words for `words_of`; they are dropped before a term is read.
_STRESS = re.compile("[\u0300\u0301]")
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
# Sentence openers that qualify a definition without being part of its term.
_DEF_OPENERS = re.compile(
    r"^(?:как правило|обычно|в общем случае|вообще говоря|иными словами|другими словами"
    r"|в (?:математике|физике|информатике|химии|биологии|медицине|лингвистике|экономике)"
    r"|in (?:mathematics|physics|computer science|chemistry|biology|medicine|linguistics)"
    r"|generally|usually|typically),?\s+",
    re.IGNORECASE,
)
# An abstract's section label glued on ("BACKGROUND Long non-coding RNAs (lncRNAs) are ...").
_CAPS_LABEL = re.compile(r"^(?:[A-Z]{3,}(?:\s+(?:AND|OF|[A-Z]{3,}))*:?)\s+(?=[A-Z][a-z])")
# `distill.leads` reads a lead "X is a/the N ..." with the same term rules:
ETYM, EVALUATIVE_GENUS, CAPS_LABEL, strip_term = _ETYM, _EVALUATIVE_GENUS, _CAPS_LABEL, _strip_term
# What may follow a lead's term before the dash: aliases ("также Леговек", "она же Элизабет
# Брэддок", "прежде Мраморный Трианон", "по прозванию Мэнжуань").
_ALIAS = re.compile(
    r"\s*,?\s*\b(?:также|она же|он же|оно же|они же|прежде|ранее|иначе|или|сокращённо"
    r"|мн\. ч\.|по прозванию|урожд\w*|в девичестве|известн\w* как|псевдоним\w*"
    r"|писал\w* под псевдонимом|also|formerly|née|aka)\b",
    re.IGNORECASE,
)
_DOMAIN = re.compile(r"^в\s+[^\s,—–]+(?:\s+[^\s,—–]+)?\s+[—–]\s+", re.IGNORECASE)


def _top_level_dash(text: str) -> int:
    """The index of the first " — " / " – " outside brackets and quotes, else -1."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([«“":
            depth += 1
        elif ch in ")]»”" and depth:
            depth -= 1
        elif ch in "—–" and depth == 0 and text[i - 1 : i] == " " and text[i + 1 : i + 2] == " ":
            return i
    return -1


def _unbracketed(text: str) -> str:
    while True:
        flat = _BRACKETED.sub("", text)
        if flat == text:
            return re.sub(r"\s+", " ", flat).strip()
        text = flat


_MAX_LEAD_HEAD = 320  # "Эрнст Иоганн Бирон (German: ...; 23 ноября 1690, ... (...) ...)" is 200


def _lead(sentence: str) -> tuple[str, str] | None:
    """(term, genus) of a lead sentence whose term carries brackets (dates, a transliteration,
    "English: ...") or aliases before the dash: "Пер Лагерквист (Swedish: ...) (23 мая 1891 —
    11 июля 1974) — шведский писатель"; the term is recorded without its brackets."""
    dash = _top_level_dash(sentence)
    if dash <= 0:
        return None
    head, body = sentence[:dash].strip(), sentence[dash + 1 :].strip()
    flat = _unbracketed(head)  # a ";" in brackets parts the bracket; a lower-case verb: a clause
    verb = any(w[:1].islower() and _RU_VERB.fullmatch(w) for w in words_of(flat))
    if ";" in flat or verb or len(head) > _MAX_LEAD_HEAD:
        return None  # "Достигнув расцвета ..., Тямпа ...; около 1470 года ... — ...": clauses
    parts = _ALIAS.split(flat, maxsplit=1)
    if flat == head and len(parts) == 1:
        return None  # no brackets, no alias: the plain dash pattern decides
    term = parts[0].split(",")[0].strip()
    body = _DOMAIN.sub("", re.sub(r"^это\s+", "", body, flags=re.IGNORECASE))
    words = words_of(body)
    if not term or len(words) < 2 or re.search(r"[!?]", body):
        return None
    if not (body[:1].islower() or re.match(r"\d+-[^\W\d_]", body)):
        return None  # "X (1900) — Москва": a name, not a genus
    if _VERB_LIKE.search(words[0]) or not 0 < len(words_of(term)) <= 6:
        return None
    first = words_of(term)[0].casefold()
    if first in ANAPHORS or first in _OPENERS or not (term[:1].isupper() or term[:1] in '«"“'):
        return None
    return term, body


# --- fact or text -------------------------------------------------------------------------------
# What opens a sentence without being its claim: a glued abstract label and connectives.
_OPEN = (
    r"^(?-i:[A-Z]{2,}(?:\s+(?:AND|OF|[A-Z]{2,}))*:?\s+)?(?:(?:here|thus|therefore|furthermore"
    r"|moreover|in addition|additionally|finally|first|second|also|then|accordingly"
    r"|in (?:this|the present|the current|our) (?:study|paper|review|article|work|report|trial"
    r"|analysis|chapter|section)|to\s+[^,;]{3,120}|(?:by\s+)?using\s+[^,;]{3,120}),?\s+)*"
)
# Aims, plans and scope assert nothing checkable, whatever names or numbers they mention.
_AIM = re.compile(
    _OPEN + r"(?:(?:we|this (?:study|paper|review|article|work|report|trial|analysis)"
    r"|the (?:present|current) (?:study|paper|review|article|work|trial|analysis)"
    r"|our (?:study|work))\s+(?:also\s+)?"
    r"(?:aim(?:s|ed)?|sought|seeks?|set out|intend(?:s|ed)?|plan(?:s|ned)?|propose[sd]? to"
    r"|attempt(?:s|ed)? to|tried to|try to|want(?:s|ed)? to|wish(?:es|ed)? to|will)\b"
    r"|(?:the\s+)?(?:main\s+|primary\s+|principal\s+|overall\s+)?(?:aim|objective|purpose|goal)s?"
    r"\s+(?:of|in|for)\s+(?:this|the|our)\b"
    r"|(?:the\s+)?(?:aim|objective|purpose|goal)s?\s+(?:was|were|is|are)\s+to\b"
    r"|(?:objectives?|aims?|purpose|goals?:?\s+)?to\s+(?:determine|investigate|assess|evaluate"
    r"|examine|compare|explore|test|identify|describe|quantify|characteri[sz]e|establish|estimate"
    r"|analy[sz]e|review|measure|study|understand|clarify|develop|validate|define|elucidate"
    r"|investigate)\b)"
    r"|^(?:цель|целью|задач\w*)\s+(?:\w+\s+){0,2}?(?:исследовани|работ|стать|проект|обзор)\w*"
    r"|^(?:в|во)\s+(?:данной|настоящей|этой|нашей|данном|настоящем|этом)\s+(?:работе|статье|главе"
    r"|обзоре|исследовании|разделе)\s+(?:мы\s+)?(?:рассматрива|описыва|исследу|представл|обсужда"
    r"|изуча|анализиру|предлага|ставится)\w*"
    r"|^мы\s+(?:планируем|намерены|стремились|стремимся|хотели|хотим|попытались|попытаемся"
    r"|ставили|ставим|будем|рассмотрим|опишем|исследуем|предлагаем|изучим)\b"
    r"|^(?:ziel|zweck|aufgabe)\s+(?:dieser|der|unserer|des)\s+(?:arbeit|studie|untersuchung"
    r"|kapitels|abschnitts)",
    re.IGNORECASE,
)
# Scope and method narrative: text unless they report a finding ("we examined ... and found that").
_SCOPE = re.compile(
    _OPEN + r"(?:(?:we|this (?:study|paper|review|article|work|report)|the (?:present|current)"
    r" (?:study|paper|review|article|work|report))\s+(?:also\s+)?(?:have\s+|had\s+)?(?:\w+ly\s+)?"
    r"(?:examine[sd]?"
    r"|describe[sd]?|undert(?:ook|ake)"
    r"|investigate[sd]?|explore[sd]?|evaluate[sd]?|assess(?:es|ed)?|review(?:s|ed)?|discuss(?:es|ed)?"
    r"|consider(?:s|ed)?|give[sn]?|gave|present(?:s|ed)?|focus(?:es|ed)?|address(?:es|ed)?"
    r"|outline[sd]?|summari[sz]e[sd]?|highlight(?:s|ed)?|conducted|performed|carried out|used"
    r"|enrolled|recruited|designed|collected|analy[sz]ed|measured|compared|selected|searched"
    r"|interviewed|surveyed|applied|employed|determined the|studied|tested|screened|sequenced"
    r"|followed|obtained|generated|constructed|is a foundation|provides? an?"
    r" (?:overview|review|summary|framework|foundation))\b)",
    re.IGNORECASE,
)
# Method narrative ("X was compared with Y", "the study compared ..."): text unless it reports
# a quantity ("Surgery was performed in 40% of the patients" is a finding).
_METHOD = re.compile(
    r"^.{0,120}\b(?:study|trial|phase|analysis|review|survey)\s+(?:compared|examined|assessed"
    r"|evaluated|investigated|enrolled)\b"
    r"|.{0,120}\b(?:was|were) (?:conducted|performed|carried out|undertaken|compared|randomi[sz]ed"
    r"|searched|interviewed|surveyed)\b"
    # A passive with its instrument: "was detected by the tumorigenicity assay".
    r"|\b(?:was|were)\s+(?:\w+\s+){0,3}?\w+ed\s+(?:using|by means of|by (?:an?\s+|the\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:assays?|methods?|analys[ie]s|tests?|techniques?|microscopy|staining"
    r"|PCR|scanners?|sequencing|cytometry|spectroscopy|blotting|imaging))\b"
    r"|\b(?:was|were) (?:assembled|incubated|transfected|cultured|stained|administered"
    r"|(?:frequency-|age-|sex-)?matched|stratified|allocated|assigned|excluded|adjusted)\b",
    re.IGNORECASE,
)
# A result's quantity in method words ("Surgery was performed in 40% of the patients", "in 12 of
# 30"): a finding; time points and group sizes ("93 to a seated control activity") are not.
_RATE = re.compile(r"\d\s*%|\b\d+\s*(?:of|out of|/)\s*(?:the\s+)?\d+|\bp\s*[<=>≤]\s*0?[.,]\d", re.I)
_QUANTITY = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*\s*%?(?![\w-])")
# What is not known, when that is the claim ("However, ..., it is controversial whether ...").
_UNKNOWN = re.compile(
    r"^(?:[^.;:]{0,120}[,:]\s+)?(?:it (?:is|remains) (?:still |often |also |largely |currently )?"
    r"(?:unclear|unknown|controversial"
    r"|debated|uncertain|not known)|little is known)\b"
    # The same as a predicate: "The role of monocytes is therefore controversial."
    # (one clause: "X is known, but how Y is unclear" states X; "Although X is known, how Y
    # ... is unknown" puts X in a subordinate clause)
    r"|^(?:\w+,\s+|(?:although|while|though)\s[^;]{3,200}?,\s+)?[^,;]*\b(?:is|are|remains?)\s+"
    r"(?:\w+\s+)?(?:unclear|unknown|controversial"
    r"|debated|uncertain|not (?:yet |fully |well )?(?:known|clear|understood|established))"
    r"\s*[.;]?$"
    # "our knowledge about X has, to date, been limited", "is poorly understood"
    r"|\bknowledge\b[^.]{0,120}\b(?:is|are|has been|have been|been|remains?)\s+(?:\w+\s+)?"
    r"(?:limited|lacking|incomplete|scarce|poor|sparse)\b"
    r"|^(?:\w+,\s+)?[^,;]*\b(?:is|are|remains?)\s+(?:still\s+)?(?:poorly|not well|incompletely)"
    r" understood\b",
    re.IGNORECASE,
)
_NEEDS_MORE = re.compile(
    r"\b(?:further|more|additional|future) (?:research|studies|study|work|trials?|investigations?)"
    r"(?:[^.]{0,80}?)\b(?:is|are|will be)? ?(?:needed|required|warranted|necessary)\b"
    r"|\bneeds? to be aware\b|\bremains? to be (?:determined|established|elucidated|seen)\b"
    r"|необходим\w* (?:дальнейш|дополнительн)\w* (?:исследовани|изучени)\w*"
    r"|\bесли бы\b",
    re.IGNORECASE,
)
# Speculation and evaluation: "This difference could be ...", "... is providing new insights".
_SPECULATION = re.compile(
    _OPEN + r"(?:this|these|that|those|it|such)\s+(?:\w+\s+){0,2}?(?:could|might|may)\s+"
    r"(?:be|reflect|represent|explain)\b"
    r"|\b(?:provid\w*|offer\w*|gives?|yield\w*)\s+(?:\w+\s+)?insights?\b"
    # An epistemic modal with a verb of explaining: "... may explain why ...".
    r"|\b(?:could|might|may)\s+(?:\w+\s+)?(?:explain|account for|reflect|underlie)\b"
    r"|\b(?:has|have|had)\s+(?:\w+\s+){0,2}?implications\b"
    # "... will thus likely be necessary", "could have implications for", "might lead to".
    r"|\b(?:will|would|could|might|may)\s+(?:\w+\s+){0,2}?(?:lead to (?:new|novel|better"
    r"|improved)|mean|have implications|prove|be (?:necessary|needed|required|useful|helpful"
    r"|beneficial|important))\b"
    # Evaluation: "These data illustrate the relevance of ...", "подчёркивает важность".
    r"|\b(?:is|are|was|were|been)\s+(?:\w+\s+)?(?:impressive|remarkable|exciting|fascinating"
    r"|pleasing|encouraging|disappointing|promising|interesting|surprising|intriguing)\b"
    r"|\b(?:illustrat\w*|highlight\w*|underscor\w*|emphasi[sz]\w*|подч[её]ркива\w*)\s+"
    r"(?:\w+\s+){0,2}?(?:importance|relevance|need|value|potential|significance|важность"
    r"|значимость|значение|необходимость)\b",
    re.IGNORECASE,
)
_FINDING_CLAUSE = re.compile(
    r"\b(?:found|find|show(?:s|ed|n)?|demonstrat\w+|reveal\w*|suggest\w*|indicat\w*|conclude[ds]?"
    r"|confirm\w*|establish(?:ed|es)?)\s+that\b"
    # "We demonstrate the importance of ...", "Our study therefore demonstrates ...": a result.
    r"|\b(?:we|(?:our|this|the|these) (?:study|studies|data|results|findings|analysis|work))\s+"
    r"(?:\w+ly\s+|therefore\s+|thus\s+|also\s+|further\s+)?(?:show(?:s|ed)?|demonstrat\w+"
    r"|found|find|identif(?:y|ied|ies)|uncover(?:s|ed)?|discover(?:s|ed)?|observed|isolated)\b"
    r"|\b(?:our|these|the) (?:data|results|findings) (?:emphasi[sz]e|highlight|underscore)\b",
    re.IGNORECASE,
)
# Measurement narrative ("Plasma levels ... were measured before and 1, 6, 24 h after surgery",
# "The effect ... is also examined"): text even with numbers, which are its time points.
_MEASURED = re.compile(
    r"\b(?:is|are|was|were)\s+(?:also\s+|then\s+|first\s+)?(?:measured|examined|assessed"
    r"|evaluated|investigated|recorded|monitored|determined|analy[sz]ed|collected|reviewed"
    r"|explored|quantified|estimated|calculated|sampled|documented)"
    r"(?!\s+(?:to be|as|in \d|at \d))\b",
    re.IGNORECASE,
)
# A state with its degree ("The location of infarcts was predominantly outside ...", "are widely
# used") or a passive of what a thing does or undergoes ("will be freed", "is tracked like a
# stack"): a property, checkable.
_STATE = re.compile(
    r"\b(?:is|are|was|were|be|been)\s+(?:not\s+)?(?:predominantly|mainly|mostly|largely|primarily"
    r"|significantly|markedly|substantially|consistently|almost|nearly|exclusively|usually"
    r"|generally|often|rarely|highly|widely|strongly|always|never|frequently|typically|commonly)\b"
    r"|\b(?:is|are|was|were|will be|would be|can be|cannot be|be|been|being|get|gets)\s+"
    r"(?:\w+ly\s+|not\s+|also\s+|then\s+)?(?:[a-z]{3,}ed|[a-z]{3,}en|made|built|held|kept|led"
    r"|left|known|shown|seen|given|taken|found|set|put|run|sent|spent|brought|told|thought)\b",
    re.IGNORECASE,
)
# Findings, properties and relations (the copulas "is", "был" alone say nothing).
_FINDING = re.compile(
    r"\b(?:associat\w*|relat(?:ed|es) to|correlat\w*|accompan\w*|linked (?:to|with)|suggest\w*"
    r"|indicat\w*|show(?:s|ed|n)?|demonstrat\w*|reveal\w*|found|observed|confirm\w*|identif\w*"
    r"|detected|predict\w*|protect\w*|inhibit\w*|induc\w*|regulat\w*|activat\w*|promot\w*"
    r"|prevent\w*|reduc\w*|improv\w*|enhanc\w*|impair\w*|affect(?:s|ed)?|undergo\w*|underwent|contribut\w*|mediat\w*"
    r"|interact\w*|stimulat\w*|express(?:ed|es)|encod\w*|binds?|bound|occur\w*|limited by"
    r"|available|provid(?:es|ed)? (?:an?|the)\b"
    r"|similar|differ(?:s|ed|ent|ence|ences)|significant\w*|effective|efficacious|evidence"
    r"|resistan\w*|essential|necessary|capable|able to|exhibit\w*|display\w*|remain\w*"
    r"|result(?:s|ed)? in|responsible|targets?|function(?:s|ed)? as|act(?:s|ed)? as|known"
    r"|considered|estimated|recommend\w*|higher|lower|greater|fewer|better|worse|superior"
    r"|inferior|than|longest|largest|highest|lowest|biggest|smallest|oldest|deepest|tallest"
    r"|greatest|most|least|only|prevalent|common|rare|frequent\w*|likely|unlikely|orchestrat\w*|controls?"
    r"|involv\w*|play(?:s|ed)? an? (?:\w+ )?role|can be|cannot be|has been|have been|had been)\b"
    r"|(?<![\w-])(?:связан\w*|показа\w*|выяв\w*|обнаруж\w*|установ\w*|подтверд\w*|доказ\w*"
    r"|наблюда\w*|выше|ниже|больше|меньше|более|менее|чем|увелич\w*|уменьш\w*|сниж\w*|повыш\w*"
    r"|облада\w*|име(?:ет|ют|ется|ются|л|ла|ло|ли)|явля\w*|представля\w* собой|отмеча\w*"
    r"|подраздел\w*|дел(?:ит|ят)ся|насчитыва\w*|вход(?:ит|ят)|вош(?:ёл|ла|ли)|расположен\w*"
    r"|располага\w*|служ\w*|счита\w*|стал[аои]?|получил\w*|построен\w*|принят\w*|создан\w*"
    r"|издан\w*|сам(?:ый|ая|ое|ые|ого|ой)|крупнейш\w*|наибольш\w*|наименьш\w*|провозглаш\w*|занима\w*|сохран\w*|продолжа\w*|существ\w*|назва\w*|подозрева\w*)"
    r"(?![\w-])",
    re.IGNORECASE,
)
_VERBS = re.compile(_RELATION.pattern + "|" + _FINDING.pattern, re.IGNORECASE)
_NUMBER_WORD = re.compile(
    r"(?<![\w-])(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|half|first|second|third"
    r"|один|одна|одно|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|оба|обе|обеими"
    r"|обоих|первы\w*|втор\w*|трет\w*|половин\w*)(?![\w-])",
    re.IGNORECASE,
)
# A gene, protein or chemical symbol: letters and digits mixed ("Nrf2", "miR-142", "H3K27me3").
_SYMBOL = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_][\w-]*\b")
# Russian states a property with a dash: "Государственный язык — албанский."
# A Russian finite verb in the indicative, past ("принял", "сыграли", "образовался"), present
# ("ведут", "образуется") or a short passive participle ("заведены", "распространён"): a sentence
# that states an event or a property, the way Wikipedia narrates.
_RU_VERB = re.compile(
    r"(?<![\w-])[а-яё]{2,}(?:(?:[аяиеуы]л(?:а|о|и)?(?:сь|ся)?)|(?:[ая]ет|[уюи]ет|ит|ят|ют|ут|ат)(?:ся)?"
    r"|(?:[ая]ют|[уюи]ют)ся|[ёе]н[аоы]?|[ая]н[аоы]?)(?![\w-])",
    re.IGNORECASE,
)
# A question ends a clause with "?"; a "?" inside a URL ("/hello?name=") asks nothing.
_QUESTION = re.compile(r"\?(?:\s|$|[»\"”’')\]*_`])")
# A clause of contrast after a statement: "X has been tried, but the results ...".
_CONTRAST = re.compile(r"(?:,\s*|\s+)(?:but|whereas|although)\s+|,\s*(?:но|однако)\s+|;\s+")
_RU_DASH = re.compile(r"[а-яё»)]\s[—–]\s+[а-яё«\d]", re.IGNORECASE)


def is_fact(sentence: str, language: str | None) -> bool:
    """Whether the sentence states something checkable: not a question, an aim, a plan, a scope or
    method statement, a call for more research or a counterfactual ("если бы"); and it holds a
    number, a relation, an acronym or a symbol, a verb of finding, relation or property, or a
    comparison; in English any finite verb once the text rules (instructions, norms, verbless
    phrases: `distill.mood`) have passed it, in Russian a finite verb, a dash predicate or a
    closing predicate adjective. A capitalised word does not make a fact: an aim names things."""
    s = sentence.strip()
    if _QUESTION.search(s) or _NEEDS_MORE.search(s) or _UNKNOWN.search(s) or no_claim(s, language):
        return False  # advice, an instruction, a norm, a lead-in, a pointer (`distill.mood`)
    if presents_result(s, language):
        return True  # "We present a map ... and identify 25,000 hotspots": scope with its result
    if _AIM.search(s):
        return False
    hedged = _SCOPE.search(s) or _SPECULATION.search(s) or _MEASURED.search(s)
    if (hedged or (_METHOD.search(s) and not _RATE.search(s))) and not (_FINDING_CLAUSE.search(s)):
        # "Many treatments have been proposed ... but the results have been disappointing": an
        # evaluation in a later clause leaves the statement of the first one standing.
        first = _CONTRAST.split(s, maxsplit=1)
        later = len(first) == 2 and hedged is not None and not _SCOPE.search(s)
        return later and not _MEASURED.search(s) and is_fact(first[0], language)
    no_verb = language == "en" and verbless(s, _VERBS)
    if no_verb and not _MATH_RELATION.search(s):
        return False  # "Fully POSIX-compliant flags (...)": names something, states nothing
    if _FINDING_CLAUSE.search(s) or _STATE.search(s):
        return True
    if language == "ru" and ru_adjective_predicate(s):
        return True  # "Тип ветвления моноподиальный.": a property stated without a verb
    numbers = _MATH_RELATION.search(s) is not None
    if numbers or _NUMBER_WORD.search(s) or _ACRONYM.search(s) or _SYMBOL.search(s):
        return True
    if _RELATION.search(s) or _FINDING.search(s):
        return True
    if language == "en" and not no_verb:
        # A finite verb that no rule above took for an aim, a method, an instruction or a hedge:
        # a statement ("The sender is the application", "Spain will be back on Wednesday").
        return True
    return language == "ru" and (_RU_DASH.search(s) is not None or _RU_VERB.search(s) is not None)
