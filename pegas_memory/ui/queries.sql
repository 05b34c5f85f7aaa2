-- name: code_repos
-- The indexed code repositories with their files and symbols, newest index first.
SELECT r.name, r.root, r.indexed_at,
       (SELECT count(*) FROM pm_code_file f WHERE f.repo = r.name) AS files,
       (SELECT count(*) FROM pm_code_symbol s WHERE s.repo = r.name) AS symbols
  FROM pm_code_repo r
 ORDER BY r.indexed_at DESC
 LIMIT %(limit)s

-- name: recent_documents
-- The current versions of documents, newest first, with how many atoms cite each.
SELECT d.id, d.kind, d.uri, d.title, d.language, d.version, d.created_at,
       (SELECT count(DISTINCT c.atom_id) FROM pm_citation c WHERE c.doc_id = d.id) AS atoms
  FROM pm_document d
 WHERE d.is_current AND d.kind <> 'code_repo'
 ORDER BY d.created_at DESC, d.id DESC
 LIMIT %(limit)s OFFSET %(offset)s

-- name: atom
-- One atom with the title of the document it came from, if any.
SELECT a.id, a.type, a.claim, a.content, a.confidence, a.status, a.status_reason, a.doc_id,
       a.topic, a.tags, a.language, a.source, a.metadata, a.created_at, a.updated_at,
       d.title AS doc_title, d.uri AS doc_uri
  FROM pm_atom a LEFT JOIN pm_document d ON d.id = a.doc_id
 WHERE a.id = %(id)s

-- name: status_history
-- Every status change of an atom, oldest first (the insert is the first).
SELECT from_status, to_status, reason, check_name, created_at
  FROM pm_status_change
 WHERE atom_id = %(id)s
 ORDER BY created_at, id

-- name: citations
-- An atom's citations with their document version, passage and code symbol.
SELECT c.id, c.doc_id, c.chunk_id, c.code_symbol_id, c.locator, c.quoted_text,
       c.char_start, c.char_end,
       d.title AS doc_title, d.uri AS doc_uri, d.version AS doc_version,
       d.is_current AS doc_current, d.language AS doc_language,
       k.content AS chunk_content, k.char_start AS chunk_start, k.heading_path,
       k.language AS chunk_language, k.ord AS chunk_ord,
       s.repo AS symbol_repo, s.path AS symbol_path, s.qualified_name AS symbol_name,
       s.start_line AS symbol_line
  FROM pm_citation c
  LEFT JOIN pm_document d ON d.id = c.doc_id
  LEFT JOIN pm_chunk k ON k.id = c.chunk_id
  LEFT JOIN pm_code_symbol s ON s.id = c.code_symbol_id
 WHERE c.atom_id = %(id)s
 ORDER BY c.id

-- name: links_out
-- Links from an atom to others, with the other atom's words and status.
SELECT l.kind, l.confidence, l.inferred, l.source, l.metadata, l.created_at,
       a.id AS other_id, a.claim AS other_claim, a.status AS other_status,
       a.language AS other_language
  FROM pm_atom_link l JOIN pm_atom a ON a.id = l.dst_atom_id
 WHERE l.src_atom_id = %(id)s
 ORDER BY l.kind, l.id
 LIMIT 200

-- name: links_in
-- Links from other atoms to this one.
SELECT l.kind, l.confidence, l.inferred, l.source, l.metadata, l.created_at,
       a.id AS other_id, a.claim AS other_claim, a.status AS other_status,
       a.language AS other_language
  FROM pm_atom_link l JOIN pm_atom a ON a.id = l.src_atom_id
 WHERE l.dst_atom_id = %(id)s
 ORDER BY l.kind, l.id
 LIMIT 200

-- name: document
-- One document version.
SELECT id, identity_id, kind, uri, title, author, language, version, content_hash, is_current,
       supersedes, metadata, created_at
  FROM pm_document
 WHERE id = %(id)s

