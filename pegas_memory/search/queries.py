"""The statements of the search family, read once from `queries.sql` (see db.sql).

Blocks with ``{table}`` / ``{where}`` placeholders are composed through `psycopg.sql` by the
module that runs them; the fragments (`exclude_must`, `prefix_*`) are parts of `bm25_score`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import LiteralString

from pegas_memory.db.sql import load_queries


@dataclass(frozen=True)
class SearchQueries:
    # lexical
    table_estimate: LiteralString
    corpus_exact: LiteralString
    corpus_sampled: LiteralString
    analyse_words: LiteralString
    document_frequencies: LiteralString
    newest_id: LiteralString
    candidates_must: LiteralString
    candidates_extra: LiteralString
    exclude_must: LiteralString
    bm25_score: LiteralString
    prefix_score: LiteralString
    prefix_join: LiteralString
    prefix_matched: LiteralString
    no_prefix_score: LiteralString
    no_prefix_matched: LiteralString
    # arms, hydration
    graph_links: LiteralString
    graph_links_as_of: LiteralString
    statuses_as_of: LiteralString
    atom_documents: LiteralString
    fetch_atoms: LiteralString
    fetch_passages: LiteralString
    fetch_passages_ever: LiteralString
    fetch_traces: LiteralString
    # context
    chunk_windows: LiteralString
    cited_chunks: LiteralString
    # filters
    filter_documents: LiteralString
    filter_current: LiteralString
    filter_current_as_of: LiteralString
    filter_statuses_as_of: LiteralString


SEARCH_SQL = load_queries(SearchQueries, "pegas_memory.search", "queries.sql")
