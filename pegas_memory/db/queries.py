"""The statements of the `db` family, read once from `queries.sql` (repo and migration ledger).

One frozen dataclass field per named block, so a call site reads ``DB_SQL.insert_atom`` and a
missing or misspelt block fails at import, not at the one call that needs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class DbQueries:
    migration_lock: LiteralString
    migration_unlock: LiteralString
    create_migration_ledger: LiteralString
    applied_migrations: LiteralString
    record_migration: LiteralString
    migration_ledger: LiteralString
    reload_config: LiteralString
    checkpoint: LiteralString
    notify: LiteralString
    lock_document_uri: LiteralString
    document_by_hash: LiteralString
    current_document_for_update: LiteralString
    retire_document: LiteralString
    insert_document: LiteralString
    document_identity: LiteralString
    document_versions: LiteralString
    atom_ids_by_hash: LiteralString
    atoms_for_dedup: LiteralString
    mark_superseded: LiteralString
    insert_chunk: LiteralString
    chunk_citations: LiteralString
    insert_atom: LiteralString
    atom_id_by_hash: LiteralString
    set_check_name: LiteralString
    clear_check_name: LiteralString
    set_withdraw_reason: LiteralString
    trim_withdrawals: LiteralString
    record_withdrawal_trim: LiteralString
    as_of_horizon: LiteralString
    citations_as_of: LiteralString
    update_status: LiteralString
    attach_status_evidence: LiteralString
    insert_citation: LiteralString
    upsert_link: LiteralString
    link_id: LiteralString
    citations_for: LiteralString
    insert_trace: LiteralString
    atoms_by_type_status: LiteralString
    gaps_by_status: LiteralString
    counts: LiteralString
    feedback_totals: LiteralString


DB_SQL = load_queries(DbQueries, "pegas_memory.db", "queries.sql")
