-- The audit trail of the person's view (`pegas-memory ui`, issue 31 scope 3).
--
-- Every change a person makes there (verify or retract an atom, close a gap) is one line: who
-- (always 'ui' for now), when, why, what it touched and its state before and after. An undo is a
-- line too, naming the line it undoes; the undone line names its undo, so a change is undone at
-- most once. The lines outlive what they touched: an erased atom's lines stay, and undo then
-- says the atom is gone.

CREATE TABLE pm_ui_audit (
    id          bigserial PRIMARY KEY,
    actor       text NOT NULL DEFAULT 'ui',
    action      text NOT NULL CHECK (action IN ('verify', 'retract', 'close_gap', 'undo')),
    target      text NOT NULL CHECK (target IN ('atom', 'gap')),
    target_id   bigint NOT NULL,
    reason      text NOT NULL DEFAULT '',
    before      jsonb NOT NULL DEFAULT '{}'::jsonb,
    after       jsonb NOT NULL DEFAULT '{}'::jsonb,
    detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
    undoes      bigint REFERENCES pm_ui_audit (id),
    undone_by   bigint REFERENCES pm_ui_audit (id),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pm_ui_audit_target ON pm_ui_audit (target, target_id, created_at);
CREATE UNIQUE INDEX pm_ui_audit_one_undo ON pm_ui_audit (undoes) WHERE undoes IS NOT NULL;
