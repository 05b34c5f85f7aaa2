-- 0005_code_citations: what atoms citing code and rules over the code graph need.
-- pm_citation already carries code_symbol_id (0001, indexed), so citations need no schema; this adds
-- - pm_code_inferred: the code edges memory_infer derives from pm_code_dependency (and from the
--   module-level import edges lifted from it). Apart from pm_code_dependency on purpose: that
--   table is what the indexer extracted (its kinds are fixed, its rows are planned and rewritten
--   by every re-index), while these rows are conclusions of rules (any single-token kind, the
--   derivations in metadata) that truth maintenance adds and withdraws. Rows go with either
--   symbol (ON DELETE CASCADE), so a removed symbol never keeps a conclusion alive. They are
--   not projected into the graph slice: memory_code_graph (relation=derived) and
--   memory_query_graph (derivation, counts) read them from Postgres.

CREATE TABLE pm_code_inferred (
    id             bigserial PRIMARY KEY,
    repo           text NOT NULL,
    src_symbol_id  bigint NOT NULL REFERENCES pm_code_symbol (id) ON DELETE CASCADE,
    dst_symbol_id  bigint NOT NULL REFERENCES pm_code_symbol (id) ON DELETE CASCADE,
    kind           text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,62}$'),
    confidence     real NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (src_symbol_id, dst_symbol_id, kind)
);
CREATE INDEX pm_code_inferred_dst ON pm_code_inferred (dst_symbol_id, kind);
CREATE INDEX pm_code_inferred_repo ON pm_code_inferred (repo, kind);
