"""Settings: one frozen object, read from `PEGAS_*` environment variables and an optional env file.

An unset service URL means that service's embedded default:

- PEGAS_DATABASE_URL: own PostgreSQL cluster under `data_dir/postgres`, or external >= 15;
- PEGAS_QDRANT_URL: Qdrant engine in-process (qdrant-edge), or a Qdrant server;
- PEGAS_GRAPH_URI: FalkorDB on a unix socket under `data_dir`, or Memgraph/Neo4j over Bolt;
- PEGAS_OLLAMA_URL: local multilingual embedder and offline distiller, or Ollama.

Only entry points build Settings; library modules receive it as an argument. A list setting takes
a JSON list or, as people type them, paths separated by the OS path separator (`:`) or other
values by commas. `load_settings_leniently` never fails: an invalid value is reported as a
`SettingIssue` (the variable, what is wrong, a right example) and replaced by its default, so the
server can start and answer every call with that report instead of exiting.
Every numeric setting has a range (pydantic bounds; floats finite): a value out of it is such an
issue too (PEGAS_OUTBOX_POLL_SECONDS=0 would spin a core, PEGAS_JOB_WORKERS=-3 run no jobs).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import platformdirs
from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from pegas_memory.models import DecayProfile, Vocabulary
from pegas_memory.vocabulary import (
    CodeAnalyzerMode,
    DistillerChoice,
    GraphFlavour,
    LexicalEngine,
    StoreProvenance,
    Switch,
    WebRender,
)


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
    db_pool_min: int = Field(1, ge=1, le=100)
    db_pool_max: int = Field(8, ge=1, le=200)
    db_connect_timeout: float = Field(10.0, gt=0, le=600, allow_inf_nan=False)
    statement_timeout_ms: int = Field(60_000, ge=0, le=86_400_000)

    # --- Qdrant (vector slice) ---
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    qdrant_collection_prefix: str = "pm_atoms"
    # where the BM25 arm of atoms and passages runs (vocabulary.LexicalEngine)
    lexical_engine: LexicalEngine = LexicalEngine.POSTGRES
    qdrant_timeout: float = Field(10.0, gt=0, le=3600, allow_inf_nan=False)
    # searches that can match at most this many points run exact (brute force, perfect recall)
    vector_exact_limit: int = Field(20_000, ge=0, le=100_000_000)
    vector_hnsw_ef: int = Field(128, ge=4, le=10_000)

    # --- engine host (one per data dir: the embedded vector store and the local model) ---
    # "on": every process on the data dir uses the host's engines over a unix socket; "off":
    # this process opens them itself (then one process per data dir has the dense arm);
    # "auto": "on" for the pegas-memory command (serve, CLI, worker), "off" for a program that
    # builds MemoryService itself. See docs/decisions/0005-shared-engines.md.
    engine_host: Switch = Switch.AUTO
    host_idle_seconds: float = Field(
        5.0, ge=0, le=86_400, allow_inf_nan=False
    )  # the host exits this long after its last user left
    host_start_timeout: float = Field(
        90.0, gt=0, le=3600, allow_inf_nan=False
    )  # a cold start loads the model (seconds on a busy machine)
    host_takeover_seconds: float = Field(
        3.0, gt=0, le=600, allow_inf_nan=False
    )  # how long a client waits for the standby to take over
    host_call_timeout: float = Field(
        300.0, gt=0, le=86_400, allow_inf_nan=False
    )  # one call (an embedding batch); optimize has none

    # --- graph slice ---
    graph_uri: str | None = None  # bolt://host:7687 for Memgraph/Neo4j
    graph_user: str | None = None
    graph_password: str | None = None
    graph_name: str = "pegas"
    graph_flavour: GraphFlavour = GraphFlavour.AUTO
    graph_database: str | None = None  # Neo4j database name (Memgraph has one)
    graph_query_timeout_ms: int = Field(30_000, ge=0, le=86_400_000)

    # --- models ---
    ollama_url: str | None = None
    embedding_model: str = "embeddinggemma"
    embedding_dim: int = Field(768, ge=1, le=65_536)
    chat_model: str = "qwen2.5:7b-instruct"
    local_embedder: str = "e5-small"
    # "auto": the Ollama chat model when PEGAS_OLLAMA_URL is set, else the offline distiller
    distiller: DistillerChoice = DistillerChoice.AUTO
    model_timeout: float = Field(60.0, gt=0, le=3600, allow_inf_nan=False)
    model_retries: int = Field(2, ge=0, le=20)

    # --- outbox worker ---
    # "auto": the MCP server drains the outbox itself when the projections are embedded.
    embedded_worker: Switch = Switch.AUTO
    outbox_batch_size: int = Field(256, ge=1, le=100_000)
    outbox_max_attempts: int = Field(8, ge=1, le=1000)
    # Slice self-check (outbox/selfcheck.py): how often the embedded worker compares each
    # slice with PostgreSQL, and whether a damaged slice is rebuilt from it automatically.
    slice_check_seconds: float = Field(60.0, ge=0.1, le=86_400, allow_inf_nan=False)
    auto_repair_slices: bool = True
    outbox_poll_seconds: float = Field(2.0, ge=0.05, le=3600, allow_inf_nan=False)

    # --- thresholds ---
    dedup_threshold: float = Field(0.90, ge=0, le=1, allow_inf_nan=False)
    cross_confirm_threshold: float = Field(0.90, ge=0, le=1, allow_inf_nan=False)

    # --- ingest limits and security ---
    proxy_url: str | None = Field(
        default=None, validation_alias=AliasChoices("PEGAS_PROXY_URL", "PROXY_URL")
    )
    ingest_roots: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    url_allowlist: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_fetch_bytes: int = Field(20 * 1024 * 1024, ge=1, le=1 << 40)
    max_redirects: int = Field(5, ge=0, le=50)
    fetch_timeout: float = Field(30.0, gt=0, le=3600, allow_inf_nan=False)
    # Web pages whose text their scripts write (ingest/render.py): "auto" renders a page that
    # came as an app shell, "always" every HTML page, "never" none. PEGAS_BROWSER: the Chromium
    # to drive (default: the first chromium/google-chrome on PATH).
    web_render: WebRender = WebRender.AUTO
    browser: str | None = None
    max_pages: int = Field(2000, ge=1, le=10_000_000)
    max_chunks: int = Field(20_000, ge=1, le=100_000_000)
    # The chunker's size limit in characters, ingest.chunking.CHUNK_CHARS (which says why
    # 2,000); it applies to documents ingested after a change, a stored version keeps its chunks.
    chunk_chars: int = Field(2000, ge=400, le=20_000)
    max_text_chars: int = Field(5_000_000, ge=1, le=1 << 40)
    max_argument_chars: int = Field(1_000_000, ge=1, le=1 << 40)

    # --- code memory ---
    code_max_files: int = Field(20_000, ge=1, le=100_000_000)
    code_max_file_bytes: int = Field(1_000_000, ge=1, le=1 << 40)
    # A one-file Python change re-resolves only its importers (py_scope): faster, not exact.
    code_python_scoped: bool = False
    # Type-checker analyzers (scip-python, scip-typescript from npm) give the call edges of
    # Python and JavaScript/TypeScript where they run: "auto" uses one when its binary is found
    # (on PATH or in PEGAS_CODE_ANALYZER_PATH), "off" keeps the tree-sitter heuristic alone.
    # An analyzer that fails or passes its time limit leaves the heuristic's edges, with a warning.
    code_analyzer: CodeAnalyzerMode = CodeAnalyzerMode.AUTO
    code_analyzer_path: str | None = None  # directories searched before PATH, ":"-separated
    code_analyzer_timeout: float = Field(900.0, gt=0, le=86_400, allow_inf_nan=False)
    # Node's heap for an analyzer's run, in MB (None: Node's default, which grows to what the
    # repository needs: about 2.9 GB resident for scip-python over a 392k-line repository).
    code_analyzer_heap_mb: int | None = Field(None, ge=16, le=1 << 20)

    # --- inference ---
    inference_max_derived: int = Field(2_000_000, ge=1, le=1 << 40)
    inference_derivations_per_rule: int = Field(3, ge=1, le=1000)

    # --- per-tool time limits (seconds) ---
    tool_timeout: float = Field(120.0, gt=0, le=86_400, allow_inf_nan=False)
    ingest_timeout: float = Field(900.0, gt=0, le=86_400 * 7, allow_inf_nan=False)

    # --- background jobs (docs/decisions/0004-jobs.md) ---
    # memory_ingest and memory_store_code answer within this many seconds: with the result when
    # the work finished, else with the job id to follow (memory_job).
    tool_wait_seconds: float = Field(20.0, ge=0, le=86_400, allow_inf_nan=False)
    # job runner threads in each `serve` and `worker` process (0: this process runs no jobs;
    # another one must, e.g. the systemd worker); SKIP LOCKED keeps several runners apart.
    job_workers: int = Field(2, ge=0, le=64)
    job_lease_seconds: float = Field(
        30.0, ge=1, le=86_400, allow_inf_nan=False
    )  # a job whose worker is silent this long is taken over
    job_time_limit: float = Field(
        3600.0, gt=0, le=86_400 * 30, allow_inf_nan=False
    )  # one attempt of a job is stopped (and rolled back) after this

    # --- research loop ---
    searxng_url: str | None = None

    # --- provenance ---
    # memory_store of a knowledge atom with no source, quote, session or code citation: refused
    # ("enforce"), stored and flagged as unsourced, ranked below sourced atoms ("flag"), or stored
    # as any other ("off")
    store_provenance: StoreProvenance = StoreProvenance.FLAG

    # --- the person's view (`pegas-memory ui`) ---
    # The session token every change in the UI needs. Unset: a random one per start (printed,
    # kept in data_dir/ui/token, owner-only). Required to bind the UI to a non-loopback address.
    ui_token: str | None = Field(None, min_length=24, max_length=256, pattern=r"^[\x21-\x7e]+$")

    # --- feedback (memory_feedback) ---
    # How much the agent's feedback moves ranking: a score is multiplied by
    # (1 - w) + w * posterior / prior mean (search/fusion.feedback_multiplier). 0 (the default)
    # leaves ranking exactly as without feedback, until a benchmark shows a gain.
    feedback_weight: float = Field(0.0, ge=0, le=1, allow_inf_nan=False)
    # The Beta prior of the feedback confidence: pseudo-counts of helped and of misled reports.
    feedback_prior_helped: float = Field(1.0, gt=0, le=1_000, allow_inf_nan=False)
    feedback_prior_misled: float = Field(1.0, gt=0, le=1_000, allow_inf_nan=False)

    # --- retrieval ---
    search_default_limit: int = Field(10, ge=1, le=10_000)
    search_max_limit: int = Field(100, ge=1, le=10_000)
    context_default_tokens: int = Field(2_000, ge=1, le=10_000_000)
    context_max_tokens: int = Field(32_000, ge=1, le=10_000_000)
    # memory_get_context registers a research gap when its best evidence is this weak
    auto_gap_on_weak_context: bool = True
    weak_context_cosine: float = Field(0.35, ge=-1, le=1, allow_inf_nan=False)

    # --- decay profiles (search/fusion.py, migrations/0015_decay_profiles.sql) ---
    # Whether ranking applies each memory's decay profile. Off: on LoCoMo and LongMemEval the
    # profiles lose recall (bench/results/decay-profiles.md); the profiles are recorded anyway
    # and memory_search's half_life_days still applies one half-life to a call.
    decay_ranking: bool = False
    # Half-lives in days: conversational memory (the agent's notes and traces) ages from when it
    # was said; perishable knowledge (web pages, news) from its publication date.
    decay_conversational_days: float = Field(30.0, gt=0, le=1_000_000, allow_inf_nan=False)
    decay_perishable_days: float = Field(365.0, gt=0, le=1_000_000, allow_inf_nan=False)
    # The profile of document knowledge that is neither a web page nor timeless by its type.
    decay_document_default: DecayProfile = DecayProfile.TIMELESS
    # How many days the as-of audit lines of re-distills and truth maintenance are kept
    # (pm_withdrawal; erasure lines hold no words and are kept). 0 keeps them for ever. Trimmed
    # by the outbox worker when idle; an as-of instant before the trimmed horizon is refused.
    withdrawal_retention_days: float = Field(0.0, ge=0, le=1_000_000, allow_inf_nan=False)

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("ingest_roots", mode="before")
    @classmethod
    def _path_list(cls, value: object) -> object:
        return split_list(value, os.pathsep)

    @field_validator("url_allowlist", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        return split_list(value, ",")

    @field_validator(
        "database_url", "qdrant_url", "graph_uri", "ollama_url", "searxng_url", "proxy_url"
    )
    @classmethod
    def _url(cls, value: str | None, info: Any) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        schemes = _URL_SCHEMES[info.field_name]
        if info.field_name == "database_url" and "://" not in value and "=" in value:
            return value  # a libpq key=value connection string
        match = re.match(r"^([a-z][a-z0-9+.-]*)://[^\s]+$", value, re.IGNORECASE)
        if not match or match.group(1).lower() not in schemes:
            starts = " or ".join(scheme + "://" for scheme in schemes)
            raise ValueError(f"must be a URL starting with {starts}")
        return value

    @property
    def decay_half_lives(self) -> dict[str, float]:
        """Profile -> half-life in days that ranking applies: empty when decay_ranking is off;
        timeless never decays."""
        if not self.decay_ranking:
            return {}
        return {
            DecayProfile.CONVERSATIONAL: self.decay_conversational_days,
            DecayProfile.PERISHABLE: self.decay_perishable_days,
        }

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
        return self.engine_host == Switch.ON and self.vectors_embedded

    @property
    def shares_embedder(self) -> bool:
        """Whether the local embedding model is used through the data dir's engine host."""
        return self.engine_host == Switch.ON and not self.ollama_url

    @property
    def runs_embedded_worker(self) -> bool:
        """Whether `serve` drains the outbox itself (embedded engines allow one writer)."""
        if self.embedded_worker == Switch.ON:
            return True
        if self.embedded_worker == Switch.OFF:
            return False
        return self.vectors_embedded or self.graph_embedded


