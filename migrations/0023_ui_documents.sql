-- A document's curation from `pegas-memory ui` (issue 31), and the overview's counts on a big memory.
--
-- reingest: a person read a document's source again (a new version when its bytes changed);
-- redistill: its current version distilled again in place; erase: the document forgotten
-- (memory_forget mode=erase: every version, its passages, the atoms no other source cites). The
-- target of the three is the document (its identity, the id of its first version). None is
-- undone from the trail: a new version is superseded by ingesting the old bytes again, and an
-- erased document is gone.
ALTER TABLE pm_ui_audit DROP CONSTRAINT pm_ui_audit_action_check;
ALTER TABLE pm_ui_audit ADD CONSTRAINT pm_ui_audit_action_check
    CHECK (action IN ('verify', 'retract', 'close_gap', 'undo', 'resolve', 'split', 'add_gap',
                      'research', 'cancel_job', 'reingest', 'redistill', 'erase'));
ALTER TABLE pm_ui_audit DROP CONSTRAINT pm_ui_audit_target_check;
ALTER TABLE pm_ui_audit ADD CONSTRAINT pm_ui_audit_target_check
    CHECK (target IN ('atom', 'gap', 'link', 'merge', 'job', 'document'));

-- The outbox keeps every processed event, so counting the parked ones (memory_stats, the UI's
-- overview), finding the oldest waiting one (the freshness watermark) and counting the
-- unprocessed ones by type (the slices' self-check) scanned every event ever written: 300k rows,
-- 30-100 ms each at 100k atoms. These partial indexes hold only the rows asked for (none, or a
-- backlog): the oldest waiting event is one index probe, the counts read only those rows.
CREATE INDEX pm_outbox_parked ON pm_outbox (id) WHERE parked_at IS NOT NULL;
CREATE INDEX pm_outbox_waiting ON pm_outbox (created_at)
    WHERE processed_at IS NULL AND parked_at IS NULL;
CREATE INDEX pm_outbox_unprocessed ON pm_outbox (entity_type) WHERE processed_at IS NULL;
-- Derived links are counted apart (memory_stats' links_inferred): without an index the count
-- read the whole link table.
CREATE INDEX pm_atom_link_inferred ON pm_atom_link (id) WHERE inferred;
