-- The self-check's content sweep (outbox.sweep): the next window of ids of a projected table,
-- and which of them still have an event in the outbox.

-- name: window_of_ids
-- Up to %(n)s ids after %(after)s, ascending ({table} is composed as an identifier).
SELECT id FROM {table} WHERE id > %(after)s ORDER BY id LIMIT %(n)s

-- name: pending_among
-- Ids of the window whose change is not projected yet (their point may rightly lag).
SELECT DISTINCT entity_id FROM pm_outbox
WHERE processed_at IS NULL AND entity_type = %(type)s AND entity_id = ANY(%(ids)s)
