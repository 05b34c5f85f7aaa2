"""The analyzer's calls laid over the heuristic ones (issue 29), as pure logic: a SCIP index
read from protobuf bytes, symbol strings parsed, and per call line either the analyzer's
answer (provenance analyzer, one target) or the heuristic's, never both for one call."""

from __future__ import annotations

from typing import Any

import pytest

from pegas_memory.code_memory.analyzer_edges import overlay_calls
from pegas_memory.code_memory.model import Dependency, FileIndex, Reference, Symbol
from pegas_memory.code_memory.scip import (
    ROLE_DEFINITION,
    Document,
    Occurrence,
    ScipError,
    ScipIndex,
    read_index,
)
from pegas_memory.code_memory.scip_symbols import parse_symbol

TOOL = "scip-python 0.6.6"
PKG = "scip-python python demo 0 "


# --- a protobuf writer just big enough for SCIP, to check the reader against the wire format


def _varint(n: int) -> bytes:
    n &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n)


def _occurrence(span: list[int], symbol: str, roles: int, packed: bool = True) -> bytes:
    if packed:
        rng = _bytes(1, b"".join(_varint(x) for x in span))
    else:
        rng = b"".join(_int(1, x) for x in span)
    # An unknown fixed-width field (wire type 1) and a diagnostic (field 6) are skipped.
    extra = _varint(9 << 3 | 1) + b"\x00" * 8 + _bytes(6, _bytes(3, b"unused"))
    return rng + _bytes(2, symbol.encode()) + _int(3, roles) + extra


def test_a_scip_index_is_read_from_its_wire_format() -> None:
    tool = _bytes(2, _bytes(1, b"scip-python") + _bytes(2, b"0.6.6"))
    meta = _bytes(1, tool + _bytes(3, b"file:///r") + _int(4, 1))
    doc = (
        _bytes(1, "pkg/модуль.py".encode())
        + _bytes(4, b"python")
        + _bytes(2, _occurrence([3, 4, 9], PKG + "pkg/f().", ROLE_DEFINITION))
        + _bytes(2, _occurrence([5, 1, 7, 2], PKG + "pkg/g().", 8, packed=False))
        + _bytes(2, _occurrence([1, 2], PKG + "pkg/bad().", 8))  # a malformed range: skipped
    )
    index = read_index(meta + _bytes(2, doc))
    assert (index.tool, index.version, index.project_root) == ("scip-python", "0.6.6", "file:///r")
    [document] = index.documents
    assert (document.path, document.language) == ("pkg/модуль.py", "python")
    assert document.occurrences == (
        Occurrence(3, 4, 3, 9, PKG + "pkg/f().", ROLE_DEFINITION),
        Occurrence(5, 1, 7, 2, PKG + "pkg/g().", 8),
    )
    assert document.occurrences[0].is_definition and not document.occurrences[1].is_definition
    with pytest.raises(ScipError):
        read_index(_bytes(2, b"\x0a\x50abc"))  # a length past the end of its message


@pytest.mark.parametrize(
    ("symbol", "name", "suffix", "dotted"),
    [
        (PKG + "`pkg.mod`/Signer#__init__().(algorithm)", "algorithm", "parameter", ""),
        ("scip-python python python-stdlib 3.11 hashlib/sha1().", "sha1", "method", ""),
        (
            "scip-typescript npm p-queue 9.3.3 source/`index.ts`/PQueue#`#onInterval`().",
            "#onInterval",
            "method",
            "source.index.PQueue.#onInterval",
        ),
        (
            "scip-typescript npm typescript 5.9.3 lib/`lib.es5.d.ts`/Array#splice().",
            "splice",
            "method",
            "lib.lib.es5.Array.splice",
        ),
        ("scip-python python a  b 1 m/`we``ird`#", "we`ird", "type", "m.we`ird"),
        ("local 7", "", "", ""),
    ],
)
def test_scip_symbols_are_parsed_into_descriptors(
    symbol: str, name: str, suffix: str, dotted: str
) -> None:
    parsed = parse_symbol(symbol)
    assert (parsed.name, parsed.suffix) == (name, suffix)
    if dotted:
        assert parsed.dotted() == dotted
    assert parsed.local == symbol.startswith("local ")


# --- the overlay --------------------------------------------------------------------------


