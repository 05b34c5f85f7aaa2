"""Settings: one frozen object, read from `PEGAS_*` environment variables and an optional env file.

An unset service URL means that service's embedded default:

- PEGAS_DATABASE_URL: own PostgreSQL cluster under `data_dir/postgres`, or external >= 15;
- PEGAS_QDRANT_URL: Qdrant engine in-process (qdrant-edge), or a Qdrant server;
- PEGAS_GRAPH_URI: FalkorDB on a unix socket under `data_dir`, or Memgraph/Neo4j over Bolt;
- PEGAS_OLLAMA_URL: local multilingual embedder and offline distiller, or Ollama.

Only entry points build Settings; library modules receive it as an argument.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("pegas-memory", appauthor=False))


class Settings(BaseSettings):
    """All configuration of pegas-memory. Frozen: build a new one to change anything."""

    model_config = SettingsConfigDict(
        env_prefix="PEGAS_",
        env_file=None,
        extra="ignore",
        frozen=True,
    )

    # --- where data lives ---
    data_dir: Path = Field(default_factory=default_data_dir)

    # --- PostgreSQL (source of truth) ---
    database_url: str | None = None
    db_pool_min: int = 1
    db_pool_max: int = 8
    db_connect_timeout: float = 10.0
    statement_timeout_ms: int = 60_000

    # --- Qdrant (vector slice) ---
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    qdrant_collection_prefix: str = "pm_atoms"
    qdrant_timeout: float = 10.0
    # searches that can match at most this many points run exact (brute force, perfect recall)
    vector_exact_limit: int = 20_000
    vector_hnsw_ef: int = 128

    # --- engine host (one per data dir: the embedded vector store and the local model) ---
    # "on": every process on the data dir uses the host's engines over a unix socket; "off":
    # this process opens them itself (then one process per data dir has the dense arm);
    # "auto": "on" for the pegas-memory command (serve, CLI, worker), "off" for a program that
    # builds MemoryService itself. See docs/decisions/0005-shared-engines.md.
    engine_host: Literal["auto", "on", "off"] = "auto"
    host_idle_seconds: float = 5.0  # the host exits this long after its last user left
    host_start_timeout: float = 90.0  # a cold start loads the model (seconds on a busy machine)
    host_takeover_seconds: float = 3.0  # how long a client waits for the standby to take over
    host_call_timeout: float = 300.0  # one call (an embedding batch); optimize has none

    # --- graph slice ---
    graph_uri: str | None = None  # bolt://host:7687 for Memgraph/Neo4j
    graph_user: str | None = None
    graph_password: str | None = None
    graph_name: str = "pegas"
    graph_flavour: Literal["auto", "memgraph", "neo4j"] = "auto"
    graph_database: str | None = None  # Neo4j database name (Memgraph has one)
    graph_query_timeout_ms: int = 30_000

    # --- models ---
    ollama_url: str | None = None
    embedding_model: str = "embeddinggemma"
    embedding_dim: int = 768
    chat_model: str = "qwen2.5:7b-instruct"
    local_embedder: str = "e5-small"
    # "auto": the Ollama chat model when PEGAS_OLLAMA_URL is set, else the offline distiller
    distiller: Literal["auto", "ollama", "offline"] = "auto"
    model_timeout: float = 60.0
    model_retries: int = 2

    # --- outbox worker ---
    # "auto": the MCP server drains the outbox itself when the projections are embedded.
    embedded_worker: Literal["auto", "on", "off"] = "auto"
    outbox_batch_size: int = 256
    outbox_max_attempts: int = 8
    # Slice self-check (outbox/selfcheck.py): how often the embedded worker compares each
    # slice with PostgreSQL, and whether a damaged slice is rebuilt from it automatically.
    slice_check_seconds: float = 60.0
    auto_repair_slices: bool = True
    outbox_poll_seconds: float = 2.0

    # --- thresholds ---
    dedup_threshold: float = 0.90
    cross_confirm_threshold: float = 0.90

    # --- ingest limits and security ---
    proxy_url: str | None = Field(
        default=None, validation_alias=AliasChoices("PEGAS_PROXY_URL", "PROXY_URL")
    )
    ingest_roots: list[Path] = Field(default_factory=list)
    url_allowlist: list[str] = Field(default_factory=list)
    max_fetch_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 5
    fetch_timeout: float = 30.0
    max_pages: int = 2000
    max_chunks: int = 20_000
    max_text_chars: int = 5_000_000
    max_argument_chars: int = 1_000_000

    # --- code memory ---
    code_max_files: int = 20_000
    code_max_file_bytes: int = 1_000_000

    # --- inference ---
    inference_max_derived: int = 2_000_000
    inference_derivations_per_rule: int = 3

    # --- per-tool time limits (seconds) ---
    tool_timeout: float = 120.0
    ingest_timeout: float = 900.0

    # --- research loop ---
    searxng_url: str | None = None

    # --- retrieval ---
    search_default_limit: int = 10
    search_max_limit: int = 100
    context_default_tokens: int = 2_000
    context_max_tokens: int = 32_000
    # memory_get_context registers a research gap when its best evidence is this weak
    auto_gap_on_weak_context: bool = True
    weak_context_cosine: float = 0.35

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def database_embedded(self) -> bool:
        return not self.database_url

    @property
    def vectors_embedded(self) -> bool:
        return not self.qdrant_url

    @property
    def graph_embedded(self) -> bool:
        return not self.graph_uri

    @property
    def shares_vectors(self) -> bool:
        """Whether the embedded vector store is used through the data dir's engine host."""
        return self.engine_host == "on" and self.vectors_embedded

    @property
    def shares_embedder(self) -> bool:
        """Whether the local embedding model is used through the data dir's engine host."""
        return self.engine_host == "on" and not self.ollama_url

    @property
    def runs_embedded_worker(self) -> bool:
        """Whether `serve` drains the outbox itself (embedded engines allow one writer)."""
        if self.embedded_worker == "on":
            return True
        if self.embedded_worker == "off":
            return False
        return self.vectors_embedded or self.graph_embedded


def load_settings(env_file: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Build settings from the environment, an env file (or `PEGAS_ENV_FILE`), and overrides."""
    env_file = env_file or os.environ.get("PEGAS_ENV_FILE")
    if env_file is not None:
        return Settings(_env_file=env_file, **overrides)  # type: ignore[call-arg]
    return Settings(**overrides)
