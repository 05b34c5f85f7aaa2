-- The repository's statements (db/repo.py) and the migration ledger (db/pool.py).
-- Loaded once at import into db.queries.DB_SQL; every value is a bound parameter.

-- name: migration_lock
-- Serialise concurrent starts of several pegas-memory processes (a session advisory lock).
SELECT pg_advisory_lock(%s)

-- name: migration_unlock
SELECT pg_advisory_unlock(%s)

-- name: create_migration_ledger
-- The ledger itself is not a migration: it must exist before the first one is applied.
CREATE TABLE IF NOT EXISTS pm_schema_migration (
       version integer PRIMARY KEY,
       name text NOT NULL,
       checksum text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now())

-- name: applied_migrations
SELECT version, checksum FROM pm_schema_migration

-- name: record_migration
INSERT INTO pm_schema_migration (version, name, checksum) VALUES (%s, %s, %s)

-- name: migration_ledger
-- Applied migrations with their names, in order (schema_status).
SELECT version, name, checksum FROM pm_schema_migration ORDER BY version

-- name: reload_config
-- The embedded cluster reads the settings written into its postgresql.auto.conf (db/embedded.py).
SELECT pg_reload_conf()

-- name: checkpoint
-- After the embedded cluster's schema was created: its files are written out now, not by the
-- first crash recovery's end-of-recovery checkpoint.
CHECKPOINT

-- name: notify
-- Wake the LISTENers of a channel (a stopping process's own worker, so its wait ends now).
SELECT pg_notify(%(channel)s, '')

-- name: lock_document_uri
-- Serialise the first versions of one URI: two transactions storing a new source at once would
-- otherwise both miss it and the second fail on the unique key after waiting for the first.
SELECT pg_advisory_xact_lock(hashtextextended('pm_document:' || %s, 0))

-- name: document_by_hash
-- The current version of a URI if it holds exactly these bytes (an earlier version with them is
-- not reused: the bytes went back to it, which is a new version, migration 0024).
SELECT id FROM pm_document WHERE uri = %s AND content_hash = %s AND is_current

-- name: current_document_for_update
-- The current version of a URI, locked: a new version supersedes it (and keeps its identity).
SELECT id, version, identity_id FROM pm_document WHERE uri = %s AND is_current
ORDER BY version DESC LIMIT 1 FOR UPDATE

-- name: retire_document
UPDATE pm_document SET is_current = false WHERE id = %s

-- name: insert_document
-- identity_id NULL: a first version (the trigger of migration 0006 gives it its own id).
INSERT INTO pm_document (kind, uri, title, author, language, authority, content_hash,
                         version, supersedes, metadata, published_at, identity_id, decay)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::timestamptz, %s, %s)
RETURNING id

-- name: document_identity
-- A version's stable identity, its number and whether it is the current one.
SELECT identity_id, version, is_current FROM pm_document WHERE id = %s

-- name: document_versions
-- Every version of the documents these ids (of any of their versions) belong to.
SELECT v.id FROM pm_document v
 WHERE v.identity_id IN (SELECT d.identity_id FROM pm_document d WHERE d.id = ANY(%s))
 ORDER BY v.id

-- name: atom_ids_by_hash
-- Existing atoms with these content hashes (exact duplicates, wherever they came from).
SELECT content_hash, id FROM pm_atom WHERE content_hash = ANY(%s)

-- name: atoms_for_dedup
-- What the claim guard compares (claim, content, term) and which document identities cite
-- each atom (to tell a reworded claim of the same document from another document's claim).
SELECT a.id, a.claim, a.content, a.status, a.metadata ->> 'term' AS term,
       coalesce(array_agg(DISTINCT d.identity_id) FILTER (WHERE d.id IS NOT NULL),
                '{}') AS identities
  FROM pm_atom a
  LEFT JOIN pm_citation c ON c.atom_id = a.id
  LEFT JOIN pm_document d ON d.id = c.doc_id
 WHERE a.id = ANY(%s)
 GROUP BY a.id

-- name: mark_superseded
UPDATE pm_atom SET superseded_by = %s WHERE id = %s

-- name: insert_chunk
-- One chunk of a document version; its id is what citations point at.
INSERT INTO pm_chunk (doc_id, ord, content, content_hash, locator,
                      heading_path, char_start, char_end, language)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id

-- name: chunk_citations
-- The citations of a chunk, each quote's start within the chunk (for a reused chunk's copy).
SELECT c.atom_id, c.quoted_text, c.char_start - coalesce(k.char_start, 0) AS quote_start,
       c.char_end - c.char_start AS quote_length
  FROM pm_citation c JOIN pm_chunk k ON k.id = c.chunk_id
 WHERE c.chunk_id = %s AND c.char_start IS NOT NULL AND c.char_end IS NOT NULL
 ORDER BY c.id

