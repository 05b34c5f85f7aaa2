-- The document page's versions and what each changed, and what erasing a document would take
-- with it (`ui/documents.py`).

-- name: versions
-- Every version of a document (one identity), newest first, with its passages and cited atoms
-- and what it changed from the version before it: passages (by content hash) and cited atoms
-- added and withdrawn. A first version adds everything and withdraws nothing. `dropped`: the
-- drafts its ingest's distiller dropped, by reason (NULL: ingested before that was recorded).
WITH v AS (
    SELECT d.id, d.version, d.is_current, d.content_hash, d.created_at, d.metadata,
           lag(d.id) OVER (ORDER BY d.version, d.id) AS prev
      FROM pm_document d
     WHERE d.identity_id = %(identity)s
)
SELECT v.id, v.version, v.is_current, v.content_hash, v.created_at, v.prev,
       v.metadata -> 'redistilled' AS redistilled,
       v.metadata -> 'dropped' AS dropped,
       (SELECT count(*) FROM pm_chunk k WHERE k.doc_id = v.id) AS chunks,
       (SELECT count(DISTINCT c.atom_id) FROM pm_citation c WHERE c.doc_id = v.id) AS atoms,
       (SELECT count(*) FROM pm_chunk k
         WHERE k.doc_id = v.id
           AND NOT EXISTS (SELECT 1 FROM pm_chunk p
                            WHERE p.doc_id = v.prev AND p.content_hash = k.content_hash))
           AS passages_added,
       (SELECT count(*) FROM pm_chunk p
         WHERE p.doc_id = v.prev
           AND NOT EXISTS (SELECT 1 FROM pm_chunk k
                            WHERE k.doc_id = v.id AND k.content_hash = p.content_hash))
           AS passages_withdrawn,
       (SELECT count(DISTINCT c.atom_id) FROM pm_citation c
         WHERE c.doc_id = v.id
           AND NOT EXISTS (SELECT 1 FROM pm_citation o
                            WHERE o.doc_id = v.prev AND o.atom_id = c.atom_id))
           AS atoms_added,
       (SELECT count(DISTINCT o.atom_id) FROM pm_citation o
         WHERE o.doc_id = v.prev
           AND NOT EXISTS (SELECT 1 FROM pm_citation c
                            WHERE c.doc_id = v.id AND c.atom_id = o.atom_id))
           AS atoms_withdrawn
  FROM v
 ORDER BY v.version DESC, v.id DESC

-- name: atoms_added
-- Atoms this version cites that the version before it (`prev`) did not, with their status now.
SELECT a.id, a.type, a.claim, a.status, a.status_reason, a.language
  FROM pm_atom a
 WHERE a.id IN (SELECT c.atom_id FROM pm_citation c
                 WHERE c.doc_id = %(id)s
                   AND NOT EXISTS (SELECT 1 FROM pm_citation o
                                    WHERE o.doc_id = %(prev)s AND o.atom_id = c.atom_id))
 ORDER BY a.id
 LIMIT %(limit)s

-- name: atoms_withdrawn
-- Atoms the version before (`prev`) cited that this version does not (the new bytes no longer
-- hold their evidence), with their status now: stale when no other source holds them.
SELECT a.id, a.type, a.claim, a.status, a.status_reason, a.language
  FROM pm_atom a
 WHERE a.id IN (SELECT o.atom_id FROM pm_citation o
                 WHERE o.doc_id = %(prev)s
                   AND NOT EXISTS (SELECT 1 FROM pm_citation c
                                    WHERE c.doc_id = %(id)s AND c.atom_id = o.atom_id))
 ORDER BY a.id
 LIMIT %(limit)s

-- name: erase_preview
-- What erasing the document (every version) takes with it: versions, passages, the atoms no
-- other source cites (erased with it, as memory_forget mode=erase does) and those that stay.
WITH docs AS (SELECT id FROM pm_document WHERE identity_id = %(identity)s),
     cited AS (SELECT DISTINCT c.atom_id FROM pm_citation c WHERE c.doc_id IN (SELECT id FROM docs)),
     only_here AS (
        SELECT atom_id FROM cited
         WHERE NOT EXISTS (SELECT 1 FROM pm_citation o
                            WHERE o.atom_id = cited.atom_id
                              AND (o.doc_id IS NULL OR o.doc_id NOT IN (SELECT id FROM docs)))
     )
SELECT (SELECT count(*) FROM docs) AS versions,
       (SELECT count(*) FROM pm_chunk k WHERE k.doc_id IN (SELECT id FROM docs)) AS passages,
       (SELECT count(*) FROM only_here) AS atoms_erased,
       (SELECT count(*) FROM cited) - (SELECT count(*) FROM only_here) AS atoms_kept,
       (SELECT array_agg(atom_id ORDER BY atom_id) FROM (SELECT atom_id FROM only_here
                                                          ORDER BY atom_id LIMIT 20) s)
           AS some_erased
