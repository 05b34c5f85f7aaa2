"""The outbox's SQL, read from `queries.sql` into typed fields (checked at import)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class OutboxQueries:
    listen: LiteralString
    pending_all: LiteralString
    pending_of_types: LiteralString
    pending_of_entities: LiteralString
    claim_batch: LiteralString
    try_entity_locks: LiteralString
    mark_processed: LiteralString
    record_failure: LiteralString
    make_delayed_due: LiteralString
    select_atom: LiteralString
    select_trace: LiteralString
    select_passage: LiteralString
    select_link: LiteralString
    select_code_symbol: LiteralString
    select_code_dependency: LiteralString
    select_code_inferred: LiteralString
    ids_of_table: LiteralString
    resolved_dependency_ids: LiteralString


Q = load_queries(OutboxQueries, "pegas_memory.outbox", "queries.sql")
