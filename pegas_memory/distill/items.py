"""List items that are no sentence, and the lead-in they take from their heading (pure logic).

A README's "## Features" over "* HTTP helpers (redirection, caching, etc)" has no lead-in
sentence ("Express provides:"), so `units.list_lead_in` finds none, and the bare phrase was
stored as a fact that means nothing alone. `bare_item` tells such a phrase from an item that is
a sentence ("Routes are matched in order.", "Q ⊊ R ist nicht zusammenhängend": those stay as
they are); `heading_lead_in` builds its lead-in from the nearest heading ("Features: HTTP
helpers ..."), with the subject of the chunk in front when the heading names none. Without a
heading or a subject the offline distiller types the phrase `text`, never `fact`.

A list whose line breaks are gone (a Wikipedia passage flattened to one line: "57 2 xx-xx-xx —
Харьков 57 4 0 x-xx-xx — Новая Водолага ...", a "See also" list "Список операций ... Лепельский
контрудар Битва за Москву (киноэпопея)") reads as one long unit with no verb and no full stop:
`flat_list` tells it from a sentence, and the distiller drops it as a `list line`.

A feature bullet whose verb has no subject ("* Supports matching multiple globs at once.", "*
Can match non-UTF-8 file paths correctly.", "* Поддерживает флаги POSIX.") is a sentence of the
project the document is about: `subjectless_item` finds it, and the distiller leads it in with
that subject ("globset: Supports matching multiple globs at once.").

A troubleshooting entry's role label ("**Reason:** ...", "**Solution:** ...") says what the text
is to its heading's problem: `role_label` finds it and `role_claim` puts the heading in front
(`distill.carry` asks them).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pegas_memory.distill.lexicon_en as en
import pegas_memory.distill.lexicon_ru as ru
from pegas_memory.distill.context import _verb
from pegas_memory.distill.labels_ru import period_only as period_only  # for units
from pegas_memory.distill.mood import _EN_AUX, _EN_PAST, verbless
from pegas_memory.distill.types import TYPED_BY, ChunkContext, DraftAtom
from pegas_memory.models import AtomType

_ITEM = re.compile(r"^[ \t]*(?:[-*+•–]|\d{1,3}[.)])[ \t]+", re.M)
_SENTENCE_END = re.compile(r"[.!?…]\W*$")
_RU_WORDS = re.compile(r"[а-яё]+(?:-[а-яё]+)*")
# A relation between symbols states something in any language ("f = g", "A ⊆ B", "x → y").
_RELATION = re.compile(r"[=<>≤≥≠⇒⇔→↦∈∉⊆⊂⊊⊇≅≃∼≡]|:=")
# German finite verbs: the copula, auxiliaries, modals, and a lower-case word in "-t" or "-et"
# after a word ("Jede Strecke bestimmt ...", "G operiert auf X"), short function words aside.
_DE_FINITE = re.compile(
    r"\b(?:ist|sind|war|waren|wird|werden|wurde|wurden|hat|haben|hatte|kann|können|muss|müssen"
    r"|soll|sollen|darf|dürfen|gibt|gilt|gelten|sei|seien)\b|(?<=\w\s)(?!(?:nicht|mit|seit|jetzt"
    r"|recht|leicht|gut|weit|oft|bereit|heut)\b)[a-zäöüß]{3,}t\b"
)
_UNENDED = re.compile(r"[.!?…;:»\"”]\W*$")  # a sentence ends so (a closing bracket may follow)
# One "X — Y" (a definition or a caption without its full stop) is no list: three dashes
# between entries are.
_DASH = re.compile(r"\s[—–]\s")
_MIN_DASHES = 3
_MIN_FLAT_WORDS = 6
_MIN_TITLES_WORDS = 10
_MIN_CAPITALS = 3
_MIN_CAPTIONS_WORDS = 20
_WORDS_PER_COMMA = 10
_EN_FUNCTION = en.ITEMS_FUNCTION
_ASIDE = re.compile(r"\([^()]*\)")
# An English item opening on its verb: an auxiliary or modal, or a third-person "-s" form
# before a lower-case word that is no verb ("Supports matching ...", "Provides a ...");
# "Routes are matched ..." is a subject and its verb, "HTTP helpers" no verb.
_EN_MODAL_LEAD = re.compile(
    r"^(?:can(?:not|'t)?|could|does(?:n't| not)?|is(?:n't)?|has|will|won't|may|must|should"
    r"|allows|provides|supports|lets|makes|works|runs|includes|handles|uses|offers|enables)\b",
    re.IGNORECASE,
)
_EN_S_LEAD = re.compile(r"^([A-Z][a-z]{2,}(?<![su]s)s)\s+([a-z][\w-]*)")
# A Russian item opening on a present-tense third-person verb ("Поддерживает ...", "Позволяет
# ..."): the subject is the project.
_RU_LEAD = re.compile(r"^([А-ЯЁ][а-яё]{2,}(?:ет|ит|ют|ят|ут|ат)(?:ся)?)\s")
_HEADING_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+")


def item_start(text: str, start: int) -> bool:
    """Whether `start` is where a list item's text begins, right after its marker."""
    item = _ITEM.match(text, text.rfind("\n", 0, start) + 1)
    return item is not None and item.end() == start


