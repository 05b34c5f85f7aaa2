"""An English claim whose subject names nothing of its own carries its section's subject (pure).

A paper's abstract, an editorial, a book blurb or a README goes on about what its title names
without naming it again: "The challenges remain formidable." (of malaria eradication, in the
title only), "In the eight years since the first edition of this book was published, ..." (the
book is the heading), "By default, the recursive directory iterator will ignore ..." (of the
crate the README's one-word H1 names). Read alone, such a claim says nothing checkable. The
Russian rule (`distill.carry` rule 4) carries the section's subject onto a claim whose subject
is no name; this is its English side, narrower because English manuals name their subjects in
most sentences and their headings are often labels:

1. **Why** (`unnamed`): after a leading adverbial that ends at a comma ("By default,", "In the
   eight years since ...,"), the claim's subject is a definite or generic common-noun phrase
   ("the/this/these/those/any [adj] N") whose words, up to its verb, hold no name (no
   capitalised word after the claim's first, no acronym, no digit, no code identifier: "the
   `Walk` iterator", "the Flask object" name theirs); or the claim speaks of the document
   itself by a demonstrative ("this book", "this editorial") anywhere but an opening "In this
   study, ..." frame, which names the authors' own work and stands (a paper's usual voice).
   A claim that speaks for its authors ("We ...") or opens on a pronoun is another rule's.
2. **What** (`section_subject`): decided by the document's structure. The document's own subject
   (`distill.carry.document_subject`) when the chunk is under it only, or under a label heading
   ("Example: advanced", "Usage notes": a label by its first word), if it is a README's one-word
   H1 that is a name ("ignore", "globset": lower or mixed case, not a manual page's "Templates")
   or reads as a title (below). A section heading (`distill.carry.topic`) only when it reads as
   the title of a text of its own (a paper in a reading list, a book, an editorial: three words
   at least, no action "Registering Blueprints", no question "How a Request is Handled"): a
   manual's sections are labels ("Debug Mode", "Templates"), and its sentences are about the
   manual's subject, not the label's. Never a title-cased work title ("Down The Rabbit-Hole": a
   story's chapter, whose "the door" is the story's) nor, by the caller, in dialogue.
3. A claim that already names the subject (`distill.carry.mentions`) carries nothing; that is
   the caller's check, as for every carry.
4. **A short step naming nothing** (`distill.steps_en.bare_step`: "Update the CHANGELOG as
   appropriate." in ripgrep's "Release Checklist") acts on what the document's title names;
   it carries that title, only when the chunk is under the title itself: under a section's
   label ("Instructions", "Related news") the label would add nothing.
"""

from __future__ import annotations

import re

import pegas_memory.distill.lexicon_en as en
from pegas_memory.distill.context import Reference
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.steps_en import bare_step

_DETERMINERS = en.SUBJECT_DETERMINERS
_SUBJECT_END = en.SUBJECT_END
_ADVERBIAL_OPENERS = en.ADVERBIAL_OPENERS
_MAX_ADVERBIAL = 16
_MAX_SUBJECT = 7
# The document speaking of itself by a demonstrative: which book is its heading.
_SELF_DOCUMENT = re.compile(
    r"\b(?:this|these)\s+(?:book|books|editorial|commentary|volume|edition|textbook|handbook"
    r"|monograph|review|essay|report|article|chapter|guide)\b",
    re.IGNORECASE,
)
# "In this study, ...", "In this review we ...": the authors' own frame, which stands.
_SELF_FRAME = re.compile(
    r"^\s*(?:in|here,? in|with|through)\s+this\s+(?:study|paper|work|review|article|report"
    r"|analysis|essay)\b",
    re.IGNORECASE,
)
_CODE = re.compile(r"`|\w_\w|\w\.\w|\(\)|[a-z][A-Z]")
_LABEL_FIRST_WORDS = en.LABEL_FIRST_WORDS
_TITLE_CASE = re.compile(r"\s(?:The|Of|And|A|An|In|On|To|From|With|At|For|By)\s")


# An aside between dashes or in brackets ("Any strategic plan – and here we learn again from
# the past – needs ..."): no part of the subject.
_ASIDE = re.compile(r"\s[–—]\s[^–—]*\s[–—]\s|\s--\s.*?\s--\s|\([^()]*\)")


def _first_sentence(claim: str) -> str:
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z])", claim.strip(), maxsplit=1)[0]
    return " ".join(_ASIDE.sub(" ", first).split())


def _after_adverbial(sentence: str) -> str:
    """The sentence after an opening adverbial that ends at a comma, or the sentence."""
    words = words_of(sentence)
    if not words or words[0].casefold() not in _ADVERBIAL_OPENERS:
        return sentence
    comma = sentence.find(",")
    if comma < 0 or len(words_of(sentence[:comma])) > _MAX_ADVERBIAL:
        return sentence
    return sentence[comma + 1 :].lstrip()


