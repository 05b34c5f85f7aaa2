"""The design card's name for `pegas_memory.app.research` (re-exports its public names)."""

from pegas_memory.app.research import (
    SearchProvider,
    SearxngProvider,
    build_provider,
    research_gaps,
)

__all__ = ["SearchProvider", "SearxngProvider", "build_provider", "research_gaps"]
