"""Retrieval: the arms and presets (`hybrid`), pure ranking (`fusion`), the BM25 arm (`lexical`),
cross-script prefixes (`translit`) and memory_get_context (`context`)."""

from pegas_memory.search.hybrid import PRESETS, Searcher, SearchFilter

__all__ = ["PRESETS", "SearchFilter", "Searcher"]
