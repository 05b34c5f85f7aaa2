-- The statements of what an agent reads from code memory besides search and graph walks
-- (code_memory/query_ops.py): citations of symbols, source text, a file's symbols, the indexed
-- repositories, dropping a repository.

-- name: symbol_by_id
SELECT s.id, s.repo, s.path, s.qualified_name, s.kind, s.start_line, s.end_line
  FROM pm_code_symbol s WHERE s.id = %s

-- name: symbols_by_qname
-- Every symbol of a repository with this exact qualified name (overloads share one), in order.
SELECT s.id, s.repo, s.path, s.qualified_name, s.kind, s.start_line, s.end_line
  FROM pm_code_symbol s WHERE s.repo = %s AND s.qualified_name = %s
 ORDER BY s.path, s.start_line, s.id
 LIMIT 20

-- name: repo_root
-- Where a repository lives on disk and the indexed hash of one of its files.
SELECT r.root, f.content_hash, r.indexed_at
  FROM pm_code_repo r LEFT JOIN pm_code_file f ON f.repo = r.name AND f.path = %(path)s
 WHERE r.name = %(repo)s

-- name: file_symbols
-- The symbols of one file in line order, paginated.
SELECT s.id, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature,
       count(*) OVER () AS total
  FROM pm_code_symbol s WHERE s.repo = %(repo)s AND s.path = %(path)s
 ORDER BY s.start_line, s.id
 LIMIT %(limit)s OFFSET %(offset)s

-- name: file_known
SELECT language, module, symbol_count, indexed_at FROM pm_code_file
 WHERE repo = %(repo)s AND path = %(path)s

-- name: similar_files
-- Indexed paths ending like the one asked for (a hint when it is not indexed).
SELECT path FROM pm_code_file WHERE repo = %(repo)s AND path LIKE %(pattern)s
 ORDER BY length(path), path LIMIT 5

-- name: list_repos
-- The indexed repositories with their counts and when they were last indexed.
SELECT r.name, r.root, r.created_at, r.indexed_at,
       (SELECT count(*) FROM pm_code_file f WHERE f.repo = r.name) AS files,
       (SELECT count(*) FROM pm_code_symbol s WHERE s.repo = r.name) AS symbols,
       (SELECT count(*) FROM pm_code_dependency d WHERE d.repo = r.name) AS dependencies,
       (SELECT count(*) FROM pm_code_dependency d
         WHERE d.repo = r.name AND d.dst_symbol_id IS NULL) AS unresolved,
       (SELECT count(*) FROM pm_code_inferred i WHERE i.repo = r.name) AS derived,
       (SELECT coalesce(array_agg(DISTINCT f.language ORDER BY f.language), '{}')
          FROM pm_code_file f WHERE f.repo = r.name) AS languages
  FROM pm_code_repo r
 ORDER BY r.name

-- name: lock_repo
-- The lock of store_code on 'pm_code_repo:<name>'.
SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))

-- name: repo_for_drop
SELECT name, doc_id FROM pm_code_repo WHERE name = %s FOR UPDATE

-- name: repo_citations
-- Citations of a repository's symbols, with the atoms' statuses.
SELECT c.id, c.atom_id, s.qualified_name, s.path, s.start_line, a.status
  FROM pm_citation c
  JOIN pm_code_symbol s ON s.id = c.code_symbol_id
  JOIN pm_atom a ON a.id = c.atom_id
 WHERE s.repo = %s
 ORDER BY c.atom_id, c.id

-- name: move_citation
-- A citation of a dropped symbol now points at the repository document, with a note.
UPDATE pm_citation
   SET doc_id = coalesce(doc_id, %s),
       locator = left(btrim(locator || ' ' || %s), 500)
 WHERE id = %s

-- name: delete_repo_symbols
-- Their dependencies and derived edges cascade; the outbox triggers record every row.
DELETE FROM pm_code_symbol WHERE repo = %s

-- name: delete_repo_dependencies
DELETE FROM pm_code_dependency WHERE repo = %s

-- name: delete_repo_inferred
DELETE FROM pm_code_inferred WHERE repo = %s

-- name: delete_repo
-- Its files cascade.
DELETE FROM pm_code_repo WHERE name = %s
