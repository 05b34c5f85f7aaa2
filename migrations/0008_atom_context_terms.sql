-- 0008_atom_context_terms: an ingested atom's lexical terms include where it stands.
-- An atom distilled from a document is one sentence; the words that say what it is about are
-- often only in its document's title and section ("SciFact abstracts > <paper title>"), which
-- ingest records in metadata.search_context (embedding/search_vector.py builds the search vector
-- from the same text). The BM25 arm indexed the claim and content only, so a query naming the
-- paper's subject missed the sentence that answers it: on 400 SciFact abstracts the ingested
-- atoms' lexical arm scored nDCG@10 0.798 against 0.860 for whole abstracts stored one per atom.
-- The context joins the generated tsvector (weight C, after claim A and content B), as contextual
-- BM25 does; an atom without a context (memory_store) indexes exactly what it did. Dropping and
-- re-adding the generated column rewrites pm_atom once; no row trigger fires.
ALTER TABLE pm_atom DROP COLUMN tsv;
ALTER TABLE pm_atom ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(ts_config, coalesce(claim, '')), 'A')
    || setweight(to_tsvector(ts_config, coalesce(content, '')), 'B')
    || setweight(to_tsvector(ts_config, coalesce(metadata ->> 'search_context', '')), 'C')
) STORED;
CREATE INDEX pm_atom_tsv ON pm_atom USING gin (tsv) WITH (fastupdate = off);
