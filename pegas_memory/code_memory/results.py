"""What code queries answer, and the pure helpers that shape their arguments.

The result models cross into the service and the MCP tools (structured output); the helpers
split identifiers the way the SQL side does and escape LIKE patterns. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from pegas_memory.errors import InvalidInput

_WORD = re.compile(r"[^\W_]+")
_CAMEL = (re.compile(r"([a-z0-9])([A-Z])"), re.compile(r"([A-Z]+)([A-Z][a-z])"))


class CodeSymbolOut(BaseModel):
    id: int
    repo: str
    path: str
    language: str
    name: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    signature: str | None = None


class CodeSearchHit(CodeSymbolOut):
    docstring: str | None = Field(default=None, description="first 300 characters")
    score: float


class CodeSearchResult(BaseModel):
    """Symbols matching a lexical query, best first."""

    query: str
    total: int = Field(description="matching symbols in all; page with offset")
    offset: int
    hits: list[CodeSearchHit]
    warnings: list[str] = Field(default_factory=list)


class CodeDerivationOut(BaseModel):
    """One way rules give a derived code edge: the rule, and the edges it joined."""

    rule: int = Field(description="the logical_rule atom id")
    premises: list[tuple[str, str, str]] = Field(
        description="[src, dst, kind] of each edge it joined, by qualified name"
    )


class CodeEdgeOut(BaseModel):
    id: int
    kind: str
    src: str = Field(description="qualified name of the symbol where the reference is written")
    dst: str
    path: str = Field(description="file of the source symbol")
    line: int | None = Field(default=None, description="first line of the reference")
    lines: list[int] = Field(default_factory=list, description="all call-site lines (up to 20)")
    derived: bool = Field(
        default=False, description="derived by rules (memory_infer), not written in the code"
    )
    confidence: float | None = Field(
        default=None,
        description="how sure the edge is: 1/n for one of n candidate targets (kind may_call); "
        "a derived edge's from its rules",
    )
    provenance: str | None = Field(
        default=None,
        description="what found the edge: 'analyzer' (a type checker bound the call: "
        "confidence 1) or 'heuristic' (tree-sitter and name resolution)",
    )
    analyzer: str | None = Field(
        default=None, description="the analyzer and its version, e.g. 'scip-python 0.6.6'"
    )
    derivations: list[CodeDerivationOut] = Field(
        default_factory=list, description="of a derived edge (with detail=true)"
    )


class CodePathOut(BaseModel):
    hops: int
    end: CodeSymbolOut
    via: list[str] = Field(description="qualified names from the symbol asked about to `end`")
    lines: list[int] = Field(
        default_factory=list, description="reference lines of the last hop (in the source file)"
    )
    edges: list[CodeEdgeOut] = Field(
        default_factory=list, description="every hop with its lines (only with detail=true)"
    )
    provenance: str | None = Field(
        default=None,
        description="'analyzer' when a type checker found every hop, 'heuristic' when one hop "
        "or more is the heuristic resolver's; none for derived paths",
    )


class ExternalRefOut(BaseModel):
    kind: str
    name: str = Field(description="target outside the repository, or as written if unresolved")
    target: str = Field(description="external or unresolved")
    line: int | None = None


class CodeGraphResult(BaseModel):
    """Paths around one symbol in a repository's dependency graph."""

    repo: str
    symbol: CodeSymbolOut
    relation: str
    depth: int
    offset: int
    paths: list[CodePathOut]
    recursion: list[int] = Field(
        default_factory=list,
        description="lines where the symbol calls itself (a recursive call is no path)",
    )
    has_more: bool = Field(description="true when another page exists (see next_offset)")
    next_offset: int | None = Field(
        default=None, description="offset of the next page (the size budget may cut a page short)"
    )
    external: list[ExternalRefOut] = Field(
        default_factory=list,
        description="outgoing references that leave the repository (first page only)",
    )
    alternatives: list[CodeSymbolOut] = Field(
        default_factory=list, description="other symbols the given name also matches"
    )
    source: Literal["graph", "postgres"]
    warnings: list[str] = Field(default_factory=list)


def identifier_words(text: str) -> list[str]:
    """`getHTTPResponse_v2 Имя` -> ['get', 'http', 'response', 'v2', 'имя'] (as the SQL side
    splits symbols: camelCase, snake_case and punctuation)."""
    for pattern in _CAMEL:
        text = pattern.sub(r"\1 \2", text)
    return [w.lower() for w in _WORD.findall(text)]


def like_escape(text: str) -> str:
    """`text` matched literally inside a LIKE pattern (backslash is the escape)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def text_arg(value: str, name: str, limit: int) -> str:
    """`value` if it has at most `limit` characters and no NUL (Postgres text cannot hold one)."""
    if "\x00" in value or len(value) > limit:
        raise InvalidInput(f"{name} must be at most {limit} characters without NUL characters")
    return value


class CodeSourceOut(BaseModel):
    """The source text of one symbol, as the file reads now, bounded."""

    symbol: CodeSymbolOut
    start_line: int = Field(description="first line returned")
    end_line: int = Field(description="last line returned")
    text: str
    truncated: bool = Field(description="true when the symbol is longer than what was returned")
    note: str | None = Field(default=None, description="what was cut and how to read the rest")


class CodeFileSymbolOut(BaseModel):
    id: int
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    signature: str | None = Field(default=None, description="only with detail=true")


class CodeFileOut(BaseModel):
    """The symbols of one indexed file, in line order."""

    path: str
    language: str
    module: str
    total: int = Field(description="symbols in the file; page with offset")
    offset: int
    symbols: list[CodeFileSymbolOut]
    next_offset: int | None = Field(
        default=None, description="where the next page starts (the answer was cut to max_chars)"
    )


class CodeRepoOut(BaseModel):
    name: str
    root: str
    files: int
    symbols: int
    dependencies: int
    unresolved: int
    derived: int = Field(description="code edges derived by rules (memory_infer)")
    languages: list[str]
    created_at: str
    indexed_at: str = Field(description="when memory_store_code last indexed it (ISO 8601)")


class CodeReadResult(BaseModel):
    """memory_code_read: one of source, file or repos, as `op` says."""

    op: Literal["source", "file", "repos"]
    source: CodeSourceOut | None = None
    file: CodeFileOut | None = None
    repos: list[CodeRepoOut] | None = None
    warnings: list[str] = Field(default_factory=list)
