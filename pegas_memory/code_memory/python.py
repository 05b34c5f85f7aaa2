"""The Python walker: one pass over a tree-sitter tree yields symbols, references and flow facts.

The flow facts (assignments, returns, call sites, loops over the tiny expression language of
:mod:`code_memory.model`) are what :mod:`code_memory.flow` replays to follow values
across files. Nothing here looks at another file.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import tree_sitter as ts

from pegas_memory.code_memory.model import (
    UNKNOWN,
    Assign,
    Attr,
    Call,
    CallSite,
    Const,
    Container,
    DefRef,
    Expr,
    Fact,
    Instance,
    Loop,
    ModuleRef,
    Name,
    OneOf,
    Reference,
    RefKind,
    Return,
    Scope,
    Subscript,
    Symbol,
    SymbolKind,
    Wrapped,
)
from pegas_memory.code_memory.syntax import WS, decl_head, node_line, node_text

# Decorators that change how a function is bound, not which function runs: not call edges.
_BINDING_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod"}
)
_CLAUSES = frozenset(
    {"else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause"}
)
_SEQUENCES = frozenset({"list", "tuple", "expression_list", "pattern_list", "set"})
_PATTERNS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list"})
_CONSTANT_NAME = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def _py_docstring(body: ts.Node | None) -> str | None:
    if body is None or body.named_child_count == 0:
        return None
    first = body.named_children[0]
    if first.type != "expression_statement" or first.named_child_count != 1:
        return None
    node = first.named_children[0]
    if node.type != "string" or "f" in node_text(node).split("'")[0].split('"')[0].lower():
        return None
    content = "".join(node_text(c) for c in node.named_children if c.type == "string_content")
    return inspect.cleandoc(content) or None


# Type constructors whose arguments are the possible types of the annotated value itself.
_UNION_TYPES = frozenset({"Optional", "Union", "Annotated", "Final", "ClassVar"})
_DOTTED = re.compile(r"^[A-Za-z_][\w.]*$")


def _dotted(name: str) -> Expr:
    parts = name.split(".")
    expr: Expr = Name(parts[0])
    for part in parts[1:]:
        expr = Attr(expr, part)
    return expr


def _annotation(node: ts.Node | None) -> Expr | None:
    """What an annotation says the value is: an :class:`Instance` of the classes it names.

    ``Optional[X]``, ``Union[X, Y]``, ``X | None`` and ``"X"`` (forward references) are looked
    through; containers and callables (``list[X]``, ``Callable[..., X]``) say nothing about the
    value's own methods, so they give None, as do builtin types once evaluated.
    """
    if node is None:
        return None
    t = node.type
    if t == "type" and node.named_child_count:
        return _annotation(node.named_children[0])
    if t in ("identifier", "attribute"):
        return Instance(_dotted(node_text(node)))
    if t == "string":
        content = "".join(node_text(c) for c in node.named_children if c.type == "string_content")
        content = content.strip()
        return Instance(_dotted(content)) if _DOTTED.match(content) else None
    if t in ("subscript", "generic_type"):
        value = node.child_by_field_name("value") if t == "subscript" else node.named_children[0]
        if node_text(value).rpartition(".")[2] not in _UNION_TYPES:
            return None
        args = (
            node.children_by_field_name("subscript")
            if t == "subscript"
            else [a for c in node.named_children[1:] for a in c.named_children]
        )
        found = [e for e in (_annotation(a) for a in args) if e is not None]
        return OneOf(tuple(found)) if found else None
    if t in ("binary_operator", "union_type"):
        found = [e for e in (_annotation(c) for c in node.named_children) if e is not None]
        return OneOf(tuple(found)) if found else None
    return None


class PythonWalker:
    """One pass over a Python tree: symbols, references and flow facts, keyed by qualified name."""

    def __init__(self, path: str, module: str, source: bytes) -> None:
        self.path, self.module, self.source = path, module, source
        self.is_package = Path(path).stem == "__init__"
        self.symbols: list[Symbol] = []
        self.references: list[Reference] = []
        self.scopes: list[Scope] = []
        self.facts: list[Fact] = []
        self.imports: list[tuple[str, str]] = []
        self._kinds: dict[str, str] = {}
        self._lambdas: dict[str, int] = {}
        self._declared: set[str] = set()
        self._stars: list[str] = []
        self._sites = 0

    def run(self, root: ts.Node) -> None:
        m = self.module
        self._kinds[m] = "module"
        doc = _py_docstring(root)
        end = max(root.end_point[0] + (0 if root.end_point[1] == 0 else 1), 1)
        self.symbols.append(
            Symbol(
                self.path, "python", m.rpartition(".")[2], m, SymbolKind.MODULE, None, doc, 1, end
            )
        )
        self._block(root, m)
        self.scopes.append(Scope(m, "module", None, star_imports=tuple(self._stars)))

    def _symbol(
        self,
        node: ts.Node,
        name: str,
        qualname: str,
        kind: SymbolKind,
        signature: str | None,
        doc: str | None,
    ) -> None:
        self.symbols.append(
            Symbol(
                self.path,
                "python",
                name,
                qualname,
                kind,
                signature,
                doc,
                node_line(node),
                node.end_point[0] + 1,
            )
        )

    def _block(self, node: ts.Node, scope: str) -> None:
        for child in node.named_children:
            self._stmt(child, scope)

    def _stmt(self, node: ts.Node, scope: str) -> None:
        t = node.type
        if t == "function_definition":
            self._function(node, scope, [])
        elif t == "class_definition":
            self._class(node, scope, [])
        elif t == "decorated_definition":
            decorators = [c for c in node.named_children if c.type == "decorator"]
            definition = node.child_by_field_name("definition")
            if definition is not None and definition.type == "class_definition":
                self._class(definition, scope, decorators)
            elif definition is not None:
                self._function(definition, scope, decorators)
        elif t == "expression_statement":
            for child in node.named_children:
                if child.type == "assignment":
                    self._assignment(child, scope)
                else:
                    self._expr(child, scope)
        elif t == "return_statement":
            for child in node.named_children:
                self.facts.append(Return(scope, self._expr(child, scope), line=node_line(node)))
        elif t in ("import_statement", "import_from_statement"):
            self._import(node, scope)
        elif t == "for_statement":
            iterable = self._expr(node.child_by_field_name("right"), scope)
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                self.facts.append(Loop(scope, Name(node_text(left)), iterable, node_line(node)))
            for child in node.named_children:
                if child.type == "block" or child.type in _CLAUSES:
                    self._stmt(child, scope)
        elif t == "raise_statement":
            for child in node.named_children:
                value = self._expr(child, scope)
                if isinstance(value, Name | Attr):  # ``raise Error`` instantiates the class
                    self._call_site(scope, Call(value), child, node_text(child))
        elif t == "block" or t in _CLAUSES:
            for child in node.named_children:
                if child.type == "block" or child.type in _CLAUSES or t == "block":
                    self._stmt(child, scope)
                else:
                    self._expr(child, scope)
        elif t not in (
            "comment",
            "pass_statement",
            "global_statement",
            "nonlocal_statement",
            "future_import_statement",
            "break_statement",
            "continue_statement",
        ):
            for child in node.named_children:
                if child.type == "block" or child.type in _CLAUSES or "statement" in child.type:
                    self._stmt(child, scope)
                else:
                    self._expr(child, scope)

    # -- definitions --

    def _decorate(
        self, scope: str, value: Expr, decorators: list[ts.Node]
    ) -> tuple[Expr, tuple[str, ...]]:
        builtin: list[str] = []
        for dec in reversed(decorators):
            inner = dec.named_children[0] if dec.named_child_count else None
            name = node_text(inner)
            if name in _BINDING_DECORATORS or name.endswith((".setter", ".getter", ".deleter")):
                builtin.append(name)
                continue
            if inner is None:
                continue
            call = Call(self._expr(inner, scope), (value,))
            self._call_site(scope, call, dec, name)
            value = Wrapped(call)
        return value, tuple(builtin)

    def _function(self, node: ts.Node, scope: str, decorators: list[ts.Node]) -> None:
        name = node_text(node.child_by_field_name("name"))
        qualname = f"{scope}.{name}"
        body = node.child_by_field_name("body")
        kind: SymbolKind = (
            SymbolKind.METHOD if self._kinds.get(scope) == SymbolKind.CLASS else SymbolKind.FUNCTION
        )
        self._symbol(
            node, name, qualname, kind, decl_head(self.source, node, body), _py_docstring(body)
        )
        self._kinds[qualname] = "function"
        params = self._params(node.child_by_field_name("parameters"), qualname, scope)
        returns = _annotation(node.child_by_field_name("return_type"))
        if returns is not None:
            self.facts.append(Return(qualname, returns, scope))
        value, builtin = self._decorate(scope, DefRef(qualname), decorators)
        self.scopes.append(Scope(qualname, "function", scope, params, decorators=builtin))
        if body is not None:
            self._block(body, qualname)
        self.facts.append(Assign(scope, Name(name), value, node_line(node)))

    def _params(self, node: ts.Node | None, qualname: str, outer: str) -> tuple[str, ...]:
        names: list[str] = []
        for p in node.named_children if node is not None else ():
            t, name = p.type, ""
            if t == "identifier":
                name = node_text(p)
            elif t in ("default_parameter", "typed_default_parameter"):
                name = node_text(p.child_by_field_name("name"))
                default = self._expr(p.child_by_field_name("value"), outer)
                self.facts.append(Assign(qualname, Name(name), default, node_line(p), outer))
            elif t == "typed_parameter" and p.named_child_count:
                first = p.named_children[0]
                name = (
                    node_text(first.named_children[0])
                    if first.named_child_count
                    else node_text(first)
                )
                if first.type == "list_splat_pattern":
                    name = "*" + name
                elif first.type == "dictionary_splat_pattern":
                    name = "**" + name
            elif t == "list_splat_pattern" and p.named_child_count:
                name = "*" + node_text(p.named_children[0])
            elif t == "dictionary_splat_pattern" and p.named_child_count:
                name = "**" + node_text(p.named_children[0])
            if not name:
                continue
            names.append(name)
            annotated = _annotation(p.child_by_field_name("type"))
            if annotated is not None and not name.startswith("*"):
                self.facts.append(Assign(qualname, Name(name), annotated, node_line(p), outer))
        return tuple(names)

    def _class(self, node: ts.Node, scope: str, decorators: list[ts.Node]) -> None:
        name = node_text(node.child_by_field_name("name"))
        qualname = f"{scope}.{name}"
        body = node.child_by_field_name("body")
        self._symbol(
            node,
            name,
            qualname,
            SymbolKind.CLASS,
            decl_head(self.source, node, body),
            _py_docstring(body),
        )
        self._kinds[qualname] = "class"
        bases: list[Expr] = []
        superclasses = node.child_by_field_name("superclasses")
        for base in superclasses.named_children if superclasses is not None else ():
            if base.type in ("keyword_argument", "comment"):
                continue
            bases.append(self._expr(base, scope))
            self.references.append(
                Reference(qualname, RefKind.INHERITS, node_text(base), node_line(base))
            )
        value, builtin = self._decorate(scope, DefRef(qualname), decorators)
        self.scopes.append(Scope(qualname, "class", scope, bases=tuple(bases), decorators=builtin))
        if body is not None:
            self._block(body, qualname)
        self.facts.append(Assign(scope, Name(name), value, node_line(node)))

    def _lambda(self, node: ts.Node, scope: str) -> Expr:
        n = self._lambdas[scope] = self._lambdas.get(scope, 0) + 1
        name = f"<lambda{n}>"
        qualname = f"{scope}.{name}"
        body = node.child_by_field_name("body")
        self._symbol(
            node, name, qualname, SymbolKind.FUNCTION, decl_head(self.source, node, body), None
        )
        self._kinds[qualname] = "function"
        params = self._params(node.child_by_field_name("parameters"), qualname, scope)
        self.scopes.append(Scope(qualname, "function", scope, params))
        if body is not None:
            self.facts.append(Return(qualname, self._expr(body, qualname)))
        return DefRef(qualname)

    # -- imports --

    def _absolute(self, node: ts.Node) -> str:
        if node.type != "relative_import":
            return node_text(node)
        level = sum(node_text(c).count(".") for c in node.children if c.type == "import_prefix")
        rest = "".join(node_text(c) for c in node.named_children if c.type == "dotted_name")
        base = self.module if self.is_package else self.module.rpartition(".")[0]
        for _ in range(level - 1):
            base = base.rpartition(".")[0]
        return f"{base}.{rest}" if base and rest else base or rest

    def _import(self, node: ts.Node, scope: str) -> None:
        line = node_line(node)
        if node.type == "import_statement":
            for item in node.children_by_field_name("name"):
                if item.type == "aliased_import":
                    module = node_text(item.child_by_field_name("name"))
                    local, value = node_text(item.child_by_field_name("alias")), module
                else:
                    module = node_text(item)
                    local = value = module.split(".")[0]
                self.facts.append(Assign(scope, Name(local), ModuleRef(value), line))
                self.references.append(Reference(scope, RefKind.IMPORTS, module, line))
                self.imports.append((local, value))
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        module = self._absolute(module_node)
        if module and module != self.module:
            # ``from X import y`` depends on module X as well as on y: module-level edges.
            self.references.append(Reference(scope, RefKind.IMPORTS, module, line))
        if any(c.type == "wildcard_import" for c in node.children):
            self._stars.append(module)
            self.imports.append(("*", module))
            return
        for item in node.children_by_field_name("name"):
            if item.type == "aliased_import":
                name = node_text(item.child_by_field_name("name"))
                local = node_text(item.child_by_field_name("alias"))
            else:
                name = local = node_text(item)
            self.facts.append(Assign(scope, Name(local), Attr(ModuleRef(module), name), line))
            target = f"{module}.{name}" if module else name
            self.references.append(Reference(scope, RefKind.IMPORTS, target, line))
            self.imports.append((local, target))

    # -- assignments and expressions --

    def _assignment(self, node: ts.Node, scope: str) -> Expr:
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None:
            if left is not None:
                self._declare(left, scope, node)
            return UNKNOWN
        if right.type == "assignment":
            value = self._assignment(right, scope)
        else:
            value = self._expr(right, scope)
        if left is not None:
            self._bind(left, value, scope, node)
        return value

    def _declare(self, target: ts.Node, scope: str, stmt: ts.Node) -> None:
        """Module and class level names become constant/variable symbols (first binding wins)."""
        if target.type != "identifier" or self._kinds.get(scope) not in ("module", "class"):
            return
        name = node_text(target)
        qualname = f"{scope}.{name}"
        if qualname in self._declared:
            return
        self._declared.add(qualname)
        kind: SymbolKind = (
            SymbolKind.CONSTANT if _CONSTANT_NAME.match(name) else SymbolKind.VARIABLE
        )
        self._symbol(stmt, name, qualname, kind, decl_head(self.source, stmt, None, 160), None)

    def _bind(self, target: ts.Node, value: Expr, scope: str, stmt: ts.Node) -> None:
        t, line = target.type, node_line(stmt)
        if t == "identifier":
            self._declare(target, scope, stmt)
            self.facts.append(Assign(scope, Name(node_text(target)), value, line))
        elif t == "attribute":
            obj = self._expr(target.child_by_field_name("object"), scope)
            attr = node_text(target.child_by_field_name("attribute"))
            self.facts.append(Assign(scope, Attr(obj, attr), value, line))
        elif t == "subscript":
            obj = self._expr(target.child_by_field_name("value"), scope)
            key_node = target.child_by_field_name("subscript")
            key = (
                None
                if key_node is None or key_node.type == "slice"
                else self._expr(key_node, scope)
            )
            self.facts.append(Assign(scope, Subscript(obj, key), value, line))
        elif t in ("parenthesized_expression", "list_splat_pattern", "list_splat"):
            if target.named_child_count:
                inner_value = value if t == "parenthesized_expression" else UNKNOWN
                self._bind(target.named_children[0], inner_value, scope, stmt)
        elif t in _PATTERNS:
            elems = [c for c in target.named_children if c.type != "comment"]
            star = next(
                (i for i, c in enumerate(elems) if c.type in ("list_splat_pattern", "list_splat")),
                None,
            )
            items = value.items if isinstance(value, Container) else None
            exact = items is not None and all(k != "*" for k, _ in items)
            for i, elem in enumerate(elems):
                if exact and items is not None and (star is not None or len(items) == len(elems)):
                    tail = len(elems) - 1 - i
                    if star is None or i < star:
                        part: Expr = items[i][1] if i < len(items) else UNKNOWN
                    elif i > star:
                        part = items[len(items) - 1 - tail][1] if tail < len(items) else UNKNOWN
                    else:
                        middle = items[star : len(items) - tail]
                        part = self._container([v for _, v in middle], sequence=True)
                        if elem.named_child_count:
                            self._bind(elem.named_children[0], part, scope, stmt)
                        continue
                elif star is None or i < star:
                    part = Subscript(value, Const(f"n:{i}"))
                else:
                    part = Subscript(value, None)
                self._bind(elem, part, scope, stmt)
        else:
            self._expr(target, scope)

    def _container(self, values: list[Expr], *, sequence: bool) -> Container:
        self._sites += 1
        site = f"{self.module}#{self._sites}"
        return Container(
            site, tuple((f"n:{i}" if sequence else "*", v) for i, v in enumerate(values))
        )

    def _call_site(self, scope: str, call: Call, node: ts.Node, text: str) -> None:
        text = WS.sub(" ", text)[:200]
        self.facts.append(CallSite(scope, call, node_line(node), text))
        self.references.append(Reference(scope, RefKind.CALLS, text, node_line(node)))

    def _expr(self, node: ts.Node | None, scope: str) -> Expr:
        if node is None:
            return UNKNOWN
        t = node.type
        if t == "identifier":
            return Name(node_text(node))
        if t == "attribute":
            obj = self._expr(node.child_by_field_name("object"), scope)
            return Attr(obj, node_text(node.child_by_field_name("attribute")))
        if t == "call":
            func_node = node.child_by_field_name("function")
            func = self._expr(func_node, scope)
            args: list[Expr] = []
            kwargs: list[tuple[str, Expr]] = []
            arguments = node.child_by_field_name("arguments")
            for a in arguments.named_children if arguments is not None else ():
                if a.type == "keyword_argument":
                    value = self._expr(a.child_by_field_name("value"), scope)
                    kwargs.append((node_text(a.child_by_field_name("name")), value))
                elif a.type != "comment":
                    args.append(self._expr(a, scope))
            call = Call(func, tuple(args), tuple(kwargs))
            self._call_site(scope, call, node, node_text(func_node))
            return call
        if t == "string":
            if any(c.type == "interpolation" for c in node.named_children):
                for c in node.named_children:
                    self._expr(c, scope)
                return UNKNOWN
            return Const(
                "s:"
                + "".join(node_text(c) for c in node.named_children if c.type == "string_content")
            )
        if t == "integer":
            try:
                return Const(f"n:{int(node_text(node), 0)}")
            except ValueError:
                return UNKNOWN
        if t in _SEQUENCES:
            values = [self._expr(c, scope) for c in node.named_children if c.type != "comment"]
            return self._container(values, sequence=t != "set")
        if t == "dictionary":
            self._sites += 1
            items: list[tuple[str, Expr]] = []
            for pair in node.named_children:
                if pair.type != "pair":
                    self._expr(pair, scope)
                    continue
                key = self._expr(pair.child_by_field_name("key"), scope)
                value = self._expr(pair.child_by_field_name("value"), scope)
                items.append((key.value if isinstance(key, Const) else "*", value))
            return Container(f"{self.module}#{self._sites}", tuple(items))
        if t in ("parenthesized_expression", "await") and node.named_child_count:
            return self._expr(node.named_children[0], scope)
        if t == "boolean_operator":
            left = self._expr(node.child_by_field_name("left"), scope)
            return OneOf((left, self._expr(node.child_by_field_name("right"), scope)))
        if t == "conditional_expression":
            parts = [self._expr(c, scope) for c in node.named_children]
            return OneOf((parts[0], parts[-1])) if len(parts) == 3 else UNKNOWN
        if t == "lambda":
            return self._lambda(node, scope)
        if t == "subscript":
            obj = self._expr(node.child_by_field_name("value"), scope)
            key_node = node.child_by_field_name("subscript")
            if key_node is None or key_node.type == "slice":
                self._expr(key_node, scope)
                return Subscript(obj, None)
            return Subscript(obj, self._expr(key_node, scope))
        if t == "named_expression":
            value = self._expr(node.child_by_field_name("value"), scope)
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                self._bind(name_node, value, scope, node)
            return value
        if t == "yield":
            value = self._expr(node.named_children[0], scope) if node.named_child_count else UNKNOWN
            self.facts.append(Return(scope, value, line=node_line(node)))
            return UNKNOWN
        for child in node.named_children:
            self._expr(child, scope)
        return UNKNOWN
