"""The walker for JavaScript, TypeScript, Go, Rust and Java: symbols and references by syntax.

One table per language maps declaration node types to symbol kinds; calls, imports and base
types are recorded as written, for :mod:`code_memory.graph` to resolve by name. What a call
calls is read by :mod:`code_memory.call_sites`, what an import binds by
:mod:`code_memory.import_statements`; same-named definitions are told apart by
:mod:`code_memory.distinct_names`.
"""

from __future__ import annotations

import re
from pathlib import Path

import tree_sitter as ts

import pegas_memory.code_memory.lang_js as lang_js
from pegas_memory.code_memory.call_sites import CALL_NODES, CallSites
from pegas_memory.code_memory.distinct_names import distinct_names
from pegas_memory.code_memory.import_statements import read_import
from pegas_memory.code_memory.model import JS_LANGUAGES, Reference, RefKind, Symbol, SymbolKind
from pegas_memory.code_memory.syntax import (
    arity,
    decl_head,
    leading_comment,
    node_line,
    node_text,
)
from pegas_memory.code_memory.typed_locals import java_declared_fields

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


class GenericWalker:
    """Symbols and references for the C-family grammars, driven by the tables above."""

    def __init__(self, path: str, language: str, module: str, source: bytes) -> None:
        self.path, self.language, self.module, self.source = path, language, module, source
        self.defs = _DEFS[language]
        self.symbols: list[Symbol] = []
        self.references: list[Reference] = []
        self.imports: list[tuple[str, str]] = []
        self.exports: list[tuple[str, str]] = []
        self.fields: list[tuple[str, str, str]] = []  # Java: (class, field, declared type)
        self._arity: dict[int, int] = {}  # symbol position -> parameter count (overloads)
        # Members are named under the package (Go directory, Java package), else the file.
        self.prefix = module
        if language == "go":
            self.prefix = str(Path(path).parent.as_posix())
        self._receiver: str | None = None  # the Go method's receiver name, inside one
        self._inits = 0  # Go ``init()`` functions seen in the file
        # JavaScript factories and module-level bindings (see _js_facts).
        self._returned: set[tuple[str, str]] = set()
        self._mixed: list[tuple[str, str, str]] = []
        self._bound: dict[str, str | None] = {}
        self._calls: CallSites  # of the file being walked (see run)

    def run(self, root: ts.Node) -> None:
        self._calls = CallSites(self.language, root, self._bound)
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
        overloads = self._arity if self.language == "java" else {}
        self.symbols, self.references = distinct_names(self.symbols, self.references, overloads)

    def _visit(self, node: ts.Node, src: str, prefix: str, owner: str | None) -> None:
        """``src``: the symbol references are attributed to; ``prefix``: qualified-name prefix of
        new definitions; ``owner``: the enclosing class-like qualified name (methods)."""
        for child in node.named_children:
            t = child.type
            if self.language in JS_LANGUAGES:
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
            elif t == "assignment_expression" and self.language in JS_LANGUAGES:
                self._js_assignment(child, src, prefix, owner)
            elif t == "export_statement":
                self._export(child, src)
                self._visit(child, src, prefix, owner)
            elif t in ("field_declaration", "constant_declaration") and self.language == "java":
                if src == prefix:  # a class body's, not an anonymous class's in a method
                    self.fields.extend((prefix, *typed) for typed in java_declared_fields(child))
                if t == "field_declaration":
                    self._java_field(child, prefix)
                self._visit(child, src, prefix, owner)
            else:
                if t in CALL_NODES:
                    self._call(child, src, owner)
                self._visit(child, src, prefix, owner)

    def _object_owner(self, node: ts.Node, owner: str | None, prefix: str) -> str | None:
        js = self.language in JS_LANGUAGES
        named = lang_js.object_literal_name(node) if js and not owner else None
        return f"{prefix}.{named}" if named else None

    def _top_level_function(self, node: ts.Node, owner: str | None, src: str) -> bool:
        value = node.child_by_field_name("value")
        return (
            self.language in JS_LANGUAGES
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
        if self.language not in JS_LANGUAGES:
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
        self._arity[len(self.symbols)] = arity(value.child_by_field_name("parameters"))
        self.symbols.append(
            Symbol(
                self.path,
                self.language,
                name,
                qualname,
                kind,
                decl_head(self.source, node, body),
                leading_comment(node.parent or node),
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
        self._arity[len(self.symbols)] = arity(params)
        self.symbols.append(
            Symbol(
                self.path,
                lang,
                name,
                qualname,
                kind,
                decl_head(self.source, node, body),
                leading_comment(node),
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
                    leading_comment(node),
                    node_line(node),
                    node.end_point[0] + 1,
                )
            )

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
        ref = self._calls.reference(node, src, owner, self._receiver)
        if ref is not None:
            self.references.append(ref)

    def _import(self, node: ts.Node, src: str) -> None:
        read = read_import(node, self.language)
        line = node_line(node)
        self.references.extend(Reference(src, RefKind.IMPORTS, t, line) for t in read.targets)
        self.imports.extend(read.bindings)
