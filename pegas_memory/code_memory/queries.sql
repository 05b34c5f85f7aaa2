-- The statements of code memory: indexing (index.py, store.py) and reading (query.py).

-- name: lock_repo
-- One writer per repository: store_code and the graph build take this lock on 'pm_code_repo:<name>'.
SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))

-- name: repo_roots
-- Every indexed repository and its root directory.
SELECT name, root FROM pm_code_repo

-- name: repo_document
-- The repository's document row (citations of removed symbols move to it), locked.
SELECT doc_id FROM pm_code_repo WHERE name = %s FOR UPDATE

-- name: upsert_repo
-- Register a repository with its document.
INSERT INTO pm_code_repo (name, root, doc_id) VALUES (%s, %s, %s)
ON CONFLICT (name) DO UPDATE SET doc_id = EXCLUDED.doc_id

-- name: file_hashes
-- The indexed files of a repository and their content hashes.
SELECT path, content_hash FROM pm_code_file WHERE repo = %s

-- name: repo_counts
-- Symbols, dependencies and unresolved dependencies of a repository, in one round trip.
SELECT (SELECT count(*) FROM pm_code_symbol WHERE repo = %(r)s) AS symbols,
       (SELECT count(*) FROM pm_code_dependency WHERE repo = %(r)s) AS deps,
       (SELECT count(*) FROM pm_code_dependency
         WHERE repo = %(r)s AND dst_symbol_id IS NULL) AS unresolved

-- name: mark_indexed
UPDATE pm_code_repo SET indexed_at = now() WHERE name = %s

-- name: symbols_of_paths
-- The stored symbols of the files that changed or went away.
SELECT id, path, qualified_name, kind, start_line FROM pm_code_symbol
 WHERE repo = %s AND path = ANY(%s)

-- name: symbol_ids_by_name
-- Every symbol id of a repository by qualified name, first definition first.
SELECT id, qualified_name FROM pm_code_symbol WHERE repo = %s
 ORDER BY path, start_line, id

-- name: stored_dependencies
-- Every dependency row of a repository, to plan the re-index against.
SELECT id, src_symbol_id, kind, dst_name, dst_symbol_id, line, metadata
  FROM pm_code_dependency WHERE repo = %s

-- name: stored_dependencies_from
-- The dependency rows leaving the given symbols: the part of the graph a re-index re-resolved.
SELECT id, src_symbol_id, kind, dst_name, dst_symbol_id, line, metadata
  FROM pm_code_dependency WHERE repo = %s AND src_symbol_id = ANY(%s)

-- name: symbol_ids_of_paths
-- The ids of the symbols of some files (after the symbols were written).
SELECT id FROM pm_code_symbol WHERE repo = %s AND path = ANY(%s)

-- name: citations_of_symbols
-- Citations of symbols about to disappear, with what the note about them needs.
SELECT c.id, c.atom_id, s.id AS symbol_id, s.path, s.qualified_name, s.start_line,
       a.status
  FROM pm_citation c
  JOIN pm_code_symbol s ON s.id = c.code_symbol_id
  JOIN pm_atom a ON a.id = c.atom_id
 WHERE c.code_symbol_id = ANY(%s)
 ORDER BY c.atom_id, c.id

-- name: move_citation
-- A citation of a removed symbol now points at the repository document, with a note.
UPDATE pm_citation
   SET doc_id = coalesce(doc_id, %s),
       locator = left(btrim(locator || ' ' || %s), 500)
 WHERE id = %s

-- name: delete_symbols
-- Their dependencies cascade.
DELETE FROM pm_code_symbol WHERE id = ANY(%s)

-- name: park_moved_symbols
-- Two symbols of one name swapping lines would collide on the unique key mid-update.
UPDATE pm_code_symbol SET start_line = -id::integer WHERE id = ANY(%s)

