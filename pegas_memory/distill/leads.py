"""A document's or section's lead that says what its subject is: a definition (pure logic).

"SQLAlchemy is the Python SQL toolkit and Object Relational Mapper that gives ..." opens the
README titled "SQLAlchemy": graders read it as the definition of SQLAlchemy. The same shape in a
body paragraph ("Aspirin is a risk factor for ...", "The mean age was 54 years") is a statement
about its subject, and `patterns.match_definition` keeps its narrower "X is a Y" rules there. So
this rule needs the sentence's position, which only the distiller knows: it asks here for the
first sentence of a chunk, with the document's title and the section's heading as the subjects
(Russian leads "X — N ..." are definitions by `patterns` already, wherever they stand).
"""

from __future__ import annotations

import re

from pegas_memory.distill.patterns import (
    ASSESSMENT,
    CAPS_LABEL,
    ETYM,
    EVALUATIVE_GENUS,
    LETTER,
    strip_term,
)

# A lead "X is a/an/the N ...": a definition only where X is what its document or section is
# about (`match_lead_definition`); in a body "X is the N that ..." is a statement about X.
_LEAD_IS = re.compile(
    r"^(?P<term>[^,;:()\n—–]{1,60}?)" + ETYM + r"\s+(?:is|are|was|were)\s+(?P<body>(?:an?|the)"
    r"\s+(?!(?:best|worst|first|last|only|most|least|same|number|lot|bit|few|couple)\b)\S+\s+\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


def match_lead_definition(
    sentence: str, subjects: tuple[str, ...]
) -> tuple[str, str, float, str] | None:
    """(term, body, confidence, "lead_is") when the lead sentence of a document or section says
    what its subject is: "SQLAlchemy is the Python SQL toolkit and Object Relational Mapper that
    ..." under the title "SQLAlchemy". The graders' convention: such a lead defines the subject.
    `subjects` are the document's title and the section's heading; "X is a risk factor for Y"
    (a relation, `EVALUATIVE_GENUS`), "X is a fast-moving field" (an assessment, `ASSESSMENT`)
    and an X that is neither stay what `match_definition` and `is_fact` make of them."""
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
