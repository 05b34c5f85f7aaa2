"""Retrieval: the searcher that composes a search (`hybrid`), its arms (`arms`: dense, BM25 in
`lexical`, graph), pure ranking (`ranking`, `fusion`), the rows of the hits (`hydrate`, `hits`),
two stores in one answer (`stores`), the filter (`filters`), the presets (`presets`),
cross-script prefixes (`translit`) and memory_get_context (`context`)."""

from pegas_memory.search.filters import SearchFilter
from pegas_memory.search.hybrid import Searcher
from pegas_memory.search.presets import PRESETS

__all__ = ["PRESETS", "SearchFilter", "Searcher"]