def bare_item(text: str, start: int, claim: str, language: str | None) -> bool:
    """Whether the unit at `start` is a list item that is no sentence: a phrase without a verb
    ("HTTP helpers (redirection, caching, etc)", "поддержка флагов", "Schnelle Weiterleitung
    für Seiten"). Alone it means nothing; an item that is a sentence or a formula stands."""
    if not item_start(text, start) or _RELATION.search(claim):
        return False
    ended = _SENTENCE_END.search(claim) is not None
    if language in (None, "en"):
        # Without a full stop only an auxiliary or a past form makes it a sentence: "HTTP
        # helpers" or "applications quickly" is no subject and its verb in a bullet.
        if ended:
            return verbless(claim)
        return _EN_AUX.search(claim) is None and _EN_PAST.search(claim) is None
    if language == "ru":
        return not any(_verb(w) for w in _RU_WORDS.findall(claim.casefold()))
    if language == "de":
        return not ended and _DE_FINITE.search(claim) is None
    return not ended  # no grammar here for the rest: only the full stop


def subjectless_item(text: str, start: int, claim: str, language: str | None) -> bool:
    """Whether the unit at `start` is a list item that opens on its verb with no subject
    ("Supports alternate "or" globs, e.g., *.{foo,bar}.", "Doesn't provide a recursive directory
    iterator ...", "Поддерживает флаги POSIX."): true of the document's subject, which it does not
    name. English and Russian only; a German capitalised "-t" word is as often a noun."""
    if not item_start(text, start):
        return False
    claim = claim.strip()
    if language in (None, "en"):
        if _EN_MODAL_LEAD.match(claim):
            return True
        lead = _EN_S_LEAD.match(claim)
        return lead is not None and _EN_AUX.match(lead[2]) is None and not lead[2].endswith("s")
    if language == "ru":
        lead = _RU_LEAD.match(claim)
        return lead is not None and _verb(lead[1].casefold())
    return False


def flat_list(claim: str, language: str | None) -> bool:
    """Whether a unit of running text is a list run together: at least 6 words, entries one
    after the other (3 "A — B" dashes, or 10 words of titles: no comma, 3 capitalised words
    after the first; a run of 20 words may have a comma in ten, a gallery's captions with an
    address: "Корпус СИС на ул. Бродвей, д. 54 Корпус управления ..."), no sentence end, no
    finite verb (`bare_item`'s grammar for an unended phrase: en an auxiliary or a past form,
    ru a verb form, de a finite verb). A definition that lost its full stop ("X — Y") stays. A
    sentence with a verb stays, ended or not; so does anything in a language without grammar
    here."""
    claim = claim.strip()
    words = claim.split()
    if len(words) < _MIN_FLAT_WORDS or _UNENDED.search(claim) or _RELATION.search(claim):
        return False
    # Entries one after the other: "A — B" pairs in a row, or titles run together (long, no
    # comma between them, several capitalised words after the first). A single line of a list
    # that kept its breaks ("June 10 -- Amphitheatre, Tampa, FL", "Eat 1–2 hours after ...") is
    # no run: it is left to the rules for list items.
    capitals = sum(w[:1].isupper() for w in words[1:])
    # A gallery's captions run together hold an address or two ("Корпус СИС на ул. Бродвей, д.
    # 54 Корпус управления ..."): a long run may have a comma in ten words.
    commas = claim.count(",")
    few = not commas or (
        len(words) >= _MIN_CAPTIONS_WORDS and commas * _WORDS_PER_COMMA <= len(words)
    )
    titles = len(words) >= _MIN_TITLES_WORDS and few and capitals >= _MIN_CAPITALS
    if language == "en" and titles:  # its verb check sees no present tense ("A ship passes
        # the Volga ..."), so titles must be mostly capitalised, function words and asides aside
        content = [w for w in words[1:] if w[:1].isalpha() and w.casefold() not in _EN_FUNCTION]
        titles = 2 * sum(w[:1].isupper() for w in content) >= len(content)
    if len(_DASH.findall(claim)) < _MIN_DASHES and not titles:
        return False
    # A verb inside brackets is an aside of one entry ("57 369 xx-xx — Платные горячие линии
    # (дозвон доступен только с территории Харькова)"), not the unit's predicate.
    claim = _ASIDE.sub(" ", claim)
    if language == "en":  # unended, as in `bare_item`: only an auxiliary or a past form
        return _EN_AUX.search(claim) is None and _EN_PAST.search(claim) is None
    if language == "ru":
        return not any(_verb(w) for w in _RU_WORDS.findall(claim.casefold()))
    if language == "de":
        return _DE_FINITE.search(claim) is None
    return False