-- name: update_symbols
-- The paired symbols where something differs, one statement over one array per column.
UPDATE pm_code_symbol AS s
   SET language = v.language, name = v.name, signature = v.signature,
       docstring = v.docstring, start_line = v.start_line,
       end_line = v.end_line, file_hash = v.file_hash
  FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[],
              %s::integer[], %s::integer[], %s::text[])
       AS v(id, language, name, signature, docstring, start_line, end_line,
            file_hash)
 WHERE s.id = v.id
   AND (s.language, s.name, s.signature, s.docstring, s.start_line, s.end_line,
        s.file_hash)
       IS DISTINCT FROM (v.language, v.name, v.signature, v.docstring,
                         v.start_line, v.end_line, v.file_hash)

-- name: copy_symbols
-- New symbols (COPY; the outbox triggers still fire per row).
COPY pm_code_symbol (repo, path, qualified_name, kind, language, name,
     signature, docstring, start_line, end_line, file_hash) FROM STDIN

-- name: delete_files
DELETE FROM pm_code_file WHERE repo = %s AND path = ANY(%s)

-- name: upsert_file
-- One changed file (executemany).
INSERT INTO pm_code_file (repo, path, language, module, content_hash,
                          has_errors, symbol_count)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (repo, path) DO UPDATE
   SET language = EXCLUDED.language, module = EXCLUDED.module,
       content_hash = EXCLUDED.content_hash,
       has_errors = EXCLUDED.has_errors,
       symbol_count = EXCLUDED.symbol_count, indexed_at = now()

-- name: delete_dependencies
DELETE FROM pm_code_dependency WHERE id = ANY(%s)

-- name: update_dependencies
-- Changed lines and call-site metadata, one statement over arrays.
UPDATE pm_code_dependency AS d SET line = v.line, metadata = v.metadata
  FROM unnest(%s::bigint[], %s::integer[], %s::jsonb[]) AS v(id, line, metadata)
 WHERE d.id = v.id

-- name: copy_dependencies
-- New dependency rows (COPY).
COPY pm_code_dependency (repo, src_symbol_id, dst_symbol_id, dst_name, kind,
     line, metadata) FROM STDIN

-- name: search_symbols
-- Lexical symbol search; {filters} is composed from the search_filter_* blocks.
WITH q AS (
    SELECT to_tsquery('simple', %(any)s) || to_tsquery('russian', %(stem)s) AS anyq,
           to_tsquery('simple', %(all)s) AS allq,
           pm_code_words(%(ident)s) AS words
), cand AS (
    SELECT s.id, s.repo, s.path, s.language, s.name, s.qualified_name, s.kind, s.start_line,
           s.end_line, s.signature, s.docstring,
           pm_code_tsv(s.name, s.qualified_name, s.signature, s.docstring) AS tsv
      FROM pm_code_symbol s, q
     WHERE (pm_code_tsv(s.name, s.qualified_name, s.signature, s.docstring) @@ q.anyq
            OR pm_code_words(s.name) %% q.words
            OR s.name ILIKE %(prefix)s
            OR s.qualified_name ILIKE %(exact)s)
           {filters}
)
SELECT c.id, c.repo, c.path, c.language, c.name, c.qualified_name, c.kind, c.start_line,
       c.end_line, c.signature, left(c.docstring, 300) AS docstring,
       (  4.0 * (c.name ILIKE %(exact)s OR c.qualified_name ILIKE %(exact)s)::int
        + 2.0 * (pm_code_words(c.name) = q.words)::int
        + 1.0 * (c.name ILIKE %(prefix)s OR starts_with(pm_code_words(c.name), q.words))::int
        + 1.0 * (c.tsv @@ q.allq)::int
        + 2.0 * ts_rank_cd(c.tsv, q.anyq, 1)
        + similarity(pm_code_words(c.name), q.words)
        + 0.5 * word_similarity(q.words, pm_code_words(c.qualified_name))) AS score,
       count(*) OVER () AS total
  FROM cand c, q
 ORDER BY score DESC, c.path, c.start_line, c.id
 LIMIT %(limit)s OFFSET %(offset)s

-- name: search_filter_repo
AND s.repo = %(repo)s