-- name: insert_atom
-- A new atom, or nothing when one with the same content hash exists (then RETURNING is empty).
-- decay: its profile (migration 0015); about_at: the time the claim is about (NULL: when recorded).
INSERT INTO pm_atom (type, claim, content, content_hash, confidence, status, doc_id,
                     topic, tags, language, ts_config, source, prompt_version, metadata,
                     decay, about_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::regconfig, %s, %s, %s, %s, %s::timestamptz)
ON CONFLICT (content_hash) DO NOTHING
RETURNING id

-- name: atom_id_by_hash
SELECT id FROM pm_atom WHERE content_hash = %s

-- name: set_check_name
-- The status-change trigger records this as the check that changed the status.
SELECT set_config('pegas.check_name', %s, true)

-- name: clear_check_name
SELECT set_config('pegas.check_name', '', true)

-- name: set_withdraw_reason
-- Why the rows this transaction deletes are withdrawn (migration 0016 records it beside them).
SELECT set_config('pegas.withdraw_reason', %s, true)

-- name: trim_withdrawals
-- The audit lines of re-distills and truth maintenance withdrawn before %(before)s (migration
-- 0022); erasures, forgets and splits are kept. At most %(limit)s per call: the worker trims in
-- bounded steps.
DELETE FROM pm_withdrawal WHERE id IN (
    SELECT id FROM pm_withdrawal
     WHERE withdrawn_at < %(before)s
       AND (reason LIKE 're-distilled%%' OR reason LIKE 'truth maintenance%%')
     ORDER BY withdrawn_at LIMIT %(limit)s)

-- name: record_withdrawal_trim
INSERT INTO pm_withdrawal_trim (trimmed_before, lines) VALUES (%s, %s)

-- name: as_of_horizon
-- The earliest instant as-of answers exactly: nothing withdrawn after it was trimmed.
SELECT max(trimmed_before) AS horizon FROM pm_withdrawal_trim

-- name: update_status
-- The new status, reason and (when given) confidence; returns the status it had before.
UPDATE pm_atom a SET status = %s, status_reason = %s,
       confidence = coalesce(%s, a.confidence)
  FROM (SELECT id, status FROM pm_atom WHERE id = %s FOR UPDATE) old
 WHERE a.id = old.id
RETURNING old.status AS old_status

-- name: attach_status_evidence
-- Evidence (JSON) on the status-change record the trigger has just written for the atom.
UPDATE pm_status_change SET evidence = %s
 WHERE id = (SELECT max(id) FROM pm_status_change WHERE atom_id = %s)

-- name: insert_citation
INSERT INTO pm_citation (atom_id, doc_id, chunk_id, code_symbol_id, locator,
                         quoted_text, char_start, char_end)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT DO NOTHING RETURNING id

-- name: upsert_link
-- An existing (src, dst, kind) link keeps the higher confidence; nothing is returned when the
-- existing link already wins.
INSERT INTO pm_atom_link (src_atom_id, dst_atom_id, kind, confidence, source, inferred,
                          metadata)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (src_atom_id, dst_atom_id, kind) DO UPDATE
   SET confidence = greatest(pm_atom_link.confidence, EXCLUDED.confidence),
       -- an extracted link replaces an inferred one with the same key
       inferred = pm_atom_link.inferred AND EXCLUDED.inferred,
       source = CASE WHEN EXCLUDED.inferred THEN pm_atom_link.source
                     ELSE EXCLUDED.source END
   WHERE pm_atom_link.confidence < EXCLUDED.confidence
      OR (pm_atom_link.inferred AND NOT EXCLUDED.inferred)
RETURNING id, (xmax = 0) AS created

-- name: link_id
SELECT id FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s AND kind = %s

