-- 0006_document_identity: a document keeps one identity across its versions, a superseded atom
-- says which atom replaced it, and one atom never cites the same quote of a document twice.
--
-- identity_id is the id of a document's first version (every version of a URI shares it): an id
-- an agent saw in an earlier answer keeps selecting the document in filters and memory_forget
-- after a new version arrived. A BEFORE INSERT trigger gives a first version its own id.

ALTER TABLE pm_document ADD COLUMN identity_id bigint;
UPDATE pm_document d SET identity_id = f.first_id
  FROM (SELECT uri, min(id) AS first_id FROM pm_document GROUP BY uri) f
 WHERE f.uri = d.uri;
ALTER TABLE pm_document ALTER COLUMN identity_id SET NOT NULL;
CREATE INDEX pm_document_identity ON pm_document (identity_id);

CREATE FUNCTION pm_document_identity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.identity_id := coalesce(NEW.identity_id, NEW.id);
    RETURN NEW;
END $$;
CREATE TRIGGER pm_document_identity BEFORE INSERT ON pm_document
    FOR EACH ROW EXECUTE FUNCTION pm_document_identity();

-- The atom that replaced this one when a new version of its document reworded the claim (the
-- status change records the reason); search answers from the replacement.
ALTER TABLE pm_atom ADD COLUMN superseded_by bigint REFERENCES pm_atom (id) ON DELETE SET NULL;
CREATE INDEX pm_atom_superseded ON pm_atom (superseded_by) WHERE superseded_by IS NOT NULL;

-- The same quote of one document is one citation of an atom, whatever chunk (overlap) or
-- locator it was found under: duplicates are folded into the oldest first.
DELETE FROM pm_citation c USING pm_citation o
 WHERE o.atom_id = c.atom_id
   AND coalesce(o.doc_id, 0) = coalesce(c.doc_id, 0)
   AND coalesce(o.code_symbol_id, 0) = coalesce(c.code_symbol_id, 0)
   AND md5(o.quoted_text) = md5(c.quoted_text)
   AND o.id < c.id;
DROP INDEX pm_citation_uniq;
CREATE UNIQUE INDEX pm_citation_uniq
    ON pm_citation (atom_id, coalesce(doc_id, 0), coalesce(code_symbol_id, 0), md5(quoted_text));