def _named(phrase: str) -> bool:
    """Whether a phrase holds a name: a capitalised word after its first, an acronym, a digit,
    a code identifier."""
    words = words_of(phrase)
    if _CODE.search(phrase) or any(ch.isdigit() for ch in phrase):
        return True
    return any(w[:1].isupper() for w in words[1:]) or any(
        len(w) >= 2 and w.isupper() for w in words
    )


def unnamed(claim: str) -> str | None:
    """The word that shows the claim's subject names nothing (rule 1), or None."""
    sentence = _first_sentence(claim)
    self_doc = _SELF_DOCUMENT.search(sentence)
    if self_doc is not None and not _SELF_FRAME.match(sentence):
        return self_doc[0].casefold()
    rest = _after_adverbial(sentence)
    words = words_of(rest)
    if len(words) < 3 or words[0].casefold() not in _DETERMINERS:
        return None
    subject: list[str] = []
    for w in words[1 : 1 + _MAX_SUBJECT]:
        if w.casefold() in _SUBJECT_END:
            break
        subject.append(w)
    else:
        return None  # no verb near: a long description, likely named further on
    if not subject:
        return None
    end = rest.find(subject[-1]) + len(subject[-1])
    phrase = rest[:end]
    if _named(phrase):  # its first word may be capitalised ("The"), no other
        return None
    return words[0].casefold()


# A heading that asks or tells how ("How a Request is Handled", "Why do you provide ...?",
# "What Flask is"): a manual's question, not the name of what its sentences are about.
_QUESTION_HEADING = re.compile(r"^(?:how|why|what|when|where|which|who|can|should|do|does)\b", re.I)
_MIN_TITLE_WORDS = 3


def _title_like(heading: str) -> bool:
    """Whether a section heading reads as the title of a text of its own (a paper in a reading
    list, a book, an editorial: "Malaria eradication back on the table.", "Children's Exercise
    Physiology") rather than a manual's label: three words at least ("Debug Mode", "Templates",
    "Help Command" are labels), not an action ("Registering Blueprints", "Organizing
    subcommands") and not a question ("How a Request is Handled")."""
    words = words_of(heading)
    if len(words) < _MIN_TITLE_WORDS or heading.rstrip().endswith("?"):
        return False
    first = words[0].casefold()
    return not (first.endswith("ing") and len(first) > 5) and not _QUESTION_HEADING.match(heading)


def section_subject(subject: str | None, document: str | None) -> str | None:
    """What rule 2 carries: under a label heading ("Example: advanced") the document's subject;
    a heading that reads as a text's title (`_title_like`); the document's own subject (the
    chunk is under its H1 only); never a title-cased work title."""
    if subject is not None and (words_of(subject) or [""])[0].casefold() in _LABEL_FIRST_WORDS:
        subject = document
    if subject is None or _TITLE_CASE.search(subject):
        return None
    if subject == document and _project_name(subject):
        return subject
    return subject if _title_like(subject) else None


def _project_name(subject: str) -> bool:
    """A README's one-word H1 that is a name, not a manual page's title ("Templates", "Error
    Handlers"): lower case or mixed case ("ignore", "globset", "gRPC"), not a capitalised
    common word."""
    if re.fullmatch(r"[\w.-]+", subject) is None:
        return False
    return not (subject[:1].isupper() and subject[1:].islower())


# A one-word lower-case name ("ignore", "globset") is also a word of the language: it names the
# subject in a claim when marked as a name (backticks, "the ignore crate"), not as a verb.
_NAME_MARKS = r"(?:`{w}`|\b{w}\s+(?:crate|library|package|module|project|tool))"


def _lowercase_name(subject: str) -> bool:
    return re.fullmatch(r"[a-z][a-z0-9_-]*", subject) is not None


def carried(claim: str, subject: str, document: str | None) -> tuple[Reference, str] | None:
    """`distill.carry`'s English rule 4: the reference and the subject to carry when the claim's
    subject names nothing (rules 1-2) or it is a short step naming nothing (rule 4), else None.
    A lower-case one-word subject the claim uses
    only as a word ("will ignore hidden files" under "ignore") is not named by it: the reference
    is then an anaphor at the claim's start, so the caller looks for no mention."""
    chosen = section_subject(subject, document)
    word = unnamed(claim) if chosen is not None else None
    if (word is None or chosen is None) and document and subject == document and bare_step(claim):
        # A short step naming nothing acts on what the document's title names (`steps_en`),
        # under that title only: a section's label ("Instructions", "Related news") is none.
        return Reference("section", words_of(claim)[0].casefold()), document
    if word is None or chosen is None:
        return None
    if _lowercase_name(chosen):
        marked = re.search(_NAME_MARKS.format(w=re.escape(chosen)), claim, re.IGNORECASE)
        return None if marked else (Reference("anaphor", word, 0), chosen)
    return Reference("section", word), chosen
