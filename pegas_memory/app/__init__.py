"""The application layer: `MemoryService` (what every MCP tool, CLI command and UI page calls),
the process's engines (`runtime`), the request models and the input checks.

Below it the domain families (ingest, search, curation, reasoning, code memory) see only narrow
Protocols of the engines (`outbox.slices.Engines`), never this package; above it sit the MCP
server, the CLI and the UI.
"""
