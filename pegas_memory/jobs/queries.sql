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

-- name: claim_job
-- Take one job, in one statement. First a running job whose worker is gone (no live session
-- holds its advisory lock: its process died or its connection dropped), then the oldest queued
-- job that is due. The row is locked FOR UPDATE SKIP LOCKED (a row another claimer is taking is
-- skipped), then this session takes the job's advisory lock, the lease (in a materialized CTE:
-- tried once, on the one row); a row whose lock another session holds is left as it is. The
-- job starts (attempt + 1) unless it cannot run again: taken over with a cancel requested
-- (cancelled) or out of attempts (failed); such a row comes back finished, and its lock is
-- released by the same statement. `was` and `previous_worker` say what the row was before.
WITH candidate AS MATERIALIZED (
    SELECT j.id, j.state AS was, j.worker AS previous_worker,
           CASE WHEN j.state = 'running' AND j.cancel_requested THEN 'cancelled'
                WHEN j.attempts >= j.max_attempts THEN 'failed'
                ELSE 'running' END AS verdict
      FROM pm_job AS j
     WHERE j.kind = ANY(%(kinds)s)
       AND (j.state = 'running' OR (j.state = 'queued' AND j.run_after <= now()))
       AND NOT EXISTS (
           SELECT 1 FROM pg_locks AS l
            WHERE l.locktype = 'advisory' AND l.granted
              AND l.classid = %(ns)s::oid AND l.objid = (j.id & 2147483647)::oid
              AND l.objsubid = 2)
     ORDER BY j.state = 'running' DESC, j.run_after, j.id
     LIMIT 1
     FOR UPDATE OF j SKIP LOCKED
), leased AS MATERIALIZED (
    SELECT c.* FROM candidate AS c
     WHERE pg_try_advisory_lock(%(ns)s::int4, (c.id & 2147483647)::int4)
)
UPDATE pm_job AS j
   SET state = leased.verdict,
       worker = CASE WHEN leased.verdict = 'running' THEN %(worker)s END,
       attempts = j.attempts + CASE WHEN leased.verdict = 'running' THEN 1 ELSE 0 END,
       heartbeat_at = CASE WHEN leased.verdict = 'running' THEN now() ELSE j.heartbeat_at END,
       started_at = CASE WHEN leased.verdict = 'running' THEN now() ELSE j.started_at END,
       finished_at = CASE WHEN leased.verdict = 'running' THEN NULL ELSE now() END,
       error = CASE leased.verdict
           WHEN 'running' THEN NULL
           WHEN 'cancelled' THEN 'cancelled while its worker was gone'
           ELSE 'job ' || j.id || ' was started ' || j.attempts || ' times and its worker '
                'stopped every time (killed, or out of memory?); giving up. Split the work, '
                'or raise max_attempts when submitting it.'
           END
  FROM leased
 WHERE j.id = leased.id
RETURNING j.*, leased.was, leased.previous_worker,
          CASE WHEN j.state <> 'running'
               THEN pg_advisory_unlock(%(ns)s::int4, (j.id & 2147483647)::int4) END AS released

-- name: unlock
SELECT pg_advisory_unlock(%(ns)s::int4, %(key)s::int4) AS ok

-- name: report_progress
UPDATE pm_job
   SET progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s,
       heartbeat_at = now()
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'

-- name: finish_job
-- The outcome: done (with result), failed or cancelled (with error); the last progress too. The
-- lease's lock is released by the same statement: the row is never seen finished-but-locked.
UPDATE pm_job
   SET state = %(state)s, result = %(result)s, error = %(error)s, finished_at = now(),
       progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s,
       heartbeat_at = now()
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'
RETURNING pg_advisory_unlock(%(ns)s::int4, (id & 2147483647)::int4) AS unlocked

-- name: requeue_job
-- Back to the queue: released by a runner that closes (the attempt is not counted), or retried
-- later after an outage (it is). A cancel requested meanwhile wins. The lock is released by the
-- same statement, so a claimer woken by the change finds the job free, never queued-but-locked.
UPDATE pm_job
   SET state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END,
       finished_at = CASE WHEN cancel_requested THEN now() END,
       error = CASE WHEN cancel_requested THEN 'cancelled while it was released' ELSE %(error)s END,
       attempts = attempts - %(uncount)s,
       run_after = now() + make_interval(secs => %(delay)s),
       worker = NULL, heartbeat_at = NULL,
       progress_done = %(done)s, progress_total = %(total)s, progress_message = %(message)s
 WHERE id = %(id)s AND worker = %(worker)s AND attempts = %(attempts)s AND state = 'running'
RETURNING pg_advisory_unlock(%(ns)s::int4, (id & 2147483647)::int4) AS unlocked

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
