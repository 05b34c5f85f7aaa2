-- 0025_code_analyzer_runs: the type-checker analyzers' last run per repository, kept in
-- PostgreSQL (issue 29). A re-index runs scip-python / scip-typescript only over the files a
-- change can move and takes every other file's SCIP document from the previous run
-- (code_memory/analyzer_slice.py). Kept in process only, that previous run was lost at every
-- restart, and the first re-index after one ran the analyzer over the whole repository (twisted:
-- 146 s of CPU instead of 29 s). Nothing here is a projection: rows are written in the index's
-- own transaction, so they always describe the bytes of a committed index.
--
-- pm_code_analyzer_run: one row per (repository, analyzer): the analyzer's version (what its
-- `--version` printed: a snapshot of another version is never reused), the tool and version its
-- index named, a generation (a new uuid at every write; a process's in-memory copy is used only
-- while it matches) and the stored bytes, with when it was last used (the least recently used
-- runs are dropped past a byte budget).
-- pm_code_analyzer_document: per file, the content hash it was analysed at, its Python module,
-- and its document (code_memory/scip.py pack_document: zlib of a symbol table and the
-- occurrences' numbers; NULL when the analyzer wrote none for the file). Both go with their
-- repository (ON DELETE CASCADE from pm_code_repo).

CREATE TABLE pm_code_analyzer_run (
    repo          text NOT NULL REFERENCES pm_code_repo (name) ON DELETE CASCADE,
    analyzer      text NOT NULL,
    version       text NOT NULL,
    tool          text NOT NULL,
    tool_version  text NOT NULL,
    project_root  text NOT NULL,
    generation    uuid NOT NULL,
    bytes         bigint NOT NULL DEFAULT 0,
    used_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (repo, analyzer)
);

CREATE TABLE pm_code_analyzer_document (
    repo          text NOT NULL,
    analyzer      text NOT NULL,
    path          text NOT NULL,
    content_hash  text,
    module        text,
    document      bytea,
    PRIMARY KEY (repo, analyzer, path),
    FOREIGN KEY (repo, analyzer) REFERENCES pm_code_analyzer_run (repo, analyzer)
        ON DELETE CASCADE
);
