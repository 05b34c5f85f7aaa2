-- 0002_code: what code memory needs beyond the symbol and dependency tables of 0001.
-- - pm_code_repo: one row per indexed repository (its root on disk and the code_repo document that
--   keeps evidence alive when a cited symbol disappears);
-- - pm_code_file: the content hash of every indexed file, so a re-index re-extracts only the files
--   that changed and notices the files that were deleted;
-- - pm_code_words / pm_code_tsv and their indexes: identifier-aware lexical search. The tsv of 0001
--   keeps `getUserName` and `click.core.Command` as single lexemes and stems docstrings in English
--   only; code search needs camelCase, snake_case and dotted names split into words, and Russian
--   docstrings stemmed as Russian. An expression index (not a stored column) keeps the outbox
--   payloads of deleted symbols small.

CREATE TABLE pm_code_repo (
    name        text PRIMARY KEY CHECK (length(btrim(name)) > 0),
    root        text NOT NULL,
    doc_id      bigint REFERENCES pm_document (id) ON DELETE SET NULL,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    indexed_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pm_code_file (
    repo          text NOT NULL REFERENCES pm_code_repo (name) ON DELETE CASCADE,
    path          text NOT NULL,
    language      text NOT NULL,
    module        text NOT NULL,
    content_hash  text NOT NULL,
    size_bytes    bigint NOT NULL DEFAULT 0,
    has_errors    boolean NOT NULL DEFAULT false,
    symbol_count  integer NOT NULL DEFAULT 0,
    indexed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repo, path)
);

-- `getHTTPResponse_v2` -> `get http response v2`; `click.core.Command` -> `click core command`.
-- Only ASCII punctuation separates words, so Cyrillic identifiers stay whole.
CREATE FUNCTION pm_code_words(s text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(btrim(regexp_replace(
        regexp_replace(
            regexp_replace(coalesce(s, ''), '([[:lower:][:digit:]])([[:upper:]])', '\1 \2', 'g'),
            '([[:upper:]]+)([[:upper:]][[:lower:]])', '\1 \2', 'g'),
        '[[:punct:][:space:]]+', ' ', 'g')));

-- Name (A), qualified name (B), signature (C) as split words; the docstring (D) both stemmed
-- (the russian configuration stems Cyrillic and hands Latin words to the English stemmer) and as
-- written (simple), so exact words and inflected forms both match.
CREATE FUNCTION pm_code_tsv(name text, qualified_name text, signature text, docstring text)
    RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(to_tsvector('simple'::regconfig, pm_code_words(name) || ' ' || coalesce(name, '')), 'A')
        || setweight(to_tsvector('simple'::regconfig, pm_code_words(qualified_name)), 'B')
        || setweight(to_tsvector('simple'::regconfig, pm_code_words(signature)), 'C')
        || setweight(to_tsvector('russian'::regconfig, coalesce(docstring, '')), 'D')
        || setweight(to_tsvector('simple'::regconfig, coalesce(docstring, '')), 'D');

CREATE INDEX pm_code_symbol_search
    ON pm_code_symbol USING gin (pm_code_tsv(name, qualified_name, signature, docstring));
CREATE INDEX pm_code_symbol_words_trgm
    ON pm_code_symbol USING gin (pm_code_words(name) gin_trgm_ops);
CREATE INDEX pm_code_symbol_repo_qname ON pm_code_symbol (repo, qualified_name);
CREATE INDEX pm_code_symbol_repo_name ON pm_code_symbol (repo, name);
CREATE INDEX pm_code_dependency_src ON pm_code_dependency (src_symbol_id, kind);
