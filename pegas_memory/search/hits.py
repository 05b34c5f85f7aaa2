"""A search's hits: fetched rows made `Found`, and the two stores merged into one answer (pure).

`Found.of` turns a row read by the hydration (search/hydrate.py) into a hit with its fused score
and arm ranks; a passage is its own evidence (`passage_citation`). `two_stores` merges the atom
and passage hits through search/stores.py: a passage an atom was cited from folds into that atom,
and so do the other atoms cited from it; a cap per store, a floor for the agent's own atoms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from pegas_memory.db.repo import Citation
from pegas_memory.models import AtomStatus
from pegas_memory.search.fusion import FEEDBACK_PRIOR, Feedback
from pegas_memory.search.lexical import Entity
from pegas_memory.search.stores import (
    KEPT_FLOOR,
    SENTENCE_WEIGHT,
    STORE_SHARE,
    Candidate,
    merge,
)


@dataclass(frozen=True, slots=True)
class Found:
    """One hit of `Searcher.search`: the atom's or trace's fields, its fused score, its rank in
    each arm that found it, and (for atoms) its citations."""

    id: int
    scope: Literal["knowledge", "episodic"]
    score: float
    type: str
    claim: str
    content: str
    status: str | None
    confidence: float | None
    topic: str | None
    tags: tuple[str, ...]
    language: str | None
    doc_id: int | None
    created_at: datetime | None
    arms: Mapping[str, int]
    citations: tuple[Citation, ...] = ()
    store: Entity = "atom"
    section: tuple[str, ...] = ()  # a passage's heading path
    unsourced: bool = False  # an atom stored with no provenance (app/store.py)
    feedback: Feedback | None = None  # what the agent reported about it (memory_feedback)
    feedback_confidence: float | None = None  # the Beta posterior of `feedback`
    decay: str | None = None  # its decay profile (fusion.DECAY_PROFILES)
    about_at: datetime | None = None  # the time its claim is about, when recorded
    folded: tuple[int, ...] = ()  # atoms of the same passage this hit stands for (stores.py)

    @classmethod
    def of(
        cls,
        row: Mapping[str, Any],
        entity: Entity,
        score: float,
        arms: Mapping[str, int],
        prior: tuple[float, float] = FEEDBACK_PRIOR,
    ) -> Found:
        confidence = row.get("confidence")
        citations: tuple[Citation, ...] = ()
        if entity == "passage":  # a passage is its own evidence: its document and locator
            citations = (passage_citation(row),)
        return cls(
            store=entity,
            section=tuple(row.get("heading_path") or ()),
            citations=citations,
            id=int(row["id"]),
            scope="episodic" if entity == "trace" else "knowledge",
            score=score,
            type=row["type"],
            claim=row["claim"],
            content=row.get("content") or "",
            status=row.get("status"),
            confidence=None if confidence is None else float(confidence),
            topic=row.get("topic"),
            tags=tuple(row.get("tags") or ()),
            language=row.get("language"),
            doc_id=row.get("doc_id"),
            created_at=row.get("created_at"),
            arms=dict(arms),
            unsourced=bool(row.get("unsourced")),
            feedback=(fb := feedback_of(row)),
            feedback_confidence=None if fb is None else fb.confidence(prior),
            decay=row.get("decay"),
            about_at=row.get("about_at"),
        )


def feedback_of(row: Mapping[str, Any]) -> Feedback | None:
    """The feedback counters of a fetched atom or passage row (fb_*), None when never reported."""
    if row.get("fb_helped") is None:
        return None
    return Feedback(int(row["fb_helped"]), int(row["fb_misled"]), int(row["fb_used"]))


def passage_citation(row: Mapping[str, Any]) -> Citation:
    """Where a passage stands: its document version, locator and character span (the quote is
    the passage itself, given as the hit's text)."""
    return Citation(
        atom_id=0,
        doc_id=row.get("doc_id"),
        title=row.get("title"),
        uri=row.get("uri"),
        locator=row.get("locator") or "",
        quoted_text="",
        code_symbol_id=None,
        chunk_id=int(row["id"]),
        char_start=row.get("char_start"),
        char_end=row.get("char_end"),
        document_identity=row.get("identity_id"),
        document_version=row.get("version"),
        document_is_current=True,
    )


def two_stores(
    atoms: list[Found],
    passages: list[Found],
    cites: Mapping[int, Sequence[Citation]],
    limit: int,
    *,
    share: float = STORE_SHARE,
    floor: float = KEPT_FLOOR,
    sentence_weight: float = SENTENCE_WEIGHT,
) -> list[Found]:
    """Atoms and passages merged into one answer (search/stores.py): a passage an atom was
    cited from folds into that atom; an ingested atom's score weighed against the passages
    (`sentence_weight`); a cap per store (`share`); a floor for the agent's own atoms
    (`floor`)."""
    if not passages:
        return atoms
    if not atoms:
        return passages[:limit]
    candidates = [
        Candidate(
            "atom",
            h.id,
            h.score,
            h.arms,
            frozenset(c.chunk_id for c in cites.get(h.id, ()) if c.chunk_id is not None),
            kept=h.doc_id is None or h.status == AtomStatus.VERIFIED,
        )
        for h in atoms
    ]
    loose = [Candidate("passage", h.id, h.score, h.arms) for h in passages]
    merged = merge(
        candidates, loose, limit, share=share, floor=floor, sentence_weight=sentence_weight
    )
    by_key = {("atom", h.id): h for h in atoms} | {("passage", h.id): h for h in passages}
    return [
        replace(by_key[(c.store, c.id)], score=c.score, arms=dict(c.arms), folded=c.folded)
        for c in merged
    ]
