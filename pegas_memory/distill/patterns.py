"""What a sentence or a block says, by pattern, in English, Russian and German (pure logic).

- `match_definition(sentence)`: (term, body, confidence, pattern) when the sentence defines a term:
  a lead that names what X is, with brackets or aliases after the term ("Иван Петров (1900—1970)
  — советский писатель", "X (born 1950) is an American writer": the term without its brackets
  and stress marks), "X is a Y" (a genus after "a"/"an": "The Volga is the longest river" is a
  fact, "Hypoxia is a common cause of ..." a property), "X is defined as Y", "Y is called X",
  "we call X Y", "X is said to be Y if", "X — это Y", "X — Y", "X называется Y", "Под X
  понимается Y", "X heißt Y, wenn ...", "Sei ... Dann heißt X Y", "Unter X versteht man Y",
  "X nennt man Y", "X wird als Y bezeichnet", "X ist definiert als". An aim ("Цель исследования
  — изучить ...") is never a definition, nor an assessment in its shape (`ASSESSMENT`: "X is a
  fast-moving field", "X — одна из самых недооценённых ..."), nor a clause before a dash of
  apposition ("Матерью Ашоки была Субхадранги — дочь брамина": a finite verb in the term).
- `BLOCK_LABEL`: the label line of a numbered statement ("Definition 2.3", "Satz 1.1
  (Heine-Borel)", "Лемма 2.", "Proof."), and `label_kind` which family the label belongs to:
  definition, theorem (Satz, Lemma, Korollar, Theorem, Proposition, Corollary, Теорема, Лемма,
  Следствие), proof, or other (remarks and examples, whose sentences stand on their own). A theorem
  block becomes a `fact` atom with metadata kind=theorem (`distill.types`).
- Whether a sentence is a `fact` or `text` is the type stage's rule list, `distill.fact_rules`.
"""

from __future__ import annotations

import re
from typing import Literal

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.continues_en import ordinal_subject
from pegas_memory.distill.findings import (
    AIM,
)
from pegas_memory.distill.labels_ru import period_term
from pegas_memory.distill.mood import (
    relational_term,
)

LabelKind = Literal["definition", "theorem", "proof", "other"]


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


def words_of(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text)


