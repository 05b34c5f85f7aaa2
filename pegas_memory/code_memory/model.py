"""The data that code extraction produces and code resolution consumes: plain frozen dataclasses.

:class:`Symbol` rows (pm_code_symbol), :class:`Reference` as written in a file, the Python flow
facts (a tiny expression language for following values across assignments, calls and returns),
:class:`FileIndex` (all that one file says about itself) and :class:`Dependency` (a resolved
pm_code_dependency row). No parser or driver is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pegas_memory.vocabulary import Vocabulary


class SymbolKind(Vocabulary):
    """What a pm_code_symbol row is (`kind`)."""

    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    CONSTANT = "constant"
    INTERFACE = "interface"
    STRUCT = "struct"
    ENUM = "enum"
    TRAIT = "trait"
    TYPE = "type"
    VARIABLE = "variable"


class RefKind(Vocabulary):
    """What a reference is as written in a file."""

    CALLS = "calls"
    IMPORTS = "imports"
    INHERITS = "inherits"


class DepKind(Vocabulary):
    """What a stored edge is (pm_code_dependency `kind`): a reference as written (RefKind), or
    ``may_call``: a call site the resolver could not pin to one target, kept as one of its
    candidates (see MAX_CALL_TARGETS)."""

    CALLS = "calls"
    MAY_CALL = "may_call"
    IMPORTS = "imports"
    INHERITS = "inherits"


class Provenance(Vocabulary):
    """What found an edge: a type-checking analyzer or this package's heuristic resolvers."""

    ANALYZER = "analyzer"
    HEURISTIC = "heuristic"


class TargetKind(Vocabulary):
    """Where a dependency's target lies: a symbol of the repository, a named thing outside it,
    or text nothing could be resolved to."""

    INTERNAL = "internal"
    EXTERNAL = "external"
    UNRESOLVED = "unresolved"


# The languages one grammar family (and one resolver, one analyzer) serves.
JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
# JS/TS declarations that declare no value: a call (or `new`) never runs them.
TYPE_ONLY = frozenset({SymbolKind.INTERFACE, SymbolKind.TYPE})

# A call site with more internal targets than this is stored as ``may_call`` candidates, not as
# calls: memory_code_graph shows them only when asked (``candidates=true``).
MAX_CALL_TARGETS = 3


@dataclass(frozen=True, slots=True)
class Symbol:
    """One row of pm_code_symbol. Lines are 1-based and inclusive.

    ``qualified_name`` is dotted: ``pkg.mod.Class.method`` for Python (module from the path),
    ``com.ex.Foo.bar`` for Java (package), ``dir/file.Class.method`` for JS/TS/Rust and
    ``dir.Type.Method`` (the package directory) for Go. Lambdas are functions named ``<lambdaN>``.
    """

    path: str
    language: str
    name: str
    qualified_name: str
    kind: SymbolKind
    signature: str | None
    docstring: str | None
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Reference:
    """A call, import or base class as written in ``src_qualified_name`` (a symbol of the file).

    ``target`` is the source text (``self.foo``, ``os.path.join``, ``Base``); imports are written
    absolute where the syntax allows (Python relative imports are made absolute). ``self_call``
    marks calls on this/self/the Go receiver, which resolve through the enclosing type.
    """

    src_qualified_name: str
    kind: RefKind
    target: str
    line: int
    self_call: bool = False
    arity: int | None = None  # arguments of a call, for overloads (None: not counted)
    # Rust: the callee with its receiver written as a type or the expression it was bound to
    # (``self.map.find`` -> ``FlagMap.find``), for code_memory.chains; None when as written.
    typed: str | None = None
    # Java: the arguments' static types where the call site shows them ("" unknown), to pick
    # among overloads of one arity (``fromJson(String, TypeToken)``).
    arg_types: tuple[str, ...] = ()
    # Java: for each argument that is a method call or a field access, that call (or, with
    # ``arity`` None, the field read) as a reference of its own, so resolution can type the
    # argument by the declared return (or field) type of what it resolves to; None otherwise.
    arg_calls: tuple[Reference | None, ...] = ()


# Python flow facts: a tiny expression language, enough to follow functions, classes, modules and
# instances through assignments, returns, arguments and containers (see code_flow).


@dataclass(frozen=True, slots=True)
class Name:
    id: str


@dataclass(frozen=True, slots=True)
class Attr:
    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    func: Expr
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Subscript:
    obj: Expr
    key: Expr | None  # None: a slice or an expression we do not follow


@dataclass(frozen=True, slots=True)
class Const:
    value: str  # "s:<text>" for strings, "n:<int>" for integers


@dataclass(frozen=True, slots=True)
class Container:
    """A list/tuple/set/dict display; ``site`` is unique in the repository."""

    site: str
    items: tuple[tuple[str, Expr], ...]  # key is a Const value, or "*" when unknown


