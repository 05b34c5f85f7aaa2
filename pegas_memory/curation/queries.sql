-- The curation family: verification (curation/verify.py), research gaps (curation/gaps.py),
-- forgetting (curation/forget.py) and feedback (curation/feedback.py).

-- name: existing_atom_ids
SELECT id FROM pm_atom WHERE id = ANY(%s) ORDER BY id

-- name: atoms_of_document
SELECT DISTINCT a.id FROM pm_atom a JOIN pm_citation c ON c.atom_id = a.id
 WHERE c.doc_id = %s ORDER BY a.id LIMIT %s

-- name: candidate_atoms
SELECT id FROM pm_atom WHERE status = 'candidate' ORDER BY id LIMIT %s

-- name: atom_to_verify
SELECT id, type, claim, content, status, confidence FROM pm_atom WHERE id = %s

-- name: documents_of_atoms
-- The documents citing each atom, with what makes two of them one source: the same document
-- (identity, every version) or the same bytes (a copy under another path or URL).
SELECT c.atom_id, c.doc_id, d.identity_id, d.content_hash
  FROM pm_citation c JOIN pm_document d ON d.id = c.doc_id
 WHERE c.atom_id = ANY(%s)

-- name: related_documents
-- Documents sharing an identity or the bytes of the given ones (one hop: a copy of an earlier
-- version joins that version's document).
SELECT id, identity_id, content_hash FROM pm_document
 WHERE identity_id = ANY(%(identities)s) OR content_hash = ANY(%(hashes)s)

-- name: neighbour_atoms
SELECT id, claim, content, status FROM pm_atom WHERE id = ANY(%s)

-- name: set_confidence
UPDATE pm_atom SET confidence = %s WHERE id = %s

-- name: gap_atoms
SELECT gap_id, atom_id FROM pm_gap_atom WHERE gap_id = ANY(%s) ORDER BY atom_id

-- name: live_gap_like
-- The live gap a question repeats: the same key, else the most similar above the threshold.
SELECT * FROM pm_research_gap
 WHERE status IN ('open', 'researching')
   AND (question_key = %(key)s OR similarity(question_key, %(key)s) >= %(sim)s)
 ORDER BY (question_key = %(key)s) DESC, similarity(question_key, %(key)s) DESC
 LIMIT 1 FOR UPDATE

-- name: merge_gap
-- The higher priority wins; a new reason is appended on its own line.
UPDATE pm_research_gap
   SET priority = greatest(priority, %s),
       reason = CASE WHEN %s::text IS NULL OR reason = %s THEN reason
                     WHEN reason IS NULL THEN %s
                     ELSE reason || E'\n' || %s END
 WHERE id = %s RETURNING *

-- name: insert_gap
-- Nothing is returned when a concurrent call registered the same live question first.
INSERT INTO pm_research_gap (question, question_key, reason, priority)
VALUES (%s, %s, %s, %s)
ON CONFLICT (question_key) WHERE status IN ('open', 'researching') DO NOTHING
RETURNING *

-- name: list_gaps
-- Live gaps first, then by priority and age; `total` counts every matching gap.
SELECT *, count(*) OVER () AS total FROM pm_research_gap
 WHERE %(status)s::text IS NULL OR status = %(status)s
 ORDER BY (status IN ('open', 'researching')) DESC, priority DESC, created_at, id
 LIMIT %(limit)s OFFSET %(offset)s

-- name: set_gap_status
-- The new status, with one more entry in `attempts` when one is given.
UPDATE pm_research_gap
   SET status = %s,
       attempts = CASE WHEN %s::jsonb IS NULL THEN attempts
                       ELSE attempts || jsonb_build_array(%s::jsonb) END
 WHERE id = %s RETURNING *

-- name: link_gap_atom
INSERT INTO pm_gap_atom (gap_id, atom_id) VALUES (%s, %s) ON CONFLICT DO NOTHING

-- name: record_retraction
-- A retraction of an atom that was stale already: the status trigger logs only a change of
-- status, and the judgement must still be in its history (what was retracted is not revived
-- when its sentence comes back in a new version, ingest `revivable_atoms`).
INSERT INTO pm_status_change (atom_id, from_status, to_status, reason, check_name)
VALUES (%(id)s, 'stale', 'stale', %(reason)s, 'forget')

-- name: atoms_to_erase
-- With the title > section an ingested atom's search vector was moved toward (its cached vector
-- goes with the atom: erasure leaves no copies).
SELECT id, claim, content, metadata->>'search_context' AS search_context
  FROM pm_atom WHERE id = ANY(%s)

