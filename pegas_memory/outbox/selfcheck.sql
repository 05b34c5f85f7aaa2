-- The slice self-check's SQL: row counts of the projected tables, the events still owed to the
-- slices, and the lock that lets one process at a time repair. Loaded by `outbox.selfcheck`.

-- name: count_of_table
-- Rows of one projected table ({table} is composed as an identifier).
SELECT count(*) AS n FROM {table}

-- name: count_resolved_dependencies
-- Code dependencies that point at a known symbol (only those are graph edges).
SELECT count(*) AS n FROM pm_code_dependency WHERE dst_symbol_id IS NOT NULL

-- name: unprojected_by_type
-- Events not yet projected, parked ones included (each can explain one point of difference).
SELECT entity_type, count(*) AS n FROM pm_outbox WHERE processed_at IS NULL GROUP BY entity_type

-- name: try_repair_lock
-- One repair of the slices at a time across every process on this database (session lock).
SELECT pg_try_advisory_lock(%(key)s) AS ok

-- name: repair_unlock
-- Release the repair lock.
SELECT pg_advisory_unlock(%(key)s) AS ok
