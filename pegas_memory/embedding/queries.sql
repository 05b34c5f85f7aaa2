-- The embedding cache (embedding/cache.py): vectors keyed by (model, content hash).

-- name: cached_vectors
SELECT content_hash, vector FROM pm_embedding_cache
 WHERE model = %s AND content_hash = ANY(%s)

-- name: store_vector
-- A vector computed meanwhile by another process wins; both are the same model's output.
INSERT INTO pm_embedding_cache (model, content_hash, dim, vector)
VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING

-- name: forget_vectors
-- Every model's vector of these texts (erasure must not leave copies behind).
DELETE FROM pm_embedding_cache WHERE content_hash = ANY(%s)

-- name: forget_model_vectors
-- This model's vectors of these content hashes (what a cancelled job cached for nothing).
DELETE FROM pm_embedding_cache WHERE model = %s AND content_hash = ANY(%s)
