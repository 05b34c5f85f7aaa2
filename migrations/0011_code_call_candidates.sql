-- 0011_code_call_candidates: a call site the resolver cannot pin to one target is kept as
-- candidates, not as calls. Such edges have kind 'may_call' (memory_code_graph shows them only
-- when asked); every resolved edge's metadata also says where it came from ('provenance':
-- analyzer or heuristic) and how sure it is ('confidence', 1/n for one of n candidates).
-- Existing rows keep kind 'calls' until their repository is re-indexed.

ALTER TABLE pm_code_dependency DROP CONSTRAINT IF EXISTS pm_code_dependency_kind_check;
ALTER TABLE pm_code_dependency ADD CONSTRAINT pm_code_dependency_kind_check
    CHECK (kind IN ('calls', 'may_call', 'imports', 'inherits'));
