"""What a call expression of Go, Java, Rust, JavaScript or TypeScript calls, as written.

The target is the callee's text (``g.toJson``, ``c.evictList.Back``), rewritten where the file
itself shows the receiver's type: a typed local or field (``Gson g``: ``Gson.toJson``), the call
a Go local was bound to, the one function every Go struct literal stores in a field. Resolution
(:mod:`code_memory.graph`, :mod:`code_memory.chains`) turns what is written here into edges.
Pure logic over tree-sitter nodes; what the file's declarations say about types is read once per
file, when first needed.
"""

from __future__ import annotations

import re

import tree_sitter as ts

import pegas_memory.code_memory.lang_js as lang_js
import pegas_memory.code_memory.lang_rust as lang_rust
from pegas_memory.code_memory.model import JS_LANGUAGES, Reference, RefKind
from pegas_memory.code_memory.syntax import WS, arity, node_line, node_text
from pegas_memory.code_memory.typed_locals import (
    go_bound_call,
    go_field_call,
    go_field_values,
    go_locals,
    go_struct_fields,
    java_arg_types,
    java_arguments,
    java_declared_names,
    java_fields,
    java_locals,
)

# A call's node type -> the field that holds its callee.
CALL_NODES = {
    "call_expression": "function",
    "new_expression": "constructor",
    "method_invocation": "name",
    "object_creation_expression": "type",
    "explicit_constructor_invocation": "constructor",  # Java ``this(..)``, ``super(..)``
    # Go ``simplelru.NewLRU[K, V](size)``: one argument after type arguments reads as a
    # conversion to a generic type; a generic function called so is a call (see reference).
    "type_conversion_expression": "type",
}
_GO_OPERANDS = frozenset({"identifier", "call_expression"})  # a local or a call's result