def _sym(qname: str, kind: str, start: int, end: int) -> Symbol:
    return Symbol("m.py", "python", qname.rsplit(".", 1)[-1], qname, kind, None, None, start, end)  # type: ignore[arg-type]


def _file_m(
    lines: int, symbols: tuple[Symbol, ...], refs: tuple[Reference, ...], **more: Any
) -> FileIndex:
    """m.py (module m, `lines` long) holding `symbols` and `refs` besides its module's symbol."""
    return FileIndex(
        "m.py", "python", "m", "x", (_sym("m", "module", 1, lines), *symbols), refs, **more
    )


FILE = _file_m(
    30,
    (
        _sym("m.Base", "class", 1, 3),
        _sym("m.Base.__init__", "method", 2, 3),
        _sym("m.Child", "class", 4, 6),
        _sym("m.Child.run", "method", 5, 6),
        _sym("m.Other.run", "method", 8, 9),
        _sym("m.main", "function", 10, 20),
    ),
    (
        Reference("m.Child", "inherits", "Base", 4),
        Reference("m.main", "calls", "Child", 11),  # a class: its __init__, found on Base
        Reference("m.main", "calls", "c.run", 12),  # the checker knows c: Child
        Reference("m.main", "calls", "fn", 13),  # fn is a parameter: undecided
        Reference("m.main", "calls", "len", 14),  # a builtin: external
        Reference("m.main", "calls", "c.run", 15),  # decided...
        Reference("m.main", "calls", "pick", 15),  # ...beside an undecided call: mixed
    ),
)


def _occ(line: int, symbol: str, roles: int = 8) -> Occurrence:
    return Occurrence(line - 1, 0, line - 1, 3, symbol, roles)


def _index_of_m(*occurrences: Occurrence, project_root: str = "") -> ScipIndex:
    """A scip-python 0.6.6 index of one document, m.py, holding `occurrences`."""
    return ScipIndex(
        "scip-python", "0.6.6", project_root, (Document("m.py", "python", occurrences),)
    )


INDEX = _index_of_m(
    _occ(1, PKG + "m/Base#", ROLE_DEFINITION),
    _occ(2, PKG + "m/Base#__init__().", ROLE_DEFINITION),
    _occ(4, PKG + "m/Child#", ROLE_DEFINITION),
    _occ(5, PKG + "m/Child#run().", ROLE_DEFINITION),
    _occ(8, PKG + "m/Other#run().", ROLE_DEFINITION),
    _occ(11, PKG + "m/Child#"),
    _occ(12, "local 1"),
    _occ(12, PKG + "m/Child#run()."),
    _occ(13, PKG + "m/main().(fn)"),
    _occ(14, "scip-python python python-stdlib 3.11 builtins/len()."),
    _occ(15, PKG + "m/Child#run()."),
    _occ(15, "local 2"),
    project_root="file:///r",
)

HEURISTIC = [
    Dependency("m.Child", "inherits", "m.Base", "m.Base", 4, "internal"),
    Dependency("m.main", "calls", "m.Base.__init__", "m.Base.__init__", 11, "internal"),
    Dependency("m.main", "may_call", "m.Child.run", "m.Child.run", 12, "internal", 4),
    Dependency("m.main", "may_call", "m.Other.run", "m.Other.run", 12, "internal", 4),
    Dependency("m.main", "calls", "m.Other.run", "m.Other.run", 13, "internal"),
    Dependency("m.main", "calls", "len", None, 14, "external"),
    Dependency("m.main", "calls", "m.Other.run", "m.Other.run", 15, "internal", 2),
    Dependency("m.main", "calls", "m.Child.run", "m.Child.run", 15, "internal", 2),
    Dependency("m.main", "calls", "pick", None, 15, "unresolved"),
]


