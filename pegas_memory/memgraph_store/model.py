"""The graph slice's vocabulary: node and edge records, paths, and the `GraphStore` Protocol.

Records check their fields on construction (ids are integers, text holds no NUL, kinds are
non-empty), so a bad row fails where it is built rather than inside an engine. The checks are
shared with the Cypher store (`memgraph_store.cypher`), which validates query arguments the same
way. Pure: no driver, no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pegas_memory.errors import InvalidInput

NodeLabel = Literal["Atom", "CodeSymbol"]
# What the slice holds and its checks count: the walkable labels and the passages of documents.
StoredLabel = Literal["Atom", "CodeSymbol", "Passage"]
EdgeType = Literal["RELATES", "DEPENDS", "DERIVED"]
Direction = Literal["out", "in", "both"]
Statement = tuple[str, dict[str, Any]]

MAX_DEPTH = 6
MAX_LIMIT = 1000
MAX_OFFSET = 100_000
MAX_BATCH_ROWS = 1000
DEPENDENCY_KINDS = frozenset({"calls", "may_call", "imports", "inherits"})

EDGE_FOR_LABEL: dict[str, EdgeType] = {"Atom": "RELATES", "CodeSymbol": "DEPENDS"}
LABEL_FOR_EDGE: dict[str, NodeLabel] = {
    "RELATES": "Atom",
    "DEPENDS": "CodeSymbol",
    "DERIVED": "CodeSymbol",
}
_KIND_TOKEN = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


# --- validation -----------------------------------------------------------------------------


def check_id(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(f"{what} must be an integer Postgres id, got {value!r}")
    return value


def check_text(value: object, what: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        # The engines keep strings as C strings; Postgres text cannot hold NUL either.
        raise InvalidInput(f"{what} contains a NUL character; remove it")
    return value


def check_kind(value: object, what: str) -> str:
    kind = check_text(value, what)
    assert kind is not None
    if not kind.strip():
        raise InvalidInput(f"{what} must be a non-empty kind such as 'cause' or 'calls'")
    return kind


def check_confidence(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"{what} must be a finite number, got {value!r}")
    return float(value)


def check_label(label: object) -> NodeLabel:
    if label not in EDGE_FOR_LABEL:
        raise InvalidInput(f"label must be 'Atom' or 'CodeSymbol', got {label!r}")
    return label  # type: ignore[return-value]


def check_stored_label(label: object) -> StoredLabel:
    if label not in ("Atom", "CodeSymbol", "Passage"):
        raise InvalidInput(f"label must be 'Atom', 'CodeSymbol' or 'Passage', got {label!r}")
    return label  # type: ignore[return-value]


def check_edge_type(rel: object) -> EdgeType:
    if rel not in LABEL_FOR_EDGE:
        raise InvalidInput(f"relationship must be 'RELATES', 'DEPENDS' or 'DERIVED', got {rel!r}")
    return rel  # type: ignore[return-value]


def check_rels(label: NodeLabel, rels: Sequence[EdgeType] | None) -> tuple[EdgeType, ...]:
    """The relationship types a walk from a node of `label` may follow (None: the label's own
    family, RELATES or DEPENDS); every one must join nodes of that label."""
    if rels is None:
        return (EDGE_FOR_LABEL[label],)
    checked = tuple(dict.fromkeys(check_edge_type(r) for r in rels))
    wrong = [r for r in checked if LABEL_FOR_EDGE[r] != label]
    if not checked or wrong:
        raise InvalidInput(
            f"a walk from a {label} follows {[r for r, n in LABEL_FOR_EDGE.items() if n == label]}"
            f"; got {list(rels)!r}"
        )
    return checked


def check_direction(direction: object) -> Direction:
    if direction not in ("out", "in", "both"):
        raise InvalidInput(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    return direction  # type: ignore[return-value]


def check_kinds(kinds: object) -> list[str]:
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInput("kinds must be a list of kind names, e.g. ['cause', 'reference']")
    return [check_kind(kind, "each kind") for kind in kinds]


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AtomNode:
    """An atom as the graph shows it; `claim` is truncated on write (display only)."""

    id: int
    type: str
    status: str
    confidence: float
    claim: str
    passages: tuple[int, ...] = ()  # the current passages it is cited from (CITED_IN)

    def __post_init__(self) -> None:
        check_id(self.id, "atom id")
        for passage in self.passages:
            check_id(passage, f"atom {self.id} passage id")
        check_text(self.type, f"atom {self.id} type")
        check_text(self.status, f"atom {self.id} status")
        check_confidence(self.confidence, f"atom {self.id} confidence")
        check_text(self.claim, f"atom {self.id} claim")


@dataclass(frozen=True, slots=True)
class PassageNode:
    """A passage (a chunk of a document's current version) as the graph shows it: part of its
    document, cited by the atoms in `atoms` (those already projected get the edge)."""

    id: int
    doc_id: int
    locator: str
    atoms: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        check_id(self.id, "passage id")
        check_id(self.doc_id, f"passage {self.id} document id")
        check_text(self.locator, f"passage {self.id} locator")
        for atom in self.atoms:
            check_id(atom, f"passage {self.id} atom id")


@dataclass(frozen=True, slots=True)
class LinkEdge:
    """A `pm_atom_link` row: src -[RELATES]-> dst."""

    id: int
    src: int
    dst: int
    kind: str
    confidence: float
    inferred: bool
    source: str | None

    def __post_init__(self) -> None:
        check_id(self.id, "link id")
        check_id(self.src, f"link {self.id} src")
        check_id(self.dst, f"link {self.id} dst")
        check_kind(self.kind, f"link {self.id} kind")
        check_confidence(self.confidence, f"link {self.id} confidence")
        if not isinstance(self.inferred, bool):
            raise InvalidInput(f"link {self.id} inferred must be a bool")
        check_text(self.source, f"link {self.id} source", optional=True)


@dataclass(frozen=True, slots=True)
class SymbolNode:
    """A `pm_code_symbol` row."""

    id: int
    repo: str
    path: str
    name: str
    qualified_name: str
    kind: str
    language: str
    start_line: int

    def __post_init__(self) -> None:
        check_id(self.id, "symbol id")
        for field in ("repo", "path", "name", "qualified_name", "kind", "language"):
            check_text(getattr(self, field), f"symbol {self.id} {field}")
        check_id(self.start_line, f"symbol {self.id} start_line")


@dataclass(frozen=True, slots=True)
class DependencyEdge:
    """A resolved `pm_code_dependency` row: src -[DEPENDS {kind}]-> dst."""

    id: int
    src: int
    dst: int
    kind: str
    line: int | None = None

    def __post_init__(self) -> None:
        check_id(self.id, "dependency id")
        check_id(self.src, f"dependency {self.id} src")
        check_id(self.dst, f"dependency {self.id} dst")
        if self.kind not in DEPENDENCY_KINDS:
            raise InvalidInput(
                f"dependency {self.id} kind must be one of {sorted(DEPENDENCY_KINDS)}, "
                f"got {self.kind!r}"
            )
        if self.line is not None:
            check_id(self.line, f"dependency {self.id} line")


@dataclass(frozen=True, slots=True)
class DerivedEdge:
    """A `pm_code_inferred` row, a conclusion of rules: src -[DERIVED {kind, confidence}]-> dst.
    Its own relationship type, because its ids are those of `pm_code_inferred` (they would clash
    with the dependencies') and its kinds are any rule's (`depends_on`), not the extractor's."""

    id: int
    src: int
    dst: int
    kind: str
    confidence: float = 1.0

    def __post_init__(self) -> None:
        check_id(self.id, "derived edge id")
        check_id(self.src, f"derived edge {self.id} src")
        check_id(self.dst, f"derived edge {self.id} dst")
        if not isinstance(self.kind, str) or not _KIND_TOKEN.match(self.kind):
            raise InvalidInput(
                f"derived edge {self.id} kind must be a single lowercase token, got {self.kind!r}"
            )
        check_confidence(self.confidence, f"derived edge {self.id} confidence")


@dataclass(frozen=True, slots=True)
class PathEdge:
    """One edge of a path, with its stored direction (src -> dst), whichever way it was walked.
    `derived` marks a DERIVED edge (its id is a `pm_code_inferred` id)."""

    id: int
    kind: str
    src: int
    dst: int
    derived: bool = False


@dataclass(frozen=True, slots=True)
class GraphPath:
    """A walk from `node_ids[0]`; `edges[i]` joins `node_ids[i]` and `node_ids[i + 1]`."""

    node_ids: tuple[int, ...]
    edges: tuple[PathEdge, ...]

    @property
    def start(self) -> int:
        return self.node_ids[0]

    @property
    def end(self) -> int:
        return self.node_ids[-1]

    @property
    def hops(self) -> int:
        return len(self.edges)


@dataclass(frozen=True, slots=True)
class StoredProps:
    """A node or edge as the graph holds it, for the self-check's content sweep: its stored
    properties as they are (whatever was written to them), and an edge's end node ids."""

    id: int
    properties: dict[str, Any]
    src: int | None = None
    dst: int | None = None


# --- the Protocol ---------------------------------------------------------------------------


@runtime_checkable
class KeepsFiles(Protocol):
    """An engine whose graph lives in files of this data dir (embedded FalkorDB): the
    self-check asks whether they would give the graph back, and has them written anew."""

    def check_files(self) -> str | None:
        """Why the files would not give the running engine's graph back, or None."""
        ...

    def rewrite_files(self) -> None:
        """Write the files anew from the running engine's graph."""
        ...


class GraphStore(Protocol):
    """The graph slice. Writes are idempotent by Postgres id; reads never mutate."""

    def ensure_schema(self) -> None: ...
    def upsert_atoms(self, atoms: Sequence[AtomNode]) -> None: ...
    def delete_atoms(self, ids: Sequence[int]) -> None: ...
    def upsert_links(self, links: Sequence[LinkEdge]) -> None: ...
    def delete_links(self, ids: Sequence[int]) -> None: ...
    def upsert_symbols(self, symbols: Sequence[SymbolNode]) -> None: ...
    def delete_symbols(self, ids: Sequence[int]) -> None: ...
    def upsert_dependencies(self, deps: Sequence[DependencyEdge]) -> None: ...
    def delete_dependencies(self, ids: Sequence[int]) -> None: ...
    def upsert_derived(self, edges: Sequence[DerivedEdge]) -> None: ...
    def delete_derived(self, ids: Sequence[int]) -> None: ...
    def upsert_passages(self, passages: Sequence[PassageNode]) -> None: ...
    def delete_passages(self, ids: Sequence[int]) -> None: ...
    def neighbours(
        self,
        label: NodeLabel,
        node_id: int,
        *,
        kinds: Sequence[str] = (),
        direction: Direction = "both",
        depth: int = 1,
        limit: int = 50,
        offset: int = 0,
        rels: Sequence[EdgeType] | None = None,
    ) -> list[GraphPath]: ...
    def paths(
        self,
        label: NodeLabel,
        src_id: int,
        dst_id: int,
        *,
        kinds: Sequence[str] = (),
        direction: Direction = "out",
        max_depth: int = 4,
        limit: int = 10,
        rels: Sequence[EdgeType] | None = None,
    ) -> list[GraphPath]: ...
    def edge_counts(self) -> dict[str, int]: ...
    def node_counts(self) -> dict[str, int]: ...
    def iter_node_ids(self, label: StoredLabel) -> Iterator[int]: ...
    def node_properties(self, label: NodeLabel, ids: Sequence[int]) -> list[StoredProps]: ...
    def edge_properties(self, rel: EdgeType, ids: Sequence[int]) -> list[StoredProps]: ...
    def iter_edge_ids(self, rel: EdgeType) -> Iterator[int]: ...
    def clear(self) -> None: ...
    def close(self) -> None: ...
