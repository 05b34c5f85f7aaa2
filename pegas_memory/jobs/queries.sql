-- The job queue's statements (table pm_job, migrations/0004_jobs.sql). Every statement that
-- changes a running job is fenced by (worker, attempts): a worker that lost its job to another
-- never overwrites what the new owner records.

-- name: insert_job
-- A new queued job; with a key that an active job already holds, nothing (the caller reads it).
INSERT INTO pm_job (kind, args, idempotency_key, max_attempts, time_limit_s)
VALUES (%(kind)s, %(args)s, %(key)s, %(max_attempts)s, %(time_limit)s)
ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL AND state IN ('queued', 'running')
DO NOTHING
RETURNING *

-- name: active_by_key
SELECT * FROM pm_job
 WHERE idempotency_key = %(key)s AND state IN ('queued', 'running')

-- name: listen
-- Wake on any change of a job (the trigger of migrations/0004 sends "<id>:<state>").
LISTEN pm_job

-- name: get_job
-- The job, and whether a live session holds its worker's lock (a running job without it has a
-- dead worker: it is waiting to be taken over).
SELECT j.*, EXISTS (
       SELECT 1 FROM pg_locks AS l
        WHERE l.locktype = 'advisory' AND l.granted
          AND l.classid = %(ns)s::oid AND l.objid = (j.id & 2147483647)::oid
          AND l.objsubid = 2) AS worker_alive
  FROM pm_job AS j WHERE id = %(id)s

-- name: list_recent
SELECT j.*, EXISTS (
       SELECT 1 FROM pg_locks AS l
        WHERE l.locktype = 'advisory' AND l.granted
          AND l.classid = %(ns)s::oid AND l.objid = (j.id & 2147483647)::oid
          AND l.objsubid = 2) AS worker_alive
  FROM pm_job AS j
 WHERE %(state)s::text IS NULL OR state = %(state)s
 ORDER BY id DESC
 LIMIT %(limit)s

-- name: cancel_job
-- A queued job is cancelled at once; a running one is asked to stop; a finished one is left alone.
UPDATE pm_job
   SET cancel_requested = cancel_requested OR state IN ('queued', 'running'),
       error = CASE WHEN state = 'queued' THEN 'cancelled before it started' ELSE error END,
       finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END,
       state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END
 WHERE id = %(id)s
RETURNING *

-- name: queued_candidates
-- Queued jobs of the kinds this runner handles, oldest first; rows another claimer holds are skipped.
SELECT id, attempts, max_attempts, cancel_requested FROM pm_job
 WHERE state = 'queued' AND kind = ANY(%(kinds)s) AND run_after <= now()
 ORDER BY run_after, id
 LIMIT %(limit)s
 FOR UPDATE SKIP LOCKED

-- name: stale_running
-- Running jobs whose worker may be gone: no live session holds their advisory lock (its worker's
-- connection closed: the process died), or a heartbeat older than the lease. The lock, tried
-- by the taker, tells for sure.
SELECT id, attempts, max_attempts, cancel_requested, worker FROM pm_job AS j
 WHERE state = 'running' AND kind = ANY(%(kinds)s)
   AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => %(lease)s)
        OR NOT EXISTS (
       SELECT 1 FROM pg_locks AS l
        WHERE l.locktype = 'advisory' AND l.granted
          AND l.classid = %(ns)s::oid AND l.objid = (j.id & 2147483647)::oid
          AND l.objsubid = 2))
 ORDER BY id

-- name: try_lock
SELECT pg_try_advisory_lock(%(ns)s::int4, %(key)s::int4) AS ok

-- name: unlock
SELECT pg_advisory_unlock(%(ns)s::int4, %(key)s::int4) AS ok

-- name: start_job
-- Take the job (queued, or running under a dead worker: fenced by the attempts that were read).
UPDATE pm_job
   SET state = 'running', worker = %(worker)s, attempts = attempts + 1,
       heartbeat_at = now(), started_at = now(), error = NULL
 WHERE id = %(id)s AND attempts = %(attempts)s AND state IN ('queued', 'running')
RETURNING *

-- name: abandon_job
-- A job that cannot start again: cancelled while its worker was gone, or out of attempts.
UPDATE pm_job
   SET state = %(state)s, error = %(error)s, finished_at = now(), worker = NULL
 WHERE id = %(id)s AND attempts = %(attempts)s AND state IN ('queued', 'running')

-- name: report_progress
UPDATE pm_job
   SET progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s,
       heartbeat_at = now()
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'

-- name: finish_job
-- The outcome: done (with result), failed or cancelled (with error); the last progress too.
UPDATE pm_job
   SET state = %(state)s, result = %(result)s, error = %(error)s, finished_at = now(),
       progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s,
       heartbeat_at = now()
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'

-- name: requeue_job
-- Back to the queue: released by a runner that closes (the attempt is not counted), or retried
-- later after an outage (it is). A cancel requested meanwhile wins.
UPDATE pm_job
   SET state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END,
       finished_at = CASE WHEN cancel_requested THEN now() END,
       error = CASE WHEN cancel_requested THEN 'cancelled while it was released' ELSE %(error)s END,
       attempts = attempts - %(uncount)s,
       run_after = now() + make_interval(secs => %(delay)s),
       worker = NULL, heartbeat_at = NULL,
       progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'

-- name: heartbeat
-- Beat for the jobs this runner still holds (state running, the slot's name, and the advisory lock held
-- by the slot's session); return their cancel requests. A job missing from the answer is lost.
UPDATE pm_job AS j
   SET heartbeat_at = now()
  FROM unnest(%(ids)s::bigint[], %(attempts)s::int[], %(pids)s::int[], %(workers)s::text[])
       AS r(id, attempts, pid, worker)
 WHERE j.id = r.id AND j.attempts = r.attempts AND j.state = 'running' AND j.worker = r.worker
   AND EXISTS (
       SELECT 1 FROM pg_locks AS l
        WHERE l.locktype = 'advisory' AND l.granted AND l.pid = r.pid
          AND l.classid = %(ns)s::oid AND l.objid = (j.id & 2147483647)::oid
          AND l.objsubid = 2)
RETURNING j.id, j.cancel_requested
