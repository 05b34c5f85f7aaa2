-- 0012_passage_graph: passages join the graph slice (docs/decisions/0008-passages-in-the-graph.md):
-- (:Passage)-[:PART_OF]->(:Document), (:Atom)-[:CITED_IN]->(:Passage). A passage's row lists the
-- atoms cited from it, so a citation that is added, moved or removed re-projects its passage.

CREATE INDEX pm_citation_chunk ON pm_citation (chunk_id);

CREATE FUNCTION pm_citation_passage_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.chunk_id IS NOT NULL THEN
        INSERT INTO pm_outbox (entity_type, entity_id, op) VALUES ('passage', OLD.chunk_id, 'upsert');
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.chunk_id IS NOT NULL
       AND NEW.chunk_id IS DISTINCT FROM (CASE WHEN TG_OP = 'UPDATE' THEN OLD.chunk_id END) THEN
        INSERT INTO pm_outbox (entity_type, entity_id, op) VALUES ('passage', NEW.chunk_id, 'upsert');
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER pm_citation_passage_outbox AFTER INSERT OR DELETE OR UPDATE OF chunk_id, atom_id
    ON pm_citation FOR EACH ROW EXECUTE FUNCTION pm_citation_passage_outbox();

-- An upgraded memory: the current versions' passages go into the graph through the outbox (their
-- vectors are re-read from the embedding cache).
INSERT INTO pm_outbox (entity_type, entity_id, op)
SELECT 'passage', id, 'upsert' FROM pm_passage ORDER BY id;
