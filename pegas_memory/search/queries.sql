-- The search family: the BM25 arm (search/lexical.py), the graph arm and the documents of the
-- candidates (search/arms.py), the row fetch (search/hydrate.py), the filter fragments
-- (search/filters.py), and the source text around evidence (search/context.py).
-- {table} is the entity's table (pm_atom or pm_episodic_trace) and {where} a filter fragment on
-- alias t starting with AND (filters.SearchFilter.sql), both composed through psycopg.sql;
-- every value is a bound parameter.

-- name: table_estimate
-- The planner's row estimate (-1: never analysed); the table's name is a bound regclass.
SELECT reltuples::bigint AS n FROM pg_class WHERE oid = %s::regclass

-- name: corpus_exact
SELECT count(*) AS n, coalesce(avg(length(tsv)), 1) AS avgdl FROM {table}

-- name: corpus_sampled
-- The average document length from a block sample of about STATS_SAMPLE_ROWS rows.
SELECT coalesce(avg(length(tsv)), 1) AS avgdl
  FROM {table} TABLESAMPLE SYSTEM (%s)

-- name: analyse_words
-- Every word's lexemes under every text-search configuration.
SELECT w.word, cfg::text AS cfg,
       ARRAY(SELECT (unnest(to_tsvector(cfg, w.word))).lexeme) AS lexemes
  FROM unnest(%s::text[]) AS w(word)
 CROSS JOIN unnest(%s::regconfig[]) AS cfg

-- name: document_frequencies
-- Rows matching each one-term tsquery, counted through the GIN index.
SELECT x.q AS query, (SELECT count(*) FROM {table} t
                       WHERE t.tsv @@ x.q::tsquery) AS df
  FROM unnest(%s::text[]) AS x(q)

-- name: newest_id
SELECT coalesce(max(id), 0) AS id FROM {table}

-- name: candidates_must
-- Every row holding a rare word (up to the cap).
(SELECT t.id, t.tsv FROM {table} t
  WHERE t.tsv @@ %(must)s::tsquery {where} LIMIT %(cap)s)

-- name: candidates_extra
-- Rows holding a pair of the other words (up to the cap); {exclude} leaves out the rows
-- `candidates_must` already took (empty when there is no must).
(SELECT t.id, t.tsv FROM {table} t
  WHERE t.tsv @@ %(extra)s::tsquery {exclude} {where} LIMIT %(cap)s)

-- name: exclude_must
AND NOT t.tsv @@ %(must)s::tsquery

-- name: bm25_score
-- BM25 of the candidates. Exact lexemes are cut out of each candidate in C (setweight on the
-- listed lexemes, then ts_filter on that weight), so only they are unnested and scored: twice as
-- fast as unnesting the whole tsvector. Prefix terms ({prefix_score}, {prefix_join},
-- {prefix_matched}: the prefix_* blocks, or no_prefix_* without any) count once (tf 1).
WITH cand AS ({candidates}),
    scored AS (
        SELECT c.id, c.tsv, coalesce(s.score, 0) + {prefix_score} AS score, f.own
          FROM cand c
         CROSS JOIN LATERAL (
             SELECT ts_filter(setweight(setweight(c.tsv, 'D'), 'A', %(lex)s::text[]),
                              '{{a}}')
                    AS own) f
         CROSS JOIN LATERAL (
             SELECT sum(q.idf * x.tf * (%(k1)s + 1)
                        / (x.tf + %(k1)s * (1 - %(b)s + %(b)s * length(c.tsv) / %(avgdl)s)))
                    AS score
               FROM (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) AS tf
                       FROM unnest(f.own) AS u) x
               JOIN unnest(%(lex)s::text[], %(idf)s::float8[]) AS q(lexeme, idf)
                 ON q.lexeme = x.lexeme) s
         {prefix_join}
         ORDER BY score DESC, c.id LIMIT %(k)s)
    SELECT id, score, tsvector_to_array(own) AS lexemes,
           {prefix_matched} AS prefixes
      FROM scored
     ORDER BY score DESC, id

-- name: prefix_score
coalesce(p.score, 0)

-- name: prefix_join
CROSS JOIN LATERAL (
    SELECT sum(x.idf) * (%(k1)s + 1)
           / (1 + %(k1)s * (1 - %(b)s + %(b)s * length(c.tsv) / %(avgdl)s)) AS score
      FROM unnest(%(pq)s::tsquery[], %(pidf)s::float8[]) AS x(q, idf)
     WHERE c.tsv @@ x.q) p

-- name: prefix_matched
ARRAY(SELECT x.q FROM unnest(%(pq)s::text[]) AS x(q)
       WHERE tsv @@ x.q::tsquery)

-- name: no_prefix_score
0

-- name: no_prefix_matched
ARRAY[]::text[]

-- name: graph_links
-- Links touching the seeds, read from Postgres (the truth) so expansion never lags the outbox.
SELECT src_atom_id, dst_atom_id, kind, confidence FROM pm_atom_link
 WHERE src_atom_id = ANY(%(ids)s) OR dst_atom_id = ANY(%(ids)s)

