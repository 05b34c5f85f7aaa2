-- 0008_atom_search_context: an ingested atom is also found by the context it was read in, its
-- document title and section path, which the ingest pipeline records in
-- metadata->>'search_context' (pegas_memory/embedding/search_text.py). A sentence distilled from
-- a document often leaves its subject to the title ("Treatment for 2 days increased BAT
-- activity"), so the lexical arm indexes the context next to the claim (weight C), as the
-- vector of the atom embeds it before the claim. Atoms without a context (memory_store) index
-- exactly what they did.
ALTER TABLE pm_atom DROP COLUMN tsv;
ALTER TABLE pm_atom ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(ts_config, coalesce(claim, '')), 'A')
    || setweight(to_tsvector(ts_config, coalesce(content, '')), 'B')
    || setweight(to_tsvector(ts_config, coalesce(metadata->>'search_context', '')), 'C')
) STORED;
CREATE INDEX pm_atom_tsv ON pm_atom USING gin (tsv) WITH (fastupdate = off);
