"""The statements of the curation family, read once from `queries.sql` (see db.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class CurationQueries:
    # verify
    existing_atom_ids: LiteralString
    atoms_of_document: LiteralString
    candidate_atoms: LiteralString
    atom_to_verify: LiteralString
    documents_of_atoms: LiteralString
    related_documents: LiteralString
    neighbour_atoms: LiteralString
    set_confidence: LiteralString
    # gaps
    gap_atoms: LiteralString
    live_gap_like: LiteralString
    merge_gap: LiteralString
    insert_gap: LiteralString
    list_gaps: LiteralString
    set_gap_status: LiteralString
    link_gap_atom: LiteralString
    restore_gap: LiteralString
    unlink_gap_atoms_except: LiteralString
    # forget
    record_retraction: LiteralString
    atoms_to_erase: LiteralString
    count_links_of: LiteralString
    delete_atoms: LiteralString
    delete_cached_vectors: LiteralString
    existing_document_ids: LiteralString
    atoms_only_in_documents: LiteralString
    detach_atoms_from_documents: LiteralString
    delete_documents: LiteralString
    delete_traces: LiteralString
    # feedback
    feedback_atoms_known: LiteralString
    feedback_chunks_known: LiteralString
    insert_feedback_events: LiteralString
    atom_feedback_counts: LiteralString
    passage_feedback_counts: LiteralString
    feedback_events_of: LiteralString
    drop_unsplittable_merges: LiteralString
    # merges
    list_merges: LiteralString
    lock_merge: LiteralString
    move_merge_citations: LiteralString
    reproject_atom: LiteralString
    mark_merge_undone: LiteralString
    block_merge: LiteralString
    consolidation_atoms: LiteralString
    consolidation_neighbours: LiteralString
    atom_for_merge: LiteralString
    merge_blocked: LiteralString
    record_duplicate_merge: LiteralString
    drop_duplicate_link: LiteralString
    merge_blocks_of: LiteralString
    existing_atom_ids_claims: LiteralString
    # contradictions (the review queue) and a split merge joined again
    contested_pairs: LiteralString
    lock_pair: LiteralString
    lock_pair_atoms: LiteralString
    status_before_contest: LiteralString
    other_open_contradictions: LiteralString
    set_link_resolution: LiteralString
    set_atom_scope: LiteralString
    scoped_apart: LiteralString
    split_atom_state: LiteralString
    move_citations_back: LiteralString
    unmark_merge_undone: LiteralString
    unblock_merge: LiteralString


CURATION_SQL = load_queries(CurationQueries, "pegas_memory.curation", "queries.sql")
