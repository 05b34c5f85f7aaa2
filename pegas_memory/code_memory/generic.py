"""The walker for JavaScript, TypeScript, Go, Rust and Java: symbols and references by syntax.

One table per language maps declaration node types to symbol kinds; calls, imports and base
types are recorded as written, for :mod:`code_memory.graph` to resolve by name.
"""

from __future__ import annotations

import re
from pathlib import Path

import tree_sitter as ts

import pegas_memory.code_memory.lang_js as lang_js
import pegas_memory.code_memory.lang_rust as lang_rust
from pegas_memory.code_memory.model import Reference, RefKind, Symbol, SymbolKind
from pegas_memory.code_memory.syntax import WS, decl_head, node_line, node_text
from pegas_memory.code_memory.typed_locals import (
    descendants,
    go_bound_call,
    go_field_call,
    go_field_values,
    go_locals,
    go_struct_fields,
    java_arg_types,
    java_fields,
    java_locals,
)

_JS_DEFS: dict[str, SymbolKind] = {
    "function_declaration": SymbolKind.FUNCTION,
    "generator_function_declaration": SymbolKind.FUNCTION,
    "class_declaration": SymbolKind.CLASS,
    "abstract_class_declaration": SymbolKind.CLASS,
    "method_definition": SymbolKind.METHOD,
    "method_signature": SymbolKind.METHOD,
    "abstract_method_signature": SymbolKind.METHOD,
    "interface_declaration": SymbolKind.INTERFACE,
    "type_alias_declaration": SymbolKind.TYPE,
    "enum_declaration": SymbolKind.ENUM,
}
_DEFS: dict[str, dict[str, SymbolKind]] = {
    "javascript": _JS_DEFS,
    "typescript": _JS_DEFS,
    "tsx": _JS_DEFS,
    "go": {
        "function_declaration": SymbolKind.FUNCTION,
        "method_declaration": SymbolKind.METHOD,
        # of an interface: what a call through the interface binds to
        "method_elem": SymbolKind.METHOD,
        "type_spec": SymbolKind.TYPE,
        "type_alias": SymbolKind.TYPE,
        "const_spec": SymbolKind.CONSTANT,
    },
    "rust": {
        "function_item": SymbolKind.FUNCTION,
        "function_signature_item": SymbolKind.FUNCTION,
        "struct_item": SymbolKind.STRUCT,
        "union_item": SymbolKind.STRUCT,
        "enum_item": SymbolKind.ENUM,
        "trait_item": SymbolKind.TRAIT,
        "type_item": SymbolKind.TYPE,
        "const_item": SymbolKind.CONSTANT,
        "static_item": SymbolKind.VARIABLE,
        "mod_item": SymbolKind.MODULE,
    },
    "java": {
        "class_declaration": SymbolKind.CLASS,
        "record_declaration": SymbolKind.CLASS,
        "interface_declaration": SymbolKind.INTERFACE,
        "annotation_type_declaration": SymbolKind.INTERFACE,
        "enum_declaration": SymbolKind.ENUM,
        "method_declaration": SymbolKind.METHOD,
        "constructor_declaration": SymbolKind.METHOD,
    },
}
_CLASS_KINDS = frozenset(
    {SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.TRAIT}
)
_CALLS = {
    "call_expression": "function",
    "new_expression": "constructor",
    "method_invocation": "name",
    "object_creation_expression": "type",
    "explicit_constructor_invocation": "constructor",  # Java ``this(..)``, ``super(..)``
    # Go ``simplelru.NewLRU[K, V](size)``: one argument after type arguments reads as a
    # conversion to a generic type; a generic function called so is a call (see _call).
    "type_conversion_expression": "type",
}
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_GO_OPERANDS = frozenset({"identifier", "call_expression"})  # a local or a call's result
_JS = frozenset({"javascript", "typescript", "tsx"})
_COMMENT_MARKS = re.compile(r"^\s*(/\*\*?|\*/|\*|///?|//!)?\s?", re.MULTILINE)