-- name: search_filter_path
AND s.path LIKE %(path)s

-- name: search_filter_language
AND s.language = %(language)s

-- name: search_filter_kinds
AND s.kind = ANY(%(kinds)s)

-- name: repo_exists
SELECT 1 FROM pm_code_repo WHERE name = %s

-- name: symbol_in_repo
SELECT s.id, s.repo, s.path, s.language, s.name, s.qualified_name, s.kind, s.start_line,
       s.end_line, s.signature
  FROM pm_code_symbol s WHERE s.id = %s AND s.repo = %s

-- name: find_symbol
-- Symbols a name may mean, best first: exact qualified name, suffix, bare name, then the rest;
-- ties by kind (definitions first) and by how connected the symbol is.
SELECT s.id, s.repo, s.path, s.language, s.name, s.qualified_name, s.kind, s.start_line,
       s.end_line, s.signature,
       CASE WHEN s.qualified_name = %(q)s THEN 0
            WHEN s.qualified_name LIKE %(suffix)s THEN 1
            WHEN s.name = %(q)s THEN 2
            ELSE 3 END AS tier,
       CASE WHEN s.kind IN ('constant', 'variable') THEN 2 WHEN s.kind = 'module' THEN 1
            ELSE 0 END AS kind_rank,
       (SELECT count(*) FROM pm_code_dependency d
         WHERE d.src_symbol_id = s.id OR d.dst_symbol_id = s.id) AS degree
  FROM pm_code_symbol s
 WHERE s.repo = %(repo)s
   AND (s.qualified_name = %(q)s OR s.qualified_name ILIKE %(isuffix)s
        OR s.qualified_name ILIKE %(iexact)s OR s.name ILIKE %(iexact)s)
 ORDER BY tier, kind_rank, degree DESC, s.path, s.start_line, s.id
 LIMIT 11

-- name: dependency_hop
-- One hop of the Postgres fallback walk from a frontier of symbols.
SELECT id, kind, src_symbol_id AS src, dst_symbol_id AS dst
  FROM pm_code_dependency
 WHERE dst_symbol_id IS NOT NULL AND kind = ANY(%(kinds)s)
   AND ((%(out)s AND src_symbol_id = ANY(%(f)s))
        OR (%(in)s AND dst_symbol_id = ANY(%(f)s)))

-- name: self_references
-- A symbol's references to itself (recursive calls) of some kinds, with their lines.
SELECT line, metadata FROM pm_code_dependency
 WHERE src_symbol_id = %(id)s AND dst_symbol_id = %(id)s AND kind = ANY(%(kinds)s)

-- name: symbols_by_ids
SELECT s.id, s.repo, s.path, s.language, s.name, s.qualified_name, s.kind, s.start_line,
       s.end_line, s.signature
  FROM pm_code_symbol s WHERE s.id = ANY(%s)

-- name: dependency_attributes
SELECT id, line, metadata FROM pm_code_dependency WHERE id = ANY(%s)

-- name: external_references
-- Outgoing references of a symbol that leave the repository (or were never resolved).
SELECT kind, dst_name, line, metadata->>'target' AS target
  FROM pm_code_dependency
 WHERE src_symbol_id = %s AND dst_symbol_id IS NULL AND kind = ANY(%s)
 ORDER BY line, dst_name LIMIT %s

-- name: repo_symbol_ids
SELECT id FROM pm_code_symbol WHERE repo = %s

-- name: repo_resolved_dependency_ids
SELECT id FROM pm_code_dependency WHERE repo = %s AND dst_symbol_id IS NOT NULL

-- name: document_atoms_text
-- The atoms one document version gives evidence for, with their text and the chunk they were
-- distilled from (doc_cites: the code names they write).
SELECT c.atom_id, a.claim, a.content, c.quoted_text, k.content AS chunk
  FROM pm_citation c
  JOIN pm_atom a ON a.id = c.atom_id
  LEFT JOIN pm_chunk k ON k.id = c.chunk_id
 WHERE c.doc_id = %s AND c.code_symbol_id IS NULL
 ORDER BY c.atom_id, c.id

