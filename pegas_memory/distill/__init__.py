"""Distillation into typed atoms: shared types and the `Distiller` Protocol (`types`), the offline
rule-based distiller (`offline`), the Ollama distiller and self-critique (`ollama`), and the
structured-output chat client (`llm`)."""

from pegas_memory.distill.ollama import build_distiller
from pegas_memory.distill.types import ChunkContext, Distiller, DraftAtom

__all__ = ["ChunkContext", "Distiller", "DraftAtom", "build_distiller"]
