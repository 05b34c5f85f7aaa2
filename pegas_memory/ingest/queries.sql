-- The reads of the ingest pipeline (ingest/pipeline.py); its writes are db/repo.py functions.

-- name: same_bytes_elsewhere
-- The current version of another document holding exactly these bytes (a copy of a file under
-- another path, the same page under another URL): the same document version, not a new one.
SELECT id, version, identity_id, kind, title, uri FROM pm_document
 WHERE content_hash = %s AND uri <> %s AND is_current AND kind <> 'agent'
 ORDER BY id LIMIT 1

-- name: add_alias
-- Another name of a document version (its `metadata.aliases`, each once).
UPDATE pm_document
   SET metadata = jsonb_set(metadata, '{aliases}',
                            coalesce(metadata->'aliases', '[]'::jsonb) || to_jsonb(%(uri)s::text))
 WHERE id = %(id)s AND NOT coalesce(metadata->'aliases', '[]'::jsonb) ? %(uri)s

-- name: same_version
-- The newest version of this URI with exactly these bytes: when it is the current one, ingesting
-- it again does nothing, unless its atoms came from another distiller; an earlier one means the
-- bytes came back, a new version (migration 0024). Which distiller: what the ingest recorded on
-- the version, else (a version stored before that was recorded) the versions its cited atoms
-- were made by ('+'-joined; NULL when none says).
SELECT d.id, d.version, d.identity_id, d.is_current, d.kind, d.title,
       coalesce(d.metadata->>'distiller_version',
                (SELECT string_agg(DISTINCT a.prompt_version, '+' ORDER BY a.prompt_version)
                   FROM pm_citation c JOIN pm_atom a ON a.id = c.atom_id
                  WHERE c.doc_id = d.id)) AS distiller_version
  FROM pm_document d
 WHERE d.uri = %s AND d.content_hash = %s
 ORDER BY d.version DESC LIMIT 1

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

-- name: lock_version
-- The version a re-distill rewrites, locked against a concurrent ingest of the same URI.
SELECT id, is_current, metadata FROM pm_document WHERE id = %s FOR UPDATE

-- name: version_atoms
-- The atoms a document version cites (what a re-distill keeps, replaces or retires).
SELECT DISTINCT atom_id FROM pm_citation WHERE doc_id = %s

-- name: redistill_protected
-- Of these atoms, those a re-distill never retires: verified or contested ones, and those an
-- agent or memory_verify linked (inferred links follow their support; ingest's own supersedes
-- links carry no judgement).
SELECT a.id FROM pm_atom a
 WHERE a.id = ANY(%(ids)s) AND a.status <> 'stale'
   AND (a.status IN ('verified', 'contested')
        OR EXISTS (SELECT 1 FROM pm_atom_link l
                    WHERE (l.src_atom_id = a.id OR l.dst_atom_id = a.id)
                      AND NOT l.inferred AND l.source <> 'ingest'))

-- name: version_spans
-- Where in the version each of its atoms was quoted (a re-distill looks for the new atom that
-- quotes the same place: a sentence now joined with its neighbour).
SELECT atom_id, char_start, char_end FROM pm_citation
 WHERE doc_id = %s AND char_start IS NOT NULL AND char_end IS NOT NULL

-- name: covering_atom
-- The atom this re-distill cited whose quote holds the span (the shortest such), if any.
SELECT atom_id FROM pm_citation
 WHERE doc_id = %(doc)s AND atom_id = ANY(%(cited)s) AND atom_id <> %(atom)s
   AND char_start <= %(start)s AND char_end >= %(end)s
 ORDER BY char_end - char_start, atom_id LIMIT 1

-- name: drop_version_citations
-- A re-distill cites afresh: the version's citations go, but those of the protected atoms.
DELETE FROM pm_citation WHERE doc_id = %(doc)s AND NOT (atom_id = ANY(%(keep)s))

