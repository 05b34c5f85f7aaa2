"""Ingest: sources and parsers (`sources`), SSRF-safe fetching and file roots (`netguard`),
structure-aware chunking (`chunking`), semantic dedup (`dedup`) and the pipeline that writes one
document version in one transaction (`pipeline`)."""

from pegas_memory.ingest.chunking import Chunk, ParsedSource, Section, chunk_source
from pegas_memory.ingest.sources import load_source

__all__ = ["Chunk", "ParsedSource", "Section", "chunk_source", "load_source"]