_URL_SCHEMES: dict[str, tuple[str, ...]] = {
    "database_url": ("postgresql", "postgres"),
    "qdrant_url": ("http", "https"),
    "graph_uri": ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"),
    "ollama_url": ("http", "https"),
    "searxng_url": ("http", "https"),
    "proxy_url": ("http", "https", "socks5", "socks5h", "socks4"),
}

# A right value for settings whose type alone does not show one.
_EXAMPLES: dict[str, str] = {
    "data_dir": "/home/me/.local/share/pegas-memory",
    "database_url": "postgresql://user:password@localhost:5432/pegas",
    "qdrant_url": "http://localhost:6333",
    "graph_uri": "bolt://localhost:7687",
    "ollama_url": "http://localhost:11434",
    "searxng_url": "http://localhost:8888",
    "proxy_url": "http://proxy.example.org:3128",
    "ingest_roots": f"/home/me/papers{os.pathsep}/srv/docs (or a JSON list)",
    "url_allowlist": "example.org,10.0.0.0/8 (or a JSON list)",
    "ui_token": "a random string of 24 or more printable characters (python -c 'import secrets; "
    "print(secrets.token_urlsafe(32))')",
}


def split_list(value: object, separator: str) -> object:
    """A list setting from its environment text: a JSON list, or items split by `separator`
    (blank items dropped). Anything else (a list given in code) passes through unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError(f"looks like a JSON list but is not one ({exc})") from exc
    return [item.strip() for item in text.split(separator) if item.strip()]


@dataclass(frozen=True)
class SettingIssue:
    """One invalid setting: the variable to fix, what is wrong with its value, a right value."""

    name: str
    problem: str
    example: str

    def sentence(self) -> str:
        return f"{self.name}: {self.problem}; for example {self.name}={self.example}"


def _env_name(field: str) -> str:
    return "PEGAS_" + field.upper()


def _example(field: str) -> str:
    if field in _EXAMPLES:
        return _EXAMPLES[field]
    info = Settings.model_fields[field]
    if get_origin(info.annotation) is Literal:
        return " or ".join(str(a) for a in get_args(info.annotation))
    if isinstance(info.annotation, type) and issubclass(info.annotation, Vocabulary):
        return " or ".join(info.annotation.values())
    if info.annotation is bool:
        return "true (or false)"
    default = info.get_default(call_default_factory=True)
    return str(default) if default is not None else "(see docs/configuration)"


def _shown(field: str, value: object) -> str:
    """The bad value quoted for the message: secrets never, passwords in URLs masked."""
    if not isinstance(value, str | int | float) or "password" in field or "key" in field:
        return ""
    text = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", str(value))
    return f"{text[:200]!r} "


def _issues(exc: Exception) -> list[tuple[str, SettingIssue]]:
    """(field, issue) for each invalid setting named by pydantic's error."""
    found: list[tuple[str, SettingIssue]] = []
    if isinstance(exc, ValidationError):
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else ""
            field = field.removeprefix("PEGAS_").lower()
            if field not in Settings.model_fields:
                continue
            value = err.get("input")
            shown = _shown(field, value)
            message = str(err["msg"]).removeprefix("Value error, ")
            problem = f"the value {shown}is invalid: {message}"
            found.append((field, SettingIssue(_env_name(field), problem, _example(field))))
    elif isinstance(exc, SettingsError):
        match = re.search(r'field "([a-z_]+)"', str(exc))
        if match and match.group(1) in Settings.model_fields:
            field = match.group(1)
            problem = f"the value cannot be read ({exc.__cause__ or exc})"
            found.append((field, SettingIssue(_env_name(field), problem, _example(field))))
    return found


def load_settings_leniently(
    env_file: str | os.PathLike[str] | None = None, **overrides: Any
) -> tuple[Settings, tuple[SettingIssue, ...]]:
    """Settings and the invalid ones among them, each replaced by its default; never raises for
    a bad value. The caller decides what a problem means (`serve` answers every call with it)."""
    issues: dict[str, SettingIssue] = {}
    fixed: dict[str, Any] = {}
    for _attempt in range(len(Settings.model_fields) + 1):
        try:
            return load_settings(env_file, **overrides, **fixed), tuple(issues.values())
        except (ValidationError, SettingsError) as exc:
            found = [(f, i) for f, i in _issues(exc) if f not in fixed]
            if not found:
                raise
            for field, issue in found:
                issues[field] = issue
                fixed[field] = Settings.model_fields[field].get_default(call_default_factory=True)
    raise AssertionError("unreachable: every field was replaced by its default")


def load_settings(env_file: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Build settings from the environment, an env file (or `PEGAS_ENV_FILE`), and overrides."""
    env_file = env_file or os.environ.get("PEGAS_ENV_FILE")
    if env_file is not None:
        return Settings(_env_file=env_file, **overrides)  # type: ignore[call-arg]
    return Settings(**overrides)
