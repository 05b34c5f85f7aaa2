"""The design card's name for `pegas_memory.curation.research` (re-exports its public names)."""

from pegas_memory.curation.research import (
    SearchProvider,
    SearxngProvider,
    build_provider,
    research_gaps,
)

__all__ = ["SearchProvider", "SearxngProvider", "build_provider", "research_gaps"]
