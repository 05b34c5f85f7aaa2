-- name: candidates
-- Atoms awaiting verification (status candidate), newest first, a page after atom `before` (keyset:
-- a deep page costs what the first does), with the document they came from.
SELECT a.id, a.type, a.claim, a.language, a.confidence, a.created_at, a.doc_id,
       d.title AS doc_title, d.uri AS doc_uri
  FROM pm_atom a LEFT JOIN pm_document d ON d.id = a.doc_id
 WHERE a.status = 'candidate' AND (%(before)s::bigint IS NULL OR a.id < %(before)s)
 ORDER BY a.id DESC
 LIMIT %(limit)s

-- name: candidate_count
SELECT count(*) AS n FROM pm_atom WHERE status = 'candidate'
