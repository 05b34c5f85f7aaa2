"""A document's or section's lead that says what its subject is: a definition (pure logic).

"SQLAlchemy is the Python SQL toolkit and Object Relational Mapper that gives ..." opens the README
titled "SQLAlchemy": graders read it as the definition of SQLAlchemy. The same shape in a body
paragraph ("Aspirin is a risk factor for ...", "The mean age was 54 years") is a statement about its
subject, and `definition_rules.match_definition` keeps its narrower "X is a Y" rules there. So this
rule needs the sentence's position, which only the distiller knows: it asks here for the first
sentence of a chunk, with the document's title and the section's heading as the subjects (Russian
leads "X — N ..." are definitions by `definition_rules` already, wherever they stand, except where
the term holds a dash of its own or its aliases a dash in brackets: "Папуа — Новая Гвинея,
Папуа-Новая Гвинея (полное название — ...; English: ...) — государство в Океании ..." under the
heading "Папуа — Новая Гвинея" is read here, by `_ru_titled_lead`). The distiller's carry of a prose
claim goes through `lead_carry`, so that a lead's name stays its subject, a timeline's period line
carries its section (`distill.labels_ru`), an "X — это Y" definition is not carried for a category
noun in its genus, and a Russian claim with no subject and no verb is typed by what it says of the
subject carried onto it ("Махно: автор мемуаров ...": a fact, `distill.predicate_ru`).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pegas_memory.distill.nearer_ru as nearer_ru
from pegas_memory.distill.carry import carried_claim, carry, mentions
from pegas_memory.distill.context import refers_back
from pegas_memory.distill.definition_rules import (
    ASSESSMENT,
    CAPS_LABEL,
    ETYM,
    EVALUATIVE_GENUS,
    strip_term,
)
from pegas_memory.distill.fact_rules import is_fact
from pegas_memory.distill.labels_ru import period_only
from pegas_memory.distill.predicate_ru import predicate_of
from pegas_memory.distill.types import TYPED_BY, DraftAtom
from pegas_memory.distill.words import LETTER, words_of
from pegas_memory.distill.words_ru import _verb
from pegas_memory.models import AtomType

# A lead "X is a/an/the N ...": a definition only where X is what its document or section is
# about (`match_lead_definition`); in a body "X is the N that ..." is a statement about X.
_LEAD_IS = re.compile(
    r"^(?P<term>[^,;:()\n—–]{1,60}?)" + ETYM + r"\s+(?:is|are|was|were)\s+(?P<body>(?:an?|the)"
    r"\s+(?!(?:best|worst|first|last|only|most|least|same|number|lot|bit|few|couple)\b)\S+\s+\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


# The dash of a Russian lead: "X (...) — государство ...", its genus lower case, or a title
# of office capitalised as Russian spells it ("Гормизд (...) — Папа Римский с 514 года ..."):
# a capitalised word with more of the genus after it, not a bare name ("X — Москва.").
_RU_DASH = re.compile(r"\s[—–]\s+(?=[а-яё]|[А-ЯЁ][а-яё]+\s+[А-ЯЁа-яё][а-яё]+\s+[а-яё\d])")
# A heading's disambiguator: "Гормизд (папа римский)" is the article on "Гормизд".
_DISAMBIGUATOR = re.compile(r"\s*\([^()]*\)\s*$")
_RU_LEAD_CHARS = 600  # the term and its asides before the dash; a longer run is no lead


def _ru_titled_lead(sentence: str, subjects: tuple[str, ...]) -> tuple[str, str] | None:
    """(term, body) of a Russian lead that opens on its title or heading (stress marks are
    gone from claims, `units.clean_claim`) and goes on, past its aliases and bracketed asides,
    to the first dash outside brackets before its genus (lower case, or a title of office:
    `_RU_DASH`); the heading counts without its disambiguator ("Гормизд (папа римский)"); None
    otherwise (no title first, a sentence end or no such dash before `_RU_LEAD_CHARS`)."""
    text = sentence.strip()
    names = [n for s in subjects for n in dict.fromkeys((s.strip(), _DISAMBIGUATOR.sub("", s)))]
    for name in names:
        if not name or not text.casefold().startswith(name.casefold()):
            continue
        if text[len(name) : len(name) + 1] not in (",", " ", "("):
            continue  # "Папуанский ..." is not "Папуа"
        depth, outside = 0, []
        for i in range(len(name), min(len(text), _RU_LEAD_CHARS)):
            ch = text[i]
            depth += (ch in "([") - (ch in ")]")
            outside.append(ch if depth == 0 and ch not in ")]" else " ")
            if depth < 0 or (depth == 0 and ch in ".!?;" and text[i + 1 : i + 2] in (" ", "")):
                break  # the sentence ended before a dash
            word = re.search(r"[а-яё]+$", "".join(outside[-40:-1])) if ch == " " else None
            if word is not None and _verb(word[0]):
                break  # "Папуа — Новая Гвинея вступила в ООН ...": a statement, no lead
            if depth == 0 and (m := _RU_DASH.match(text, i)) is not None:
                return name, text[m.end() :].rstrip(".!…").strip()
    return None


def match_lead_definition(
    sentence: str, subjects: tuple[str, ...]
) -> tuple[str, str, float, str] | None:
    """(term, body, confidence, "lead_is") when the lead sentence of a document or section says
    what its subject is: "SQLAlchemy is the Python SQL toolkit and Object Relational Mapper that
    ..." under the title "SQLAlchemy". The graders' convention: such a lead defines the subject.
    `subjects` are the document's title and the section's heading; "X is a risk factor for Y"
    (a relation, `EVALUATIVE_GENUS`), "X is a fast-moving field" (an assessment, `ASSESSMENT`)
    and an X that is neither stay what `match_definition` and `is_fact` make of them."""
    titled = _ru_titled_lead(sentence, subjects) if re.match(r"\W*[А-ЯЁ]", sentence) else None
    if titled is not None:
        return titled[0], titled[1], 0.7, "lead_dash"
    m = _LEAD_IS.match(CAPS_LABEL.sub("", sentence.strip()))
    if m is None or EVALUATIVE_GENUS.match(m["body"]) or ASSESSMENT.match(m["body"]):
        return None  # a relation of X, or an assessment ("X is a fast-moving field")
    term = strip_term(m["term"])
    # A title's name before its tagline counts: "Flask: web development, one drop at a time".
    heads = [re.split(r"\s*(?::|\s[—–|-]\s|\()", s, maxsplit=1)[0] for s in subjects if s]
    names = {strip_term(s).casefold() for s in (*subjects, *heads) if s and s.strip()}
    if term.casefold() not in names or not LETTER.search(term):
        return None
    return term, m["body"].rstrip(".!…").strip(), 0.7, "lead_is"


# The patterns of a lead: a name with its brackets or aliases before the dash ("lead"), a title
# before it ("lead_dash", "lead_is").
_LEAD_PATTERNS = frozenset({"lead", "lead_dash", "lead_is"})
# The definitions whose term opens the claim and whose genus follows a dash.
_GENUS_PATTERNS = frozenset({"eto", "dash"})
# A timeline's period opening a claim, up to its "." or ":" ("Конец XVIII — начало XIX века.").
_PERIOD_HEAD = re.compile(r"^\s*[^.:]{1,80}?(?:\.(?=\s)|:)")


def _genus_category(atom: DraftAtom, carried: DraftAtom) -> bool:
    """Whether a Russian "X — это Y" / "X — Y" definition was carried only for a category noun
    in its genus ("Строительство — это процесс сооружения здания или инфраструктуры": which
    building, `context.refers_back` asks, and the carry made a fact of it). The term opens the
    claim and is what it is about; a category noun in the term itself ("Главное здание — ...",
    "Река — приток Волги") leaves the carry as it is."""
    if atom.type != "definition" or carried is atom or atom.language != "ru" or not atom.term:
        return False
    if atom.metadata.get("pattern") not in _GENUS_PATTERNS:
        return False
    if carried.metadata.get("context") != "category":
        return False
    reference = refers_back(atom.claim, atom.language)
    if reference is None or reference.kind != "category":
        return False
    return reference.word.casefold() not in {w.casefold() for w in words_of(atom.term)}


def _completes_predicate(atom: DraftAtom, carried: DraftAtom, subject: str | None) -> bool:
    """Whether a Russian text claim with no subject of its own states something of the subject
    carried onto it: "Нестор Иванович Махно: автор мемуаров «Воспоминания».", read as "X — Y"
    (`predicate_ru.predicate_of`), is a statement by `is_fact`; an aim, a question or a norm
    stays text that way too."""
    if carried is atom or subject is None or atom.language != "ru" or carried.type != "text":
        return False
    if carried.metadata.get("context") not in ("subjectless", "category"):
        return False
    prefix = f"{subject}: "
    if not carried.claim.startswith(prefix) or not predicate_of(atom.claim):
        return False
    return is_fact(f"{subject} — {carried.claim[len(prefix) :]}", "ru")


def lead_carry(
    atom: DraftAtom, subject: str | None, document: str | None = None, text: str = ""
) -> DraftAtom:
    """`carry.carry`, except on a lead that defines a name and on a timeline's period line; a
    claim whose verb the subject does not agree with carries the nearest named subject before
    it in `text`, the chunk's (`distill.nearer_ru`).

    A lead "Тетеоиннан (Nahuatl languages: Teteoinnan) — одна из ипостасей ..." under
    "Мифология ацтеков" names its own subject, which a word that ends like a short participle
    ("-ан") must not turn into a subjectless claim carrying the section (and typed again as a
    fact); a relational term ("Автор (...) — ...") is carried as the section's (`carry`'s
    rule 4, kind "section") as before. A Russian claim opening on a period and its
    title ("Первая четверть XIX века — наши дни: поиски сокровищ и эра туризма.", "Конец XVIII
    — начало XIX века. Наименее изученный период.", `labels_ru.period_only`) has no subject of
    its own: it is the section's period, and carries the section, as "1879—1912 годы: ..." does."""
    carried = nearer_ru.nearer(atom, carry(atom, subject, document=document), subject, text)
    lead = atom.type == "definition" and atom.metadata.get("pattern") in _LEAD_PATTERNS
    if lead and carried.metadata.get("context") == "subjectless" and atom.term:
        return atom  # the lead's term opens the claim: its subject, so never "subjectless"
    if _genus_category(atom, carried):
        return atom  # "Строительство — это процесс сооружения здания ...": its own subject
    if _completes_predicate(atom, carried, subject):
        # "Махно: автор мемуаров ...": the carried subject completes the predicate
        meta = {**carried.metadata, TYPED_BY: "the carried subject completes the predicate"}
        return replace(carried, type=AtomType.FACT, confidence=0.6, metadata=meta)
    head = _PERIOD_HEAD.match(atom.claim)
    if (
        carried is not atom
        or subject is None
        or atom.language != "ru"
        or head is None
        or not period_only(head[0])
        or mentions(atom.claim, subject)
    ):
        return carried
    claim = carried_claim(atom.claim, subject)
    meta = {**atom.metadata, "subject": subject, "context": "period"}
    return replace(atom, claim=claim, content=claim, metadata=meta)  # never a definition:
    # a period is no defined term (`definition_rules`: "a range of dates")
