-- The statements of rules over the code graph (pegas_memory/reasoning/code.py).

-- name: lock_repo
-- The lock of store_code ('pm_code_repo:<name>'): no re-index commits while rules run over it.
SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))

-- name: code_repos
-- Every indexed repository, and those that still hold conclusions of rules.
SELECT name FROM pm_code_repo
UNION
SELECT DISTINCT repo FROM pm_code_inferred
ORDER BY 1

-- name: symbol_edges
-- Resolved dependencies between symbols of one repository, of the kinds some rule reads.
SELECT DISTINCT src_symbol_id AS src, dst_symbol_id AS dst, kind
  FROM pm_code_dependency
 WHERE repo = %s AND dst_symbol_id IS NOT NULL AND kind = ANY(%s)

-- name: module_imports
-- Module-level import edges: every resolved import lifted to the module symbols of the two
-- files (`from a.b import f` in module m gives m -imports-> a.b), self-imports left out.
SELECT DISTINCT ms.id AS src, md.id AS dst
  FROM pm_code_dependency d
  JOIN pm_code_symbol s ON s.id = d.src_symbol_id
  JOIN pm_code_symbol t ON t.id = d.dst_symbol_id
  JOIN pm_code_symbol ms ON ms.repo = s.repo AND ms.path = s.path AND ms.kind = 'module'
  JOIN pm_code_symbol md ON md.repo = t.repo AND md.path = t.path AND md.kind = 'module'
 WHERE d.repo = %s AND d.kind = 'imports' AND ms.id <> md.id

-- name: stored_conclusions
-- The conclusions of rules already stored for one repository.
SELECT src_symbol_id AS src, dst_symbol_id AS dst, kind, confidence
  FROM pm_code_inferred WHERE repo = %s

-- name: withdraw_conclusion
-- A derived code edge that lost all support (executemany: src, dst, kind).
DELETE FROM pm_code_inferred WHERE src_symbol_id = %s AND dst_symbol_id = %s AND kind = %s

-- name: insert_conclusion
-- A new derived code edge (executemany: repo, src, dst, kind, confidence, metadata).
INSERT INTO pm_code_inferred (repo, src_symbol_id, dst_symbol_id, kind, confidence, metadata)
VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (src_symbol_id, dst_symbol_id, kind) DO NOTHING

-- name: update_conclusion
-- A derived code edge whose confidence or derivations changed
-- (executemany: confidence, metadata, src, dst, kind, confidence, metadata).
UPDATE pm_code_inferred SET confidence = %s, metadata = %s
 WHERE src_symbol_id = %s AND dst_symbol_id = %s AND kind = %s
   AND (confidence, metadata) IS DISTINCT FROM (%s::real, %s::jsonb)

-- name: present_kinds
-- The edge kinds inference can read at all: atom links and code dependencies.
SELECT DISTINCT kind FROM pm_atom_link WHERE NOT inferred
UNION
SELECT DISTINCT kind FROM pm_code_dependency WHERE dst_symbol_id IS NOT NULL

-- name: conclusion_counts
-- Derived code edges per kind.
SELECT kind, count(*) AS n FROM pm_code_inferred GROUP BY kind

-- name: conclusion_by_key
-- One derived code edge by its natural key, with its derivations.
SELECT id, confidence, metadata FROM pm_code_inferred
 WHERE src_symbol_id = %s AND dst_symbol_id = %s AND kind = %s

-- name: has_conclusions
-- Whether a repository holds conclusions of rules (truth maintenance after a re-index).
SELECT EXISTS (SELECT 1 FROM pm_code_inferred WHERE repo = %s) AS any

-- name: active_rules
-- The rules in force (as reasoning/queries.sql reads them).
SELECT id, coalesce(nullif(content, ''), claim) AS content FROM pm_atom
 WHERE type = 'logical_rule' AND status IN ('candidate', 'verified')
 ORDER BY id

-- name: lock_inference
-- One inference at a time (the lock of memory_infer).
SELECT pg_advisory_xact_lock(%s)

-- name: derived_attributes
-- The authoritative attributes of derived code edges met on a graph path.
SELECT id, confidence, metadata FROM pm_code_inferred WHERE id = ANY(%s)

-- name: derived_hop
-- One hop over derived code edges from a frontier of symbols (memory_code_graph relation=derived).
SELECT id, kind, src_symbol_id AS src, dst_symbol_id AS dst, metadata
  FROM pm_code_inferred
 WHERE (kind = ANY(%(kinds)s) OR cardinality(%(kinds)s::text[]) = 0)
   AND ((%(out)s AND src_symbol_id = ANY(%(f)s)) OR (%(in)s AND dst_symbol_id = ANY(%(f)s)))
 ORDER BY id
 LIMIT %(limit)s
