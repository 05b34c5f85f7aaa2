-- A writer projecting its own events (outbox.direct): the pending events of given entities,
-- skipping those a worker holds; the lock lasts the transaction.

-- name: claim_entities
-- Every unprojected event of these entities, due or delayed, in order.
SELECT id, entity_type, entity_id, op, attempts, applied FROM pm_outbox
 WHERE processed_at IS NULL AND parked_at IS NULL
   AND entity_type = %(type)s AND entity_id = ANY(%(ids)s)
 ORDER BY id FOR UPDATE SKIP LOCKED
