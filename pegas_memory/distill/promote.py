"""The promote stage: which drafts become atoms; the rest stay in their passage only (pure).

Every chunk is a passage that search returns and cites (docs/decisions/0006), so a draft is
promoted to an atom only when it states something by itself. `promote` runs an ordered list of
named rules on each draft of a chunk, from any distiller (offline or a model); the first rule
with a verdict decides, and its name is written to the atom's metadata (`promoted_by`) or
counted as the reason the draft stayed a passage (the ingest result's `dropped`):

1. **block**: code, a table or a logical rule is an atom.
2. **labelled statement**: a "Definition 3", "Theorem 2.1", "Теорема 4" block is an atom.
3. **layout section**: a chunk under "References", "Contents", "Acknowledgements", "Список
   литературы" ... (`layout.section_kind`) holds no atoms.
4. **reference list entry**, **table of contents**, **front matter**, **caption**, **glyph
   debris**: the draft's shape in the layout (`distill.layout`).
5. **needs context**, **damaged**, **label line**: what still leans on the text before it
   after join and carry, or lost words in the source (`distill.standalone.unfit`).
6. **fragment**: it starts inside another sentence.
7. **question**, **pointer**, **narration**: it asks, points elsewhere in the text or
   narrates steps to the reader (`distill.discourse`), read without a carried subject; a
   definition is judged by what it defines, not by these.
8. **unresolved reference**: a pronoun or demonstrative whose referent the claim does not
   hold (`distill.reference`); a carried subject is the referent.
9. **no predicate**: a fact or text without a verb, copula or dash names a topic and states
   nothing (`distill.predicate`); a carried claim and a definition are left alone.
10. **stands alone**: everything else is promoted with its type.

The rules read the draft, its chunk and the chunk's context only; none of them looks at other
drafts, so a draft's verdict does not depend on what else the chunk holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import pegas_memory.distill.discourse as discourse
import pegas_memory.distill.layout as layout
import pegas_memory.distill.predicate as predicate
import pegas_memory.distill.reference as reference
from pegas_memory.distill.standalone import NEEDS_CONTEXT, unfit
from pegas_memory.distill.types import ChunkContext, DraftAtom

PROMOTED_BY = "promoted_by"  # the metadata key of the rule that promoted an atom
_BLOCKS = frozenset({"code", "table", "logical_rule"})
_LABELLED = frozenset({"theorem", "definition", "proof"})
_GRAMMARS = frozenset({"en", "ru"})


@dataclass(frozen=True)
class Verdict:
    """A rule's decision: promoted (`reason` None) or kept in the passage for `reason`."""

    rule: str
    reason: str | None = None


@dataclass(frozen=True)
class Chunk:
    """The chunk a draft came from, with what the rules compute once per chunk."""

    text: str
    context: ChunkContext

    @cached_property
    def section(self) -> str | None:
        return layout.section_kind(self.context.heading_path)

    @cached_property
    def layout(self) -> layout.ChunkLayout:
        return layout.ChunkLayout.of(self.text, self.context.heading_path)


Rule = Callable[[DraftAtom, Chunk], Verdict | None]


