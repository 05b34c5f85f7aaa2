"""A reader of SCIP indexes (the protobuf format of scip-python and scip-typescript).

SCIP (github.com/sourcegraph/scip, ``scip.proto``) is a protobuf message ``Index`` holding one
``Document`` per source file, each with its ``Occurrence`` rows: a range, a symbol string and
role bits (definition, import, write, read...). Only the fields code resolution reads are
decoded here, straight from the protobuf wire format: the format is small and stable, and a
hand decoder needs neither generated code nor the protobuf runtime. Unknown fields are skipped,
as protobuf requires, so a newer indexer that adds fields still reads.

Field numbers (scip.proto): Index{metadata=1, documents=2}; Metadata{tool_info=2,
project_root=3}; ToolInfo{name=1, version=2}; Document{relative_path=1, occurrences=2,
symbols=3, language=4}; Occurrence{range=1 (packed int32), symbol=2, symbol_roles=3,
enclosing_range=7}; SymbolInformation{symbol=1, kind=5, display_name=6}.

A document is also kept between runs (code_memory.analyzer_cache, in PostgreSQL) in a form of
its own, `pack_document`: zlib over JSON of the language, the document's distinct symbols and
six numbers per occurrence (a symbol is written once, not at every occurrence), which reads back
about twice as fast as the protobuf and takes a fifth of its pickled size (twisted's 1,102
documents: 4.4 MB).

Pure: bytes in, frozen dataclasses out (and back, for the kept form).
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from pegas_memory.errors import PegasMemoryError

# Occurrence.symbol_roles bits (scip.proto SymbolRole).
ROLE_DEFINITION = 0x1
ROLE_IMPORT = 0x2
ROLE_WRITE = 0x4
ROLE_READ = 0x8
ROLE_GENERATED = 0x10
ROLE_TEST = 0x20
ROLE_FORWARD_DEFINITION = 0x40


class ScipError(PegasMemoryError):
    """A SCIP index could not be decoded."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A symbol at a place: lines and columns are 0-based, ``end_col`` exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int
    symbol: str
    roles: int

    @property
    def is_definition(self) -> bool:
        return bool(self.roles & ROLE_DEFINITION)

    @property
    def is_import(self) -> bool:
        return bool(self.roles & ROLE_IMPORT)


@dataclass(frozen=True, slots=True)
class Document:
    path: str  # relative to the project root, ``/``-separated
    language: str
    occurrences: tuple[Occurrence, ...]


@dataclass(frozen=True, slots=True)
class ScipIndex:
    tool: str  # ``scip-python``
    version: str  # ``0.6.6``
    project_root: str  # a ``file://`` URI
    documents: tuple[Document, ...]


def read_index(data: bytes) -> ScipIndex:
    """Decode a whole SCIP ``Index``. Raises ScipError on bytes that are not one."""
    tool = version = root = ""
    documents: list[Document] = []
    try:
        for field, value in _fields(data):
            if field == 1 and isinstance(value, bytes):
                tool, version, root = _metadata(value)
            elif field == 2 and isinstance(value, bytes):
                documents.append(_document(value))
    except (IndexError, ValueError, UnicodeDecodeError) as exc:
        raise ScipError(f"not a SCIP index: {exc}") from exc
    return ScipIndex(tool, version, root, tuple(documents))


def pack_document(doc: Document) -> bytes:
    """The kept form of ``doc`` without its path (the row holding it names the path)."""
    symbols: dict[str, int] = {}
    numbers: list[int] = []
    for o in doc.occurrences:
        numbers += (
            o.line,
            o.col,
            o.end_line,
            o.end_col,
            o.roles,
            symbols.setdefault(o.symbol, len(symbols)),
        )
    text = json.dumps([doc.language, list(symbols), numbers], separators=(",", ":"))
    return zlib.compress(text.encode(), 6)


def unpack_document(path: str, data: bytes) -> Document:
    """The document `pack_document` kept. Raises ScipError on bytes it did not write."""
    try:
        language, names, numbers = json.loads(zlib.decompress(data))
        symbols = [sys.intern(s) for s in names]
        it = iter(numbers)
        occurrences = tuple(
            Occurrence(line, col, end_line, end_col, symbols[k], roles)
            for line, col, end_line, end_col, roles, k in zip(it, it, it, it, it, it, strict=True)
        )
    except (zlib.error, ValueError, TypeError, IndexError) as exc:
        raise ScipError(f"not a kept SCIP document: {exc}") from exc
    return Document(path, str(language), occurrences)


def _metadata(data: bytes) -> tuple[str, str, str]:
    tool = version = root = ""
    for field, value in _fields(data):
        if field == 2 and isinstance(value, bytes):
            for f2, v2 in _fields(value):
                if f2 == 1 and isinstance(v2, bytes):
                    tool = v2.decode()
                elif f2 == 2 and isinstance(v2, bytes):
                    version = v2.decode()
        elif field == 3 and isinstance(value, bytes):
            root = value.decode()
    return tool, version, root


def _document(data: bytes) -> Document:
    path = language = ""
    occurrences: list[Occurrence] = []
    for field, value in _fields(data):
        if field == 1 and isinstance(value, bytes):
            path = value.decode()
        elif field == 2 and isinstance(value, bytes):
            occ = _occurrence(value)
            if occ is not None:
                occurrences.append(occ)
        elif field == 4 and isinstance(value, bytes):
            language = value.decode()
    return Document(path, language, tuple(occurrences))


def _occurrence(data: bytes) -> Occurrence | None:
    span: list[int] = []
    symbol = ""
    roles = 0
    for field, value in _fields(data):
        if field == 1:
            if isinstance(value, bytes):  # packed
                span.extend(_packed(value))
            else:
                span.append(_int32(value))
        elif field == 2 and isinstance(value, bytes):
            # Interned: a symbol recurs at every use, and an index may be kept between runs.
            symbol = sys.intern(value.decode())
        elif field == 3 and isinstance(value, int):
            roles = _int32(value)
    if not symbol:
        return None
    if len(span) == 3:  # one line: [line, start, end]
        return Occurrence(span[0], span[1], span[0], span[2], symbol, roles)
    if len(span) == 4:
        return Occurrence(span[0], span[1], span[2], span[3], symbol, roles)
    return None  # a malformed range: skipped, as the SCIP spec asks of readers


def _int32(value: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def _packed(data: bytes) -> Iterator[int]:
    pos = 0
    while pos < len(data):
        value, pos = _varint(data, pos)
        yield _int32(value)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


def _fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of each field of one message: an int for varints, bytes for
    length-delimited fields; fixed-width fields are skipped."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            yield field, value
        elif wire == 2:
            size, pos = _varint(data, pos)
            if pos + size > end:
                raise ValueError("a field runs past the end of its message")
            yield field, data[pos : pos + size]
            pos += size
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"wire type {wire} is not supported")
    if pos != end:
        raise ValueError("a fixed-width field runs past the end of its message")