-- name: drop_version_chunks
-- A re-distill chunks afresh (the protected atoms' citations lose their chunk for a moment).
DELETE FROM pm_chunk WHERE doc_id = %s

-- name: rechunk_citations
-- The kept citations of a re-distilled version find their chunk again: the first new chunk
-- that holds the quote's offsets.
UPDATE pm_citation c
   SET chunk_id = (SELECT k.id FROM pm_chunk k
                    WHERE k.doc_id = c.doc_id
                      AND k.char_start <= c.char_start AND k.char_end >= c.char_end
                    ORDER BY k.ord LIMIT 1)
 WHERE c.doc_id = %s AND c.chunk_id IS NULL

-- name: redistill_orphans
-- Of these atoms, the current ones no current document cites any more (and no citation without
-- a document, an agent's own, keeps alive).
SELECT a.id FROM pm_atom a
 WHERE a.id = ANY(%(ids)s) AND a.status <> 'stale'
   AND NOT EXISTS (
       SELECT 1 FROM pm_citation o JOIN pm_document d ON d.id = o.doc_id
        WHERE o.atom_id = a.id AND d.is_current)
   AND NOT EXISTS (
       SELECT 1 FROM pm_citation o WHERE o.atom_id = a.id AND o.doc_id IS NULL)

-- name: count_kept
-- How many of these atoms the version still cites.
SELECT count(DISTINCT atom_id) AS n FROM pm_citation
 WHERE doc_id = %(doc)s AND atom_id = ANY(%(ids)s)

-- name: retype_atom
-- A claim a re-distill produced again (the same atom) with another type or defined term: the
-- atom takes the new distiller's (the outbox re-projects it); its status and confidence stay.
UPDATE pm_atom
   SET type = %(type)s, prompt_version = %(version)s,
       metadata = (metadata - 'term' - 'pattern' - 'kind') || %(metadata)s
 WHERE id = %(id)s
   AND (type <> %(type)s OR metadata->>'term' IS DISTINCT FROM %(term)s)
RETURNING id

-- name: record_redistill
-- The version as the re-distill read it: its title and metadata (the distiller recorded).
UPDATE pm_document SET title = %s, metadata = %s, updated_at = now() WHERE id = %s

-- name: set_document_decay
-- memory_ingest's `decay` for a stored version whose bytes did not change: the version's
-- passages (through the document) and the atoms it created take the profile; atoms of other
-- documents it only cites keep theirs.
WITH doc AS (UPDATE pm_document SET decay = %(decay)s WHERE id = %(id)s RETURNING id)
UPDATE pm_atom SET decay = %(decay)s WHERE doc_id = (SELECT id FROM doc) AND decay <> %(decay)s
-- name: merge_blocks
-- The stored atoms a claim with one of these content hashes must not be merged into: a merge of
-- the two was split (pm_merge_block, curation/merges.py).
SELECT content_hash, atom_id FROM pm_merge_block WHERE content_hash = ANY(%s)

-- name: record_merge
-- A semantic merge at ingest (migrations/0014_merges.sql), in the transaction that cites it.
INSERT INTO pm_merge (survivor_id, doc_id, claim, content, type, content_hash, language,
                      confidence, topic, tags, prompt_version, metadata, citation_ids, quotes,
                      similarity, reason, merged_by)
VALUES (%(survivor)s, %(doc)s, %(claim)s, %(content)s, %(type)s, %(hash)s, %(language)s,
        %(confidence)s, %(topic)s, %(tags)s, %(prompt_version)s, %(metadata)s, %(citations)s,
        %(quotes)s, %(similarity)s, %(reason)s, 'ingest')
RETURNING id

-- name: drop_open_merges
-- A re-distill cites its version afresh: the merges it recorded before (not split) go, and are
-- recorded again where the new run merges again. A merge that kept both atoms (verification,
-- consolidation, migration 0022) is not the version's citation: it stays.
DELETE FROM pm_merge WHERE doc_id = %s AND undone_at IS NULL AND merged_atom_id IS NULL

-- name: carry_source_citations
-- The citations of a previous version that held no text: a document memory_store made for notes
-- naming this source (db.repo.source_document). They cite the source, not any words of it, so
-- they move to the version now read from it instead of leaving their atoms without evidence.
UPDATE pm_citation c SET doc_id = %(new)s
 WHERE c.doc_id = %(old)s
   AND NOT EXISTS (SELECT 1 FROM pm_chunk k WHERE k.doc_id = %(old)s)
   AND NOT EXISTS (SELECT 1 FROM pm_citation n
                    WHERE n.atom_id = c.atom_id AND n.doc_id = %(new)s
                      AND coalesce(n.code_symbol_id, 0) = coalesce(c.code_symbol_id, 0)
                      AND md5(n.quoted_text) = md5(c.quoted_text))

-- name: revivable_atoms
-- Stale atoms the new version %(doc)s cites again that a change of the document made stale
-- (their evidence vanished or a new wording superseded them: check 'reingest'; a re-distill no
-- longer extracted them: 'redistill'), each with the status it had before. An atom retracted,
-- merged or judged stale by verification stays stale: its last change was not the document's.
SELECT a.id, s.from_status
  FROM pm_atom a
 CROSS JOIN LATERAL (SELECT from_status, check_name FROM pm_status_change
                      WHERE atom_id = a.id ORDER BY id DESC LIMIT 1) s
 WHERE a.status = 'stale' AND s.check_name IN ('reingest', 'redistill')
   AND s.from_status IS NOT NULL AND s.from_status <> 'stale'
   AND a.id IN (SELECT atom_id FROM pm_citation WHERE doc_id = %(doc)s)
 ORDER BY a.id

-- name: clear_superseded
-- The atom holds again: nothing supersedes it.
UPDATE pm_atom SET superseded_by = NULL WHERE id = %(id)s
