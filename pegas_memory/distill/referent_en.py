"""Where an English draft that still leans back finds what it leans on in its chunk (pure).

After join (`distill.units`) and carry (`distill.carry`) a draft may still lean back. Two
places of the chunk tell on what, and `OfflineDistiller` asks them last (`settled`), before
`distill.standalone` judges the drafts:

1. **The question it answers**: in an FAQ an answer's "You can achieve this with the --sort
   path flag." leans on its question heading ("How can I get results in a consistent order?"),
   not on a sentence. A draft still marked anaphoric whose first sentence holds a bare "this"
   (`distill.lean_en` rule 1, first too: "This is because ...") carries the question,
   "Question?: claim" as every carry, when the section's heading is a question and the chunk
   holds the heading's line: the answer's start. Deeper in a long answer "this" is what the
   paragraphs before told, and the question is no antecedent. A Sphinx object description
   ("SESSION_COOKIE_DOMAIN", "flask.Flask.route": a code name as the heading) is read the same
   way: "If this is changed ..." is the object. A pointer ("This is covered in the section
   ...") carries nothing: it says nothing.
2. **A code block before it**: a paragraph right after a code block, or after the list or
   lead-in that follows one, whose first sentence points back by its opening words ("This
   alias checks ...", "The output of this command is ...", "The first says ... where as the
   latter says ...", "This will ..."; not an expletive "It is possible to ...") leans on the
   code or its output, which no claim can hold: marked `leans_on: code` for
   `distill.standalone` to drop as needing context. So is a paragraph after such a one that
   leans back in turn ("This list can be piped into xargs ..." after "The output of this
   command is a list of filenames ..."): what it leans on is dropped. A carried subject does not
   save it when the reference is a bare pronoun or names what code shows ("this alias", "this
   command", "in this example": under a question heading "this alias" is the code's, not the
   question's); "this functionality", "this approach" may be the heading's, and keep it. A bare
   "this" past the sentence's first word ("PR #187 fixed this", "in case this occurs") is the
   question's or the heading's, not the code's.
3. **Nothing before it in the chunk**: the chunk's very first paragraph, still marked anaphoric
   (no carry resolved it), whose first sentence opens on members of a series told before ("The
   first says ... where as the latter says ...") leans on the chunk before it, most often on
   the code block the chunk boundary fell after: marked `leans_on: the chunk before`, dropped
   the same way. A pronoun there ("It is used everywhere ...") stays marked anaphoric, as
   `distill.offline` documents: the mark alone is mostly on good atoms.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pegas_memory.distill.lean_en as lean_en
import pegas_memory.distill.lexicon_en as en
from pegas_memory.distill.carry import carried_claim
from pegas_memory.distill.context import _BASE_CONFIDENCE, refers_back
from pegas_memory.distill.continues_en import ordinal_subject
from pegas_memory.distill.patterns import words_of
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.distill.units import clean_claim

LEANS_ON = "leans_on"  # metadata: what the draft leans on (rules 2 and 3), for `standalone`
_PROSE = ("fact", "text", "definition")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_CODE_INDENT = 4


# A heading that names a code object ("SESSION_COOKIE_DOMAIN", "flask.Flask.route", "connect()"):
# Sphinx's object descriptions, whose body describes the object.
_CODE_NAME = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?$")


def _code_name(heading: str) -> bool:
    if _CODE_NAME.match(heading) is None:
        return False
    return "_" in heading or "." in heading or heading.endswith("()") or heading.isupper()


def _question(text: str, context: ChunkContext) -> str | None:
    """The section's heading when it is a question or a code object's name and the chunk holds
    its line (rule 1)."""
    heading = context.heading_path[-1].strip() if context.heading_path else ""
    if not heading.endswith("?") and not _code_name(heading):
        return None
    words = words_of(heading)
    if any(words_of(line) == words for line in text.splitlines() if line.strip()):
        return heading
    return None


def _english(atom: DraftAtom) -> bool:
    return (
        atom.type in _PROSE
        and atom.language in ("en", None)
        and atom.metadata.get("kind") != "dialogue"
        and "lead_in" not in atom.metadata
    )


def _leans(atom: DraftAtom) -> bool:
    """Marked anaphoric, or carried a subject because it opens on an anaphor."""
    return bool(atom.metadata.get("anaphoric")) or atom.metadata.get("context") == "anaphor"


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _paragraph_first(text: str, pos: int) -> bool:
    """Whether the span at `pos` opens its paragraph: only blanks before it on its line, and a
    blank line (not the chunk's start) above it."""
    start = _line_start(text, pos)
    if text[start:pos].strip() or start == 0:
        return False
    above = text[: start - 1]
    return not above[above.rfind("\n") + 1 :].strip()


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _display_before(text: str, start: int, leaning: set[int]) -> bool:
    """Whether the paragraph whose first line starts at `start` follows a code block (rule 2):
    walking up the blocks of lines between blank lines, over lists and lead-ins ("...:"), a
    block with a fence or indented deeper than the paragraph comes first; or a prose paragraph
    whose draft leaned on code (`leaning`, by its first line's offset)."""
    end = text.find("\n", start)
    own = _indent(text[start : end if end >= 0 else len(text)])
    blocks: list[list[tuple[int, str]]] = [[]]
    pos = 0
    for line in text[:start].split("\n")[:-1]:
        if line.strip():
            blocks[-1].append((pos, line))
        elif blocks[-1]:
            blocks.append([])
        pos += len(line) + 1
    for block in reversed([b for b in blocks if b]):
        lines = [line for _, line in block]
        if any(_FENCE.match(line) for line in lines) or _indent(lines[0]) >= own + _CODE_INDENT:
            return True
        lead_in = lines[0].rstrip().endswith(":") and (len(lines) == 1 or _ITEM.match(lines[1]))
        if _ITEM.match(lines[0]) or lead_in:
            continue  # a list, or the lead-in of one: what follows it may still be the code's
        return block[0][0] in leaning
    return False


def _question_carried(atom: DraftAtom, question: str) -> DraftAtom:
    claim = carried_claim(atom.claim, question)
    meta = {**atom.metadata, "subject": question, "context": "question"}
    meta.pop("anaphoric", None)
    content = claim if atom.content == atom.claim else atom.content
    confidence = _BASE_CONFIDENCE[atom.type] if atom.confidence == 0.4 else atom.confidence
    return replace(atom, claim=claim, content=content, metadata=meta, confidence=confidence)


_LATTER = re.compile(r"^\W*(?:[\w-]+\s+){0,2}the\s+(?:latter|former)\b", re.IGNORECASE)
_OPENS_THIS = re.compile(r"^\W*this\b", re.IGNORECASE)


_OPENING_WORDS = 4  # rule 2's reference opens the sentence: "The output of this command"
# "It is possible to ...", "It's recommended that ...": an expletive "it" points at nothing.
_EXPLETIVE = re.compile(
    r"^\W*(?:[a-z]+,\s+)?it(?:['’]s|\s+(?:is|was|will be|would be|may be|can be|might be"
    r"|should be))\s+(?:\w+\s+){0,2}?(?:to|that|whether|if|for)\b",
    re.IGNORECASE,
)


_DISPLAY_NOUNS = en.DISPLAY_NOUNS
_PRONOUNS = en.REFERENT_PRONOUNS


def _shows_code(first: str) -> bool:
    """Whether the sentence's reference is a bare pronoun ("This first loads ...", "that is
    it") or a demonstrative with a display noun ("This alias ...", "this command")."""
    if _OPENS_THIS.match(first) is not None and lean_en.bare_this(first, opening=True):
        return True
    reference = refers_back(first, "en")
    if reference is None or reference.kind != "anaphor":
        return ordinal_subject(first) or _LATTER.search(first) is not None
    after = words_of(first[reference.at :])[1:2]
    noun = after[0].casefold() if after else ""
    return reference.word not in ("this", "these", "those", "that") or (
        noun in _DISPLAY_NOUNS or noun in _PRONOUNS or not noun
    )


def _points_back(first: str) -> bool:
    """Whether a paragraph's first sentence points back by its own opening words (rule 2): a
    pronoun or "this/these N" among its first four words (not an expletive "It is possible to
    ..."), "This" alone first, "the first ...", "the latter"."""
    reference = refers_back(first, "en")
    early = (
        reference is not None
        and reference.kind == "anaphor"
        and len(words_of(first[: reference.at])) < _OPENING_WORDS
        and _EXPLETIVE.match(first) is None
    )
    return (
        early
        or (_OPENS_THIS.match(first) is not None and lean_en.bare_this(first, opening=True))
        or ordinal_subject(first)
        or _LATTER.search(first) is not None
    )


# "This is covered in the section pooling_multiprocessing.": a pointer, no answer to carry.
_TOLD_ELSEWHERE = re.compile(
    r"\b(?:is|are)\s+(?:covered|described|discussed|explained|documented|detailed|shown)\s+"
    r"(?:in|at|below|above|later|elsewhere)\b",
    re.IGNORECASE,
)


def settled(atoms: list[DraftAtom], text: str, context: ChunkContext) -> list[DraftAtom]:
    """The chunk's drafts, in order, with rules 1-3 (module docstring) applied to the
    English prose ones that still lean back. A "this" past the first word ("PR #187 fixed
    this") is the question's even after a code block; "This will ...", "This alias ..." there
    are the code's."""
    question = _question(text, context)
    leaning: set[int] = set()  # the first lines of paragraphs whose draft leans on code
    out: list[DraftAtom] = []
    for atom in sorted(atoms, key=lambda a: a.quote_start):
        if not (_english(atom) and _leans(atom)):
            out.append(atom)
            continue
        first = lean_en.first_sentence(clean_claim(atom.quote))
        asks = question is not None and bool(atom.metadata.get("anaphoric"))
        late = lean_en.bare_this(first) and _OPENS_THIS.match(first) is None
        if not late and _paragraph_first(text, atom.quote_start) and _points_back(first):
            start = _line_start(text, atom.quote_start)
            carried = not atom.metadata.get("anaphoric")
            if (not carried or _shows_code(first)) and _display_before(text, start, leaning):
                leaning.add(start)
                out.append(replace(atom, metadata={**atom.metadata, LEANS_ON: "code"}))
                continue
        opens = not text[: atom.quote_start].strip()  # the chunk's first words (rule 3)
        pair = ordinal_subject(first) or _LATTER.search(first) is not None  # "The first ..."
        if opens and atom.metadata.get("anaphoric") and pair:
            out.append(replace(atom, metadata={**atom.metadata, LEANS_ON: "the chunk before"}))
            continue
        told = _TOLD_ELSEWHERE.search(first) is not None
        if question is not None and asks and lean_en.bare_this(first, opening=True) and not told:
            atom = _question_carried(atom, question)
        out.append(atom)
    return out
