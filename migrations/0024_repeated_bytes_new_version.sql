-- A document whose bytes go back to an earlier version's (a file edited and then restored, a
-- branch checked out again) is a new version with those bytes, current from now on, and the
-- versions between stay in its history. Until now (uri, content_hash) was unique, so the
-- ingest answered "unchanged" and the memory kept the newer, no longer true text as current.
-- Which version holds given bytes now: the newest with them (`same_version`); the current
-- version is still one per URI (`pm_document_uri_current`).
ALTER TABLE pm_document DROP CONSTRAINT IF EXISTS pm_document_uri_content_hash_key;
CREATE INDEX IF NOT EXISTS pm_document_uri_hash ON pm_document (uri, content_hash, version DESC);
