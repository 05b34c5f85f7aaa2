-- 0013_feedback: what the agent reports about the hits it used (issue 32, scope 3). Each report
-- names an atom or a passage (a chunk) and says whether it helped, misled, or was only used; the
-- event is kept (append-only) and the counters of its atom or passage move in the same
-- transaction (a trigger on the event, so no write of an event can miss its counter).
--
-- Feedback never touches pm_atom (status, confidence), pm_citation or the slices: search reads
-- the counters from PostgreSQL when it ranks. Erasing an atom, a document or its chunks deletes
-- their events and counters (ON DELETE CASCADE): feedback never outlives what it was about.
--
-- Written to be applied again harmlessly (IF NOT EXISTS, OR REPLACE), though the migration
-- ledger applies it once, in one transaction.

CREATE TABLE IF NOT EXISTS pm_feedback_event (
    id          bigserial PRIMARY KEY,
    atom_id     bigint REFERENCES pm_atom (id) ON DELETE CASCADE,
    chunk_id    bigint REFERENCES pm_chunk (id) ON DELETE CASCADE,
    outcome     text NOT NULL CHECK (outcome IN ('helped', 'misled', 'used')),
    session_id  text,
    query       text,
    note        text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (num_nonnulls(atom_id, chunk_id) = 1)
);
CREATE INDEX IF NOT EXISTS pm_feedback_event_atom ON pm_feedback_event (atom_id, created_at)
    WHERE atom_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS pm_feedback_event_chunk ON pm_feedback_event (chunk_id, created_at)
    WHERE chunk_id IS NOT NULL;

-- The counters: one row per atom or passage that has any feedback.
CREATE TABLE IF NOT EXISTS pm_atom_feedback (
    atom_id     bigint PRIMARY KEY REFERENCES pm_atom (id) ON DELETE CASCADE,
    helped      integer NOT NULL DEFAULT 0 CHECK (helped >= 0),
    misled      integer NOT NULL DEFAULT 0 CHECK (misled >= 0),
    used        integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS pm_passage_feedback (
    chunk_id    bigint PRIMARY KEY REFERENCES pm_chunk (id) ON DELETE CASCADE,
    helped      integer NOT NULL DEFAULT 0 CHECK (helped >= 0),
    misled      integer NOT NULL DEFAULT 0 CHECK (misled >= 0),
    used        integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION pm_feedback_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    h integer := (NEW.outcome = 'helped')::integer;
    m integer := (NEW.outcome = 'misled')::integer;
    u integer := (NEW.outcome = 'used')::integer;
BEGIN
    IF NEW.atom_id IS NOT NULL THEN
        INSERT INTO pm_atom_feedback AS f (atom_id, helped, misled, used)
        VALUES (NEW.atom_id, h, m, u)
        ON CONFLICT (atom_id) DO UPDATE
           SET helped = f.helped + h, misled = f.misled + m, used = f.used + u,
               updated_at = now();
    ELSE
        INSERT INTO pm_passage_feedback AS f (chunk_id, helped, misled, used)
        VALUES (NEW.chunk_id, h, m, u)
        ON CONFLICT (chunk_id) DO UPDATE
           SET helped = f.helped + h, misled = f.misled + m, used = f.used + u,
               updated_at = now();
    END IF;
    RETURN NULL;
END $$;

-- Events are a record: they are added, and deleted only with what they are about.
CREATE OR REPLACE FUNCTION pm_feedback_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'pm_feedback_event is append-only: report new feedback instead';
END $$;

DROP TRIGGER IF EXISTS pm_feedback_count ON pm_feedback_event;
CREATE TRIGGER pm_feedback_count AFTER INSERT ON pm_feedback_event
    FOR EACH ROW EXECUTE FUNCTION pm_feedback_count();
DROP TRIGGER IF EXISTS pm_feedback_append_only ON pm_feedback_event;
CREATE TRIGGER pm_feedback_append_only BEFORE UPDATE ON pm_feedback_event
    FOR EACH ROW EXECUTE FUNCTION pm_feedback_append_only();