-- name: symbols_named
-- The symbols of a repository with one of these (unqualified) names.
SELECT id, name, qualified_name, kind, path, start_line, end_line
  FROM pm_code_symbol WHERE repo = %s AND name = ANY(%s)

-- name: repo_derived_ids
-- The repository's derived code edges (conclusions of rules): DERIVED edges of the graph slice.
SELECT id FROM pm_code_inferred WHERE repo = %s

-- name: repo_edges
-- Every dependency row of a repository by names (source, kind, target as written, target
-- symbol, line, metadata): what two indexes of the same bytes must agree on (tests, benches).
SELECT s.qualified_name AS src, d.kind, d.dst_name, t.qualified_name AS dst, d.line,
       d.metadata::text AS meta
  FROM pm_code_dependency d JOIN pm_code_symbol s ON s.id = d.src_symbol_id
  LEFT JOIN pm_code_symbol t ON t.id = d.dst_symbol_id
 WHERE d.repo = %s

-- name: analyzer_run
-- An analyzer's last run over a repository (code_memory/analyzer_cache.py), marked used.
UPDATE pm_code_analyzer_run SET used_at = now()
 WHERE repo = %s AND analyzer = %s
RETURNING version, tool, tool_version, project_root, generation

-- name: analyzer_documents
-- Its files and documents.
SELECT path, content_hash, module, document FROM pm_code_analyzer_document
 WHERE repo = %s AND analyzer = %s

-- name: upsert_analyzer_run
-- A run written: its header, with a new generation.
INSERT INTO pm_code_analyzer_run (repo, analyzer, version, tool, tool_version, project_root,
                                  generation)
VALUES (%(repo)s, %(analyzer)s, %(version)s, %(tool)s, %(tool_version)s, %(root)s, %(generation)s)
ON CONFLICT (repo, analyzer) DO UPDATE
   SET version = EXCLUDED.version, tool = EXCLUDED.tool, tool_version = EXCLUDED.tool_version,
       project_root = EXCLUDED.project_root, generation = EXCLUDED.generation, used_at = now()

-- name: delete_analyzer_documents
-- The rows of some files (a slice's, or the gone ones) before they are written again.
DELETE FROM pm_code_analyzer_document WHERE repo = %s AND analyzer = %s AND path = ANY(%s)

-- name: delete_all_analyzer_documents
DELETE FROM pm_code_analyzer_document WHERE repo = %s AND analyzer = %s

-- name: copy_analyzer_documents
COPY pm_code_analyzer_document (repo, analyzer, path, content_hash, module, document)
FROM STDIN

-- name: size_analyzer_run
-- The bytes a run keeps, counted after its rows were written.
UPDATE pm_code_analyzer_run r
   SET bytes = (SELECT coalesce(sum(octet_length(d.document)), 0)
                  FROM pm_code_analyzer_document d
                 WHERE d.repo = r.repo AND d.analyzer = r.analyzer)
 WHERE r.repo = %s AND r.analyzer = %s
RETURNING r.bytes

-- name: evict_analyzer_runs
-- Past the byte budget, the least recently used runs go (never the one just written); their
-- documents cascade. The next index of such a repository runs its analyzer whole.
DELETE FROM pm_code_analyzer_run r
 USING (SELECT repo, analyzer,
               sum(bytes) OVER (ORDER BY (repo = %(repo)s AND analyzer = %(analyzer)s) DESC,
                                         used_at DESC, repo, analyzer) AS upto
          FROM pm_code_analyzer_run) k
 WHERE r.repo = k.repo AND r.analyzer = k.analyzer AND k.upto > %(budget)s
   AND NOT (r.repo = %(repo)s AND r.analyzer = %(analyzer)s)
RETURNING r.repo, r.analyzer

-- name: delete_analyzer_run
-- A failed run leaves nothing to reuse.
DELETE FROM pm_code_analyzer_run WHERE repo = %s AND analyzer = %s
