"""The SQL of code memory, read once from code_memory/queries.sql (see `db.sql.load_queries`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class CodeQueries:
    """The named blocks of code_memory/queries.sql: indexing, writing, reading."""

    lock_repo: LiteralString
    repo_roots: LiteralString
    repo_document: LiteralString
    upsert_repo: LiteralString
    file_hashes: LiteralString
    repo_counts: LiteralString
    mark_indexed: LiteralString
    symbols_of_paths: LiteralString
    symbol_ids_by_name: LiteralString
    stored_dependencies: LiteralString
    stored_dependencies_from: LiteralString
    symbol_ids_of_paths: LiteralString
    citations_of_symbols: LiteralString
    move_citation: LiteralString
    delete_symbols: LiteralString
    park_moved_symbols: LiteralString
    update_symbols: LiteralString
    copy_symbols: LiteralString
    delete_files: LiteralString
    upsert_file: LiteralString
    delete_dependencies: LiteralString
    update_dependencies: LiteralString
    copy_dependencies: LiteralString
    search_symbols: LiteralString
    search_filter_repo: LiteralString
    search_filter_path: LiteralString
    search_filter_language: LiteralString
    search_filter_kinds: LiteralString
    repo_exists: LiteralString
    symbol_in_repo: LiteralString
    find_symbol: LiteralString
    dependency_hop: LiteralString
    symbols_by_ids: LiteralString
    dependency_attributes: LiteralString
    external_references: LiteralString
    self_references: LiteralString
    repo_symbol_ids: LiteralString
    repo_resolved_dependency_ids: LiteralString
    repo_derived_ids: LiteralString
    document_atoms_text: LiteralString
    symbols_named: LiteralString
    repo_edges: LiteralString
    analyzer_run: LiteralString
    analyzer_documents: LiteralString
    upsert_analyzer_run: LiteralString
    delete_analyzer_documents: LiteralString
    delete_all_analyzer_documents: LiteralString
    copy_analyzer_documents: LiteralString
    size_analyzer_run: LiteralString
    evict_analyzer_runs: LiteralString
    delete_analyzer_run: LiteralString


Q = load_queries(CodeQueries, "pegas_memory.code_memory", "queries.sql")