LETTER = re.compile(r"[^\W\d_]")
ANAPHORS = en.ANAPHORS | ru.ANAPHORS
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
_GENERIC_TERMS = en.GENERIC_TERMS | ru.GENERIC_TERMS
_OPENERS = en.DEFINITION_OPENERS | ru.DEFINITION_OPENERS
_CLAUSE_WORDS = en.CLAUSE_WORDS
_RU_FUNCTION_WORDS = ru.DEFINITION_FUNCTION_WORDS
# A dash followed by a verb ("Эпоха — характеризуется ...") is a clause, not a genus.
_VERB_LIKE = re.compile(r"(ся|ает|яет|ует|ивает|ывает)$", re.IGNORECASE)
# A finite verb before a dash ("Матерью Ашоки была Субхадранги — дочь брамина"): the left side
# is a clause and the dash opens an apposition to its last noun, not a term's genus. Only the
# copulas and reflexive pasts, lower case: a noun that ends like a verb ("Красная стрела",
# "Вирусный гепатит") may well be a term.
_RU_CLAUSE_VERB = re.compile(
    r"(?<![\w-])(?:был|была|было|были|стал|стала|стало|стали|является|являются|являлся"
    r"|являлась|являлось|являлись|[а-яё]{2,}(?:лся|лась|лось|лись))(?![\w-])"
)
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
# A genus followed by the reason for it ("a fatal disease, primarily due to ...").
_REASONED = re.compile(
    r"[^,;]{0,80},\s+(?:\w+ly\s+)?(?:due to|because|owing to|as a result of|thanks to)\b",
    re.IGNORECASE,
)
# An assessment in a definition's shape: "Children's exercise physiology is a fast-moving field",
# "X is an important open problem": an evaluative adjective before a category noun says how X is
# judged, not what X is ("Bioinformatics is a growing field that combines ..." names its genus in
# the clause and stays a definition). ru "X — одна из самых недооценённых ...", "один из
# наиболее известных": a superlative among others judges X; "один из видов ..." is a genus.
ASSESSMENT = re.compile(
    r"^(?:an?|the)\s+(?:(?:very|rather|relatively|increasingly|rapidly|highly|extremely|quite"
    r"|particularly|especially|truly|still|now|fairly)\s+)?(?:(?:fast|rapidly|quickly|ever)"
    r"[-\s](?:moving|growing|paced|changing|evolving|expanding)|growing|emerging|evolving"
    r"|expanding|developing|exciting|interesting|fascinating|challenging|promising|important"
    r"|difficult|hard|easy|complex|complicated|controversial|contentious|underrated|overlooked"
    r"|neglected|underappreciated|under-?studied|popular|successful|remarkable|crucial|critical"
    r"|vital|serious|major|great|good|bad|excellent|poor|valuable|hot|active|vibrant|young|new"
    r"|open|unsolved|thriving|booming|dynamic|burgeoning|mature|fertile|rich|vast|broad|narrow"
    r"|central|pressing|urgent|persistent|recurring|longstanding|long-standing)"
    r"(?:\s+(?:and|but)\s+[\w-]+)?(?:\s+[\w-]+)?\s+(?:field|area|topic|subject|discipline|domain"
    r"|issue|problem|question|challenge|concern|task|matter|endeavou?r|enterprise|business"
    r"|undertaking|science|development|trend|period|era|time|one)s?"
    r"(?!\s+(?:that|which|whose|where|in which|of which|concerned|dealing|devoted|studying"
    r"|focused|focusing|combining|using|based)\b)"
    r"|^од(?:ин|на|но|ни|ного|ной)\s+из\s+(?:самых|наиболее|[а-яё]+(?:ейших|айших)|лучших|худших"
    r"|главных|ведущих)(?![\w-])",
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
    if ordinal_subject(term if term[:4].casefold() == "the " else f"the {term}"):
        return False  # "The first argument is the function ...": a member of a series, no term
    if period_term(term):
        return False  # "Первая четверть XIX века — наши дни: ...": a range of dates (labels_ru)
    if pattern in ("dash", "eto") and _RU_CLAUSE_VERB.search(term):
        return False  # "Матерью Ашоки была Субхадранги — дочь ...": a clause, the dash an aside
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
    if AIM.search(sentence):
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
            or ASSESSMENT.match(body)
            # "The integrity of sperm chromatin is a clinical indicator": an attribute of
            # something, not a term; "A set of vectors is a basis if ..." keeps its term.
            or (re.match(r"(?i)the\s", m["term"].strip()) and re.search(r"(?i)\sof\s", term))
            # "HCC is a fatal disease, primarily due to the limited effective therapies": a
            # judgement with its reason, a property; a genus needs no cause
            or _REASONED.match(body)
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
                or ASSESSMENT.match(body)  # "Карьера X — одна из самых недооценённых ..."
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


# A Russian finite verb (the lead rule here and `fact_rules` read it).
# A Russian finite verb in the indicative, past ("принял", "сыграли", "образовался"), present
# ("ведут", "образуется") or a short passive participle ("заведены", "распространён"): a sentence
# that states an event or a property, the way Wikipedia narrates.
_RU_VERB = re.compile(
    r"(?<![\w-])[а-яё]{2,}(?:(?:[аяиеуы]л(?:а|о|и)?(?:сь|ся)?)|(?:[ая]ет|[уюи]ет|ит|ят|ют|ут|ат)(?:ся)?"
    r"|(?:[ая]ют|[уюи]ют)ся|[ёе]н[аоы]?|[ая]н[аоы]?"
    # the stressed present "-ёт" ("берёт", "идёт"; "полёт", "счёт" are nouns)
    r"|(?<![лч])ёт(?:ся)?)(?![\w-])"
    # the past of the consonant stems, whose "-л-" follows no vowel ("возросла", "принесла",
    # "смогла", "достигла", "умерла", "предпочли", "учли"), with any prefix
    r"|(?<![\w-])[а-яё]*(?:р[ао]с|н[её]с|в[её]з|мог|стиг|лег|гиб|бер[её]г|мер|пер|сох|мерз"
    r"|полз|[оуе]ч)л(?:а|о|и)(?:сь)?(?![\w-])"
    # the copula states a property or an event ("долгое время была в услужении", "велосипед был
    # очень модным развлечением"), as "is"/"was" do in an English sentence
    r"|(?<![\w-])(?:был|была|было|были|будет|будут)(?![\w-])"
    # the short passive participles in "-т" of an event ("открыт музей", "убит", "снята",
    # "свергнут"), from the stems that form them, with a prefix where the bare stem is a noun
    # ("бит", "сбыт")
    r"|(?<![\w-])(?:(?:от|за|рас|вс|по|пере|при|на|у|с|вы|про|под|об)?крыт|(?:у|с|раз|из|при|за"
    r"|до|от|вы|про|под|по|пере|на)бит|(?:на|за|про|вы|с|раз|пере|от|об|до|под)лит|(?:с|при|вы"
    r"|за|об|по|на|у|пере|под)шит|(?:за|до)быт|(?:про|пере|на)жит|(?:при|за|от|по|на|под|пере"
    r"|об|с)нят|(?:вз|из[ъь])ят|(?:на|за)чат|[а-яё]*(?:[гк]нут|двинут|кинут|тянут|манут))[аоы]?"
    r"(?![\w-])"
    # "может" (what something can do); a consonant-stem past in the masculine ("возник",
    # "достиг", "погиб", "исчез"); the past of "идти" ("шли", "произошла", "пришёл") and the
    # pasts too short for the first rule ("дал", "жил")
    r"|(?<![\w-])(?:может|(?:воз|про|за|по)ник|(?:до|за)?стиг|(?:по|у|за)?гиб|исчез"
    r"|[а-яё]*(?:ш[её]л|шл[аои])|(?:дал|жил|пел)[аои]?"
    # a requirement stated of a third party (`distill.norms_ru`): "рекомендации должны соблюдаться"
    r"|должен|должн[аоы]|обязан[аоы]?)(?![\w-])",
    re.IGNORECASE,
)
