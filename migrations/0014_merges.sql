-- 0014_merges: merges of near-duplicates that can be listed and split again (issue 32, scope 5).
--
-- A semantic merge (ingest found a new claim that repeats a stored atom by meaning, ingest.dedup,
-- and cited the stored atom instead of storing the claim) leaves one `pm_merge` row, written in
-- the same transaction as the citation it adds: what the merged-in claim said (text, type, hash,
-- language, metadata), the citation(s) it contributed to the surviving atom (moved back by a
-- split), the similarity, why it was merged, and the document version it came from.
-- Exact repeats (the same content hash re-cited) are not recorded: the claim is the atom's own
-- text word for word, so there is nothing to split it back into.
--
-- A split (curation/merges.py) recreates the claim as its own atom, moves its citations to it and
-- marks the row undone; `pm_merge_block` then keeps dedup from merging that claim into that atom
-- again (both directions: the survivor never absorbs the split claim's hash, the split atom
-- never absorbs the survivor's).
--
-- A later version of the document cites the survivor again with the same quote (a reused chunk's
-- citations are copied): a split moves those too (`quotes`, within the document's versions).
-- A re-distill of the version writes its citations afresh: its open merges are recorded again.
--
-- Forgetting: erasing the survivor erases its merge rows (CASCADE); erasing the document version
-- the merged claim came from erases them too (its citations are gone with it, nothing to split).

CREATE TABLE pm_merge (
    id              bigserial PRIMARY KEY,
    survivor_id     bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    doc_id          bigint REFERENCES pm_document (id) ON DELETE CASCADE,
    claim           text NOT NULL,
    content         text NOT NULL DEFAULT '',
    type            text NOT NULL,
    content_hash    text NOT NULL,
    language        text,
    confidence      real NOT NULL DEFAULT 0.5,
    topic           text,
    tags            text[] NOT NULL DEFAULT '{}',
    prompt_version  text,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    citation_ids    bigint[] NOT NULL DEFAULT '{}',
    quotes          text[] NOT NULL DEFAULT '{}',
    similarity      real NOT NULL,
    reason          text NOT NULL,
    merged_by       text NOT NULL DEFAULT 'ingest',
    created_at      timestamptz NOT NULL DEFAULT now(),
    undone_at       timestamptz,
    undone_reason   text,
    split_atom_id   bigint REFERENCES pm_atom (id) ON DELETE SET NULL,
    CHECK ((undone_at IS NULL) = (undone_reason IS NULL))
);
CREATE INDEX pm_merge_survivor ON pm_merge (survivor_id);
CREATE INDEX pm_merge_doc ON pm_merge (doc_id);
CREATE INDEX pm_merge_created ON pm_merge (created_at DESC, id DESC);

-- "Do not merge a claim with this content hash into this atom": written by a split.
CREATE TABLE pm_merge_block (
    atom_id       bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    content_hash  text NOT NULL,
    merge_id      bigint REFERENCES pm_merge (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (atom_id, content_hash)
);
CREATE INDEX pm_merge_block_hash ON pm_merge_block (content_hash);
