-- 0022_merges_everywhere: every dedup merge can be split; a moved citation keeps its history; the
-- as-of audit lines of re-distills and truth maintenance can be trimmed (issue 32, scopes 1, 5).
--
-- 1. Merges that keep both atoms. Ingest's merge (0014) does not store the merged claim: its
--    citation goes to the survivor. Verification (a duplicate verdict) and an applied
--    consolidation find two atoms already stored: the newer becomes stale, linked
--    `duplicate_of` the older, and now leaves a `pm_merge` row too, naming it
--    (`merged_atom_id`) with the status it had (`merged_status`). Splitting such a merge gives
--    the atom its status back and withdraws the link. Erasing either atom erases the row.
-- 2. A citation moved to another atom (a split) is withdrawn from the first (an audit line,
--    as a delete leaves, with the transaction's withdraw reason) and recorded anew under the
--    second (`created_at` = the move): as-of answers show it where it was at each instant.
-- 3. `pm_withdrawal` grows with every re-distill and truth-maintenance pass. Lines older than
--    `PEGAS_WITHDRAWAL_RETENTION_DAYS` of those two kinds may be trimmed (outbox/worker.py, the
--    CLI); erasure lines hold no words and are kept. `pm_withdrawal_trim` remembers how far back
--    lines were trimmed: an as-of instant before that horizon is refused, since the links and
--    citations believed then can no longer be told exactly.

ALTER TABLE pm_merge
    ADD COLUMN merged_atom_id bigint REFERENCES pm_atom (id) ON DELETE CASCADE,
    ADD COLUMN merged_status  text,
    ADD CHECK ((merged_atom_id IS NULL) = (merged_status IS NULL));
CREATE INDEX pm_merge_merged_atom ON pm_merge (merged_atom_id) WHERE merged_atom_id IS NOT NULL;

CREATE FUNCTION pm_citation_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pm_withdrawal (entity, entity_id, atom_id, doc_id, detail, recorded_at, reason)
    VALUES ('citation', OLD.id, OLD.atom_id, OLD.doc_id,
            jsonb_build_object('locator', OLD.locator, 'quoted_text', OLD.quoted_text,
                               'chunk_id', OLD.chunk_id, 'code_symbol_id', OLD.code_symbol_id,
                               'char_start', OLD.char_start, 'char_end', OLD.char_end,
                               'moved_to', NEW.atom_id),
            OLD.created_at, pm_withdraw_reason());
    NEW.created_at := now();
    RETURN NEW;
END $$;

CREATE TRIGGER pm_citation_moved BEFORE UPDATE OF atom_id ON pm_citation
    FOR EACH ROW WHEN (OLD.atom_id IS DISTINCT FROM NEW.atom_id)
    EXECUTE FUNCTION pm_citation_moved();

CREATE TABLE pm_withdrawal_trim (
    id              bigserial PRIMARY KEY,
    trimmed_before  timestamptz NOT NULL,
    lines           bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pm_withdrawal_withdrawn ON pm_withdrawal (withdrawn_at);
