-- 0001_init: the source of truth. Every table of the architecture (§3), plus what the design
-- implies: an embedding cache keyed by (model, content hash) so slices rebuild without the model,
-- a ledger of atom status changes, and an outbox filled by triggers in the same transaction as the
-- change it describes (so cascaded deletes and direct SQL are never missed).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- ---------------------------------------------------------------- documents and chunks
CREATE TABLE pm_document (
    id            bigserial PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('web', 'pdf', 'epub', 'text', 'code_repo', 'agent')),
    uri           text NOT NULL,
    title         text,
    author        text,
    language      text,
    authority     real NOT NULL DEFAULT 0.5 CHECK (authority BETWEEN 0 AND 1),
    content_hash  text NOT NULL,
    version       integer NOT NULL DEFAULT 1,
    supersedes    bigint REFERENCES pm_document (id) ON DELETE SET NULL,
    is_current    boolean NOT NULL DEFAULT true,
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    published_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (uri, content_hash)
);
CREATE INDEX pm_document_uri_current ON pm_document (uri) WHERE is_current;

CREATE TABLE pm_chunk (
    id            bigserial PRIMARY KEY,
    doc_id        bigint NOT NULL REFERENCES pm_document (id) ON DELETE CASCADE,
    ord           integer NOT NULL,
    content       text NOT NULL,
    content_hash  text NOT NULL,
    locator       text NOT NULL DEFAULT '',
    heading_path  text[] NOT NULL DEFAULT '{}',
    char_start    integer,
    char_end      integer,
    language      text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (doc_id, ord)
);
CREATE INDEX pm_chunk_hash ON pm_chunk (content_hash);

-- ---------------------------------------------------------------- atoms
CREATE TABLE pm_atom (
    id             bigserial PRIMARY KEY,
    type           text NOT NULL
                   CHECK (type IN ('text', 'definition', 'logical_rule', 'code', 'table', 'fact')),
    claim          text NOT NULL CHECK (length(btrim(claim)) > 0),
    content        text NOT NULL DEFAULT '',
    content_hash   text NOT NULL UNIQUE,
    confidence     real NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
    status         text NOT NULL DEFAULT 'candidate'
                   CHECK (status IN ('candidate', 'verified', 'stale', 'contested')),
    status_reason  text,
    doc_id         bigint REFERENCES pm_document (id) ON DELETE SET NULL,
    topic          text,
    tags           text[] NOT NULL DEFAULT '{}',
    language       text,
    ts_config      regconfig NOT NULL DEFAULT 'simple',
    source         text,
    prompt_version text,
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    access_count   integer NOT NULL DEFAULT 0,
    last_access_at timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    tsv            tsvector GENERATED ALWAYS AS (
                       setweight(to_tsvector(ts_config, coalesce(claim, '')), 'A')
                       || setweight(to_tsvector(ts_config, coalesce(content, '')), 'B')
                   ) STORED
);
CREATE INDEX pm_atom_tsv ON pm_atom USING gin (tsv);
CREATE INDEX pm_atom_claim_trgm ON pm_atom USING gin (claim gin_trgm_ops);
CREATE INDEX pm_atom_type_status ON pm_atom (type, status);
CREATE INDEX pm_atom_doc ON pm_atom (doc_id);
CREATE INDEX pm_atom_topic ON pm_atom (topic);
CREATE INDEX pm_atom_tags ON pm_atom USING gin (tags);
CREATE INDEX pm_atom_created ON pm_atom (created_at);

-- Every status change: from, to, why, by which check, when.
CREATE TABLE pm_status_change (
    id           bigserial PRIMARY KEY,
    atom_id      bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    from_status  text,
    to_status    text NOT NULL,
    reason       text,
    check_name   text NOT NULL DEFAULT 'manual',
    evidence     jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pm_status_change_atom ON pm_status_change (atom_id, created_at);

-- Links: kinds are single tokens, so inference rules may derive new kinds. The well-known kinds are
-- inference, cause, reference, contradicts, depends_on, calls, defines, duplicate_of, corroborates.
CREATE TABLE pm_atom_link (
    id            bigserial PRIMARY KEY,
    src_atom_id   bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    dst_atom_id   bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    kind          text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,62}$'),
    confidence    real NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    source        text NOT NULL DEFAULT 'agent',
    inferred      boolean NOT NULL DEFAULT false,
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (src_atom_id, dst_atom_id, kind)
);
CREATE INDEX pm_atom_link_dst ON pm_atom_link (dst_atom_id, kind);
CREATE INDEX pm_atom_link_kind ON pm_atom_link (kind);

