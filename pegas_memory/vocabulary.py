"""The schema's enumerations: `StrEnum`s mirroring the CHECK constraints of the migrations
(0001_init, 0004_jobs, 0013_feedback, 0015_decay_profiles); below them, the closed choices of
the settings (config.py), declared the same way.

A member is its string, so it compares equal to the column's text, psycopg sends it as that text,
and JSON (MCP results, job rows) holds the same strings as before. In a pydantic model or a tool
signature each is the inline `{"enum": [...], "type": "string"}` a `Literal` gave.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Self

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from pegas_memory.errors import InvalidInput


class Vocabulary(StrEnum):
    """A closed set of strings. Pydantic validates a plain string into the member and writes
    the member back as its string; the JSON schema is inline, as a `Literal`'s was (no `$defs`
    entry, so tool input schemas stay as they were)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            cls,
            core_schema.literal_schema([member.value for member in cls]),
            serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
        )

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The strings of the set, in declaration order (for messages and `in` checks on text)."""
        return tuple(member.value for member in cls)

    @classmethod
    def parse(cls, value: str, what: str) -> Self:
        """The member whose string is `value`. Raises InvalidInput naming `what` and the set."""
        try:
            return cls(value)
        except ValueError:
            raise InvalidInput(
                f"unknown {what} {value!r}; use one of {', '.join(cls.values())}"
            ) from None


class AtomType(Vocabulary):
    """What kind of knowledge an atom is (`pm_atom.type`; distill/types.py says what each means)."""

    TEXT = "text"
    DEFINITION = "definition"
    LOGICAL_RULE = "logical_rule"
    CODE = "code"
    TABLE = "table"
    FACT = "fact"


class AtomStatus(Vocabulary):
    """How far an atom is trusted (`pm_atom.status`; every change logged in pm_status_change)."""

    CANDIDATE = "candidate"
    VERIFIED = "verified"
    STALE = "stale"
    CONTESTED = "contested"


class TraceKind(Vocabulary):
    """The kind of an episodic trace (`pm_episodic_trace.kind`)."""

    PLAN = "plan"
    ACTION = "action"
    OBSERVATION = "observation"
    REFLECTION = "reflection"


class GapStatus(Vocabulary):
    """Where a research gap stands (`pm_research_gap.status`)."""

    OPEN = "open"
    RESEARCHING = "researching"
    FILLED = "filled"
    ABANDONED = "abandoned"


class DocumentKind(Vocabulary):
    """What a document was read from (`pm_document.kind`)."""

    WEB = "web"
    PDF = "pdf"
    EPUB = "epub"
    TEXT = "text"
    CODE_REPO = "code_repo"
    AGENT = "agent"


class LinkKind(Vocabulary):
    """The link kinds pegas-memory itself writes or weighs (`pm_atom_link.kind`). The column is
    open: any single token is a kind, and inference rules derive kinds of their own, so functions
    that take a link kind take a `str`; these are the well-known ones."""

    INFERENCE = "inference"
    CAUSE = "cause"
    REFERENCE = "reference"
    CONTRADICTS = "contradicts"
    DEPENDS_ON = "depends_on"
    CALLS = "calls"
    DEFINES = "defines"
    DUPLICATE_OF = "duplicate_of"
    CORROBORATES = "corroborates"
    SUPERSEDES = "supersedes"


class FeedbackOutcome(Vocabulary):
    """What a hit did for the agent (memory_feedback, `pm_feedback_event.outcome`): it helped, it
    misled, or it was used without a verdict."""

    HELPED = "helped"
    MISLED = "misled"
    USED = "used"


class VerifyVerdict(Vocabulary):
    """What memory_verify found about an atom. Self-critique by an LLM answers one of the first
    four (`distill.ollama.CRITIQUE_VERDICTS`); cross-confirmation across documents gives
    `confirmed`; a check that could not run leaves it `unchecked`."""

    NEW = "new"
    DUPLICATE = "duplicate"
    CORROBORATES = "corroborates"
    CONTRADICTS = "contradicts"
    CONFIRMED = "confirmed"
    UNCHECKED = "unchecked"


class DecayProfile(Vocabulary):
    """How an atom or passage ages in ranking (`decay` of pm_atom and pm_chunk, migration 0015)."""

    TIMELESS = "timeless"
    PERISHABLE = "perishable"
    CONVERSATIONAL = "conversational"


class JobKind(Vocabulary):
    """What a durable job does (`pm_job.kind`; jobs/model.py says what its `args` hold)."""

    INGEST = "ingest"
    INDEX_CODE = "index_code"
    RESEARCH = "research"
    REBUILD = "rebuild"


class JobState(Vocabulary):
    """Where a job stands (`pm_job.state`). Queued and running are active; the rest finished."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobState.DONE, JobState.FAILED, JobState.CANCELLED)


# --- the settings' closed choices (config.py); no column holds them ----------------------------


class Switch(Vocabulary):
    """A setting that is on, off, or decided by where it runs (`engine_host`, `embedded_worker`;
    config.py says what "auto" decides for each)."""

    AUTO = "auto"
    ON = "on"
    OFF = "off"


class LexicalEngine(Vocabulary):
    """Where the lexical (BM25) arm of atoms and passages runs (`lexical_engine`): PostgreSQL's
    tsvector (search/lexical.py), or the vector engine's sparse index (qdrant_store/
    sparse_terms.py; the projection then writes a BM25 vector beside each dense one, in
    collections named `..._bm25`). As-of searches and traces stay on PostgreSQL either way."""

    POSTGRES = "postgres"
    SPARSE = "sparse"


class GraphFlavour(Vocabulary):
    """Which Bolt server PEGAS_GRAPH_URI names (`graph_flavour`); "auto" reads its agent string."""

    AUTO = "auto"
    MEMGRAPH = "memgraph"
    NEO4J = "neo4j"


class DistillerChoice(Vocabulary):
    """Which distiller turns chunks into atoms (`distiller`); "auto": Ollama's chat model when
    PEGAS_OLLAMA_URL is set, else the offline distiller."""

    AUTO = "auto"
    OLLAMA = "ollama"
    OFFLINE = "offline"


class WebRender(Vocabulary):
    """When a fetched web page is rendered in a headless browser (`web_render`)."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


class CodeAnalyzerMode(Vocabulary):
    """Whether code indexing looks for a language analyzer (`code_analyzer`)."""

    AUTO = "auto"
    OFF = "off"


class StoreProvenance(Vocabulary):
    """What memory_store does with a claim that names no source (`store_provenance`)."""

    ENFORCE = "enforce"
    FLAG = "flag"
    OFF = "off"


ATOM_TYPES: tuple[str, ...] = AtomType.values()
ATOM_STATUSES: tuple[str, ...] = AtomStatus.values()
TRACE_KINDS: tuple[str, ...] = TraceKind.values()
