-- 0009_passages: every chunk of a document's current version is a passage that search returns in
-- its own right (docs/decisions/0006-searchable-passages.md). Until now chunks were evidence
-- only: what the distiller left out of the atoms could not be found at all.
--
-- A passage is indexed for BM25 in its own language's configuration (content at weight A, its
-- heading path at C), is projected by the outbox into the vector slice like an atom, and is
-- withdrawn from every slice when its version stops being current or its document is forgotten.

-- The text-search configuration of a language code (text.py's table; 'simple' for the rest).
CREATE FUNCTION pm_ts_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE lang
        WHEN 'ru' THEN 'russian' WHEN 'en' THEN 'english' WHEN 'de' THEN 'german'
        WHEN 'fr' THEN 'french' WHEN 'es' THEN 'spanish' WHEN 'it' THEN 'italian'
        WHEN 'pt' THEN 'portuguese' WHEN 'nl' THEN 'dutch' WHEN 'sv' THEN 'swedish'
        WHEN 'no' THEN 'norwegian' WHEN 'da' THEN 'danish' WHEN 'fi' THEN 'finnish'
        WHEN 'hu' THEN 'hungarian' WHEN 'ro' THEN 'romanian' WHEN 'tr' THEN 'turkish'
        ELSE 'simple' END)::regconfig
$$;

-- The words of a heading path (array_to_string is only STABLE for arrays in general; for text[]
-- it does not depend on any setting, so the generated column may use it through this wrapper).
CREATE FUNCTION pm_heading_words(path text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string(path, ' '), '') $$;

ALTER TABLE pm_chunk ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(pm_ts_config(language), content), 'A')
    || setweight(to_tsvector(pm_ts_config(language), pm_heading_words(heading_path)), 'C')
) STORED;
CREATE INDEX pm_chunk_tsv ON pm_chunk USING gin (tsv) WITH (fastupdate = off);
CREATE INDEX pm_chunk_doc ON pm_chunk (doc_id, ord);

-- The passages: chunks of current document versions (what search, the slices and the
-- self-check see).
CREATE VIEW pm_passage AS
SELECT c.id, c.doc_id, c.ord, c.content, c.content_hash, c.locator, c.heading_path,
       c.char_start, c.char_end, c.language, c.created_at, c.tsv
  FROM pm_chunk c JOIN pm_document d ON d.id = c.doc_id
 WHERE d.is_current;

ALTER TABLE pm_outbox DROP CONSTRAINT pm_outbox_entity_type_check;
ALTER TABLE pm_outbox ADD CONSTRAINT pm_outbox_entity_type_check CHECK (
    entity_type IN ('atom', 'link', 'code_symbol', 'code_dependency', 'trace', 'code_inferred',
                    'passage')
);

CREATE TRIGGER pm_chunk_outbox AFTER INSERT OR DELETE OR UPDATE OF
    content, locator, heading_path, language, doc_id
    ON pm_chunk FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('passage');

-- A version that stops (or starts again) being current takes its passages out of (or back into)
-- the slices: one event per chunk; the projector reads pm_passage and deletes what is not there.
CREATE FUNCTION pm_document_passages_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.is_current IS DISTINCT FROM OLD.is_current THEN
        INSERT INTO pm_outbox (entity_type, entity_id, op)
        SELECT 'passage', c.id, 'upsert' FROM pm_chunk c WHERE c.doc_id = NEW.id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER pm_document_passages_outbox AFTER UPDATE OF is_current ON pm_document
    FOR EACH ROW EXECUTE FUNCTION pm_document_passages_outbox();

-- An upgraded memory: the current versions' chunks become searchable through the outbox.
INSERT INTO pm_outbox (entity_type, entity_id, op)
SELECT 'passage', id, 'upsert' FROM pm_passage ORDER BY id;