class GenericWalker:
    """Symbols and references for the C-family grammars, driven by the tables above."""

    def __init__(self, path: str, language: str, module: str, source: bytes) -> None:
        self.path, self.language, self.module, self.source = path, language, module, source
        self.defs = _DEFS[language]
        self.symbols: list[Symbol] = []
        self.references: list[Reference] = []
        self.imports: list[tuple[str, str]] = []
        self.exports: list[tuple[str, str]] = []
        self._arity: dict[int, int] = {}  # symbol position -> parameter count (overloads)
        # Members are named under the package (Go directory, Java package), else the file.
        self.prefix = module
        if language == "go":
            self.prefix = str(Path(path).parent.as_posix())
        self._receiver: str | None = None
        self._inits = 0  # Go ``init()`` functions seen in the file
        self._closures: dict[int, frozenset[str]] = {}  # Rust closure -> the names it binds
        self._locals: dict[int, dict[str, str]] = {}  # method/fn node -> local variable types
        self._fields: dict[str, dict[str, str]] | None = None  # Rust/Go struct field types
        self._java_fields: dict[str, dict[str, str]] | None = None  # class -> field -> type
        self._field_values: dict[str, dict[str, set[str]]] | None = None  # Go: see _go_made
        self._root: ts.Node | None = None
        # JavaScript factories and module-level bindings (see _js_facts).
        self._returned: set[tuple[str, str]] = set()
        self._mixed: list[tuple[str, str, str]] = []
        self._bound: dict[str, str | None] = {}
        self._declared: dict[int, lang_js.FnScope] = {}

    def run(self, root: ts.Node) -> None:
        self._root = root
        end = max(root.end_point[0] + 1, 1)
        name = Path(self.path).stem
        self.symbols.append(
            Symbol(
                self.path, self.language, name, self.module, SymbolKind.MODULE, None, None, 1, end
            )
        )
        if self.language == "go":
            pkg = next((c for c in root.named_children if c.type == "package_clause"), None)
            if self.prefix in ("", ".") and pkg is not None:
                self.prefix = node_text(pkg.named_children[0]) if pkg.named_child_count else "main"
        self._visit(root, self.module, self.prefix, None)
        self._disambiguate()

    def _disambiguate(self) -> None:
        """Give same-named definitions distinct qualified names, so none hides another: Java
        overloads get ``#arity`` (``Gson.fromJson#2``), any still equal (and same-named
        functions elsewhere) ``@line`` after the first. References move with their symbol: each
        goes to the definition of that name whose lines enclose it most tightly."""
        groups: dict[str, list[int]] = {}
        for i, sym in enumerate(self.symbols):
            if i:  # the module symbol keeps its name
                groups.setdefault(sym.qualified_name, []).append(i)
        renamed: dict[str, list[Symbol]] = {}
        for qualname, positions in groups.items():
            if len(positions) < 2:
                continue
            seen: set[str] = set()
            for i in positions:
                sym = self.symbols[i]
                new = qualname
                if self.language == "java" and i in self._arity:
                    new = f"{qualname}#{self._arity[i]}"
                if new in seen:
                    new = f"{new}@{sym.start_line}"
                seen.add(new)
                self.symbols[i] = sym = _renamed(sym, new)
                renamed.setdefault(qualname, []).append(sym)
        if not renamed:
            return
        for n, ref in enumerate(self.references):
            options = renamed.get(ref.src_qualified_name)
            if options is None:
                continue
            inside = [s for s in options if s.start_line <= ref.line <= s.end_line]
            best = min(inside or options, key=lambda s: s.end_line - s.start_line)
            self.references[n] = Reference(
                best.qualified_name,
                ref.kind,
                ref.target,
                ref.line,
                ref.self_call,
                ref.arity,
                ref.typed,
                ref.arg_types,
            )

    def _visit(self, node: ts.Node, src: str, prefix: str, owner: str | None) -> None:
        """``src``: the symbol references are attributed to; ``prefix``: qualified-name prefix of
        new definitions; ``owner``: the enclosing class-like qualified name (methods)."""
        for child in node.named_children:
            t = child.type
            if self.language in _JS:
                self._js_facts(child, src, owner)
            kind = self.defs.get(t)
            if kind is not None:
                self._definition(child, kind, src, prefix, owner)
            elif t == "impl_item":
                self._impl(child, src, prefix)
            elif t == "package_declaration" and child.named_child_count:
                self.prefix = prefix = node_text(child.named_children[0])
            elif t in ("import_statement", "import_declaration", "use_declaration"):
                self._import(child, src)
            elif t == "variable_declarator" and self._top_level_function(child, owner, src):
                self._definition(child, SymbolKind.FUNCTION, src, prefix, owner)
            elif t == "variable_declarator" and self._require(child, src):
                continue
            elif t == "variable_declarator" and (obj := self._object_owner(child, owner, prefix)):
                self._visit(child, src, obj, obj)
            elif t == "assignment_expression" and self.language in _JS:
                self._js_assignment(child, src, prefix, owner)
            elif t == "export_statement":
                self._export(child, src)
                self._visit(child, src, prefix, owner)
            elif t == "field_declaration" and self.language == "java":
                self._java_field(child, prefix)
                self._visit(child, src, prefix, owner)
            else:
                if t in _CALLS:
                    self._call(child, src, owner)
                self._visit(child, src, prefix, owner)

    def _object_owner(self, node: ts.Node, owner: str | None, prefix: str) -> str | None:
        named = lang_js.object_literal_name(node) if self.language in _JS and not owner else None
        return f"{prefix}.{named}" if named else None

    def _top_level_function(self, node: ts.Node, owner: str | None, src: str) -> bool:
        value = node.child_by_field_name("value")
        return (
            self.language in ("javascript", "typescript", "tsx")
            and owner is None
            and src == self.module
            and value is not None
            and value.type in ("arrow_function", "function_expression", "function")
        )

    def _js_facts(self, node: ts.Node, src: str, owner: str | None) -> None:
        """What a factory needs (``return app`` after ``mixin(app, proto)``) and what a
        module-level ``var app = express()`` binds, for :meth:`mixins` and typed calls."""
        t = node.type
        if t == "return_statement" and node.named_child_count:
            value = node.named_children[0]
            if value.type == "identifier":
                self._returned.add((src, node_text(value)))
        elif t == "call_expression":
            mixed = lang_js.mixed_into(node)
            if mixed is not None:
                self._mixed.append((src, *mixed))
        elif t == "variable_declarator" and owner is None and src == self.module:
            name = node_text(node.child_by_field_name("name"))
            callee = lang_js.bound_call(node)
            if name in self._bound and self._bound[name] != callee:
                self._bound[name] = None  # bound twice: unknown
            else:
                self._bound[name] = callee
            if lang_js.exports_as_default(node):
                self.exports.append(("default", name))

    def mixins(self) -> list[tuple[str, str]]:
        """(function, required source) for functions that return what they mixed a required
        module into."""
        required = {alias: target for alias, target in self.imports if "#" not in target}
        return sorted(
            {
                (fn, required[source])
                for fn, target, source in self._mixed
                if (fn, target) in self._returned and source in required
            }
        )

    def _require(self, node: ts.Node, src: str) -> bool:
        """``const x = require('./x')``: an import (edge and local names), not a call."""
        if self.language not in _JS:
            return False
        source = lang_js.require_source(node.child_by_field_name("value"))
        pattern = node.child_by_field_name("name")
        if source is None or pattern is None:
            return False
        self.references.append(Reference(src, RefKind.IMPORTS, source, node_line(node)))
        self.imports.extend(lang_js.require_bindings(pattern, source))
        return True

    def _export(self, node: ts.Node, src: str) -> None:
        entries, source = lang_js.export_entries(node)
        self.exports.extend(entries)
        if source is not None:
            self.references.append(Reference(src, RefKind.IMPORTS, source, node_line(node)))

    def _js_assignment(self, node: ts.Node, src: str, prefix: str, owner: str | None) -> None:
        """``exports.x = function``, ``module.exports = f``, ``X.prototype.y = function``,
        ``res.send = function``: the assigned function is a symbol (CommonJS has no other way
        to define library functions); an exported identifier enters the export table."""
        targets, value = lang_js.assignment_chain(node)
        if value is None:
            return
        required = lang_js.require_source(value)
        if required is not None:  # ``module.exports = require('./lib')``: a re-export
            self.references.append(Reference(src, RefKind.IMPORTS, required, node_line(node)))
            if any(node_text(t) == "module.exports" for t in targets):
                self.exports.extend([("*", required), ("default", f"{required}#default")])
            return
        defined: str | None = None
        for target in targets:
            what = lang_js.assigned_member(target)
            if what is None:
                continue
            if value.type == "identifier":
                if what.export is not None:
                    self.exports.append((what.export, node_text(value)))
                continue
            if value.type not in lang_js.FUNCTION_VALUES:
                continue
            own_name = node_text(value.child_by_field_name("name"))
            name = own_name if what.export == "default" and own_name else what.name
            kind: SymbolKind = SymbolKind.METHOD if what.owner else SymbolKind.FUNCTION
            if value.type == "class":
                kind = SymbolKind.CLASS
            qualname = f"{self.module}.{what.owner}.{name}" if what.owner else f"{prefix}.{name}"
            if what.export is not None:
                self.exports.append((what.export, name))
            # ``res.contentType = res.type = function``: every name is a symbol (``res.type()``
            # is called too); the body's references belong to the first.
            self._add_symbol(node, value, name, qualname, kind)
            defined = defined or qualname
        if defined is None:
            self._visit(node, src, prefix, owner)
        else:
            self._visit(value, defined, prefix, owner)

    def _add_symbol(
        self, node: ts.Node, value: ts.Node, name: str, qualname: str, kind: SymbolKind
    ) -> None:
        body = value.child_by_field_name("body")
        self._arity[len(self.symbols)] = _arity(value.child_by_field_name("parameters"))
        self.symbols.append(
            Symbol(
                self.path,
                self.language,
                name,
                qualname,
                kind,
                decl_head(self.source, node, body),
                self._doc(node.parent or node),
                node_line(node),
                node.end_point[0] + 1,
            )
        )

    def _definition(
        self, node: ts.Node, kind: SymbolKind, src: str, prefix: str, owner: str | None
    ) -> None:
        lang = self.language
        name_node = node.child_by_field_name("name")
        name = node_text(name_node)
        if not name:
            self._visit(node, src, prefix, owner)
            return
        receiver_type = None
        if lang == "go" and kind == SymbolKind.METHOD:
            receiver = node.child_by_field_name("receiver")
            # ``(a *ArgumentBase[T, C, VC])``: the type, not its last type parameter.
            rtype = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*\]", "", node_text(receiver)))
            receiver_type = rtype[-1] if rtype else None
            self._receiver = rtype[0] if len(rtype) > 1 else None
            owner = f"{prefix}.{receiver_type}" if receiver_type else owner
        if lang == "go" and node.type == "type_spec":
            inner = node.child_by_field_name("type")
            kind = {
                "struct_type": SymbolKind.STRUCT,
                "interface_type": SymbolKind.INTERFACE,
            }.get(inner.type if inner else "", SymbolKind.TYPE)
        if kind == SymbolKind.FUNCTION and owner is not None:
            kind = SymbolKind.METHOD
        # Rust associated items of an ``impl`` (``type Err = ..``, ``const N``) belong to the
        # type: named at module level they would shadow ``Err(..)`` for every bare call.
        assoc = lang == "rust" and kind in (SymbolKind.TYPE, SymbolKind.CONSTANT)
        member = owner and (kind == SymbolKind.METHOD or assoc)
        qualname = f"{owner}.{name}" if member else f"{prefix}.{name}"
        if lang == "go" and name == "init" and not member:
            # Every file of a package may have its own ``init()``s: named by file and by their
            # order in it (not by line: an edit above one would rename it and move its edges).
            self._inits += 1
            qualname = f"{qualname}@{self.path.rpartition('/')[2]}"
            qualname += f"#{self._inits}" if self._inits > 1 else ""
        body = node.child_by_field_name("body")
        params = node.child_by_field_name("parameters")
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value") or node
            body, params = (
                value.child_by_field_name("body"),
                value.child_by_field_name("parameters"),
            )
        self._arity[len(self.symbols)] = _arity(params)
        self.symbols.append(
            Symbol(
                self.path,
                lang,
                name,
                qualname,
                kind,
                decl_head(self.source, node, body),
                self._doc(node),
                node_line(node),
                node.end_point[0] + 1,
            )
        )
        if kind in _CLASS_KINDS:
            self._bases(node, qualname)
            self._visit(node, qualname, qualname, qualname)
        elif kind == SymbolKind.MODULE:
            self._visit(node, qualname, qualname, None)
        else:
            self._visit(node, qualname, prefix, owner)
        if receiver_type is not None:
            self._receiver = None

    def _impl(self, node: ts.Node, src: str, prefix: str) -> None:
        type_name = re.sub(r"<.*", "", node_text(node.child_by_field_name("type")))
        owner = f"{prefix}.{type_name}"
        trait = node.child_by_field_name("trait")
        if trait is not None:
            self.references.append(
                Reference(owner, RefKind.INHERITS, node_text(trait), node_line(trait))
            )
        self._visit(node, src, prefix, owner)

    def _java_field(self, node: ts.Node, prefix: str) -> None:
        modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
        words = node_text(modifiers).split()
        if "static" not in words or "final" not in words:
            return
        for decl in node.children_by_field_name("declarator"):
            name = node_text(decl.child_by_field_name("name"))
            self.symbols.append(
                Symbol(
                    self.path,
                    self.language,
                    name,
                    f"{prefix}.{name}",
                    SymbolKind.CONSTANT,
                    decl_head(self.source, node, None, 160),
                    self._doc(node),
                    node_line(node),
                    node.end_point[0] + 1,
                )
            )

    def _doc(self, node: ts.Node) -> str | None:
        anchor = node
        while anchor.parent is not None and anchor.parent.type in (
            "export_statement",
            "type_declaration",
            "const_declaration",
            "decorated_definition",
        ):
            anchor = anchor.parent
        lines: list[str] = []
        prev, expected = anchor.prev_named_sibling, anchor.start_point[0]
        while prev is not None and prev.type in _COMMENTS and prev.end_point[0] >= expected - 1:
            lines.insert(0, node_text(prev))
            expected = prev.start_point[0]
            prev = prev.prev_named_sibling
        if not lines:
            return None
        text = _COMMENT_MARKS.sub("", "\n".join(lines)).strip()
        return text.removesuffix("*/").strip() or None

    def _bases(self, node: ts.Node, qualname: str) -> None:
        found: list[ts.Node] = []
        for child in node.named_children:
            t = child.type
            if t == "class_heritage":
                for part in child.named_children:
                    if part.type in ("extends_clause", "implements_clause"):
                        found.extend(c for c in part.named_children if c.type != "type_arguments")
                    else:
                        found.append(part)
            elif t in ("superclass", "extends_type_clause"):
                found.extend(child.named_children)
            elif t in ("super_interfaces", "extends_interfaces"):
                for tl in child.named_children:
                    found.extend(tl.named_children)
            elif t == "trait_bounds":
                found.extend(child.named_children)
        if self.language == "go" and node.type == "type_spec":
            inner = node.child_by_field_name("type")
            if inner is not None:
                self._bases_go(inner, qualname)
        for base in found:
            target = re.sub(r"<.*", "", node_text(base)).lstrip("*")
            self.references.append(Reference(qualname, RefKind.INHERITS, target, node_line(base)))

    def _bases_go(self, inner: ts.Node, qualname: str) -> None:
        """Embedded struct fields and embedded interfaces: Go's form of inheritance."""
        members = inner.named_children
        if inner.type == "struct_type" and members:
            members = members[0].named_children
        for member in members:
            if member.type == "field_declaration" and member.child_by_field_name("name") is None:
                typ = member.child_by_field_name("type")
                target = node_text(typ).lstrip("*")
            elif member.type == "type_elem":
                target = node_text(member)
            else:
                continue
            self.references.append(Reference(qualname, RefKind.INHERITS, target, node_line(member)))

    def _call(self, node: ts.Node, src: str, owner: str | None) -> None:
        callee = node.child_by_field_name(_CALLS[node.type])
        if callee is None:
            return
        required = lang_js.require_source(node) if self.language in _JS else None
        if required is not None:  # ``app.use(require('./routes'))``: an import, not a call
            self.references.append(Reference(src, RefKind.IMPORTS, required, node_line(node)))
            return
        if self.language == "go" and _go_instantiation(callee):
            callee = callee.child_by_field_name("operand") or callee  # ``arg[float32](..)``
        if node.type == "type_conversion_expression":
            if callee.type != "generic_type":  # ``int64(x)``: a conversion, no call
                return
            callee = callee.child_by_field_name("type") or callee
        target = node_text(callee)
        if node.type == "explicit_constructor_invocation":
            target = _java_delegate(node, target, owner) or ""
            if not target:
                return
        obj = node.child_by_field_name("object") if node.type == "method_invocation" else None
        if obj is not None:
            target = f"{node_text(obj)}.{target}"
        if obj is not None and self.language == "java":
            # ``Gson g = new Gson(); g.toJson()``: a call on the type; ``b.add(x).build()``
            # with ``CodeBlock.Builder b``: a chain from that type (code_memory.chains).
            start = _java_chain_head(obj)
            declared = java_locals(node, self._locals).get(node_text(start)) if start else None
            if start is not None and declared is not None:
                target = declared + target[len(node_text(start)) :]
            target = self._java_field_hop(obj, target, declared, owner)
        go_typed: str | None = None  # Go: the one function whose result fills the field
        if self.language == "go" and callee.type == "selector_expression":
            operand = callee.child_by_field_name("operand")
            field = callee.child_by_field_name("field")
            if (
                operand is not None
                and field is not None
                and operand.type == "identifier"
                and node_text(operand) != self._receiver  # receiver calls resolve as self calls
            ):
                declared = go_locals(node).get(node_text(operand))
                if declared is not None:  # ``cmd := &Command{}; cmd.Flags()``
                    target = f"{declared}.{node_text(field)}"
            if self._fields is None:
                self._fields = go_struct_fields(self._root) if self._root else {}
            if operand is not None and field is not None and operand.type in _GO_OPERANDS:
                go_typed = self._go_returned(node, operand, field, owner)
            field_call = go_field_call(callee, self._receiver, owner, self._fields)
            target = field_call or target
            if field_call is not None and owner is not None:
                go_typed = self._go_made(callee, owner)
        target = WS.sub("", re.sub(r"<.*?>", "", target))[:200]
        head = re.split(r"[.:]", target, maxsplit=1)[0]
        self_call = head in ("this", "self", "Self") or (
            self._receiver is not None and head == self._receiver and "." in target
        )
        if node.type == "explicit_constructor_invocation":
            self_call = True  # a constructor of this class or, along its bases, the super class'
        if node.type == "method_invocation" and obj is None and owner is not None:
            self_call = True  # Java: an unqualified method call is a call on ``this``
        arity = _arity(node.child_by_field_name("arguments"))
        if node.type == "type_conversion_expression":
            arity = 1  # the operand
        typed = self._rust_typed(callee, owner) if self.language == "rust" else go_typed
        args = java_arg_types(node, self._locals) if self.language == "java" else ()
        if self.language in _JS:
            typed = lang_js.typed_call(node, callee, self._bound, self._declared)
        self.references.append(
            Reference(src, RefKind.CALLS, target, node_line(node), self_call, arity, typed, args)
        )

    def _go_returned(
        self, node: ts.Node, operand: ts.Node, method: ts.Node, owner: str | None
    ) -> str | None:
        """``ent := c.evictList.Back(); ent.PrevEntry()``: the call written on what bound the
        local (``internal.LruList.Back().PrevEntry``), which resolution types through the
        bound call's declared result; None when the local is not bound to one call."""
        if operand.type == "call_expression":  # ``c.Root().ExecuteC()``: a chain
            bound: ts.Node | None = operand
        else:
            bound = go_bound_call(node, node_text(operand))
        if bound is None or self._fields is None:
            return None
        inner = bound.child_by_field_name("function")
        if inner is None:
            return None
        written = go_field_call(inner, self._receiver, owner, self._fields)
        head = inner.child_by_field_name("operand") if inner.type == "selector_expression" else None
        if written is None and head is not None and head.type == "identifier":
            called = node_text(inner.child_by_field_name("field"))
            declared = go_locals(bound).get(node_text(head))
            if node_text(head) == self._receiver and owner is not None:
                declared = owner.rsplit(".", 1)[-1]  # ``c.Root()`` in a method of Command
            if declared is not None:
                written = f"{declared}.{called}"
        if written is None and re.fullmatch(r"([a-z_]\w*\.)?[A-Za-z_]\w*", node_text(inner)):
            written = node_text(inner)  # ``pkg.New(..)`` / ``newThing(..)``
        return f"{written}().{node_text(method)}" if written else None

    def _go_made(self, callee: ts.Node, owner: str) -> str | None:
        """``c.frequent.Add`` where every ``TwoQueueCache{frequent: ..}`` of this file stores
        the result of ``simplelru.NewLRU``: ``simplelru.NewLRU().Add``, so the call through the
        field's interface type can be narrowed to what that function returns."""
        if self._field_values is None:
            self._field_values = go_field_values(self._root) if self._root else {}
        operand = callee.child_by_field_name("operand")
        field = operand.child_by_field_name("field") if operand is not None else None
        made = self._field_values.get(owner.rsplit(".", 1)[-1], {}).get(node_text(field))
        if not made or len(made) != 1 or "?" in made:
            return None
        return f"{next(iter(made))}().{node_text(callee.child_by_field_name('field'))}"

    def _java_field_hop(
        self, obj: ts.Node, target: str, declared: str | None, owner: str | None
    ) -> str:
        """``builder.initializerBlock.build()`` (``Builder builder``) and
        ``this.textStyleBuilder.get()``: the receiver's first field typed by its declaration in
        a class of this file, so the call is written on that field's type."""
        first = obj
        while first.type in ("method_invocation", "field_access"):
            inner = first.child_by_field_name("object")
            if inner is None or inner.type not in ("method_invocation", "field_access"):
                break
            first = inner
        inner = first.child_by_field_name("object") if first.type == "field_access" else None
        if inner is None:
            return target
        if inner.type == "this" and owner is not None:
            cls, spelled = owner.rsplit(".", 1)[-1], "this"
        elif inner.type == "identifier" and declared is not None:
            cls, spelled = declared.rsplit(".", 1)[-1], declared
        else:
            return target
        if self._java_fields is None:
            self._java_fields = java_fields(self._root) if self._root else {}
        field = node_text(first.child_by_field_name("field"))
        typed = self._java_fields.get(cls, {}).get(field)
        hop = f"{spelled}.{field}"
        if typed is None or not target.startswith(hop + "."):
            return target
        return typed + target[len(hop) :]

    def _rust_typed(self, callee: ts.Node, owner: str | None) -> str | None:
        """A Rust method call's callee with the receiver typed (see lang_rust), or the whole
        chain when the written target was cut short."""
        if callee.type != "field_expression":
            return None
        fn, hidden = lang_rust.enclosing_function(callee, self._closures)
        if fn is None:
            return None
        if self._fields is None:
            self._fields = lang_rust.struct_fields(self._root) if self._root else {}
        self_type = owner.rsplit(".", 1)[-1] if owner else None
        if fn.id not in self._locals:
            self._locals[fn.id] = lang_rust.function_locals(fn, self_type, self._fields)
        seen = self._locals[fn.id]
        if hidden:  # inside a closure: its own parameters and lets are not the function's
            seen = {k: v for k, v in seen.items() if k not in hidden}
        typed = lang_rust.typed_call(callee, seen, self_type, self._fields)
        full = WS.sub("", node_text(callee))
        if typed is None and 200 < len(full) <= 600:
            typed = full
        return typed

    def _import(self, node: ts.Node, src: str) -> None:
        line, lang = node_line(node), self.language
        if lang == "go":
            for spec in descendants(node, "import_spec"):
                target = node_text(spec.child_by_field_name("path")).strip('"`')
                alias = node_text(spec.child_by_field_name("name")) or _go_package_name(target)
                self.references.append(Reference(src, RefKind.IMPORTS, target, line))
                self.imports.append((alias, target))
        elif lang == "java":
            target = node_text(node.named_children[-1]) if node.named_child_count else ""
            if any(c.type == "asterisk" for c in node.named_children):
                target = (
                    node_text(next(c for c in node.named_children if c.type != "asterisk")) + ".*"
                )
            self.references.append(Reference(src, RefKind.IMPORTS, target, line))
            self.imports.append((target.rsplit(".", 1)[-1], target))
        elif lang == "rust":
            arg = node.child_by_field_name("argument")
            for alias, target in lang_rust.use_pairs(arg, ""):
                self.references.append(Reference(src, RefKind.IMPORTS, target, line))
                self.imports.append((alias, target))
        else:
            source = node_text(node.child_by_field_name("source")).strip("'\"`")
            self.references.append(Reference(src, RefKind.IMPORTS, source, line))
            for spec in descendants(node, "import_specifier"):
                name = node_text(spec.child_by_field_name("name"))
                alias = node_text(spec.child_by_field_name("alias")) or name
                self.imports.append((alias, f"{source}#{name}"))
            for clause in descendants(node, "import_clause"):
                for c in clause.named_children:
                    if c.type == "identifier":
                        self.imports.append((node_text(c), f"{source}#default"))
                    elif c.type == "namespace_import" and c.named_child_count:
                        self.imports.append((node_text(c.named_children[0]), source))


