-- 0003_gin_fastupdate: search reads the full-text GIN indexes on every query (BM25 document
-- frequencies and candidates). With fastupdate on, new rows pile up in a pending list that every
-- lookup scans until vacuum flushes it; measured at 10k atoms, that made the lexical arm ~3x
-- slower (200 ms vs 62 ms p50). Writes pay a little more instead; reads stay fast.
ALTER INDEX pm_atom_tsv SET (fastupdate = off);
ALTER INDEX pm_episodic_trace_tsv SET (fastupdate = off);
ALTER INDEX pm_code_symbol_tsv SET (fastupdate = off);
ALTER INDEX pm_code_symbol_search SET (fastupdate = off);
ALTER INDEX pm_atom_claim_trgm SET (fastupdate = off);
