"""The statements of the ingest pipeline, read once from `queries.sql` (see db.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class IngestQueries:
    same_version: LiteralString
    current_chunks: LiteralString
    document_version: LiteralString
    orphaned_atoms: LiteralString
    atom_status: LiteralString
    atom_cited_in: LiteralString


INGEST_SQL = load_queries(IngestQueries, "pegas_memory.ingest", "queries.sql")