-- name: document_identity
-- The document a version belongs to (its identity: the first version's id) and its current
-- version, for a change to the document (re-ingest, re-distill, erase).
SELECT d.identity_id, d.kind, d.uri, d.title, c.id AS current_id, c.version AS current_version
  FROM pm_document d
  LEFT JOIN LATERAL (SELECT id, version FROM pm_document
                      WHERE identity_id = d.identity_id AND is_current
                      ORDER BY version DESC LIMIT 1) c ON true
 WHERE d.id = %(id)s

-- name: document_atoms_by_type
-- The atoms a document version holds (cites), by type and status.
SELECT a.type, a.status, count(DISTINCT a.id) AS n
  FROM pm_citation c JOIN pm_atom a ON a.id = c.atom_id
 WHERE c.doc_id = %(id)s
 GROUP BY a.type, a.status
 ORDER BY a.type, a.status

-- name: document_chunks
-- A page of a document version's passages, in reading order, and how many there are.
SELECT id, ord, content, locator, heading_path, char_start, language,
       count(*) OVER () AS total
  FROM pm_chunk
 WHERE doc_id = %(id)s
 ORDER BY ord
 LIMIT %(limit)s OFFSET %(offset)s

-- name: document_spans
-- The cited spans inside the given passages, with the citing atom's status.
SELECT c.chunk_id, c.atom_id, c.char_start, c.char_end, c.quoted_text, a.status
  FROM pm_citation c JOIN pm_atom a ON a.id = c.atom_id
 WHERE c.chunk_id = ANY(%(chunks)s)
 ORDER BY c.chunk_id, c.char_start NULLS LAST, c.atom_id

-- name: atom_state
-- What a verify or retract changes, read before and after it (audit lines, undo).
SELECT status, confidence, status_reason FROM pm_atom WHERE id = %(id)s

-- name: gap_state
-- What closing a gap changes.
SELECT status, question FROM pm_research_gap WHERE id = %(id)s

-- name: lock_audit
-- An audit line about to be undone, locked so two undos of it cannot both go ahead.
SELECT id, actor, action, target, target_id, reason, before, after, detail, undoes, undone_by,
       created_at
  FROM pm_ui_audit
 WHERE id = %(id)s
   FOR UPDATE

-- name: mark_undone
-- The line names the undo that reverted it.
UPDATE pm_ui_audit SET undone_by = %(undo)s WHERE id = %(id)s AND undone_by IS NULL

-- name: audit_lines
-- Audit lines, newest first: all of them, or those about one target.
SELECT u.id, u.actor, u.action, u.target, u.target_id, u.reason, u.before, u.after, u.detail,
       u.undoes, u.undone_by, u.created_at,
       CASE u.target
            WHEN 'atom' THEN EXISTS (SELECT 1 FROM pm_atom a WHERE a.id = u.target_id)
            WHEN 'gap' THEN EXISTS (SELECT 1 FROM pm_research_gap g WHERE g.id = u.target_id)
            WHEN 'link' THEN EXISTS (SELECT 1 FROM pm_atom_link l WHERE l.id = u.target_id)
            WHEN 'merge' THEN EXISTS (SELECT 1 FROM pm_merge m WHERE m.id = u.target_id)
            WHEN 'document' THEN EXISTS (SELECT 1 FROM pm_document d
                                          WHERE d.identity_id = u.target_id)
            ELSE EXISTS (SELECT 1 FROM pm_job j WHERE j.id = u.target_id)
       END AS target_exists,
       count(*) OVER () AS total
  FROM pm_ui_audit u
 WHERE (%(target)s::text IS NULL OR (u.target = %(target)s AND u.target_id = %(target_id)s))
 ORDER BY u.created_at DESC, u.id DESC
 LIMIT %(limit)s OFFSET %(offset)s

-- name: chunk_position
-- How many passages of the document come before this one (to open the page that shows it).
SELECT count(*) AS n
  FROM pm_chunk k
 WHERE k.doc_id = %(doc)s
   AND k.ord < (SELECT ord FROM pm_chunk WHERE id = %(chunk)s AND doc_id = %(doc)s)

-- name: search_topics
-- The atoms' topics, in order, for the search page's topic field: a loose index scan (one
-- index probe per distinct topic, not a pass over every atom).
WITH RECURSIVE t AS (
    (SELECT topic FROM pm_atom WHERE topic IS NOT NULL ORDER BY topic LIMIT 1)
    UNION ALL
    SELECT (SELECT a.topic FROM pm_atom a WHERE a.topic > t.topic ORDER BY a.topic LIMIT 1)
      FROM t
     WHERE t.topic IS NOT NULL
)
SELECT topic FROM t WHERE topic IS NOT NULL LIMIT %(limit)s

-- name: search_languages
-- The languages of the current documents, for the search page's language filter.
SELECT DISTINCT language FROM pm_document
 WHERE is_current AND language IS NOT NULL AND kind <> 'code_repo'
 ORDER BY language
