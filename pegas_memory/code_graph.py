"""The design card's name for `pegas_memory.code_memory.graph` (re-exports its public names)."""

from pegas_memory.code_memory.graph import resolve

__all__ = ["resolve"]
