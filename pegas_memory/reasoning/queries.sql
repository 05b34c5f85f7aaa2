-- The statements of memory_infer and memory_query_graph (pegas_memory/reasoning/rules.py).

-- name: links_by_origin
-- The links inference reads: the extracted ones (inferred = false) or its own earlier conclusions.
SELECT src_atom_id, dst_atom_id, kind, confidence FROM pm_atom_link WHERE inferred = %s

-- name: needs_maintenance
-- Whether truth maintenance has anything to do: a rule, or a conclusion of one (a derived link
-- between atoms or a derived code edge: erasing the last rule must withdraw them too).
SELECT EXISTS (SELECT 1 FROM pm_atom WHERE type = 'logical_rule')
    OR EXISTS (SELECT 1 FROM pm_atom_link WHERE inferred)
    OR EXISTS (SELECT 1 FROM pm_code_inferred) AS needed

-- name: lock_inference
-- One inference at a time (transaction-scoped advisory lock).
SELECT pg_advisory_xact_lock(%s)

-- name: active_rules
-- The rules in force: logical_rule atoms that are neither stale nor contested, JSON in content.
SELECT id, coalesce(nullif(content, ''), claim) AS content FROM pm_atom
 WHERE type = 'logical_rule' AND status IN ('candidate', 'verified')
 ORDER BY id

-- name: unsupported_atoms
-- Atoms whose links support nothing.
SELECT id FROM pm_atom WHERE status IN ('stale', 'contested')

-- name: atom_types
-- The types of the atoms that rules may constrain.
SELECT id, type FROM pm_atom WHERE id = ANY(%s)

-- name: withdraw_conclusion
-- An inferred link that lost all support (executemany: src, dst, kind).
DELETE FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s
   AND kind = %s AND inferred

-- name: insert_conclusion
-- A new inferred link with its derivations (executemany: src, dst, kind, confidence, metadata).
INSERT INTO pm_atom_link (src_atom_id, dst_atom_id, kind, confidence, source,
                          inferred, metadata)
VALUES (%s, %s, %s, %s, 'inference', true, %s)
ON CONFLICT (src_atom_id, dst_atom_id, kind) DO NOTHING

-- name: update_conclusion
-- An inferred link whose confidence changed (executemany: confidence, metadata, src, dst, kind).
UPDATE pm_atom_link SET confidence = %s, metadata = %s
 WHERE src_atom_id = %s AND dst_atom_id = %s AND kind = %s AND inferred

-- name: refresh_derivations
-- A kept conclusion's surviving derivations, written only when they changed
-- (executemany: metadata, src, dst, kind, metadata).
UPDATE pm_atom_link SET metadata = %s WHERE src_atom_id = %s
   AND dst_atom_id = %s AND kind = %s AND inferred AND metadata IS DISTINCT FROM %s

-- name: link_counts
-- Links per kind, extracted and inferred apart.
SELECT kind, inferred, count(*) AS n FROM pm_atom_link GROUP BY kind, inferred

-- name: dependency_counts
-- Code dependencies per kind.
SELECT kind, count(*) AS n FROM pm_code_dependency GROUP BY kind

-- name: link_by_key
-- One link by its natural key, with the derivations in its metadata.
SELECT id, inferred, source, confidence, metadata FROM pm_atom_link
 WHERE src_atom_id = %s AND dst_atom_id = %s AND kind = %s

-- name: atom_names
-- What a path's atom nodes are called.
SELECT id, claim, type, status FROM pm_atom WHERE id = ANY(%s)

-- name: link_attributes
-- The authoritative attributes of a path's atom links.
SELECT id, confidence, inferred, source FROM pm_atom_link WHERE id = ANY(%s)

-- name: symbol_names
-- What a path's code symbol nodes are called.
SELECT id, qualified_name, path, start_line FROM pm_code_symbol WHERE id = ANY(%s)

-- name: dependency_lines
-- The authoritative attributes of a path's code dependencies.
SELECT id, line FROM pm_code_dependency WHERE id = ANY(%s)
