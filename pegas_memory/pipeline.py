"""The design card's name for `pegas_memory.ingest.pipeline` (re-exports its public names)."""

from pegas_memory.ingest.pipeline import IngestPipeline, IngestReport

__all__ = ["IngestPipeline", "IngestReport"]
