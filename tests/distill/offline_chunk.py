"""One chunk distilled by the offline distiller, as the tests of its rules read it: every atom's
quote must stand verbatim in the chunk (checked on every call), and the result comes as the atoms,
their claims, or (type, claim) pairs; and the sentence groups the distiller cuts a text into."""

from __future__ import annotations

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.distill.units import sentence_groups


def distil(
    text: str,
    title: str | None = None,
    heading: tuple[str, ...] = (),
    language: str | None = None,
) -> tuple[list[DraftAtom], dict[str, int]]:
    """(atoms, drafts dropped by reason) of `text` under that title, heading path and language
    (None: detected)."""
    atoms, dropped = OfflineDistiller().distill_counted(
        text, ChunkContext(title, heading, language)
    )
    for atom in atoms:
        assert text[atom.quote_start : atom.quote_end] == atom.quote  # the quote stays verbatim
    return atoms, dropped


def claims(
    text: str,
    title: str | None = None,
    heading: tuple[str, ...] = (),
    language: str | None = None,
) -> list[str]:
    return [a.claim for a in distil(text, title, heading, language)[0]]


def typed_claims(
    text: str,
    title: str | None = None,
    heading: tuple[str, ...] = (),
    language: str | None = None,
) -> list[tuple[str, str]]:
    return [(a.type, a.claim) for a in distil(text, title, heading, language)[0]]


def grouped(text: str, language: str = "en") -> list[str]:
    """The texts of the sentence groups `text` is cut into (sentences joined are one group)."""
    return [text[g.start : g.end] for g in sentence_groups(text, 0, len(text), language=language)]
