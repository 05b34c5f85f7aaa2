-- The review queue, the gaps page and the jobs of `pegas-memory ui` (issue 31): more kinds of
-- audit lines than migration 0017 allowed.
--
-- resolve: a person resolved a contested pair (the target is the `contradicts` link);
-- split: a merge of near-duplicates split again (the target is the merge); add_gap: a gap
-- registered from the UI; research and cancel_job: a research job started or a job cancelled
-- (the target is the job). Lines of the first three are undoable like those of 0017.

ALTER TABLE pm_ui_audit DROP CONSTRAINT pm_ui_audit_action_check;
ALTER TABLE pm_ui_audit ADD CONSTRAINT pm_ui_audit_action_check
    CHECK (action IN ('verify', 'retract', 'close_gap', 'undo', 'resolve', 'split', 'add_gap',
                      'research', 'cancel_job'));
ALTER TABLE pm_ui_audit DROP CONSTRAINT pm_ui_audit_target_check;
ALTER TABLE pm_ui_audit ADD CONSTRAINT pm_ui_audit_target_check
    CHECK (target IN ('atom', 'gap', 'link', 'merge', 'job'));

-- The review queue lists candidates newest first, a page at a time (ui/review.sql): by this
-- index, a page and their count read only candidates.
CREATE INDEX pm_atom_candidates ON pm_atom (id) WHERE status = 'candidate';
