"""Types shared by the distillers: the draft atom, the chunk context, the `Distiller` Protocol and
the version constants. `distill` (the Ollama distiller, quote location, critique) and
`distill_offline` (the rule-based distiller) both import them from here, so neither imports the
other's types and there is no cycle."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pegas_memory.models import AtomType

# What each type (`models.AtomType`) means (the offline distiller's rules are in
# `distill.definition_rules`, `distill.fact_rules` and `distill.patterns`): `definition` defines a
# term (its `term` recorded), `fact` is a checkable statement (a finding, a property, an event, a
# number; a labelled theorem, lemma, proposition or corollary is a `fact` with metadata
# kind=theorem: a statement that holds, with its premises), `text` is the rest (aims, questions,
# method narrative, proofs with kind=proof), `table`, `code` and `logical_rule` are blocks.
ATOM_TYPES: tuple[AtomType, ...] = tuple(AtomType)

OFFLINE_VERSION = "offline-v17"
PROMPT_VERSION = "distill-v2"  # v2: only what stands alone (issue 33, scope 3)
CRITIQUE_PROMPT_VERSION = "critique-v1"


# The metadata key naming the rule of the type stage that gave a draft its type: a definition's
# pattern, `fact_rules.fact_verdict`'s rule for a fact or a text, a block's kind, "model".
TYPED_BY = "typed_by"


@dataclass(frozen=True)
class DraftAtom:
    """One typed knowledge unit distilled from a chunk, before it is stored.

    `quote == chunk[quote_start:quote_end]` always holds: distillers drop or repair atoms whose
    quote is not in the chunk. `metadata["distiller"]` says which path made the atom ("offline",
    "ollama", or "offline-fallback" with `metadata["fallback_reason"]`). `term` is the defined
    term of a `definition` (also in `metadata["term"]`), when the distiller could tell it.
    """

    type: AtomType
    claim: str
    content: str
    confidence: float
    quote: str
    quote_start: int
    quote_end: int
    language: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    term: str | None = None


@dataclass(frozen=True)
class ChunkContext:
    title: str | None = None
    heading_path: tuple[str, ...] = ()
    language: str | None = None


class Distiller(Protocol):
    name: str
    prompt_version: str

    def distill(self, text: str, context: ChunkContext) -> list[DraftAtom]: ...


@runtime_checkable
class CountsDrops(Protocol):
    """A distiller that also says how many drafts it dropped as noise, by reason (the offline
    distiller: dialogue lines, exclamations, related links ...), for the ingest result."""

    def distill_counted(
        self, text: str, context: ChunkContext
    ) -> tuple[list[DraftAtom], dict[str, int]]: ...