def test_decided_calls_replace_the_heuristic_and_undecided_ones_keep_it() -> None:
    deps, count = overlay_calls(INDEX, [FILE], HEURISTIC, TOOL)
    got = {(d.line, d.kind, d.dst_name, d.provenance, d.tool, d.confidence) for d in deps}
    analyzer = ("analyzer", TOOL, 1.0)
    assert got == {
        (4, "inherits", "m.Base", "heuristic", None, 1.0),  # imports and bases: heuristic's
        (11, "calls", "m.Base.__init__", *analyzer),  # a class called: its __init__ (on Base)
        (12, "calls", "m.Child.run", *analyzer),  # four candidates became the one the checker saw
        (13, "calls", "m.Other.run", "heuristic", None, 1.0),  # a parameter: heuristic's answer
        (14, "calls", "builtins.len", *analyzer),  # leaving the repository, as the checker says
        (15, "calls", "m.Child.run", *analyzer),  # the decided call...
        (15, "calls", "pick", "heuristic", None, 1.0),  # ...and the undecided one's answer
    }
    assert (count.lines, count.decided, count.mixed, count.heuristic) == (5, 3, 1, 1)


def test_files_the_index_does_not_cover_keep_their_edges() -> None:
    other = FileIndex("n.py", "python", "n", "y", (), ())
    moved = [Dependency("n.f", "calls", "m.main", "m.main", 3, "internal", 5)]
    empty = ScipIndex("scip-python", "0.6.6", "", ())
    deps, count = overlay_calls(empty, [FILE, other], [*HEURISTIC, *moved], TOOL)
    assert sorted(deps, key=repr) == sorted({*HEURISTIC, *moved}, key=repr)
    assert count.lines == 0


def test_an_external_base_init_and_a_lambda_run_by_a_builtin() -> None:
    symbols = (
        _sym("m.Err", "class", 1, 2),
        _sym("m.main", "function", 3, 10),
        _sym("m.main.<lambda1>", "function", 5, 5),
    )
    refs = (
        Reference("m.Err", "inherits", "click.UsageError", 1),
        Reference("m.main", "calls", "Err", 4),  # no __init__ here: click's runs
        Reference("m.main", "calls", "filter", 5),  # filter(lambda x: x, xs)
        Reference("m.main", "calls", "table[key]", 6),  # a subscript called: no name to look up
    )
    file = _file_m(10, symbols, refs)
    index = _index_of_m(
        _occ(1, PKG + "m/Err#", ROLE_DEFINITION),
        _occ(3, PKG + "m/main().", ROLE_DEFINITION),
        _occ(4, PKG + "m/Err#"),
        _occ(5, "scip-python python python-stdlib 3.11 builtins/filter#"),
        _occ(6, PKG + "m/main().(key)"),
    )
    heuristic = [
        Dependency("m.Err", "inherits", "click.UsageError", None, 1, "external"),
        Dependency("m.main", "calls", "click.UsageError.__init__", None, 4, "external"),
        Dependency("m.main", "calls", "m.main.<lambda1>", "m.main.<lambda1>", 5, "internal"),
        Dependency("m.main", "calls", "builtins.filter", None, 5, "external"),
        Dependency("m.main", "calls", "m.Err", "m.Err", 6, "internal", 2),
    ]
    deps, count = overlay_calls(index, [file], heuristic, TOOL)
    got = {(d.line, d.dst_name, d.provenance) for d in deps if d.kind == "calls"}
    assert got == {
        (4, "click.UsageError.__init__", "analyzer"),
        (5, "builtins.filter", "analyzer"),
        (5, "m.main.<lambda1>", "heuristic"),  # no decided name explains it: kept
        (6, "m.Err", "heuristic"),
    }
    assert (count.decided, count.mixed, count.heuristic) == (1, 1, 1)


def _wide(line: int, col: int, width: int, symbol: str) -> Occurrence:
    return Occurrence(line - 1, col, line - 1, col + width, symbol, 8)


STDLIB = "scip-python python python-stdlib 3.11 "