-- name: count_links_of
SELECT count(*) AS n FROM pm_atom_link WHERE src_atom_id = ANY(%(ids)s)
    OR dst_atom_id = ANY(%(ids)s)

-- name: delete_atoms
DELETE FROM pm_atom WHERE id = ANY(%s)

-- name: delete_cached_vectors
DELETE FROM pm_embedding_cache WHERE content_hash = ANY(%s)

-- name: existing_document_ids
SELECT id FROM pm_document WHERE id = ANY(%s)

-- name: atoms_only_in_documents
-- Atoms whose every citation is in these documents (a citation without a document keeps one).
SELECT DISTINCT c.atom_id FROM pm_citation c
 WHERE c.doc_id = ANY(%(docs)s)
   AND NOT EXISTS (SELECT 1 FROM pm_citation o
                    WHERE o.atom_id = c.atom_id
                      AND (o.doc_id IS NULL OR NOT o.doc_id = ANY(%(docs)s)))

-- name: detach_atoms_from_documents
UPDATE pm_atom SET doc_id = NULL WHERE doc_id = ANY(%s)

-- name: delete_documents
DELETE FROM pm_document WHERE id = ANY(%s)

-- name: delete_traces
DELETE FROM pm_episodic_trace WHERE id = ANY(%s) RETURNING id, content

-- name: restore_gap
-- A cancelled research run puts a gap back as it was (status and attempts).
UPDATE pm_research_gap SET status = %(status)s, attempts = %(attempts)s WHERE id = %(id)s

-- name: unlink_gap_atoms_except
-- ... and drops the answers it linked (atoms erased with their documents cascade on their own).
DELETE FROM pm_gap_atom WHERE gap_id = %(id)s AND NOT (atom_id = ANY(%(keep)s::bigint[]))

-- name: feedback_atoms_known
-- The atoms a feedback report names, held against an erase until the report commits.
SELECT id FROM pm_atom WHERE id = ANY(%s) ORDER BY id FOR KEY SHARE

-- name: feedback_chunks_known
-- The passages (chunks, of any version of their document) a feedback report names.
SELECT id FROM pm_chunk WHERE id = ANY(%s) ORDER BY id FOR KEY SHARE

-- name: insert_feedback_events
-- One event per reported item; a trigger (0013_feedback) moves the item's counters.
INSERT INTO pm_feedback_event (atom_id, chunk_id, outcome, session_id, query, note)
SELECT a, c, o, %(session_id)s, %(query)s, %(note)s
  FROM unnest(%(atoms)s::bigint[], %(chunks)s::bigint[], %(outcomes)s::text[]) AS u (a, c, o)

-- name: atom_feedback_counts
SELECT atom_id AS id, helped, misled, used FROM pm_atom_feedback WHERE atom_id = ANY(%s)

-- name: passage_feedback_counts
SELECT chunk_id AS id, helped, misled, used FROM pm_passage_feedback WHERE chunk_id = ANY(%s)

-- name: feedback_events_of
-- The feedback reports an erase takes with it: of these atoms, and of these documents' chunks.
SELECT count(*) AS n FROM pm_feedback_event e
 WHERE e.atom_id = ANY(%(atoms)s)
    OR e.chunk_id IN (SELECT id FROM pm_chunk WHERE doc_id = ANY(%(docs)s))
-- name: drop_unsplittable_merges
-- After documents are erased: merges whose survivor has no evidence left but what the merged
-- claim brought (its own document is gone) cannot be split any more; their records go too.
DELETE FROM pm_merge m
 WHERE m.undone_at IS NULL AND m.merged_atom_id IS NULL
   AND NOT EXISTS (SELECT 1 FROM pm_citation c
                    WHERE c.atom_id = m.survivor_id AND NOT c.id = ANY(m.citation_ids))

-- name: list_merges
-- Recent merges (curation/merges.py), newest first; by atom (survivor or split atom) and by
-- document (any version of its identity).
SELECT m.id, m.survivor_id, s.claim AS survivor_claim, m.doc_id, d.identity_id, d.uri,
       m.claim, m.type, m.content_hash, m.language, m.similarity, m.reason, m.merged_by,
       m.citation_ids, m.created_at, m.undone_at, m.undone_reason, m.split_atom_id,
       m.merged_atom_id, m.merged_status
  FROM pm_merge m
  JOIN pm_atom s ON s.id = m.survivor_id
  LEFT JOIN pm_document d ON d.id = m.doc_id
 WHERE (%(atom)s::bigint IS NULL OR m.survivor_id = %(atom)s OR m.split_atom_id = %(atom)s
        OR m.merged_atom_id = %(atom)s)
   AND (%(doc)s::bigint IS NULL OR d.identity_id = %(doc)s)
   AND (%(open)s::boolean IS FALSE OR m.undone_at IS NULL)
 ORDER BY m.created_at DESC, m.id DESC
 LIMIT %(limit)s

