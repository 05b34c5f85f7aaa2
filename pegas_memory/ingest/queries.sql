-- The reads of the ingest pipeline (ingest/pipeline.py); its writes are db/repo.py functions.

-- name: same_version
-- A version of this URI with exactly these bytes: ingesting it again does nothing.
SELECT id, version, identity_id, is_current, kind, title FROM pm_document
 WHERE uri = %s AND content_hash = %s

-- name: current_chunks
-- content hash -> the first chunk with it in the current version of a URI (chunks to reuse).
SELECT c.content_hash, min(c.id) AS id FROM pm_chunk c
  JOIN pm_document d ON d.id = c.doc_id
 WHERE d.uri = %s AND d.is_current GROUP BY c.content_hash

-- name: document_version
SELECT version, supersedes FROM pm_document WHERE id = %s

-- name: orphaned_atoms
-- Atoms cited by the previous version whose evidence is in no current document any more
-- (and that no citation without a document, an agent's own, keeps alive).
SELECT DISTINCT c.atom_id FROM pm_citation c
 WHERE c.doc_id = %(old)s
   AND NOT EXISTS (
       SELECT 1 FROM pm_citation o JOIN pm_document d ON d.id = o.doc_id
        WHERE o.atom_id = c.atom_id AND d.is_current)
   AND NOT EXISTS (
       SELECT 1 FROM pm_citation o
        WHERE o.atom_id = c.atom_id AND o.doc_id IS NULL)

-- name: atom_status
SELECT status FROM pm_atom WHERE id = %s

-- name: atom_cited_in
-- Whether a document version cites an atom (a reworded claim supersedes an atom only when the
-- new version no longer states the old claim anywhere).
SELECT EXISTS (SELECT 1 FROM pm_citation WHERE atom_id = %s AND doc_id = %s) AS cited
