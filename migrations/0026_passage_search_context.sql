-- 0026_passage_search_context: a passage's point in the vector slice is its search vector, its
-- text's vector moved toward its document title and heading path, as an ingested atom's has been
-- since 0008 (outbox/projection.passage_search_vectors; bench/results/ingest-retrieval.md). So a
-- passage's point depends on its document's title too: a re-distill that reads a better title
-- (a PDF's "t.dvi" replaced by its first page's title) re-projects the version's passages, as a
-- change of its being current already did. Nothing changes in a table.

CREATE OR REPLACE FUNCTION pm_document_passages_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.is_current IS DISTINCT FROM OLD.is_current
       OR NEW.title IS DISTINCT FROM OLD.title THEN
        INSERT INTO pm_outbox (entity_type, entity_id, op)
        SELECT 'passage', c.id, 'upsert' FROM pm_chunk c WHERE c.doc_id = NEW.id;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER pm_document_passages_outbox ON pm_document;
CREATE TRIGGER pm_document_passages_outbox AFTER UPDATE OF is_current, title ON pm_document
    FOR EACH ROW EXECUTE FUNCTION pm_document_passages_outbox();

-- An upgraded memory: every current passage is projected again with its search vector (its
-- text's vector is in the embedding cache; its context is most often an atom's already there).
INSERT INTO pm_outbox (entity_type, entity_id, op)
SELECT 'passage', id, 'upsert' FROM pm_passage ORDER BY id;
