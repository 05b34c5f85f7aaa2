"""A sentence about a value the sentence before gave a setting: joined with it (pure logic).

A manual names a setting and its value in one sentence and goes on about the value in the next:
'If the <PROGRAM>_ACTIVE_HELP environment variable is set to the string "0", Cobra will
automatically disable all Active Help output ... Using "0" can simplify your code in situations
where you want to blindly disable Active Help ...'. The second sentence names no setting: "0"
of what is only in the first, so alone it is a claim about nothing. `joined` puts the two in one
atom (one span of the paragraph, as `distill.units` joins a sentence that leans back).

The sign (`repeats_value`): the later sentence opens on a use of a literal value, a verb of
using in "-ing" with the value as its object ('Using "0" ...', "Passing None ...") or the
quoted value itself as the subject ('"auto" picks ...'), and the same value occurs in the
sentence before. The value is a quoted string or a keyword literal (None, True, False, null,
nil); a bare number is as often a measure ("Using 5 mg/kg ..."). A sentence that names what
the value is for before its verb ('Setting COBRA_ACTIVE_HELP to "0" disables ...': a name in
capitals, a code name or a dotted one) stands alone and is not joined, nor is one whose value
the sentence before does not hold, nor one after a claim that carried a subject or a lead-in
(the join would lose it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pegas_memory.distill.types import DraftAtom

_MAX_JOINED_CHARS = 700
_QUOTED = r"[\"“'‘«`](?P<{}>[^\"”'’»`\n]{{1,24}})[\"”'’»`]"
_LITERAL = rf"(?:{_QUOTED.format('q')}|(?P<k>None|True|False|null|nil)\b)"
_USE_VERBS = (
    r"(?i:using|setting|passing|returning|specifying|choosing|giving|providing|supplying"
    r"|selecting|entering|assigning|sending)"
)
# 'Using "0" can ...', 'Setting it to "0" ...' is an anaphor's (another rule), '"auto" picks ...'
_OPENS_ON_VALUE = re.compile(
    rf"^(?:{_USE_VERBS}\s+(?:the\s+(?:value|string|number)\s+)?{_LITERAL}"
    rf"|{_QUOTED.format('s')}\s+(?=[a-z]))"
)
# What names the setting before the verb: a constant in capitals, a code or a dotted name.
_NAMES_SETTING = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\w\.\w|\w\(|\w_\w|<[A-Z]+>")


def _value(claim: str) -> str | None:
    """The literal value the claim opens on the use of (module docstring), or None."""
    m = _OPENS_ON_VALUE.match(claim.strip())
    if m is None:
        return None
    value = m["q"] or m["k"] or m["s"]
    head = claim.strip()[: m.end() + 40]
    verb = re.search(r"\s(?:can|could|will|would|is|are|was|may|might|must|should|does|makes"
                     r"|lets|disables|enables|means|turns|causes|gives|has)\b", head)  # fmt: skip
    subject = head[m.end() : verb.start()] if verb else ""
    if _NAMES_SETTING.search(subject):
        return None  # 'Setting COBRA_ACTIVE_HELP to "0" disables ...' names what it sets
    return value


def repeats_value(before: str, claim: str) -> bool:
    """Whether `claim` opens on the use of a literal value that `before` holds (its quoted form,
    or the bare number or keyword as a word)."""
    value = _value(claim)
    if value is None:
        return False
    if re.search(rf"[\"“'‘«`]{re.escape(value)}[\"”'’»`]", before):
        return True
    keyword = value in ("None", "True", "False", "null", "nil")
    return keyword and re.search(rf"(?<![\w.]){value}(?!\w|\.\w)", before) is not None


def joined(
    text: str,
    atoms: Sequence[DraftAtom],
    remake: Callable[[str, int, int, str | None], DraftAtom | None],
    language: str | None,
) -> list[DraftAtom]:
    """The chunk's atoms with each prose atom that `repeats_value` of the atom right before it
    in the same paragraph (only spaces or one line break between) joined to it, as one atom
    remade over both spans by `remake(text, start, end, language)`; kept apart when the span is
    too long."""
    ordered = sorted(atoms, key=lambda a: a.quote_start)
    out: list[DraftAtom] = []
    for atom in ordered:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.type in ("fact", "text")
            and "subject" not in prev.metadata  # a carried claim would lose its carry
            and "lead_in" not in prev.metadata
            and atom.type in ("fact", "text")
            and prev.quote_end <= atom.quote_start
            and "\n\n" not in text[prev.quote_end : atom.quote_start]
            and not text[prev.quote_end : atom.quote_start].strip()
            and atom.quote_end - prev.quote_start <= _MAX_JOINED_CHARS
            and repeats_value(prev.claim, atom.claim)
        ):
            both = remake(text, prev.quote_start, atom.quote_end, language)
            if both is not None:
                meta = {**prev.metadata, **both.metadata, "joined": True, "context": "value"}
                meta.pop("anaphoric", None)
                out[-1] = DraftAtom(
                    both.type, both.claim, both.content, both.confidence, both.quote,
                    both.quote_start, both.quote_end, both.language, meta, both.term,
                )  # fmt: skip
                continue
        out.append(atom)
    return out
