"""The requests of the code-memory tools, and the one definition of the graph relations.

memory_search_code and memory_code_graph build these once in the MCP layer; the service,
`CodeMemory` and `CodeQuery` pass them down unchanged. Range checks stay in `CodeQuery` (it
owns the bounds), so a Python caller gets the same InvalidInput as before.
"""

from __future__ import annotations

from typing import Literal

from pegas_memory.request_base import Request

Relation = Literal[
    "callers",
    "callees",
    "imports",
    "imported_by",
    "inherits",
    "inherited_by",
    "neighbourhood",
    "derived",
    "derived_by",
]


class CodeSearchRequest(Request):
    """memory_search_code: a lexical query over code symbols, filtered and paginated."""

    query: str
    repo: str | None = None
    path_prefix: str | None = None
    language: str | None = None
    kinds: tuple[str, ...] = ()  # checked against code_memory.model.SymbolKind by CodeQuery
    limit: int = 20
    offset: int = 0


class CodeGraphRequest(Request):
    """memory_code_graph: which symbol of which repository, which edges, how far."""

    repo: str
    symbol: str | None = None
    symbol_id: int | None = None
    relation: Relation = "neighbourhood"
    depth: int = 1
    limit: int = 50
    offset: int = 0
    build: bool = False
    # Also the call sites the resolver could not pin to one target (``may_call`` edges).
    candidates: bool = False
    detail: bool = False  # signatures and every edge with its call-site lines
    max_chars: int = 16_000  # size budget of the answer; CodeQuery cuts the page to fit


class CodeReadRequest(Request):
    """memory_code_read: a symbol's source, a file's symbols, or the indexed repositories."""

    op: Literal["source", "file", "repos"]
    repo: str | None = None
    symbol: str | None = None
    symbol_id: int | None = None
    path: str | None = None
    from_line: int | None = None
    max_lines: int = 120
    max_chars: int = 12_000
    limit: int = 200
    offset: int = 0
    detail: bool = False
