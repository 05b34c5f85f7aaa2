"""Symbol extraction for every supported language, file discovery, and robustness on bad input."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.code_memory.symbols import (
    FileIndex,
    Symbol,
    extract_file,
    iter_source_files,
    language_for,
    module_name,
)


def _extract(path: str, code: str) -> FileIndex:
    return extract_file(path, textwrap.dedent(code).lstrip("\n").encode())


def _by_qualname(index: FileIndex) -> dict[str, Symbol]:
    return {s.qualified_name: s for s in index.symbols}


def _kinds(index: FileIndex) -> dict[str, str]:
    return {s.qualified_name: s.kind for s in index.symbols}


def _card(symbol: Symbol) -> tuple[str | None, str | None, int, int]:
    """What a reader sees of a symbol first: its signature, docstring and lines."""
    return (symbol.signature, symbol.docstring, *_lines(symbol))


def _lines(symbol: Symbol) -> tuple[int, int]:
    return (symbol.start_line, symbol.end_line)


def _refs(index: FileIndex, kind: str) -> set[tuple[str, str]]:
    return {(r.src_qualified_name, r.target) for r in index.references if r.kind == kind}


# --- languages, module names ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("stub.pyi", "python"),
        ("web/x.mjs", "javascript"),
        ("ui/App.jsx", "javascript"),
        ("s/y.ts", "typescript"),
        ("ui/View.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("Foo.JAVA", "java"),
        ("README.md", None),
        ("Makefile", None),
    ],
)
def test_language_for(path: str, language: str | None) -> None:
    assert language_for(path) == language


@pytest.mark.parametrize(
    ("path", "language", "module"),
    [
        ("src/click/core.py", "python", "click.core"),
        ("click/__init__.py", "python", "click"),
        ("lib/pkg/sub/mod.py", "python", "pkg.sub.mod"),
        ("setup.py", "python", "setup"),
        ("web/app/util.ts", "typescript", "web/app/util"),
        ("pkg\\win\\file.go", "go", "pkg/win/file"),
    ],
)
def test_module_name(path: str, language: str, module: str) -> None:
    assert module_name(path, language) == module


PYTHON = '''
"""Shapes and helpers."""
import os.path as osp
from .util import helper as h

MAX_SIDES = 10
counter = 0


class Base:
    """A base shape."""

    def area(self, scale: float = 1.0) -> float:
        """Area of the shape."""
        return self.side() * scale

    def side(self):
        return 1


@decorate
class Square(Base):
    LIMIT = 4

    @staticmethod
    def make() -> "Square":
        return Square()


def main(argv=None):
    f = lambda y: y
    return osp.join("a", h(f))
'''

JAVASCRIPT = """
import lib, { helper as h } from './lib';

/** Adds numbers. */
export function add(a, b) { return a + b; }

export const twice = (x) => add(x, x);

class Shape {
  /** Area of it. */
  area() { return this.scale(1); }
  scale(k) { return h(k); }
}
class Square extends Shape {}
"""

TYPESCRIPT = """
import * as u from '../lib/u';

/** Something with an area. */
export interface Shaped { area(): number; }
export type Id = string;
export enum Color { Red, Green }
export abstract class Base implements Shaped {
  abstract area(): number;
  describe(): string { return String(this.area()); }
}
export function total(xs: number[]): number { return u.zero() + xs[0]; }
"""

GO = """
package shapes

import (
\t"fmt"
\tstr "strings"
)

// MaxSides is the limit.
const MaxSides = 12

// Shape has an area.
type Shape interface {
\tArea() float64
}

type Named struct{ Name string }

// Square is a shape.
type Square struct {
\tNamed
\t*fmt.Stringer
\tSide float64
}

// Area of the square.
func (s *Square) Area() float64 { return s.Side * s.double() }

func (s *Square) double() float64 { return 2 }

func New(side float64) *Square { fmt.Println(str.ToUpper("x")); return &Square{Side: side} }
"""

RUST = """
use std::collections::{HashMap, HashSet as Set};
use crate::util::helper;

/// A point.
pub struct Point { x: i32 }

pub enum Kind { A, B }

