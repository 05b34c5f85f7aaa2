-- name: atom_status
-- The status an atom has right after memory_store wrote it (or found its duplicate).
SELECT status FROM pm_atom WHERE id = %s

-- name: server_version
-- What `pegas-memory doctor` reports about the PostgreSQL it reached.
SHOW server_version