@dataclass(frozen=True, slots=True)
class DefRef:
    qualname: str  # a def, class or lambda of this file


@dataclass(frozen=True, slots=True)
class ModuleRef:
    module: str  # absolute dotted module name


@dataclass(frozen=True, slots=True)
class OneOf:
    options: tuple[Expr, ...]  # ``a or b``, ``a if c else b``


@dataclass(frozen=True, slots=True)
class Instance:
    """An instance of whatever repository class ``cls`` names: from a type annotation."""

    cls: Expr


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A decorator applied to a definition (``call.args[0]``). When the decorator is external or
    unknown its result is assumed to be the wrapped definition, as functools.wraps makes it."""

    call: Call


@dataclass(frozen=True, slots=True)
class Unknown:
    pass


Expr = (
    Name
    | Attr
    | Call
    | Subscript
    | Const
    | Container
    | DefRef
    | ModuleRef
    | OneOf
    | Instance
    | Wrapped
    | Unknown
)
UNKNOWN = Unknown()


@dataclass(frozen=True, slots=True)
class Scope:
    """A Python module, class, function or lambda and what resolution needs to know about it."""

    qualname: str
    kind: Literal["module", "class", "function"]
    parent: str | None
    params: tuple[str, ...] = ()  # "*args" / "**kw" keep their stars
    bases: tuple[Expr, ...] = ()
    decorators: tuple[str, ...] = ()  # builtin decorators only: staticmethod, classmethod...
    star_imports: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Assign:
    scope: str
    target: Expr  # Name, Attr or Subscript
    value: Expr
    line: int
    value_scope: str | None = None  # where ``value`` is evaluated when not ``scope`` (defaults)


@dataclass(frozen=True, slots=True)
class Return:
    scope: str
    value: Expr
    value_scope: str | None = None  # where ``value`` is evaluated when not ``scope`` (annotations)
    line: int = 0  # 0: not a statement of its own (an annotation, a lambda body)


@dataclass(frozen=True, slots=True)
class CallSite:
    scope: str
    call: Call
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Loop:
    scope: str
    target: Expr
    iterable: Expr
    line: int


Fact = Assign | Return | CallSite | Loop


@dataclass(frozen=True)
class FileIndex:
    """All that one file says about itself. ``has_errors``: tree-sitter had to recover.

    ``imports`` maps each local name an import binds to what it names: a dotted module or member
    for Python and Java (``com.ex.util.*`` for a wildcard, local name ``*``), the import path for
    Go, the ``::`` path for Rust, and ``source#name`` for a JavaScript/TypeScript named or
    default import (``./util#add``, ``./util#default``) or the bare source for a namespace
    import. ``scopes`` and ``facts`` are filled for Python only.
    """

    path: str
    language: str
    module: str
    content_hash: str
    symbols: tuple[Symbol, ...]
    references: tuple[Reference, ...]
    has_errors: bool = False
    is_package: bool = False
    scopes: tuple[Scope, ...] = ()
    facts: tuple[Fact, ...] = ()
    imports: tuple[tuple[str, str], ...] = field(default=())  # (local alias, imported target)
    # JavaScript/TypeScript: (exported name, a local name | ``source#name`` | a ``*`` source).
    exports: tuple[tuple[str, str], ...] = field(default=())
    # JavaScript: (function, required source) when the function returns an object it mixed the
    # source's export into (``mixin(app, proto); return app`` with ``proto = require(..)``).
    mixins: tuple[tuple[str, str], ...] = field(default=())
    # Java: (class, field, declared type as written without type arguments) for every field a
    # class body declares, so a field of a class in another file has a type (``t.tag.m()``).
    fields: tuple[tuple[str, str, str], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Dependency:
    """One pm_code_dependency row.

    ``dst`` is the qualified name of the repository symbol the reference resolves to, or None.
    ``dst_name`` is never empty: ``dst`` when resolved, else the best name known for the target:
    the import-qualified external name (``os.path.join``, ``builtins.len``) when
    ``target_kind`` is "external", the text as written when it is "unresolved".
    ``candidates`` is how many internal targets the call site resolved to (1 when pinned);
    ``provenance`` says what found the edge: a type-checking ``analyzer`` or the ``heuristic``
    resolvers of this package (tree-sitter syntax, names, the Python points-to analysis);
    ``tool`` names the analyzer and its version (``scip-python 0.6.6``) on an analyzer edge.
    """

    src: str
    kind: DepKind
    dst_name: str
    dst: str | None
    line: int
    target_kind: TargetKind
    candidates: int = 1
    provenance: Provenance = Provenance.HEURISTIC
    tool: str | None = None

    @property
    def confidence(self) -> float:
        """How sure the edge is: 1 for a pinned target, 1/n for one of n candidates."""
        return round(1.0 / max(self.candidates, 1), 3)