-- ---------------------------------------------------------------- code
CREATE TABLE pm_code_symbol (
    id              bigserial PRIMARY KEY,
    repo            text NOT NULL,
    path            text NOT NULL,
    language        text NOT NULL,
    name            text NOT NULL,
    qualified_name  text NOT NULL,
    kind            text NOT NULL
                    CHECK (kind IN ('module', 'class', 'function', 'method', 'constant',
                                    'interface', 'struct', 'enum', 'trait', 'type', 'variable')),
    signature       text,
    docstring       text,
    start_line      integer NOT NULL DEFAULT 0,
    end_line        integer NOT NULL DEFAULT 0,
    file_hash       text,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    tsv             tsvector GENERATED ALWAYS AS (
                        setweight(to_tsvector('simple', coalesce(name, '')), 'A')
                        || setweight(to_tsvector('simple', coalesce(qualified_name, '')), 'A')
                        || setweight(to_tsvector('simple', coalesce(signature, '')), 'B')
                        || setweight(to_tsvector('english', coalesce(docstring, '')), 'C')
                    ) STORED,
    UNIQUE (repo, path, qualified_name, kind, start_line)
);
CREATE INDEX pm_code_symbol_tsv ON pm_code_symbol USING gin (tsv);
CREATE INDEX pm_code_symbol_name_trgm ON pm_code_symbol USING gin (name gin_trgm_ops);
CREATE INDEX pm_code_symbol_qname_trgm ON pm_code_symbol USING gin (qualified_name gin_trgm_ops);
CREATE INDEX pm_code_symbol_repo_path ON pm_code_symbol (repo, path);

CREATE TABLE pm_code_dependency (
    id             bigserial PRIMARY KEY,
    repo           text NOT NULL,
    src_symbol_id  bigint NOT NULL REFERENCES pm_code_symbol (id) ON DELETE CASCADE,
    dst_symbol_id  bigint REFERENCES pm_code_symbol (id) ON DELETE CASCADE,
    dst_name       text NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('calls', 'imports', 'inherits')),
    line           integer,
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX pm_code_dependency_uniq
    ON pm_code_dependency (src_symbol_id, kind, dst_name, coalesce(dst_symbol_id, 0));
CREATE INDEX pm_code_dependency_dst ON pm_code_dependency (dst_symbol_id, kind);
CREATE INDEX pm_code_dependency_repo ON pm_code_dependency (repo);

-- ---------------------------------------------------------------- citations
CREATE TABLE pm_citation (
    id              bigserial PRIMARY KEY,
    atom_id         bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    doc_id          bigint REFERENCES pm_document (id) ON DELETE CASCADE,
    chunk_id        bigint REFERENCES pm_chunk (id) ON DELETE SET NULL,
    code_symbol_id  bigint REFERENCES pm_code_symbol (id) ON DELETE SET NULL,
    locator         text NOT NULL DEFAULT '',
    quoted_text     text NOT NULL DEFAULT '',
    char_start      integer,
    char_end        integer,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK (doc_id IS NOT NULL OR code_symbol_id IS NOT NULL)
);
CREATE UNIQUE INDEX pm_citation_uniq
    ON pm_citation (atom_id, coalesce(doc_id, 0), coalesce(code_symbol_id, 0), locator, md5(quoted_text));
CREATE INDEX pm_citation_doc ON pm_citation (doc_id);
CREATE INDEX pm_citation_symbol ON pm_citation (code_symbol_id);

-- ---------------------------------------------------------------- episodic memory (apart from the KB)
CREATE TABLE pm_episodic_trace (
    id            bigserial PRIMARY KEY,
    session_id    text,
    kind          text NOT NULL CHECK (kind IN ('plan', 'action', 'observation', 'reflection')),
    content       text NOT NULL CHECK (length(btrim(content)) > 0),
    content_hash  text NOT NULL,
    language      text,
    ts_config     regconfig NOT NULL DEFAULT 'simple',
    metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector(ts_config, content)) STORED
);
CREATE INDEX pm_episodic_trace_session ON pm_episodic_trace (session_id, created_at);
CREATE INDEX pm_episodic_trace_tsv ON pm_episodic_trace USING gin (tsv);

-- ---------------------------------------------------------------- research gaps
CREATE TABLE pm_research_gap (
    id              bigserial PRIMARY KEY,
    question        text NOT NULL CHECK (length(btrim(question)) > 0),
    question_key    text NOT NULL,
    reason          text,
    priority        integer NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),
    status          text NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'researching', 'filled', 'abandoned')),
    attempts        jsonb NOT NULL DEFAULT '[]'::jsonb,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- One live gap per normalised question: duplicates of an open gap merge into it.
CREATE UNIQUE INDEX pm_research_gap_live_key
    ON pm_research_gap (question_key) WHERE status IN ('open', 'researching');
