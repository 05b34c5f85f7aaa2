-- Taking back a new version of a document (`curation/revert.py`).

-- name: version_uri
SELECT uri FROM pm_document WHERE id = %(id)s

-- name: lock_version
-- A document version, locked for the revert (its row and the one it superseded).
SELECT id, identity_id, version, is_current, supersedes, uri,
       metadata -> 'redistilled' AS redistilled
  FROM pm_document
 WHERE id = %(id)s
   FOR UPDATE

-- name: newer_versions
-- Versions of the identity made after this one (a later ingest): the revert is refused then.
SELECT count(*) AS n FROM pm_document
 WHERE identity_id = %(identity)s AND version > %(version)s

-- name: atoms_only_here
-- Atoms whose every citation is in this version (a citation without a document keeps one):
-- erased with it, as erasing a document erases the atoms only it cites.
SELECT DISTINCT c.atom_id FROM pm_citation c
 WHERE c.doc_id = %(doc)s
   AND NOT EXISTS (SELECT 1 FROM pm_citation o
                    WHERE o.atom_id = c.atom_id
                      AND (o.doc_id IS NULL OR o.doc_id <> %(doc)s))
 ORDER BY 1

-- name: touched_since
-- Of these atoms, those that changed after the version was written (a status change or a
-- link that is not the version's own; derived links come and go with their premises): the
-- revert would erase someone's later judgement.
SELECT a.id FROM pm_atom a
 WHERE a.id = ANY(%(ids)s::bigint[])
   AND (EXISTS (SELECT 1 FROM pm_status_change s
                 WHERE s.atom_id = a.id AND s.created_at > %(since)s)
        OR EXISTS (SELECT 1 FROM pm_atom_link l
                    WHERE (l.src_atom_id = a.id OR l.dst_atom_id = a.id)
                      AND NOT l.inferred AND l.created_at > %(since)s))
 ORDER BY 1

-- name: make_current
-- The version before becomes current again (its passages go back into the slices: the trigger
-- of migration 0009 queues them).
UPDATE pm_document SET is_current = true WHERE id = %(id)s

-- name: delete_version
DELETE FROM pm_document WHERE id = %(id)s

-- name: atom_now
-- An atom's status now, and when it last changed.
SELECT a.status,
       (SELECT max(s.created_at) FROM pm_status_change s WHERE s.atom_id = a.id) AS changed_at
  FROM pm_atom a
 WHERE a.id = %(id)s

-- name: unsupersede
-- An atom put back: no longer superseded by an atom of the withdrawn version.
UPDATE pm_atom SET superseded_by = NULL
 WHERE id = %(id)s AND superseded_by = ANY(%(created)s::bigint[])

-- name: delete_links
DELETE FROM pm_atom_link WHERE id = ANY(%(ids)s::bigint[])
