"""The statements of the ingest pipeline, read once from `queries.sql` (see db.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class IngestQueries:
    same_bytes_elsewhere: LiteralString
    set_document_decay: LiteralString
    add_alias: LiteralString
    same_version: LiteralString
    current_chunks: LiteralString
    document_version: LiteralString
    orphaned_atoms: LiteralString
    atom_status: LiteralString
    atom_cited_in: LiteralString
    lock_version: LiteralString
    version_atoms: LiteralString
    redistill_protected: LiteralString
    drop_version_citations: LiteralString
    drop_version_chunks: LiteralString
    rechunk_citations: LiteralString
    redistill_orphans: LiteralString
    count_kept: LiteralString
    retype_atom: LiteralString
    version_spans: LiteralString
    covering_atom: LiteralString
    record_redistill: LiteralString
    merge_blocks: LiteralString
    record_merge: LiteralString
    drop_open_merges: LiteralString
    carry_source_citations: LiteralString
    revivable_atoms: LiteralString
    clear_superseded: LiteralString


INGEST_SQL = load_queries(IngestQueries, "pegas_memory.ingest", "queries.sql")