class CallSites:
    """The calls of one file as references. ``bound``: JavaScript's module-level bindings
    (``var app = express()``: ``app`` -> ``express``; None when bound twice), which the walker
    fills as it meets them."""

    def __init__(self, language: str, root: ts.Node, bound: dict[str, str | None]) -> None:
        self.language, self._root, self._bound = language, root, bound
        self._closures: dict[int, frozenset[str]] = {}  # Rust closure -> the names it binds
        self._locals: dict[int, dict[str, str]] = {}  # method/fn node -> local variable types
        self._fields: dict[str, dict[str, str]] | None = None  # Rust/Go struct field types
        self._java_fields: dict[str, dict[str, str]] | None = None  # class -> field -> type
        self._field_values: dict[str, dict[str, set[str]]] | None = None  # Go: see _go_made
        self._declared: dict[int, lang_js.FnScope] = {}  # JS function -> its scope
        self._java_names: dict[int, frozenset[str]] = {}  # class member -> its local names
        # Java: a call that is an argument is read for the call around it and again by the
        # walker: once.
        self._java_calls: dict[tuple[int, str], Reference | None] = {}

    def reference(
        self, node: ts.Node, src: str, owner: str | None, receiver: str | None
    ) -> Reference | None:
        """The reference a call node (a type of :data:`CALL_NODES`) makes from ``src``: a call,
        or an import (``app.use(require('./routes'))``); None when it calls nothing (``int64(x)``
        is a conversion). ``owner``: the enclosing class-like qualified name; ``receiver``: the
        name of the Go method's receiver (``c`` of ``func (c *Cache) Get()``), if any."""
        if self.language != "java":
            return self._reference(node, src, owner, receiver)
        key = (node.id, src)
        if key not in self._java_calls:
            self._java_calls[key] = self._reference(node, src, owner, receiver)
        return self._java_calls[key]

    def _reference(
        self, node: ts.Node, src: str, owner: str | None, receiver: str | None
    ) -> Reference | None:
        callee = node.child_by_field_name(CALL_NODES[node.type])
        if callee is None:
            return None
        required = lang_js.require_source(node) if self.language in JS_LANGUAGES else None
        if required is not None:  # ``app.use(require('./routes'))``: an import, not a call
            return Reference(src, RefKind.IMPORTS, required, node_line(node))
        if self.language == "go" and _go_instantiation(callee):
            callee = callee.child_by_field_name("operand") or callee  # ``arg[float32](..)``
        if node.type == "type_conversion_expression":
            if callee.type != "generic_type":  # ``int64(x)``: a conversion, no call
                return None
            callee = callee.child_by_field_name("type") or callee
        target = node_text(callee)
        if node.type == "explicit_constructor_invocation":
            target = _java_delegate(node, target, owner) or ""
            if not target:
                return None
        obj = node.child_by_field_name("object") if node.type == "method_invocation" else None
        if obj is not None:
            target = f"{node_text(obj)}.{target}"
        if obj is not None and self.language == "java":
            target = self._java_typed_receiver(node, obj, target, owner)
        go_typed: str | None = None  # Go: the one function whose result fills the field
        if self.language == "go" and callee.type == "selector_expression":
            target, go_typed = self._go_selector(node, callee, target, owner, receiver)
        target = WS.sub("", re.sub(r"<.*?>", "", target))[:200]
        head = re.split(r"[.:]", target, maxsplit=1)[0]
        self_call = head in ("this", "self", "Self") or (
            receiver is not None and head == receiver and "." in target
        )
        if node.type == "explicit_constructor_invocation":
            self_call = True  # a constructor of this class or, along its bases, the super class'
        if node.type == "method_invocation" and obj is None and owner is not None:
            self_call = True  # Java: an unqualified method call is a call on ``this``
        count = arity(node.child_by_field_name("arguments"))
        if node.type == "type_conversion_expression":
            count = 1  # the operand
        typed = self._rust_typed(callee, owner) if self.language == "rust" else go_typed
        if obj is not None and self.language == "java" and self._java_field_head(obj, target):
            typed = f"this.{target}"  # ``tokeniser.read()``: a field, maybe inherited or outer
        args = java_arg_types(node, self._locals) if self.language == "java" else ()
        inner: tuple[Reference | None, ...] = ()
        if self.language == "java":
            inner = tuple(
                self._java_argument(a, src, owner, receiver)
                if not t or a.type == "method_invocation"
                else None
                for a, t in zip(java_arguments(node), args, strict=False)
            )
        if self.language in JS_LANGUAGES:
            typed = lang_js.typed_call(node, callee, self._bound, self._declared)
        line = node_line(node)
        return Reference(src, RefKind.CALLS, target, line, self_call, count, typed, args, inner)

    def _java_argument(
        self, arg: ts.Node, src: str, owner: str | None, receiver: str | None
    ) -> Reference | None:
        """An argument of unknown type that is a method call (the call, as any other) or a
        field access (``arity`` None: its path, the head typed as a receiver is), whose
        declared type resolution reads; None for any other expression."""
        if arg.type == "method_invocation":
            return self.reference(arg, src, owner, receiver)
        obj = arg.child_by_field_name("object") if arg.type == "field_access" else None
        if obj is None or obj.type not in ("identifier", "this", "field_access"):
            return None
        target = WS.sub("", node_text(arg))
        target = self._java_typed_receiver(arg, obj, target, owner)
        if self._java_field_head(obj, target):
            target = f"this.{target}"  # a field of the class, maybe inherited or outer
        return Reference(src, RefKind.CALLS, target, node_line(arg))

    def _java_typed_receiver(
        self, node: ts.Node, obj: ts.Node, target: str, owner: str | None
    ) -> str:
        """``Gson g = new Gson(); g.toJson()``: a call on the type; ``b.add(x).build()`` with
        ``CodeBlock.Builder b``: a chain from that type (code_memory.chains)."""
        start = _java_chain_head(obj)
        declared = java_locals(node, self._locals).get(node_text(start)) if start else None
        if start is not None and declared is not None:
            target = declared + target[len(node_text(start)) :]
        return self._java_field_hop(obj, target, declared, owner)

    def _java_field_head(self, obj: ts.Node, target: str) -> bool:
        """Whether the receiver starts with a name that is no local of the method (nor a type,
        nor typed already): a field of the class, one it inherits or one of a class around it."""
        start = _java_chain_head(obj)
        word = node_text(start) if start is not None else ""
        return (
            word[:1].islower()
            and target.startswith(word + ".")
            and word not in java_declared_names(obj, self._java_names)
        )

    def _go_selector(
        self, node: ts.Node, callee: ts.Node, target: str, owner: str | None, receiver: str | None
    ) -> tuple[str, str | None]:
        """A Go ``x.f(..)``: the target with a typed local or field written as its type, and the
        typed form (see :meth:`_go_returned`, :meth:`_go_made`), None when there is none."""
        typed: str | None = None
        operand = callee.child_by_field_name("operand")
        field = callee.child_by_field_name("field")
        if (
            operand is not None
            and field is not None
            and operand.type == "identifier"
            and node_text(operand) != receiver  # receiver calls resolve as self calls
        ):
            declared = go_locals(node).get(node_text(operand))
            if declared is not None:  # ``cmd := &Command{}; cmd.Flags()``
                target = f"{declared}.{node_text(field)}"
        if self._fields is None:
            self._fields = go_struct_fields(self._root)
        if operand is not None and field is not None and operand.type in _GO_OPERANDS:
            typed = self._go_returned(node, operand, field, owner, receiver)
        field_call = go_field_call(callee, receiver, owner, self._fields)
        target = field_call or target
        if field_call is not None and owner is not None:
            typed = self._go_made(callee, owner)
        return target, typed

    def _go_returned(
        self,
        node: ts.Node,
        operand: ts.Node,
        method: ts.Node,
        owner: str | None,
        receiver: str | None,
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
        written = go_field_call(inner, receiver, owner, self._fields)
        head = inner.child_by_field_name("operand") if inner.type == "selector_expression" else None
        if written is None and head is not None and head.type == "identifier":
            called = node_text(inner.child_by_field_name("field"))
            declared = go_locals(bound).get(node_text(head))
            if node_text(head) == receiver and owner is not None:
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
            self._field_values = go_field_values(self._root)
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
            self._java_fields = java_fields(self._root)
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
            self._fields = lang_rust.struct_fields(self._root)
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
