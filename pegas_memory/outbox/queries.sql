-- The runtime SQL of the outbox: the worker (claim, lock, record), the projection (current rows)
-- and reconcile/rebuild (ids per table). Loaded by `pegas_memory.outbox.queries`.

-- name: listen
-- Wake the worker on a new event (the trigger of migrations/0001 sends NOTIFY pm_outbox).
LISTEN pm_outbox

-- name: pending_all
-- Events not yet projected (parked ones excluded).
SELECT count(*) AS n FROM pm_outbox WHERE processed_at IS NULL AND parked_at IS NULL

-- name: pending_of_types
-- Events not yet projected of these entity types.
SELECT count(*) AS n FROM pm_outbox
 WHERE processed_at IS NULL AND parked_at IS NULL AND entity_type = ANY(%(types)s)

-- name: pending_of_entities
-- Events not yet projected of these entities (types and ids).
SELECT count(*) AS n FROM pm_outbox
 WHERE processed_at IS NULL AND parked_at IS NULL
   AND entity_type = ANY(%(types)s) AND entity_id = ANY(%(ids)s)

-- name: claim_batch
-- Due events in order, skipping those another worker holds; the lock lasts the transaction.
SELECT id, entity_type, entity_id, op, attempts, applied FROM pm_outbox
 WHERE processed_at IS NULL AND parked_at IS NULL AND next_attempt_at <= now()
 ORDER BY id LIMIT %(limit)s FOR UPDATE SKIP LOCKED

-- name: try_entity_locks
-- One transaction-scoped advisory lock per entity key; ok is false where another worker has it.
SELECT k, pg_try_advisory_xact_lock(k) AS ok FROM unnest(%(keys)s::bigint[]) AS k

-- name: mark_processed
-- Events whose every slice is applied.
UPDATE pm_outbox SET processed_at = clock_timestamp(), last_error = NULL WHERE id = ANY(%(ids)s)

-- name: record_failure
-- One failed event: the slices it reached, its attempts, when to retry, and whether it is parked.
UPDATE pm_outbox SET applied = %(applied)s, attempts = %(attempts)s,
       next_attempt_at = now() + make_interval(secs => %(delay)s),
       last_error = %(error)s,
       parked_at = CASE WHEN %(park)s THEN now() END
 WHERE id = %(id)s

-- name: make_delayed_due
-- Events waiting for a retry become due now (rebuild, and tests that must see convergence).
UPDATE pm_outbox SET next_attempt_at = now()
 WHERE processed_at IS NULL AND parked_at IS NULL AND next_attempt_at > now()

-- name: select_atom
-- Current atom rows to project (search_context: the title > section an ingested atom was read
-- under, recorded by the ingest pipeline; embedding/search_vector.py; passages: the current
-- passages it is cited from, its CITED_IN edges in the graph).
SELECT a.id, a.type, a.status, a.confidence, a.claim, a.content, a.doc_id, a.topic, a.tags,
       a.language, a.created_at, a.metadata->>'search_context' AS search_context,
       ARRAY(SELECT DISTINCT c.chunk_id FROM pm_citation c JOIN pm_passage p ON p.id = c.chunk_id
              WHERE c.atom_id = a.id ORDER BY c.chunk_id) AS passages
  FROM pm_atom a WHERE a.id = ANY(%(ids)s)

-- name: select_trace
-- Current episodic trace rows to project.
SELECT id, kind, content, session_id, language, created_at
  FROM pm_episodic_trace WHERE id = ANY(%(ids)s)

-- name: select_passage
-- Current passages to project: chunks of current document versions (pm_passage); a chunk of a
-- retired version or of a forgotten document is absent, so its point is deleted; atoms: the
-- atoms cited from it (CITED_IN in the graph).
SELECT p.id, p.doc_id, p.ord, p.content, p.content_hash, p.locator, p.heading_path, p.language,
       p.created_at,
       ARRAY(SELECT DISTINCT c.atom_id FROM pm_citation c WHERE c.chunk_id = p.id
              ORDER BY c.atom_id) AS atoms
  FROM pm_passage p WHERE p.id = ANY(%(ids)s)

-- name: select_link
-- Current atom link rows to project.
SELECT id, src_atom_id, dst_atom_id, kind, confidence, inferred, source
  FROM pm_atom_link WHERE id = ANY(%(ids)s)

-- name: select_code_symbol
-- Current code symbol rows to project.
SELECT id, repo, path, name, qualified_name, kind, language, start_line
  FROM pm_code_symbol WHERE id = ANY(%(ids)s)

-- name: select_code_dependency
-- Current code dependency rows to project.
SELECT id, src_symbol_id, dst_symbol_id, kind, line
  FROM pm_code_dependency WHERE id = ANY(%(ids)s)

-- name: select_code_inferred
-- Current derived code edge rows (conclusions of rules) to project.
SELECT id, src_symbol_id, dst_symbol_id, kind, confidence
  FROM pm_code_inferred WHERE id = ANY(%(ids)s)

-- name: ids_of_table
-- Every id of a projected table ({table} is composed as an identifier).
SELECT id FROM {table}

-- name: resolved_dependency_ids
-- Code dependencies that point at a known symbol (only those are graph edges).
SELECT id FROM pm_code_dependency WHERE dst_symbol_id IS NOT NULL