@pytest.mark.parametrize(
    "shared",
    # scip-python names every os.path function after the first one its run looked up: in a
    # whole run ``posixpath/abspath().``, in a slice's run perhaps ``ntpath/join().``.
    [STDLIB + "posixpath/abspath().", STDLIB + "ntpath/join()."],
)
def test_a_function_a_stub_re_exports_is_external_and_named_as_imported_whatever_the_run(
    shared: str,
) -> None:
    symbols = (_sym("m.main", "function", 1, 5),)
    refs = (
        Reference("m.main", "calls", "os.path.join", 2),
        Reference("m.main", "calls", "os.path.abspath", 3),
        Reference("m.main", "calls", "os.path.dirname", 4),
    )
    file = _file_m(5, symbols, refs)
    # os.path.join(a, b) / os.path.abspath(a) / os.path.dirname(a): the name at column 12.
    occurrences = tuple(_wide(line, 12, width, shared) for line, width in ((2, 4), (3, 7), (4, 7)))
    index = _index_of_m(*occurrences)
    heuristic = [
        Dependency("m.main", "calls", f"os.path.{name}", None, line, "external")
        for line, name in ((2, "join"), (3, "abspath"), (4, "dirname"))
    ]
    deps, _ = overlay_calls(index, [file], heuristic, TOOL)
    assert {(d.line, d.dst_name, d.provenance) for d in deps} == {
        (2, "os.path.join", "analyzer"),
        (3, "os.path.abspath", "analyzer"),
        (4, "os.path.dirname", "analyzer"),
    }


@pytest.mark.parametrize(
    "skip_if",
    # ``from unittest import skipIf`` (a stub's re-export): the stub's symbol in a run that met
    # ``unittest.skipIf`` in an earlier file (a whole run of twisted), a local the document never
    # defines in a run that did not (a slice's run of twisted's src/twisted/mail).
    [STDLIB + "`unittest.case`/skipIf().", "local 0"],
)
def test_a_name_imported_from_a_stub_is_the_same_external_call_in_every_run(
    skip_if: str,
) -> None:
    symbols = (
        _sym("m.Tests", "class", 4, 10),
        _sym("m.Tests.test", "method", 6, 10),
    )
    refs = (
        Reference("m", "imports", "unittest.skipIf", 1),
        Reference("m", "imports", "pkg.guard", 2),
        Reference("m", "calls", "skipIf", 3),
        Reference("m.Tests", "calls", "skipIf", 5),
        Reference("m.Tests.test", "calls", "guard", 7),
        Reference("m.Tests.test", "calls", "check", 8),
        Reference("m.Tests.test", "imports", "m.ghost", 9),
        Reference("m.Tests.test", "calls", "ghost", 10),
    )
    file = _file_m(
        10,
        symbols,
        refs,
        imports=(("skipIf", "unittest.skipIf"), ("guard", "pkg.guard"), ("ghost", "m.ghost")),
    )
    occurrences = (
        _wide(1, 21, 6, skip_if),  # from unittest import skipIf
        _wide(2, 16, 5, "local 1"),  # from pkg import guard: in the repository, unresolved
        _wide(3, 1, 6, skip_if),  # @skipIf(...)
        _wide(5, 5, 6, skip_if),  # @skipIf(...) on the method
        _wide(7, 8, 5, "local 1"),  # guard()
        Occurrence(7, 8, 7, 13, "local 2", ROLE_DEFINITION),  # check = ... (a real local)
        _wide(8, 8, 5, "local 2"),  # check()
        _wide(9, 22, 5, "local 3"),  # from m import ghost: the repository's, never defined
        _wide(10, 8, 5, "local 3"),  # ghost()
    )
    index = _index_of_m(*occurrences)
    heuristic = [
        Dependency("m", "imports", "unittest.skipIf", None, 1, "external"),
        Dependency("m", "imports", "pkg.guard", "pkg.guard", 2, "internal"),
        Dependency("m", "calls", "unittest.skipIf", None, 3, "external"),
        Dependency("m.Tests", "calls", "unittest.skipIf", None, 5, "external"),
        Dependency("m.Tests.test", "calls", "pkg.guard", "pkg.guard", 7, "internal"),
        Dependency("m.Tests.test", "calls", "check", None, 8, "unresolved"),
        Dependency("m.Tests.test", "imports", "m.ghost", None, 9, "external"),
        Dependency("m.Tests.test", "calls", "ghost", None, 10, "unresolved"),
    ]
    deps, _ = overlay_calls(index, [file], heuristic, TOOL)
    assert {(d.line, d.dst_name, d.provenance) for d in deps if d.kind == "calls"} == {
        (3, "unittest.skipIf", "analyzer"),
        (5, "unittest.skipIf", "analyzer"),
        (7, "pkg.guard", "heuristic"),  # an import the heuristic found in the repository
        (8, "check", "heuristic"),  # a local the document defines: undecided, as before
        (10, "ghost", "heuristic"),  # the repository's package: not from outside
    }