-- name: graph_links_as_of
-- The links touching the seeds as they were at %(t)s: recorded by then and not yet withdrawn
-- (a withdrawn link's audit line, migration 0016).
SELECT src_atom_id, dst_atom_id, kind, confidence FROM pm_atom_link
 WHERE (src_atom_id = ANY(%(ids)s) OR dst_atom_id = ANY(%(ids)s)) AND created_at <= %(t)s
UNION ALL
SELECT (detail->>'src')::bigint, (detail->>'dst')::bigint, detail->>'kind',
       (detail->>'confidence')::real
  FROM pm_withdrawal
 WHERE entity = 'link' AND recorded_at <= %(t)s AND withdrawn_at > %(t)s
   AND ((detail->>'src')::bigint = ANY(%(ids)s) OR (detail->>'dst')::bigint = ANY(%(ids)s))

-- name: statuses_as_of
-- The status each atom had at %(t)s (NULL: it did not exist yet).
SELECT id, pm_status_at(id, %(t)s) AS status FROM unnest(%(ids)s::bigint[]) AS id

-- name: atom_documents
-- The document version each candidate atom was distilled from (memory_store atoms have none):
-- the groups of the hybrid's document support (arms.candidate_documents).
SELECT id, doc_id FROM pm_atom WHERE id = ANY(%(ids)s) AND doc_id IS NOT NULL

-- name: fetch_atoms
-- unsourced: stored with no provenance (PEGAS_STORE_PROVENANCE=flag) and cited by nothing since.
-- fb_*: the agent's feedback counters (memory_feedback), NULL when it never reported on the atom.
-- decay, about_at: its profile and the time its claim is about (migration 0015).
SELECT t.id, t.type, t.status, t.confidence, t.claim, t.content, t.topic,
       t.tags, t.doc_id, t.language, t.created_at, t.decay, t.about_at,
       coalesce((t.metadata->>'unsourced')::boolean, false)
         AND NOT EXISTS (SELECT 1 FROM pm_citation c WHERE c.atom_id = t.id) AS unsourced,
       fb.helped AS fb_helped, fb.misled AS fb_misled, fb.used AS fb_used
  FROM pm_atom t LEFT JOIN pm_atom_feedback fb ON fb.atom_id = t.id
 WHERE t.id = ANY(%(ids)s) {where}

-- name: fetch_passages
-- Passages (chunks of current document versions) with their document, for search hits; a
-- passage takes its document's decay profile and is about its publication date.
SELECT t.id, 'passage' AS type, t.content AS claim, '' AS content, t.doc_id, t.language,
       t.created_at, t.locator, t.heading_path, t.char_start, t.char_end,
       d.title, d.uri, d.identity_id, d.version, d.decay, d.published_at AS about_at,
       fb.helped AS fb_helped, fb.misled AS fb_misled, fb.used AS fb_used
  FROM pm_passage t JOIN pm_document d ON d.id = t.doc_id
  LEFT JOIN pm_passage_feedback fb ON fb.chunk_id = t.id
 WHERE t.id = ANY(%(ids)s) {where}

-- name: fetch_passages_ever
-- Passages of any version (an as-of search picks the versions current at its instant).
SELECT t.id, 'passage' AS type, t.content AS claim, '' AS content, t.doc_id, t.language,
       t.created_at, t.locator, t.heading_path, t.char_start, t.char_end,
       d.title, d.uri, d.identity_id, d.version, d.decay, d.published_at AS about_at,
       fb.helped AS fb_helped, fb.misled AS fb_misled, fb.used AS fb_used
  FROM pm_passage_ever t JOIN pm_document d ON d.id = t.doc_id
  LEFT JOIN pm_passage_feedback fb ON fb.chunk_id = t.id
 WHERE t.id = ANY(%(ids)s) {where}

-- name: fetch_traces
-- A trace is the agent's own record: conversational, ageing from when it was stored.
SELECT t.id, t.kind AS type, t.content AS claim, '' AS content,
       t.session_id, t.language, t.created_at, 'conversational' AS decay,
       NULL::timestamptz AS about_at
  FROM pm_episodic_trace t WHERE t.id = ANY(%(ids)s) {where}

-- name: chunk_windows
-- Each cited chunk with its neighbours (ord within %(n)s) in the same document, in order.
SELECT c.id AS cited, n.id, n.ord, n.content, c.doc_id
  FROM pm_chunk c
  JOIN pm_chunk n ON n.doc_id = c.doc_id
                 AND n.ord BETWEEN c.ord - %(n)s AND c.ord + %(n)s
 WHERE c.id = ANY(%(ids)s)
 ORDER BY c.id, n.ord

-- name: cited_chunks
-- The chunk each atom is first cited from, a current version's first (an edited document's old
-- chunk must not stand beside the new answer), with the quote and its offset in that chunk.
SELECT DISTINCT ON (c.atom_id) c.atom_id, c.chunk_id, c.quoted_text,
       c.char_start - k.char_start AS offset
  FROM pm_citation c
  JOIN pm_chunk k ON k.id = c.chunk_id
  LEFT JOIN pm_document d ON d.id = c.doc_id
 WHERE c.atom_id = ANY(%s)
 ORDER BY c.atom_id, coalesce(d.is_current, false) DESC, c.id

-- name: filter_documents
-- An atom of these document versions: created by one, or cited by one (a duplicate of another
-- document's atom is that document's knowledge too). {a} the alias, {p} the ids' placeholder.
({a}.doc_id = ANY({p}) OR EXISTS (SELECT 1 FROM pm_citation fc
                                   WHERE fc.atom_id = {a}.id AND fc.doc_id = ANY({p})))

-- name: filter_current
-- Not replaced by a reworded claim of a newer version (ingest.versions): answers come from the
-- current version unless stale atoms are asked for.
{a}.superseded_by IS NULL

-- name: filter_current_as_of
-- Not yet replaced at the instant {t}: superseding makes an atom stale, so an atom superseded
-- later was not stale then (migration 0016, pm_status_at).
({a}.superseded_by IS NULL OR pm_status_at({a}.id, {t}) IS DISTINCT FROM 'stale')

-- name: filter_statuses_as_of
-- The status an atom had at the instant {t}.
pm_status_at({a}.id, {t}) = ANY({p})