/// Can draw.
pub trait Draw { fn draw(&self) -> String; }

pub const ORIGIN: i32 = 0;

impl Draw for Point {
    fn draw(&self) -> String { self.fmt() }
}

impl Point {
    /// Makes one.
    pub fn new(x: i32) -> Self { helper(); Point { x } }
    fn fmt(&self) -> String { String::new() }
}

mod inner { pub fn f() {} }
"""

JAVA = """
package com.ex.shapes;

import java.util.List;
import com.ex.util.*;

/** Square. */
public class Square extends Base implements Shape {
    public static final int SIDES = 4;
    private int side;

    /** Builds it. */
    public Square(int side) { this.side = side; }

    public double area() { return scale(side) * side; }

    double scale(int k) { return Math.abs(k); }
}

interface Shape { double area(); }
"""


# --- every language: kinds, signatures, docstrings, lines, inheritance, imports ------------------
#
# A row: the file and its text; the signatures, docstrings and (start, end) lines of the symbols
# that show each; the ``inherits`` references, the import aliases; last, every symbol's kind.

SYMBOL_CASES = [
    # Python: a decorated class, a lambda, constants by their capitals, module docstrings
    pytest.param(
        "src/geo/shapes.py",
        PYTHON,
        {
            "geo.shapes.Base.area": "def area(self, scale: float = 1.0) -> float",
            "geo.shapes.Square": "class Square(Base)",
            "geo.shapes.Square.make": 'def make() -> "Square"',
            "geo.shapes.MAX_SIDES": "MAX_SIDES = 10",
        },
        {
            "geo.shapes": "Shapes and helpers.",
            "geo.shapes.Base.area": "Area of the shape.",
            "geo.shapes.Base": "A base shape.",
            "geo.shapes.Base.side": None,
        },
        {"geo.shapes": (1, 31), "geo.shapes.Base.area": (12, 14), "geo.shapes.Base": (9, 17)},
        {("geo.shapes.Square", "Base")},
        {"osp": "os.path", "h": "geo.util.helper"},
        {
            "geo.shapes": "module",
            "geo.shapes.MAX_SIDES": "constant",
            "geo.shapes.counter": "variable",
            "geo.shapes.Base": "class",
            "geo.shapes.Base.area": "method",
            "geo.shapes.Base.side": "method",
            "geo.shapes.Square": "class",
            "geo.shapes.Square.LIMIT": "constant",
            "geo.shapes.Square.make": "method",
            "geo.shapes.main": "function",
            "geo.shapes.main.<lambda1>": "function",
        },
        id="python",
    ),
    # ES modules: a default and a renamed import, an arrow function as a function, JSDoc
    pytest.param(
        "web/util.js",
        JAVASCRIPT,
        {"web/util.add": "function add(a, b)"},
        {"web/util.add": "Adds numbers.", "web/util.Shape.area": "Area of it."},
        {"web/util.add": (4, 4), "web/util.Shape": (8, 12)},
        {("web/util.Square", "Shape")},
        {"lib": "./lib#default", "h": "./lib#helper"},
        {
            "web/util": "module",
            "web/util.add": "function",
            "web/util.twice": "function",
            "web/util.Shape": "class",
            "web/util.Shape.area": "method",
            "web/util.Shape.scale": "method",
            "web/util.Square": "class",
        },
        id="javascript",
    ),
    # TypeScript: interfaces, type aliases and enums; an abstract class implements an interface
    pytest.param(
        "src/app.ts",
        TYPESCRIPT,
        {
            "src/app.total": "function total(xs: number[]): number",
            "src/app.Base": "abstract class Base implements Shaped",
        },
        {"src/app.Shaped": "Something with an area."},
        {"src/app.Base": (7, 10)},
        {("src/app.Base", "Shaped")},
        {"u": "../lib/u"},
        {
            "src/app": "module",
            "src/app.Shaped": "interface",
            "src/app.Shaped.area": "method",
            "src/app.Id": "type",
            "src/app.Color": "enum",
            "src/app.Base": "class",
            "src/app.Base.area": "method",
            "src/app.Base.describe": "method",
            "src/app.total": "function",
        },
        id="typescript",
    ),
    # Go: methods hang on their receiver's type; an embedded struct is inherited
    pytest.param(
        "geo/shapes/square.go",
        GO,
        {"geo/shapes.Square.Area": "func (s *Square) Area() float64"},
        {
            "geo/shapes.Square.Area": "Area of the square.",
            "geo/shapes.Square": "Square is a shape.",
        },
        {"geo/shapes.Square.Area": (26, 26), "geo/shapes.Square": (19, 23)},
        {("geo/shapes.Square", "Named"), ("geo/shapes.Square", "fmt.Stringer")},
        {"fmt": "fmt", "str": "strings"},
        {
            "geo/shapes/square": "module",
            "geo/shapes.MaxSides": "constant",
            "geo/shapes.Shape": "interface",
            "geo/shapes.Shape.Area": "method",  # what a call through a Shape binds to
            "geo/shapes.Named": "struct",
            "geo/shapes.Square": "struct",
            "geo/shapes.Square.Area": "method",
            "geo/shapes.Square.double": "method",
            "geo/shapes.New": "function",
        },
        id="go",
    ),
    # Rust: ``impl`` blocks hold the methods, ``///`` the docs, ``use`` lists the imports
    pytest.param(
        "src/geo.rs",
        RUST,
        {"src/geo.Point.new": "pub fn new(x: i32) -> Self"},
        {
            "src/geo.Point.new": "Makes one.",
            "src/geo.Point": "A point.",
            "src/geo.Draw": "Can draw.",
        },
        {"src/geo.Point.new": (20, 20)},
        {("src/geo.Point", "Draw")},
        {
            "HashMap": "std::collections::HashMap",
            "Set": "std::collections::HashSet",
            "helper": "crate::util::helper",
        },
        {
            "src/geo": "module",
            "src/geo.Point": "struct",
            "src/geo.Kind": "enum",
            "src/geo.Draw": "trait",
            "src/geo.Draw.draw": "method",
            "src/geo.ORIGIN": "constant",
            "src/geo.Point.draw": "method",
            "src/geo.Point.new": "method",
            "src/geo.Point.fmt": "method",
            "src/geo.inner": "module",
            "src/geo.inner.f": "function",
        },
        id="rust",
    ),
    # Java: qualified by package, not path; a constructor is a method named for its class
    pytest.param(
        "src/main/java/com/ex/shapes/Square.java",
        JAVA,
        {"com.ex.shapes.Square": "public class Square extends Base implements Shape"},
        {"com.ex.shapes.Square": "Square.", "com.ex.shapes.Square.Square": "Builds it."},
        {"com.ex.shapes.Square": (7, 17), "com.ex.shapes.Square.Square": (12, 12)},
        {("com.ex.shapes.Square", "Base"), ("com.ex.shapes.Square", "Shape")},
        {"List": "java.util.List", "*": "com.ex.util.*"},
        {
            "src/main/java/com/ex/shapes/Square": "module",
            "com.ex.shapes.Square": "class",
            "com.ex.shapes.Square.SIDES": "constant",
            "com.ex.shapes.Square.Square": "method",
            "com.ex.shapes.Square.area": "method",
            "com.ex.shapes.Square.scale": "method",
            "com.ex.shapes.Shape": "interface",
            "com.ex.shapes.Shape.area": "method",
        },
        id="java",
    ),
]


@pytest.mark.parametrize(
    ("path", "source", "signatures", "docstrings", "lines", "inherits", "imports", "kinds"),
    SYMBOL_CASES,
)
def test_symbols_have_their_kind_signature_docstring_lines_and_references(
    path: str,
    source: str,
    signatures: dict[str, str],
    docstrings: dict[str, str | None],
    lines: dict[str, tuple[int, int]],
    inherits: set[tuple[str, str]],
    imports: dict[str, str],
    kinds: dict[str, str],
) -> None:
    index = _extract(path, source)
    assert (index.language, index.has_errors) == (language_for(path), False)
    assert _kinds(index) == kinds
    symbols = _by_qualname(index)
    assert {q: symbols[q].signature for q in signatures} == signatures
    assert {q: symbols[q].docstring for q in docstrings} == docstrings
    assert {q: _lines(symbols[q]) for q in lines} == lines
    assert _refs(index, "inherits") == inherits
    assert dict(index.imports) == imports
    assert all(s.path == path and s.language == index.language for s in index.symbols)


# --- what one language alone shows ---------------------------------------------------------------


def test_python_references_and_imports() -> None:
    index = _extract("src/geo/shapes.py", PYTHON)
    assert (index.module, _by_qualname(index)["geo.shapes"].name) == ("geo.shapes", "shapes")
    # Relative imports are written absolute: ``.util`` in geo.shapes is geo.util; ``from X import
    # y`` depends on module X as well as on y (module-level edges).
    assert _refs(index, "imports") == {
        ("geo.shapes", "os.path"),
        ("geo.shapes", "geo.util.helper"),
        ("geo.shapes", "geo.util"),
    }
    calls = _refs(index, "calls")
    assert ("geo.shapes.Base.area", "self.side") in calls
    assert ("geo.shapes.main", "osp.join") in calls
    assert ("geo.shapes", "decorate") in calls  # a decorator is a call at definition time
    assert index.facts and index.scopes


def test_python_package_relative_import() -> None:
    index = _extract("pkg/sub/__init__.py", "from . import a\nfrom ..b import c\n")
    assert index.is_package and index.module == "pkg.sub"
    # ``from . import a`` names the package itself: no edge from the package to itself.
    assert _refs(index, "imports") == {
        ("pkg.sub", "pkg.sub.a"),
        ("pkg.sub", "pkg.b.c"),
        ("pkg.sub", "pkg.b"),
    }


def test_python_docstring_variants() -> None:
    index = _extract(
        "m.py",
        '''
        def f():
            f"""not a docstring {x}"""

        def g():
            r"""
            Raw and indented.

                kept relative
            """
        ''',
    )
    symbols = _by_qualname(index)
    assert symbols["m.f"].docstring is None
    assert symbols["m.g"].docstring == "Raw and indented.\n\n    kept relative"


def test_tsx_parses_jsx() -> None:
    index = _extract(
        "ui/View.tsx",
        """
        export function View(props: { name: string }) {
          return <div className="x">{format(props.name)}</div>;
        }
        """,
    )
    assert not index.has_errors
    assert "ui/View.View" in _by_qualname(index)
    assert ("ui/View.View", "format") in _refs(index, "calls")


def test_go_embedded_structs_inherit_once() -> None:
    index = _extract("geo/shapes/square.go", GO)
    inherits = [(r.src_qualified_name, r.target) for r in index.references if r.kind == "inherits"]
    assert inherits == [("geo/shapes.Square", "Named"), ("geo/shapes.Square", "fmt.Stringer")]
    receiver_calls = {r.target for r in index.references if r.self_call}
    assert receiver_calls == {"s.double"}


def test_javascript_imports_a_module_by_its_path_and_this_calls_are_self_calls() -> None:
    index = _extract("web/util.js", JAVASCRIPT)
    assert _refs(index, "imports") == {("web/util", "./lib")}
    self_calls = {r.target for r in index.references if r.self_call}
    assert self_calls == {"this.scale"}


def test_java_unqualified_calls_are_self_calls() -> None:
    index = _extract("src/main/java/com/ex/shapes/Square.java", JAVA)
    calls = {(r.target, r.self_call) for r in index.references if r.kind == "calls"}
    assert calls == {("scale", True), ("Math.abs", False)}


# --- robustness --------------------------------------------------------------------------------


def test_broken_source_keeps_what_parsed() -> None:
    index = _extract("m.py", "def ok():\n    return 1\n\ndef broken(:\n    pass\n")
    assert index.has_errors
    assert "m.ok" in _by_qualname(index)


def test_unknown_extension_gives_module_only() -> None:
    index = extract_file("notes/readme.txt", b"hello")
    assert index.language == "unknown" and index.has_errors
    assert [s.kind for s in index.symbols] == ["module"]
    assert index.references == ()


def test_deep_nesting_does_not_raise() -> None:
    source = b"x = " + b"[" * 3000 + b"]" * 3000 + b"\ndef f():\n    pass\n"
    index = extract_file("deep.py", source)
    assert index.symbols[0].kind == "module"


def test_content_hash_follows_bytes() -> None:
    a = extract_file("a.py", b"x = 1\n")
    assert a.content_hash == extract_file("b.py", b"x = 1\n").content_hash
    assert a.content_hash != extract_file("a.py", b"x = 2\n").content_hash


_EXTENSIONS = ["x.py", "x.js", "x.ts", "x.tsx", "x.go", "x.rs", "x.java"]
# Fragments of real syntax reach deeper into the walkers than uniform random bytes do.
_SNIPPETS = [
    *(b"def ", b"class ", b"(", b")", b"{", b"}", b"\n", b"    ", b"import ", b"self."),
    *(b"lambda", b"=>", b"fn ", b"func ", b"@", b'"""', b"\xff", b"\x00", b"::", b"["),
    *(b"a", b"b", b"=", b",", b":"),
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(_EXTENSIONS),
    source=st.one_of(
        st.binary(max_size=400),
        st.lists(st.sampled_from(_SNIPPETS), max_size=80).map(b"".join),
    ),
)
def test_arbitrary_bytes_never_crash(path: str, source: bytes) -> None:
    index = extract_file(path, source)
    assert index.symbols and index.symbols[0].kind == "module"
    for s in index.symbols:
        assert 1 <= s.start_line <= s.end_line