-- name: citations_for
-- Citations of many atoms, with their document's title, URI, identity and version, oldest first.
SELECT c.atom_id, c.doc_id, d.title, d.uri, c.locator, c.quoted_text,
       c.code_symbol_id, c.chunk_id, c.char_start, c.char_end,
       d.identity_id AS document_identity, d.version AS document_version,
       d.is_current AS document_is_current
  FROM pm_citation c LEFT JOIN pm_document d ON d.id = c.doc_id
 WHERE c.atom_id = ANY(%s) ORDER BY c.id

-- name: citations_as_of
-- The citations of many atoms as they were at %(t)s: recorded by then, and those withdrawn
-- since (their audit lines, migration 0016), oldest first.
SELECT * FROM (
    SELECT c.atom_id, c.doc_id, d.title, d.uri, c.locator, c.quoted_text,
           c.code_symbol_id, c.chunk_id, c.char_start, c.char_end,
           d.identity_id AS document_identity, d.version AS document_version,
           d.is_current AS document_is_current, c.created_at
      FROM pm_citation c LEFT JOIN pm_document d ON d.id = c.doc_id
     WHERE c.atom_id = ANY(%(ids)s) AND c.created_at <= %(t)s
    UNION ALL
    SELECT w.atom_id, w.doc_id, d.title, d.uri, w.detail->>'locator', w.detail->>'quoted_text',
           (w.detail->>'code_symbol_id')::bigint, (w.detail->>'chunk_id')::bigint,
           (w.detail->>'char_start')::int, (w.detail->>'char_end')::int,
           d.identity_id, d.version, d.is_current, w.recorded_at
      FROM pm_withdrawal w LEFT JOIN pm_document d ON d.id = w.doc_id
     WHERE w.entity = 'citation' AND w.atom_id = ANY(%(ids)s)
       AND w.recorded_at <= %(t)s AND w.withdrawn_at > %(t)s
) AS believed ORDER BY created_at

-- name: insert_trace
INSERT INTO pm_episodic_trace (session_id, kind, content, content_hash, language,
                               ts_config, metadata)
VALUES (%s, %s, %s, %s, %s, %s::regconfig, %s) RETURNING id

-- name: atoms_by_type_status
-- Atoms by type and status in one pass over the (type, status) index; memory_stats adds them up
-- by type, by status and in all (three scans of 100k atoms were 50 ms of the UI's overview).
SELECT type, status, count(*) AS n FROM pm_atom GROUP BY type, status

-- name: gaps_by_status
SELECT status, count(*) AS n FROM pm_research_gap GROUP BY status

-- name: counts
-- Every count memory_stats reports, in one statement. The backlog's age is a probe of the
-- partial index of waiting events (migration 0023), not a pass over them.
SELECT (SELECT count(*) FROM pm_document) AS documents,
       (SELECT count(*) FROM pm_chunk) AS chunks,
       (SELECT count(*) FROM pm_citation) AS citations,
       (SELECT count(*) FROM pm_atom_link) AS links,
       (SELECT count(*) FROM pm_atom_link WHERE inferred) AS links_inferred,
       (SELECT count(*) FROM pm_code_symbol) AS code_symbols,
       (SELECT count(*) FROM pm_code_dependency) AS code_dependencies,
       (SELECT count(*) FROM pm_episodic_trace) AS traces,
       (SELECT count(*) FROM pm_outbox
         WHERE processed_at IS NULL AND parked_at IS NULL) AS outbox_pending,
       (SELECT count(*) FROM pm_outbox WHERE parked_at IS NOT NULL) AS outbox_parked,
       (SELECT extract(epoch FROM now() - min(created_at)) FROM pm_outbox
         WHERE processed_at IS NULL AND parked_at IS NULL) AS oldest_pending

-- name: feedback_totals
-- memory_feedback's reports in total (memory_stats), from the counters of atoms and passages.
SELECT coalesce(sum(helped), 0) AS helped, coalesce(sum(misled), 0) AS misled,
       coalesce(sum(used), 0) AS used,
       count(*) FILTER (WHERE store = 'atom') AS atoms,
       count(*) FILTER (WHERE store = 'passage') AS passages
  FROM (SELECT 'atom' AS store, helped, misled, used FROM pm_atom_feedback
        UNION ALL
        SELECT 'passage', helped, misled, used FROM pm_passage_feedback) f
