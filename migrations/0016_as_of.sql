-- As-of (issue 32 scope 1): what the memory believed at an instant.
--
-- Atoms already record when they were made and every status change (pm_status_change, written by
-- the database itself). What was missing is the other half: links and citations are deleted when
-- they are withdrawn (a re-distill, truth maintenance, an erased document), and an erased atom
-- left no trace. Here every such delete leaves an audit line: when the row was recorded, when it
-- was withdrawn and why (the transaction's `pegas.withdraw_reason`, set by whoever deletes). An
-- erased atom's line keeps its id, type and hash only: erasing means the words are gone.

CREATE TABLE pm_withdrawal (
    id            bigserial PRIMARY KEY,
    entity        text NOT NULL CHECK (entity IN ('atom', 'link', 'citation')),
    entity_id     bigint NOT NULL,
    atom_id       bigint,          -- the atom (a citation's, a link's source, an erased atom)
    doc_id        bigint,          -- a citation's document version
    detail        jsonb NOT NULL DEFAULT '{}'::jsonb,
    recorded_at   timestamptz NOT NULL,
    withdrawn_at  timestamptz NOT NULL DEFAULT now(),
    reason        text NOT NULL
);
CREATE INDEX pm_withdrawal_atom ON pm_withdrawal (entity, atom_id, withdrawn_at);

CREATE FUNCTION pm_withdraw_reason() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('pegas.withdraw_reason', true), ''), 'deleted')
$$;

CREATE FUNCTION pm_withdraw_links() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pm_withdrawal (entity, entity_id, atom_id, detail, recorded_at, reason)
    SELECT 'link', g.id, g.src_atom_id,
           jsonb_build_object('src', g.src_atom_id, 'dst', g.dst_atom_id, 'kind', g.kind,
                              'inferred', g.inferred, 'confidence', g.confidence),
           g.created_at, pm_withdraw_reason()
      FROM gone g;
    RETURN NULL;
END $$;

-- An erased source keeps no words: its citations' lines keep where they pointed, not the quote.
CREATE FUNCTION pm_withdraw_citations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    why text := pm_withdraw_reason();
BEGIN
    INSERT INTO pm_withdrawal (entity, entity_id, atom_id, doc_id, detail, recorded_at, reason)
    SELECT 'citation', g.id, g.atom_id, g.doc_id,
           jsonb_build_object('locator', g.locator,
                              'quoted_text', CASE WHEN why LIKE 'erased%' THEN ''
                                                  ELSE g.quoted_text END,
                              'chunk_id', g.chunk_id, 'code_symbol_id', g.code_symbol_id,
                              'char_start', g.char_start, 'char_end', g.char_end),
           g.created_at, why
      FROM gone g;
    RETURN NULL;
END $$;

CREATE FUNCTION pm_withdraw_atoms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pm_withdrawal (entity, entity_id, atom_id, detail, recorded_at, reason)
    SELECT 'atom', g.id, g.id,
           jsonb_build_object('type', g.type, 'content_hash', g.content_hash, 'status', g.status),
           g.created_at, pm_withdraw_reason()
      FROM gone g;
    RETURN NULL;
END $$;

CREATE TRIGGER pm_atom_link_withdrawn AFTER DELETE ON pm_atom_link
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION pm_withdraw_links();
CREATE TRIGGER pm_citation_withdrawn AFTER DELETE ON pm_citation
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION pm_withdraw_citations();
CREATE TRIGGER pm_atom_withdrawn AFTER DELETE ON pm_atom
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION pm_withdraw_atoms();

-- An atom's status at an instant: the last change recorded by then (the insert is one), or NULL
-- when the atom did not exist yet.
CREATE FUNCTION pm_status_at(atom bigint, t timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT to_status FROM pm_status_change
     WHERE atom_id = atom AND created_at <= t
     ORDER BY created_at DESC, id DESC LIMIT 1
$$;

-- Every chunk of every version with the interval its version was current: from the version's
-- creation until the next version's (a version with no successor: for ever if it is current).
CREATE VIEW pm_passage_ever AS
SELECT c.id, c.doc_id, c.ord, c.content, c.content_hash, c.locator, c.heading_path,
       c.char_start, c.char_end, c.language, c.created_at, c.tsv,
       d.created_at AS valid_from,
       coalesce((SELECT min(n.created_at) FROM pm_document n WHERE n.supersedes = d.id),
                CASE WHEN d.is_current THEN 'infinity'::timestamptz ELSE d.created_at END)
           AS valid_to
  FROM pm_chunk c JOIN pm_document d ON d.id = c.doc_id;
