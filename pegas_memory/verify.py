"""The design card's name for `pegas_memory.curation.verify` (re-exports its public names)."""

from pegas_memory.curation.verify import AtomVerdict, Verifier

__all__ = ["AtomVerdict", "Verifier"]
