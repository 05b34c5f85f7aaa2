"""The subject a Russian claim with no subject of its own carries when the section's is not its
own: the nearest named subject before it in its paragraph (pure logic; `leads.lead_carry`, which
the offline distiller carries a prose claim through, asks `nearer` with the chunk's text).

A passage on a class or a group goes on about one member after naming it: "«Мольтке» принял
участие во всех боевых операциях ... . После окончания войны интернирован и затем затоплен ..."
under "Линейные крейсера типа «Мольтке»", or "«Гёбен» был единственным ... . До войны служил на
Средиземном море. ... Участвовал в нескольких стычках с русским Черноморским флотом." The
section's title (a plural class) carried onto them says the class was interned and scuttled,
which is false for «Гёбен»; `distill.agree_ru` stopped the carry of "Участвовал" (masculine, one)
and left the claim meaningless, and read no short participle ("интернирован").

So when the claim's first verb has a clear number and gender (a past form, "был/была/были", or a
short participle: `verbfirst_ru.participle_form`), no word of the claim can be its own subject,
and the section's subject clearly does not agree with it, the claim carries the nearest named
subject before it in the same paragraph instead: the paragraph's sentences are read back from
the claim, a sentence with no subject of its own is passed over (it goes on about the same one),
and the first sentence that has a subject decides. That subject counts only if it is a name that
opens its sentence (a quoted «name», with one noun before it at most: "Крейсер «Гёбен»", or two
or three capitalised words: "Хориа Сима") and the verb right after it has the same number and
gender as the claim's ("«Мольтке» принял" for "интернирован"). Anything else (a common noun, a
pronoun, a name in another form, nothing within four sentences) keeps what `carry.carry` did.
Where the section's subject agrees with the verb, its carry stands: a Wikipedia sentence with no
subject is about the article's subject far more often than about a name before it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pegas_memory.distill.agree_ru import (
    _CLAUSE_END,
    _could_be_subject,
    first_verb,
    subject_form,
    verb_form,
)
from pegas_memory.distill.carry import carried_claim
from pegas_memory.distill.context import _BASE_CONFIDENCE, refers_back
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.types import DraftAtom
from pegas_memory.distill.verbfirst_ru import participle_form
from pegas_memory.distill.words_ru import _RU_ADVERBS, _RU_PREPOSITIONS, _verb
from pegas_memory.sentences import split_sentences

_CARRIED = frozenset({"disagrees", "subjectless", "section"})  # what `carry` said of the claim
_BACK = 4  # sentences read back from the claim
Form = tuple[str, str]


def _form_of(claim: str) -> tuple[int, Form] | None:
    """The claim's first verb's index and (number, gender), past, "быть" or short participle."""
    found = first_verb(claim)
    if found is None:
        return None
    at, verb = found
    form = verb_form(verb) or participle_form(verb)
    return (at, form) if form is not None else None


# An adjective in an oblique case after the verb ("затоплен собственным экипажем") is no subject.
_OBLIQUE_ADJECTIVE = re.compile(r"(?:ым|им|ыми|ими|ого|его|ому|ему|ую|юю)$")
_AFTER_VERB = 4


def _own_subject(claim: str, at: int, form: Form) -> bool:
    """Whether a word of the claim can be its verb's own subject: before the verb a name (a
    capitalised word past the first, a quoted one) or a word whose ending fits `form` (as
    `agree_ru` reads it), or among the first words after it up to a preposition or the clause's
    end a name ("В строй вступил «Гёбен»") or a fitting word that is no oblique adjective.
    Stricter than `agree_ru`'s: a carry of another name must not replace a subject the claim
    may have."""
    raw = words_of(claim)
    if any(w[:1].isupper() for w in raw[1:at]) or "«" in claim[: claim.find(raw[at])]:
        return True  # "23 июня 1891 года Никола Тесла запатентовал ...": a name of its own
    if any(_could_be_subject(w, form) for w in raw[:at]):
        return True
    verb = raw[at]
    tail = claim[claim.find(verb) + len(verb) :] if verb in claim else ""
    for w in words_of(_CLAUSE_END.split(tail.replace("«", ""), maxsplit=1)[0])[:_AFTER_VERB]:
        low = w.casefold()
        if low in _RU_PREPOSITIONS:
            break
        if _verb(low) or low.endswith(("ть", "ться", "чь")) or low in _RU_ADVERBS:
            continue
        if w[:1].isupper() or (_could_be_subject(w, form) and not _OBLIQUE_ADJECTIVE.search(low)):
            return True
    return False


def _clashes(form: Form, subject: str) -> bool:
    """Whether the subject's number or gender is clear and not the verb's."""
    number, gender = subject_form(subject)
    if number and number != form[0]:
        return True
    return bool(form[0] == "sg" and gender and form[1] not in gender)


_QUOTED = re.compile(r"\s*(?:([А-ЯЁ][а-яё]+)\s+)?(«[^«»]{1,60}»)\s*(?:\([^()]*\)\s*)?")
_NAME_WORDS = 3


def _named_subject(sentence: str) -> tuple[str, Form | None] | None:
    """The name that opens a sentence as its subject, with the form its verb (right after it)
    asks for (None when the verb says none, e.g. a present "является"), or None: a quoted name
    with one noun before it at most ("Крейсер «Гёбен» был ..."), or up to three capitalised
    words that are no adverb, preposition or verb ("Хориа Сима возглавил ...")."""
    m = _QUOTED.match(sentence)
    if m is not None:
        name, rest = " ".join(p for p in (m[1], m[2]) if p), sentence[m.end() :]
    else:
        raw = words_of(sentence)
        n = 0
        while n < min(len(raw), _NAME_WORDS) and raw[n][:1].isupper():
            low = raw[n].casefold()
            if low in _RU_ADVERBS or low in _RU_PREPOSITIONS or _verb(low):
                return None
            n += 1
        if n < 2 or n == len(raw):
            return None  # one capitalised word is any sentence's first ("Активно ...")
        name, rest = " ".join(raw[:n]), sentence[sentence.find(raw[n - 1]) + len(raw[n - 1]) :]
    verb = (words_of(rest) or [""])[0]
    low = verb.casefold()
    if not verb[:1].islower() or not (_verb(low) or verb_form(low) is not None):
        return None
    return name, verb_form(low) or participle_form(low)


def _paragraph_before(text: str, start: int) -> str:
    """The text of `start`'s paragraph before it (back to a blank line)."""
    cut = max(text.rfind("\n\n", 0, start), text.rfind("\n#", 0, start))
    return text[cut + 1 if cut >= 0 else 0 : start]