# --- file discovery ----------------------------------------------------------------------------


def _write(root: Path, rel: str, content: bytes | str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)


def test_iter_source_files_skips_what_is_not_hand_written(tmp_path: Path) -> None:
    keep = [
        "app/main.py",
        "app/web/index.ts",
        "app/web/util.js",
        "cmd/tool/main.go",
        "src/lib.rs",
        "java/Foo.java",
        "app/keep_me.log.py",
    ]
    for rel in keep:
        _write(tmp_path, rel, "x = 1\n")
    skipped: dict[str, str | bytes] = {
        "node_modules/left-pad/index.js": "module.exports = 1;\n",
        "vendor/github.com/x/y.go": "package y\n",
        "third_party/lib.py": "x = 1\n",
        ".venv/lib/site.py": "x = 1\n",
        "env/lib/x.py": "x = 1\n",  # a virtualenv found by its pyvenv.cfg
        "build/out.py": "x = 1\n",  # .gitignore at the root
        "app/web/gen/out.ts": "export const a = 1;\n",  # nested .gitignore
        "app/secret_local.py": "x = 1\n",  # nested .gitignore, a file pattern
        "api/service_pb2.py": "x = 1\n",  # generated by name
        "api/model.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n",
        "web/dist.min.js": "var a=1;\n",
        "app/blob.py": b"\x00\x01\x02binary",
        "app/latin1.py": b"caf\xe9 = 1\n" * 3,
        "README.md": "# docs\n",
        "app/huge.py": "x = 1\n" * 400,
    }
    for rel, content in skipped.items():
        _write(tmp_path, rel, content)
    _write(tmp_path, "env/pyvenv.cfg", "home = /usr/bin\n")
    _write(tmp_path, ".gitignore", "build/\n*.tmp\n")
    _write(tmp_path, "app/.gitignore", "secret_*.py\n")
    _write(tmp_path, "app/web/.gitignore", "gen/\n")

    files = iter_source_files(tmp_path, max_file_bytes=1000)
    found = [p.relative_to(tmp_path).as_posix() for p in files]
    assert found == sorted(found)
    assert set(found) == set(keep)


def test_gitignore_applies_only_below_its_directory(tmp_path: Path) -> None:
    _write(tmp_path, "a/.gitignore", "skip.py\n")
    _write(tmp_path, "a/skip.py", "x = 1\n")
    _write(tmp_path, "b/skip.py", "x = 1\n")
    _write(tmp_path, "a/inner/skip.py", "x = 1\n")
    found = {p.relative_to(tmp_path).as_posix() for p in iter_source_files(tmp_path)}
    assert found == {"b/skip.py"}
