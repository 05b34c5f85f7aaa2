-- name: one
-- The first and only block.
SELECT 1
