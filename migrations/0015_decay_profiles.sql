-- 0015_decay_profiles: how each kind of memory ages in ranking (issue 32, scope 2).
--
-- A decay profile per atom and per document (a document's passages take its profile):
--   timeless        definitions, rules, code, tables, and document knowledge by default: no decay;
--   perishable      news and web pages: ages from the time the claim is about (the document's
--                   publication date when the source gives one), never from the crawl;
--   conversational  the agent's own notes and traces: ages from when it was said.
-- `about_at` is the time an atom's claim is about (its document's publication date, or a time the
-- agent gave to memory_store); NULL means the time it was recorded (created_at). Ranking applies a
-- profile's half-life (PEGAS_DECAY_*_DAYS) only when PEGAS_DECAY_RANKING is on
-- (search/fusion.py says why it is off by default); the columns are recorded either way.
--
-- Nothing here is projected: the outbox trigger of pm_atom lists the columns the slices hold, and
-- search reads the profile from PostgreSQL when it ranks. The backfill below leaves updated_at
-- alone (the status trigger that touches it is disabled around it).

ALTER TABLE pm_atom ADD COLUMN IF NOT EXISTS decay text NOT NULL DEFAULT 'timeless'
    CHECK (decay IN ('timeless', 'perishable', 'conversational'));
ALTER TABLE pm_atom ADD COLUMN IF NOT EXISTS about_at timestamptz;
ALTER TABLE pm_document ADD COLUMN IF NOT EXISTS decay text NOT NULL DEFAULT 'timeless'
    CHECK (decay IN ('timeless', 'perishable', 'conversational'));

-- Existing memories: the defaults of fusion.default_decay, from the atom's type and the kind of
-- the document it came from (its own, else the first one citing it).
ALTER TABLE pm_document DISABLE TRIGGER pm_document_touch;
UPDATE pm_document SET decay = 'perishable' WHERE kind = 'web';
ALTER TABLE pm_document ENABLE TRIGGER pm_document_touch;

ALTER TABLE pm_atom DISABLE TRIGGER pm_atom_status_upd;
WITH src AS (
    SELECT a.id, a.type,
           coalesce(a.doc_id, (SELECT c.doc_id FROM pm_citation c
                                WHERE c.atom_id = a.id AND c.doc_id IS NOT NULL
                                ORDER BY c.id LIMIT 1)) AS doc_id
      FROM pm_atom a
)
UPDATE pm_atom a
   SET decay = CASE
           WHEN s.type IN ('definition', 'logical_rule', 'code', 'table') THEN 'timeless'
           WHEN d.kind = 'web' THEN 'perishable'
           WHEN s.doc_id IS NULL
                AND NOT EXISTS (SELECT 1 FROM pm_citation c WHERE c.atom_id = a.id)
                THEN 'conversational'
           ELSE 'timeless' END,
       about_at = CASE WHEN a.doc_id IS NOT NULL THEN d.published_at END
  FROM src s LEFT JOIN pm_document d ON d.id = s.doc_id
 WHERE a.id = s.id;
ALTER TABLE pm_atom ENABLE TRIGGER pm_atom_status_upd;
