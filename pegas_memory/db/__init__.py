"""The source of truth: the PostgreSQL pool and migrations (`pool`), the embedded cluster
(`embedded`), and the parameterised writes and reads of the core tables (`repo`)."""

from pegas_memory.db.pool import Database, translate_error

__all__ = ["Database", "translate_error"]