_GO_TYPES = frozenset(
    [
        "any",
        "bool",
        "byte",
        "comparable",
        "complex64",
        "complex128",
        "error",
        "float32",
        "float64",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "rune",
        "string",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
    ]
)
_GO_TYPE_NODES = frozenset(
    {"slice_type", "map_type", "pointer_type", "array_type", "qualified_type", "generic_type"}
)


def _go_instantiation(callee: ts.Node) -> bool:
    """``arg[float32]`` / ``arg[[]uint]`` called: a generic function given a type argument,
    which tree-sitter reads as an index expression (``fs[0](x)`` is an index)."""
    if callee.type != "index_expression":
        return False
    index = callee.child_by_field_name("index")
    if index is None:
        return False
    return index.type in _GO_TYPE_NODES or (
        index.type == "identifier" and node_text(index) in _GO_TYPES
    )


def _go_package_name(path: str) -> str:
    """The name an import without an alias binds, by the toolchain's convention: the last
    element, without a major-version suffix (``github.com/urfave/cli/v3`` -> ``cli``,
    ``gopkg.in/yaml.v3`` -> ``yaml``)."""
    parts = path.split("/")
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    return re.sub(r"\.v\d+$", "", parts[-1])


def _java_chain_head(obj: ts.Node) -> ts.Node | None:
    """The identifier a Java receiver expression starts from (``b`` of ``b.add(x).indent()``),
    or None when it starts from something else (``this``, a literal, a parenthesis)."""
    head = obj
    while head.type in ("method_invocation", "field_access"):
        inner = head.child_by_field_name("object")
        if inner is None:
            return None
        head = inner
    return head if head.type == "identifier" else None


def _java_delegate(node: ts.Node, word: str, owner: str | None) -> str | None:
    """``this(..)``: the enclosing class's simple name (its constructors are named so);
    ``super(..)``: the super class's; None outside a class or without an ``extends``."""
    if owner is None:
        return None
    if word == "this":
        return owner.rsplit(".", 1)[-1]
    cls = node.parent
    while cls is not None and cls.type not in ("class_declaration", "enum_declaration"):
        cls = cls.parent
    base = cls.child_by_field_name("superclass") if cls is not None else None
    if word != "super" or base is None or not base.named_child_count:
        return None
    return re.sub(r"<.*", "", node_text(base.named_children[-1])).rsplit(".", 1)[-1] or None


def _arity(params: ts.Node | None) -> int:
    """Parameters of a declaration or arguments of a call (comments are not counted)."""
    if params is None:
        return 0
    return sum(1 for c in params.named_children if c.type not in _COMMENTS)


def _renamed(sym: Symbol, qualname: str) -> Symbol:
    return Symbol(
        sym.path,
        sym.language,
        sym.name,
        qualname,
        sym.kind,
        sym.signature,
        sym.docstring,
        sym.start_line,
        sym.end_line,
    )