CREATE INDEX pm_research_gap_status ON pm_research_gap (status, priority DESC, created_at);

CREATE TABLE pm_gap_atom (
    gap_id   bigint NOT NULL REFERENCES pm_research_gap (id) ON DELETE CASCADE,
    atom_id  bigint NOT NULL REFERENCES pm_atom (id) ON DELETE CASCADE,
    PRIMARY KEY (gap_id, atom_id)
);

-- ---------------------------------------------------------------- embedding cache
-- Vectors by (model, content hash): the same text is never embedded twice and a rebuild of the
-- vector slice never calls the model. float32 little-endian bytes.
CREATE TABLE pm_embedding_cache (
    model         text NOT NULL,
    content_hash  text NOT NULL,
    dim           integer NOT NULL CHECK (dim > 0),
    vector        bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, content_hash)
);

-- ---------------------------------------------------------------- the outbox
CREATE TABLE pm_outbox (
    id               bigserial PRIMARY KEY,
    entity_type      text NOT NULL
                     CHECK (entity_type IN ('atom', 'link', 'code_symbol', 'code_dependency', 'trace')),
    entity_id        bigint NOT NULL,
    op               text NOT NULL CHECK (op IN ('upsert', 'delete')),
    payload          jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_error       text,
    applied          text[] NOT NULL DEFAULT '{}',
    processed_at     timestamptz,
    parked_at        timestamptz
);
CREATE INDEX pm_outbox_pending ON pm_outbox (next_attempt_at, id)
    WHERE processed_at IS NULL AND parked_at IS NULL;
CREATE INDEX pm_outbox_entity ON pm_outbox (entity_type, entity_id, id);

CREATE FUNCTION pm_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pm_outbox', '');
    RETURN NULL;
END $$;

CREATE TRIGGER pm_outbox_notify AFTER INSERT ON pm_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION pm_outbox_notify();

-- One outbox row for every insert, update and delete of a projected row. Deletes carry what the
-- slices need to remove the row (the row is gone by the time the worker reads the event).
CREATE FUNCTION pm_outbox_capture() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    entity text := TG_ARGV[0];
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO pm_outbox (entity_type, entity_id, op, payload)
        VALUES (entity, OLD.id, 'delete', to_jsonb(OLD) - 'tsv' - 'content' - 'docstring');
        RETURN OLD;
    END IF;
    INSERT INTO pm_outbox (entity_type, entity_id, op) VALUES (entity, NEW.id, 'upsert');
    RETURN NEW;
END $$;

CREATE TRIGGER pm_atom_outbox AFTER INSERT OR DELETE OR UPDATE OF
    type, claim, content, confidence, status, doc_id, topic, tags, language, metadata
    ON pm_atom FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('atom');
CREATE TRIGGER pm_atom_link_outbox AFTER INSERT OR DELETE OR UPDATE
    ON pm_atom_link FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('link');
CREATE TRIGGER pm_code_symbol_outbox AFTER INSERT OR DELETE OR UPDATE
    ON pm_code_symbol FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('code_symbol');
CREATE TRIGGER pm_code_dependency_outbox AFTER INSERT OR DELETE OR UPDATE
    ON pm_code_dependency FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('code_dependency');
CREATE TRIGGER pm_episodic_trace_outbox AFTER INSERT OR DELETE OR UPDATE
    ON pm_episodic_trace FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('trace');

-- Status changes are recorded by the database itself, whoever makes them.
CREATE FUNCTION pm_atom_status_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO pm_status_change (atom_id, from_status, to_status, reason, check_name)
        VALUES (NEW.id, NULL, NEW.status, NEW.status_reason,
                coalesce(nullif(current_setting('pegas.check_name', true), ''), 'store'));
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO pm_status_change (atom_id, from_status, to_status, reason, check_name)
        VALUES (NEW.id, OLD.status, NEW.status, NEW.status_reason,
                coalesce(nullif(current_setting('pegas.check_name', true), ''), 'manual'));
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

CREATE FUNCTION pm_touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END $$;

CREATE TRIGGER pm_atom_status_ins AFTER INSERT ON pm_atom
    FOR EACH ROW EXECUTE FUNCTION pm_atom_status_log();
CREATE TRIGGER pm_atom_status_upd BEFORE UPDATE ON pm_atom
    FOR EACH ROW EXECUTE FUNCTION pm_atom_status_log();
CREATE TRIGGER pm_document_touch BEFORE UPDATE ON pm_document
    FOR EACH ROW EXECUTE FUNCTION pm_touch_updated_at();
CREATE TRIGGER pm_research_gap_touch BEFORE UPDATE ON pm_research_gap
    FOR EACH ROW EXECUTE FUNCTION pm_touch_updated_at();
