-- 0004_jobs: durable background jobs. Long work (ingesting a big PDF, indexing a repository, a
-- research loop, a rebuild) outlives an MCP tool call, so it is queued here and run by whichever
-- pegas-memory process has a job runner. Runners claim queued rows with FOR UPDATE SKIP LOCKED
-- and hold a session-level advisory lock (class 1785684578, object = id) while a job runs: a
-- running row whose lock can be taken belongs to a dead worker and is taken over. Every change of
-- state, progress or cancel request is NOTIFYed on channel `pm_job` ("<id>:<state>").

CREATE TABLE pm_job (
    id                bigserial PRIMARY KEY,
    kind              text NOT NULL CHECK (kind IN ('ingest', 'index_code', 'research', 'rebuild')),
    args              jsonb NOT NULL DEFAULT '{}'::jsonb,
    state             text NOT NULL DEFAULT 'queued'
                      CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    idempotency_key   text,
    progress_done     bigint NOT NULL DEFAULT 0,
    progress_total    bigint,
    progress_message  text NOT NULL DEFAULT '',
    result            jsonb,
    error             text,
    attempts          integer NOT NULL DEFAULT 0,
    max_attempts      integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    time_limit_s      double precision CHECK (time_limit_s > 0),
    run_after         timestamptz NOT NULL DEFAULT now(),
    worker            text,
    heartbeat_at      timestamptz,
    cancel_requested  boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz,
    CHECK ((state IN ('done', 'failed', 'cancelled')) = (finished_at IS NOT NULL))
);
-- The same request twice while the first is queued or running is the same job.
CREATE UNIQUE INDEX pm_job_active_key ON pm_job (idempotency_key)
    WHERE idempotency_key IS NOT NULL AND state IN ('queued', 'running');
CREATE INDEX pm_job_queued ON pm_job (run_after, id) WHERE state = 'queued';
CREATE INDEX pm_job_running ON pm_job (heartbeat_at) WHERE state = 'running';
CREATE INDEX pm_job_recent ON pm_job (created_at DESC, id DESC);

CREATE FUNCTION pm_job_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pm_job', NEW.id::text || ':' || NEW.state);
    RETURN NULL;
END $$;

CREATE TRIGGER pm_job_notify AFTER INSERT OR UPDATE OF
    state, progress_done, progress_total, progress_message, cancel_requested
    ON pm_job FOR EACH ROW EXECUTE FUNCTION pm_job_notify();
