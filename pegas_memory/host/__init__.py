"""The engine host: one process per data dir that owns the embedded vector store and the local
embedding model and serves them to every pegas-memory process on that data dir over a unix
socket (docs/decisions/0005-shared-engines.md).

`paths` (files and start configuration), `locks` (flocks), `wire` (frames and value encoding),
`engines` (the ops on the engines), `server` (the host process: active and standby), `client`
(a user process's lease and calls), `remote` (the `VectorIndex` and `Embedder` they present).
"""