def _block(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    return Verdict("block") if atom.type in _BLOCKS else None


def _labelled(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    labelled = "label" in atom.metadata and atom.metadata.get("kind") in _LABELLED
    return Verdict("labelled statement") if labelled else None


def _section(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    return Verdict("layout section", chunk.section) if chunk.section else None


def _shape(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    """The draft's shape in the layout (`distill.layout`), first match in this order."""
    if layout.reference_entry(chunk.text, atom.quote_start, atom.quote, chunk.layout):
        return Verdict("reference entry", layout.REFERENCE)
    if layout.contents_line(atom.quote, chunk.layout):
        return Verdict("contents line", layout.CONTENTS)
    if layout.front_matter(atom.quote):
        return Verdict("front matter", layout.FRONT_MATTER)
    if layout.caption(chunk.text, atom.quote_start, atom.quote):
        return Verdict("caption", layout.CAPTION)
    if layout.glyph_debris(atom.claim):
        return Verdict("glyph debris", layout.DEBRIS)
    return None


def _fragment(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    if atom.type in ("fact", "text") and discourse.cut_off(chunk.text, atom.quote, atom.quote_end):
        return Verdict("cut off", discourse.FRAGMENT)
    if atom.metadata.get("lead_in") or atom.metadata.get("joined"):
        return None  # the list's lead-in or the join made it whole
    text, language = chunk.text, atom.language
    if discourse.fragment(text, atom.quote, atom.quote_start, atom.claim, language):
        return Verdict("fragment", discourse.FRAGMENT)

    return None


def _body(atom: DraftAtom) -> str:
    """The claim without the subject a carry put in front of it ("sort(fn): Сделаем ...")."""
    subject = atom.metadata.get("subject")
    if isinstance(subject, str):
        for joint in (":", " —"):  # "Subject: claim", "Subject — reason: claim"
            if atom.claim.startswith(subject + joint):
                return atom.claim[len(subject) + len(joint) :].lstrip()
    return atom.claim


def _discourse(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    if atom.type == "definition" or atom.metadata.get("kind") == "dialogue":
        return None
    body = _body(atom)
    if discourse.question(body):
        return Verdict("question", discourse.QUESTION)
    if discourse.pointer(body, atom.language):
        return Verdict("pointer", discourse.POINTER)
    if discourse.narration(body, atom.language, steps=body == atom.claim):
        return Verdict("narration", discourse.NARRATION)
    return None


def _leaning(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    reason = unfit(atom)
    return Verdict("needs context", reason) if reason is not None else None


def _reference(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    if atom.metadata.get("kind") == "dialogue" or atom.language not in _GRAMMARS:
        return None  # the grammar read here is English and Russian
    body = _body(atom)
    # a carried subject is what the claim's "it" stands for, not what "in this case" means
    if reference.unresolved(body, atom.language, personal=body == atom.claim) is not None:
        return Verdict("unresolved reference", NEEDS_CONTEXT)
    return None


def _predicate(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    if atom.type not in ("fact", "text") or atom.language not in _GRAMMARS:
        return None  # a definition says what its term is
    if atom.metadata.get("kind") == "dialogue" or atom.metadata.get("lead_in"):
        return None
    subject = atom.metadata.get("subject")
    if subject and (chunk.context.heading_path or subject != chunk.context.title):
        return None  # a carried claim is its subject's predicate ("Нестор Махно: автор ...")
    # a claim the document's title was carried onto, in a chunk under no heading (a slide's
    # bullet under "Tabular AutoML"), is read on its own
    if predicate.no_predicate(_body(atom), atom.language):
        return Verdict("no predicate", predicate.NO_PREDICATE)
    return None


def _stands_alone(atom: DraftAtom, chunk: Chunk) -> Verdict | None:
    return Verdict(f"stands alone: {atom.type}")


# The blocks and the layout: a shape every document of the kind shares.
HARD_RULES: tuple[Rule, ...] = (_block, _labelled, _section, _shape)
# The sentence rules. A learned gate that weighed them with general signals instead of taking
# their first verdict did not generalise (docs/decisions/0010, `bench/standalone_gate.py`).
SOFT_RULES: tuple[Rule, ...] = (_leaning, _fragment, _discourse, _reference, _predicate)
RULES: tuple[Rule, ...] = (*HARD_RULES, *SOFT_RULES, _stands_alone)


def soft_verdicts(atom: DraftAtom, chunk: Chunk) -> list[Verdict]:
    """Every soft rule's verdict on one draft (all of them, not only the first)."""
    return [found for rule in SOFT_RULES if (found := rule(atom, chunk)) is not None]


def verdict(atom: DraftAtom, chunk: Chunk) -> Verdict:
    """The first verdict of `RULES` on one draft of `chunk`."""
    for rule in RULES:
        found = rule(atom, chunk)
        if found is not None:
            return found
    raise AssertionError("the last rule always decides")  # pragma: no cover


def promote(
    drafts: Sequence[DraftAtom], text: str, context: ChunkContext
) -> tuple[list[DraftAtom], dict[str, int]]:
    """The drafts of one chunk that become atoms, each with the rule that promoted it in its
    metadata, and how many stayed in the passage only, by reason."""
    chunk = Chunk(text, context)
    kept: list[DraftAtom] = []
    passage_only: Counter[str] = Counter()
    for atom in drafts:
        found = verdict(atom, chunk)
        if found.reason is not None:
            passage_only[found.reason] += 1
        else:
            kept.append(replace(atom, metadata={**atom.metadata, PROMOTED_BY: found.rule}))
    return kept, dict(passage_only)