-- name: lock_merge
SELECT m.*, s.content_hash AS survivor_hash, d.kind AS doc_kind FROM pm_merge m
  JOIN pm_atom s ON s.id = m.survivor_id
  LEFT JOIN pm_document d ON d.id = m.doc_id
 WHERE m.id = %s FOR UPDATE OF m

-- name: move_merge_citations
-- A split: the merged claim's citations leave the survivor for the claim's own atom (the
-- citation trigger re-projects their passages, migrations/0012).
-- Those it brought, and the survivor's citations with the same quote from any version of the same
-- document (a later version's reused chunk copies them).
UPDATE pm_citation SET atom_id = %(atom)s
 WHERE atom_id = %(survivor)s
   AND (id = ANY(%(ids)s)
        OR (quoted_text = ANY(%(quotes)s)
            AND doc_id IN (SELECT v.id FROM pm_document v JOIN pm_document m
                             ON m.identity_id = v.identity_id WHERE m.id = %(doc)s)))
RETURNING id

-- name: reproject_atom
-- An atom whose citations changed: projected again (its graph edges, its payload).
INSERT INTO pm_outbox (entity_type, entity_id, op) VALUES ('atom', %s, 'upsert')

-- name: mark_merge_undone
UPDATE pm_merge SET undone_at = now(), undone_reason = %(reason)s, split_atom_id = %(atom)s
 WHERE id = %(id)s
RETURNING undone_at

-- name: block_merge
-- "Do not merge a claim with this hash into this atom" (ingest dedup honours it).
INSERT INTO pm_merge_block (atom_id, content_hash, merge_id) VALUES (%s, %s, %s)
ON CONFLICT DO NOTHING

-- name: consolidation_atoms
-- One batch of the current atoms a consolidation pass looks at, by id after a cursor.
SELECT id, claim, content, content_hash, metadata ->> 'term' AS term FROM pm_atom
 WHERE status <> 'stale' AND id > %(after)s ORDER BY id LIMIT %(limit)s

-- name: consolidation_neighbours
-- The candidate survivors of a batch: current atoms older than the one they may absorb.
SELECT id, claim, content, content_hash, metadata ->> 'term' AS term FROM pm_atom
 WHERE id = ANY(%s) AND status <> 'stale'

-- name: atom_for_merge
-- The atom a merge keeping both atoms makes stale (verification, consolidation), locked.
SELECT id, type, claim, content, content_hash, language, confidence, topic, tags, doc_id,
       prompt_version, status FROM pm_atom WHERE id = %s FOR UPDATE

-- name: merge_blocked
SELECT 1 FROM pm_merge_block WHERE atom_id = %s AND content_hash = %s

-- name: record_duplicate_merge
-- Verification or consolidation: `merged_atom_id` stays, stale, linked duplicate_of (0022).
INSERT INTO pm_merge (survivor_id, doc_id, claim, content, type, content_hash, language,
                      confidence, topic, tags, prompt_version, similarity, reason, merged_by,
                      merged_atom_id, merged_status)
VALUES (%(survivor)s, %(doc)s, %(claim)s, %(content)s, %(type)s, %(hash)s, %(language)s,
        %(confidence)s, %(topic)s, %(tags)s, %(prompt_version)s, %(similarity)s, %(reason)s,
        %(merged_by)s, %(atom)s, %(status)s)
RETURNING id

-- name: drop_duplicate_link
-- A split of a merge that kept both atoms: the duplicate_of link goes (its audit line stays).
DELETE FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s AND kind = 'duplicate_of'

-- name: merge_blocks_of
-- The split pairs among these atoms (atom, hash of a claim never merged into it).
SELECT atom_id, content_hash FROM pm_merge_block WHERE atom_id = ANY(%s)

-- name: existing_atom_ids_claims
SELECT id, claim FROM pm_atom WHERE id = ANY(%s)

-- name: contested_pairs
-- The review queue (curation/contradictions.py): pairs linked `contradicts` while one of them is
-- still contested, newest first, with both atoms. The links are paged first and their atoms read
-- by key: a join of the two atom sides over the whole table would scan it (100k atoms: 130 ms).
WITH open AS (
    SELECT l.id, l.src_atom_id, l.dst_atom_id, l.source, l.created_at
      FROM pm_atom_link l
     WHERE l.kind = 'contradicts'
       AND EXISTS (SELECT 1 FROM pm_atom x
                    WHERE x.id = ANY(ARRAY[l.src_atom_id, l.dst_atom_id]) AND x.status = 'contested')
), page AS (
    SELECT * FROM open ORDER BY created_at DESC, id DESC LIMIT %(limit)s OFFSET %(offset)s
)
SELECT p.id AS link_id, p.source AS link_source, p.created_at AS linked_at,
       a.id AS a_id, a.claim AS a_claim, a.status AS a_status, a.confidence AS a_confidence,
       a.status_reason AS a_reason, a.language AS a_language, a.type AS a_type,
       b.id AS b_id, b.claim AS b_claim, b.status AS b_status, b.confidence AS b_confidence,
       b.status_reason AS b_reason, b.language AS b_language, b.type AS b_type,
       (SELECT count(*) FROM open) AS total
  FROM page p
  JOIN pm_atom a ON a.id = p.src_atom_id
  JOIN pm_atom b ON b.id = p.dst_atom_id
 ORDER BY p.created_at DESC, p.id DESC

-- name: lock_pair
-- A pair about to be resolved or put back: the link and both atoms, locked.
SELECT l.id, l.kind, l.metadata, l.src_atom_id, l.dst_atom_id
  FROM pm_atom_link l
 WHERE l.id = %(id)s
   FOR UPDATE

-- name: lock_pair_atoms
SELECT id, status, confidence, metadata ->> 'scope' AS scope
  FROM pm_atom WHERE id = ANY(%(ids)s) ORDER BY id FOR UPDATE

-- name: status_before_contest
-- The status an atom had before it was last made contested (the pm_status_change trigger's log).
SELECT from_status FROM pm_status_change
 WHERE atom_id = %(id)s AND to_status = 'contested' AND from_status IS DISTINCT FROM 'contested'
 ORDER BY id DESC LIMIT 1

-- name: other_open_contradictions
-- Contradictions of this atom other than the given link whose other atom is not stale and which
-- no person resolved (they still hold the atom contested).
SELECT count(*) AS n
  FROM pm_atom_link l
  JOIN pm_atom o ON o.id = CASE WHEN l.src_atom_id = %(atom)s THEN l.dst_atom_id ELSE l.src_atom_id END
 WHERE l.kind = 'contradicts' AND l.id <> %(link)s
   AND (l.src_atom_id = %(atom)s OR l.dst_atom_id = %(atom)s)
   AND o.status <> 'stale'

-- name: set_link_resolution
-- The link's kind and metadata after (or before, on undo) a person's resolution.
UPDATE pm_atom_link SET kind = %(kind)s, metadata = %(metadata)s WHERE id = %(id)s

-- name: set_atom_scope
-- The scope a person gave an atom that holds only there (null: none).
UPDATE pm_atom
   SET metadata = CASE WHEN %(scope)s::text IS NULL THEN metadata - 'scope'
                       ELSE metadata || jsonb_build_object('scope', %(scope)s::text) END
 WHERE id = %(id)s

-- name: scoped_apart
-- Whether a person judged the two atoms true in different scopes (memory_verify leaves them be).
SELECT 1 FROM pm_atom_link
 WHERE kind = 'differs_in_scope'
   AND ((src_atom_id = %(a)s AND dst_atom_id = %(b)s) OR (src_atom_id = %(b)s AND dst_atom_id = %(a)s))

-- name: split_atom_state
-- What a split left on the claim's own atom: its status and its citations (a rejoin checks both).
SELECT a.status, a.metadata ->> 'split_from_merge' AS split_from,
       coalesce(array_agg(c.id ORDER BY c.id) FILTER (WHERE c.id IS NOT NULL), '{}') AS citations
  FROM pm_atom a LEFT JOIN pm_citation c ON c.atom_id = a.id
 WHERE a.id = %(id)s
 GROUP BY a.id

-- name: move_citations_back
UPDATE pm_citation SET atom_id = %(survivor)s WHERE atom_id = %(atom)s AND id = ANY(%(ids)s)
RETURNING id

-- name: unmark_merge_undone
UPDATE pm_merge SET undone_at = NULL, undone_reason = NULL, split_atom_id = NULL WHERE id = %(id)s

-- name: unblock_merge
DELETE FROM pm_merge_block WHERE merge_id = %(id)s