def named_before(text: str, start: int, form: Form) -> str | None:
    """The nearest named subject before `start` in its paragraph whose verb has `form` (module
    docstring), or None."""
    sentences = [s.text for s in split_sentences(_paragraph_before(text, start))]
    for sentence in reversed(sentences[-_BACK:]):
        found = _named_subject(sentence)
        if found is not None:
            name, its = found
            same = its == form if its is not None else not _clashes(form, name)
            return name if same else None
        reference = refers_back(sentence, "ru")
        if reference is None or reference.kind != "subjectless":
            return None  # a subject of its own that is no name: it decides, and says nothing
    return None


def nearer(atom: DraftAtom, carried: DraftAtom, subject: str | None, text: str) -> DraftAtom:
    """`carried` (what `carry` made of `atom`), or `atom` carrying the nearest named subject
    before it in `text` (the chunk's) when the section's does not agree with the claim's verb
    (module docstring)."""
    if (
        subject is None
        or not text
        or atom.language != "ru"
        or atom.type not in ("fact", "text")
        or carried.metadata.get("context") not in _CARRIED
    ):
        return carried
    verb = _form_of(atom.claim)
    if verb is None or _own_subject(atom.claim, *verb) or not _clashes(verb[1], subject):
        return carried
    if _named_subject(atom.claim) is not None:
        return carried  # "«Мольтке» принял участие ...": a name of its own
    name = named_before(text, atom.quote_start, verb[1])
    if name is None:
        return carried
    claim = carried_claim(atom.claim, name, keep_name=True)
    meta = {**atom.metadata, "subject": name, "context": "named before"}
    meta.pop("anaphoric", None)
    confidence = _BASE_CONFIDENCE[atom.type] if atom.confidence == 0.4 else atom.confidence
    content = claim if atom.content == atom.claim else atom.content
    return replace(atom, claim=claim, content=content, metadata=meta, confidence=confidence)
