-- The audit lines of a person's changes (`pm_ui_audit`, migrations 0017, 0019, 0023), written
-- by the UI and by the job that carries out a change the UI started (`app/audit.py`).

-- name: insert_audit
-- One audit line of a person's change.
INSERT INTO pm_ui_audit (actor, action, target, target_id, reason, before, after, detail, undoes)
VALUES (%(actor)s, %(action)s, %(target)s, %(target_id)s, %(reason)s, %(before)s, %(after)s,
        %(detail)s, %(undoes)s)
RETURNING id

-- name: version_before
-- The version a new version superseded (read in the transaction that wrote it).
SELECT p.id, p.version
  FROM pm_document d JOIN pm_document p ON p.id = d.supersedes
 WHERE d.id = %(id)s

-- name: status_changes_here
-- The status changes this transaction wrote to atoms it did not create (a new version's stale
-- orphans, superseded and contested atoms): what undoing the version puts back. `xmin` is the
-- writing transaction's id: rows of any other transaction are left out.
SELECT s.id, s.atom_id, s.from_status, s.to_status
  FROM pm_status_change s
 WHERE s.created_at = now()
   AND s.xmin = pg_current_xact_id()::xid
   AND s.from_status IS NOT NULL
   AND NOT s.atom_id = ANY(%(created)s::bigint[])
 ORDER BY s.id

-- name: links_here
-- The links this transaction wrote (a new version's `supersedes` and `contradicts`).
SELECT l.id
  FROM pm_atom_link l
 WHERE l.created_at = now()
   AND l.xmin = pg_current_xact_id()::xid
 ORDER BY l.id