def heading_lead_in(heading: str | None, subject: str | None) -> str | None:
    """The lead-in of a bare item (`bare_item`) from the nearest heading, its number dropped:
    "Features:", with the subject in front when the heading names none ("Express — Features:";
    `subject` is what the chunk's claims carry, `distill.carry.topic`), the subject alone
    without a heading. None: nothing to lead in."""
    head = _HEADING_NUMBER.sub("", heading or "").strip().strip("#*_ ").rstrip(":").strip()
    if head.endswith("?"):  # "How do I install?" leads in no item
        head = ""
    if not head:
        return f"{subject}:" if subject else None
    if subject is None or subject.casefold() in head.casefold():
        return f"{head}:"
    return f"{subject} — {head}:"


# A flattened list of dated entries: "Мефодий Буслаев. Маг полуночи (август 2004) Мефодий
# Буслаев. Свиток желаний (февраль 2005) ...", "Горбачёв, Михаил Сергеевич (25 мая 1989— 15 марта
# 1990) Лукьянов, Анатолий Иванович (15 марта 1990 — 4 сентября 1991) вакантно (...)".
_DATED = re.compile(r"\(([^()]*\b(?:1\d|20)\d{2}\b[^()]*)\)")
_MIN_ENTRIES = 3
_MAX_ENTRY_WORDS = 8
# What joins entries in a sentence ("Пушкин (1799–1837), Лермонтов (1814–1841) и Гоголь ...
# — русские писатели"): a comma, a conjunction or a semicolon after the bracket.
_JOINED_ENTRY = re.compile(r"^\s*(?:[,;:]|(?:и|или|а|and|or|&)\b)", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_RU_WORDS_ANY = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")


def dated_entries(unit: str, language: str | None) -> bool:
    """Whether a paragraph is a list of dated entries whose line breaks are gone: at least 3
    brackets holding a year, each entry between them at most 8 words, the entries juxtaposed
    (no comma or conjunction after a bracket: those join the items of one sentence), and no
    finite verb outside the brackets (ru: a lower-case verb form, a name such as "Михаил" is no
    verb; en: an auxiliary, a past or a present form). One bracketed date in a sentence is no
    list; neither is a sentence naming three people with their years and saying what they are
    ("..., Лермонтов (1814–1841) и Гоголь (1809–1852) — русские писатели"). The distiller
    keeps such a list as one atom led in by its heading, or drops it as a `list line`."""
    brackets = list(_DATED.finditer(unit))
    if len(brackets) < _MIN_ENTRIES or language not in ("en", "ru"):
        return False
    bounds = [0, *(p for b in brackets for p in (b.start(), b.end())), len(unit)]
    gaps = [unit[bounds[i] : bounds[i + 1]] for i in range(0, len(bounds), 2)]
    if any(len(_WORD.findall(g)) > _MAX_ENTRY_WORDS for g in gaps):
        return False
    if any(_JOINED_ENTRY.match(g) for g in gaps[1:-1]):
        return False
    outside = " ".join(gaps)
    if language == "en":
        return verbless(outside)
    return not any(w[:1].islower() and _verb(w) for w in _RU_WORDS_ANY.findall(outside))


def list_atom(atom: DraftAtom | None, context: ChunkContext) -> DraftAtom | None:
    """A list of dated entries (`dated_entries`) as one `text` atom led in by its section's
    heading, which says what the entries are ("Председатель Верховного Совета СССР: Горбачёв,
    Михаил Сергеевич (25 мая 1989— 15 марта 1990) Лукьянов, ..."): a research agent can use a
    series' books with their dates, never one fragment of it ("Маг полуночи (август 2004)
    Мефодий Буслаев."). No definition or fact is read into it (its "— завершающая часть" is
    no "X — Y"). None without a heading: the distiller drops it as a `list line`, since the
    document's title names the document, not the list."""
    heading = context.heading_path[-1] if context.heading_path else None
    lead = heading_lead_in(heading, None) if heading else None
    if atom is None or lead is None:
        return None
    claim = f"{lead} {atom.claim}"
    meta = {k: v for k, v in atom.metadata.items() if k not in ("term", "pattern", "anaphoric")}
    meta.update(kind="list", lead_in=lead)
    meta[TYPED_BY] = "a list item under its heading"
    return replace(
        atom,
        type=AtomType.TEXT,
        claim=claim,
        content=claim,
        confidence=0.5,
        metadata=meta,
        term=None,
    )


# An English list of noun phrases run together with ";" ("Presence of autonomic neuropathy as
# assessed with ...; adequacy of ...; history of ...; and response of ..."): a structured
# abstract's "MAIN OUTCOME MEASURES" content once its label is cut.
# A participle or adjective in "-ed" after a preposition, an article or "as" is no finite verb
# ("as assessed with", "change in glycated haemoglobin"); after a noun it may be ("deaths rose").
_PARTICIPLE = re.compile(
    r"\b(as|in|of|on|for|with|by|the|a|an|and|or|from|at|during|after|under|between)\s+[a-z]+ed\b"
)
_RELATIVE = re.compile(r",\s*(?:which|that|who|whose|where|when)\b[^;]*")
_MIN_SEGMENTS = 3


def nominal_list(sentence: str, language: str | None) -> bool:
    """Whether an English sentence is a list of noun phrases run together with ";": at least 3
    segments ("adequacy of ...; history of ...; and response of ..."), none with a finite verb
    once its relative clauses (", which depends on ...") and participles ("as assessed with",
    "in glycated haemoglobin") are set aside. It states nothing: what the phrases are (a
    study's outcome measures) was in a label or a line before. A sentence of clauses ("The risk
    was 5%; the rate ...") has its verbs; a list led in by its own label ("Outcome measures:
    rate of ...; ...") says what it is. The distiller drops it as a `list line`."""
    if language not in (None, "en"):
        return False
    segments = [s.strip() for s in sentence.strip().rstrip(".").split(";")]
    if len(segments) < _MIN_SEGMENTS or not all(segments) or ":" in segments[0]:
        return False
    for segment in segments:
        bare = _PARTICIPLE.sub(r"\1", _RELATIVE.sub("", _ASIDE.sub(" ", segment)))
        if not verbless(bare):
            return False
    return True


# A troubleshooting entry's role labels: "**Reason:** ...", "**Solution:** ..." (as a line of
# its own or as the lead-in of a list) say what the text is *to* the section's heading, which
# names the problem. A label relative to the problem (reason, fix, ...) always carries it; one
# that restates the problem (problem, symptom) only when the claim does not name it already.
_RELATIVE_ROLES = en.RELATIVE_ROLES | ru.RELATIVE_ROLES
_RESTATING_ROLES = en.RESTATING_ROLES | ru.RESTATING_ROLES
_ROLE = re.compile(r"^[\s*_]*([^\W\d_]+)[\s*_]*:[\s*_]+(?=\S)", re.UNICODE)
# "Or, you are serializing ...": the third bullet of a list of alternatives.
_ALTERNATIVE = re.compile(r"^(?:or|или),?\s+(?=\w)", re.IGNORECASE)
_ALTERNATIVELY = {"en": "alternatively", "ru": "или"}


def role_label(claim: str) -> tuple[str, str, bool] | None:
    """A claim opening with a role label: (label, the rest, whether the label restates the
    problem), or None. Only the first word before ":" is read ("Reason: ...")."""
    m = _ROLE.match(claim)
    if m is None:
        return None
    label = m[1].casefold()
    if label not in _RELATIVE_ROLES and label not in _RESTATING_ROLES:
        return None
    return label, claim[m.end() :], label in _RESTATING_ROLES


def role_claim(label: str, rest: str, subject: str, language: str | None) -> str:
    """The claim of a role-labelled entry with its heading in front: "Custom type adapter is
    not used — reason (alternatively): you are serializing ..."; the heading's inline-code
    marks are dropped (a heading's backticks are markup, not text)."""
    heading = " ".join(subject.replace("`", "").split()).rstrip(" :.")
    alternative = _ALTERNATIVE.match(rest)
    if alternative is not None:
        label = f"{label} ({_ALTERNATIVELY['ru' if language == 'ru' else 'en']})"
        rest = rest[alternative.end() :]
        rest = rest[:1].upper() + rest[1:]
    return f"{heading} — {label}: {rest}"
