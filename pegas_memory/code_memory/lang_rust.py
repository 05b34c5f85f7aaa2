"""Rust receiver types the walker can read from one file, so a method call names its type.

``builder.negate(..)`` says nothing about ``negate`` until ``builder`` is known to be a
``TypesBuilder``: the walker writes such calls a second time with the receiver replaced
(:attr:`Reference.typed`), by a declared type (a parameter ``x: &T``, ``let x: T``, a field
``self.map`` of the ``impl``'s struct) or by the expression the variable was bound to
(``let caps = matcher.new_captures().unwrap()``), which :mod:`code_memory.chains` follows
through return types at resolution time. Pure functions of tree-sitter nodes, no state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import tree_sitter as ts

from pegas_memory.code_memory.syntax import WS, node_text

_MAX_TYPED = 600  # longer receiver expressions are not followed
_DEPTH = 3  # locals substituted inside locals
_LIFETIME = re.compile(r"'\w+\s*")


def clean_type(text: str) -> str:
    """``&'a mut Summary<W>`` -> ``Summary``: the type's path without references, lifetimes,
    ``dyn``/``impl`` and generic arguments ("" when nothing type-like is left)."""
    text = _LIFETIME.sub("", text).strip()
    while text.startswith(("&", "*", "mut ", "const ", "dyn ", "impl ")):
        text = text.lstrip("&*").strip()
        for word in ("mut ", "const ", "dyn ", "impl "):
            text = text.removeprefix(word).strip()
    text = text.split("<", 1)[0].strip()
    return text if re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*", text) else ""


def struct_fields(root: ts.Node) -> dict[str, dict[str, str]]:
    """Struct name -> field name -> cleaned field type, for the structs of one file."""
    out: dict[str, dict[str, str]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "struct_item":
            name = node_text(node.child_by_field_name("name"))
            body = node.child_by_field_name("body")
            fields: dict[str, str] = {}
            for field in body.named_children if body is not None else ():
                if field.type == "field_declaration":
                    written = node_text(field.child_by_field_name("type"))
                    field_name = node_text(field.child_by_field_name("name"))
                    if typ := clean_type(written):
                        fields[field_name] = typ
                    if element := element_type(written):
                        fields[field_name + "[]"] = element
            out.setdefault(name, fields)
            continue
        if node.type == "enum_item":
            _variants(node, out)
            continue
        stack.extend(node.named_children)
    return out


def _variants(node: ts.Node, out: dict[str, dict[str, str]]) -> None:
    """Tuple variants ``Enum::V(T0, T1)``: their payload types by position, under
    ``Enum::V`` and under the bare ``V`` (written so after ``use Enum::*``)."""
    enum = node_text(node.child_by_field_name("name"))
    body = node.child_by_field_name("body")
    for variant in body.named_children if body is not None else ():
        fields = variant.child_by_field_name("body")
        if variant.type != "enum_variant" or fields is None:
            continue
        if fields.type != "ordered_field_declaration_list":
            continue
        types = [clean_type(node_text(t)) for t in fields.children_by_field_name("type")]
        payload = {str(i): t for i, t in enumerate(types) if t}
        name = node_text(variant.child_by_field_name("name"))
        out.setdefault(f"{enum}::{name}", payload)
        out.setdefault(name, payload)


def arm_binding(
    head: ts.Node, self_type: str | None, fields: dict[str, dict[str, str]]
) -> str | None:
    """The type of ``head`` bound by the innermost ``match`` arm around it that binds that
    name in a tuple-variant pattern (``Printer::Standard(ref mut p) => p.get_mut()``)."""
    name = node_text(head)
    arm = head.parent
    while arm is not None and arm.type != "function_item":
        if arm.type == "match_arm":
            pattern = arm.child_by_field_name("pattern")
            found = _bound_in(pattern, name, self_type, fields) if pattern is not None else None
            if found is not None:
                return found or None
        arm = arm.parent
    return None


def _bound_in(
    pattern: ts.Node, name: str, self_type: str | None, fields: dict[str, dict[str, str]]
) -> str | None:
    """ "" when the pattern binds ``name`` to something untyped, None when it does not bind it."""
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node.type == "tuple_struct_pattern":
            variant = WS.sub("", node_text(node.child_by_field_name("type")))
            if self_type is not None and variant.startswith("Self::"):
                variant = self_type + variant[4:]
            parts = [c for c in node.named_children if c != node.child_by_field_name("type")]
            for i, part in enumerate(parts):
                while part.type in ("ref_pattern", "mut_pattern") and part.named_child_count:
                    part = part.named_children[-1]
                if part.type == "identifier" and node_text(part) == name:
                    return fields.get(variant, {}).get(str(i), "")
        stack.extend(node.named_children)
    return None


def function_locals(
    fn: ts.Node,
    self_type: str | None = None,
    fields: dict[str, dict[str, str]] | None = None,
) -> dict[str, str]:
    """A function's parameters and ``let`` bindings: name -> a cleaned type, or ``=`` and the
    bound expression (whitespace removed). A name bound twice differently (shadowing) is
    left out: which binding a call sees would need scopes."""
    found: dict[str, set[str]] = {}
    later: list[tuple[str, ts.Node]] = []  # loop variables and ``let x = &v[i]``
    stack = [fn]
    while stack:
        node = stack.pop()
        if node.type in ("parameter", "let_declaration"):
            pattern = node.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "mut_pattern" and pattern.named_child_count:
                pattern = pattern.named_children[0]
            if pattern is not None and pattern.type == "identifier":
                written = node_text(node.child_by_field_name("type"))
                typ = clean_type(written)
                value = node.child_by_field_name("value")
                if element := element_type(written):
                    found.setdefault(node_text(pattern) + "[]", set()).add(element)
                if not typ and value is not None and _indexed(value) is not None:
                    later.append((node_text(pattern), value))  # ``let p = &patterns[idx]``
                    continue
                if typ:
                    found.setdefault(node_text(pattern), set()).add(typ)
                elif value is not None and value.type in ("call_expression", "try_expression"):
                    found.setdefault(node_text(pattern), set()).add(
                        "=" + WS.sub("", node_text(value))
                    )
                else:
                    found.setdefault(node_text(pattern), set()).add("?")
        if node.type == "for_expression":  # ``for x in v.iter()``: an element of ``v``
            pattern = node.child_by_field_name("pattern")
            while pattern is not None and pattern.type in ("mut_pattern", "reference_pattern"):
                pattern = pattern.named_children[-1] if pattern.named_child_count else None
            value = node.child_by_field_name("value")
            if pattern is not None and pattern.type == "identifier" and value is not None:
                later.append((node_text(pattern), value))
        bindings: list[tuple[ts.Node | None, ts.Node | None]] = []
        if node.type == "let_condition":  # ``if let Some(x) = e``, ``while let Ok(x) = e``
            bindings.append(
                (node.child_by_field_name("pattern"), node.child_by_field_name("value"))
            )
        elif node.type == "match_expression":  # ``match e { Some(x) => .. }``
            body, value = node.child_by_field_name("body"), node.child_by_field_name("value")
            for arm in body.named_children if body is not None else ():
                if arm.type == "match_arm":
                    bindings.append((arm.child_by_field_name("pattern"), value))
        for pattern, value in bindings:
            bound = _unwrapped(pattern, value)
            if bound is not None:
                found.setdefault(bound[0], set()).add(bound[1])
        if node is fn or node.type not in ("function_item", "closure_expression"):
            stack.extend(node.named_children)
    for bound_name, bound_value in later:  # once every declared element type is known
        handed_out = _element_of(bound_value, found, self_type, fields or {})
        found.setdefault(bound_name, set()).add(handed_out or "?")
    return {k: next(iter(v)) for k, v in found.items() if len(v) == 1 and "?" not in v}


_CONTAINERS = frozenset({"Vec", "VecDeque", "HashSet", "BTreeSet", "BinaryHeap", "LinkedList"})
_ITERATORS = frozenset({"iter", "iter_mut", "into_iter", "drain"})


def element_type(written: str) -> str:
    """The element type of a declared sequence: ``Vec<Stats>``, ``&[Pattern]``,
    ``[Token; 4]``, ``&mut VecDeque<T>`` -> the cleaned element type; "" otherwise."""
    text = _LIFETIME.sub("", WS.sub(" ", written)).strip()
    while text.startswith(("&", "mut ")):
        text = text.lstrip("&").strip().removeprefix("mut ").strip()
    if text.startswith("[") and text.endswith("]"):
        return clean_type(text[1:-1].split(";", 1)[0])
    head, _, rest = text.partition("<")
    if head.strip().rsplit("::", 1)[-1] in _CONTAINERS and rest.endswith(">"):
        return clean_type(rest[:-1])
    return ""


def _indexed(value: ts.Node) -> ts.Node | None:
    """``v[i]`` / ``&v[i]`` / ``&mut v[i]``: the indexed expression ``v``; else None."""
    while value.type == "reference_expression" and value.named_child_count:
        value = value.named_children[-1]
    return value.named_children[0] if value.type == "index_expression" else None


def _element_of(
    value: ts.Node,
    found: dict[str, set[str]],
    self_type: str | None,
    fields: dict[str, dict[str, str]],
) -> str | None:
    """The element type a loop over ``value`` (``v``, ``&v``, ``v.iter()``,
    ``self.items.into_iter()``) or an index ``v[i]`` hands out, when ``v``'s element type is
    declared; None otherwise."""
    indexed = _indexed(value)
    if indexed is not None:
        value = indexed
    while value.type == "reference_expression" and value.named_child_count:
        value = value.named_children[-1]
    if value.type == "call_expression" and indexed is None:
        fn = value.child_by_field_name("function")
        args = value.child_by_field_name("arguments")
        if fn is None or fn.type != "field_expression" or args is None:
            return None
        if node_text(fn.child_by_field_name("field")) not in _ITERATORS:
            return None
        value = fn.child_by_field_name("value") or value
    return collection_element(value, found, self_type, fields)


def collection_element(
    value: ts.Node,
    found: Mapping[str, set[str] | str],
    self_type: str | None,
    fields: dict[str, dict[str, str]],
) -> str | None:
    """The declared element type of a local ``v`` or a field ``self.v``, or None."""
    if value.type == "identifier":
        known = found.get(node_text(value) + "[]")
        if isinstance(known, str):
            return known
        return next(iter(known)) if known and len(known) == 1 else None
    if value.type == "field_expression" and self_type is not None:
        inner = value.child_by_field_name("value")
        if inner is not None and inner.type == "self":
            field = node_text(value.child_by_field_name("field"))
            return fields.get(self_type, {}).get(field + "[]")
    return None


_UNWRAPPED_VALUES = frozenset({"call_expression", "try_expression", "identifier"})


def _unwrapped(pattern: ts.Node | None, value: ts.Node | None) -> tuple[str, str] | None:
    """``Some(idx)`` / ``Ok(idx)`` matched against ``e``: ``idx`` is bound to ``e.unwrap()``
    (name, ``=`` and the expression), which the chains follow through ``e``'s return type."""
    while pattern is not None and pattern.type == "match_pattern" and pattern.named_child_count:
        pattern = pattern.named_children[0]
    if pattern is None or value is None or pattern.type != "tuple_struct_pattern":
        return None
    variant = pattern.child_by_field_name("type")
    if node_text(variant) not in ("Some", "Ok") or value.type not in _UNWRAPPED_VALUES:
        return None
    inner = [c for c in pattern.named_children if c != variant]
    if len(inner) != 1:
        return None
    name = inner[0]
    while name.type in ("ref_pattern", "mut_pattern") and name.named_child_count:
        name = name.named_children[-1]
    if name.type != "identifier":
        return None
    return node_text(name), "=" + WS.sub("", node_text(value)) + ".unwrap()"


def enclosing_function(
    node: ts.Node, bound: dict[int, frozenset[str]] | None = None
) -> tuple[ts.Node | None, frozenset[str]]:
    """The function around ``node``, through the closures between them (``sort_by(|a, b|
    sel.select(a))`` sees the function's ``sel``), and the names those closures bind (their
    parameters and ``let`` bindings), which hide the function's locals of the same name.
    ``bound`` memoises each closure's names (by node id) across the calls of one file."""
    hidden: set[str] = set()
    current = node.parent
    while current is not None and current.type != "function_item":
        if current.type == "closure_expression":
            names = bound.get(current.id) if bound is not None else None
            if names is None:
                names = _closure_names(current)
                if bound is not None:
                    bound[current.id] = names
            hidden |= names
        current = current.parent
    return current, frozenset(hidden)


def _closure_names(closure: ts.Node) -> frozenset[str]:
    params = closure.child_by_field_name("parameters")
    stack = [params] if params is not None else []
    stack += _lets(closure.child_by_field_name("body"))
    names: set[str] = set()
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            names.add(node_text(n))
        elif n.type not in _TYPE_NODES:
            stack.extend(n.named_children)
    return frozenset(names)


_TYPE_NODES = frozenset(
    {"generic_type", "reference_type", "type_identifier", "scoped_type_identifier"}
)


def _lets(body: ts.Node | None) -> list[ts.Node]:
    """The patterns of the ``let`` bindings (``if let`` too) in a closure body."""
    out, stack = [], [body] if body is not None else []
    while stack:
        n = stack.pop()
        if n.type in ("let_declaration", "let_condition"):
            pattern = n.child_by_field_name("pattern")
            if pattern is not None:
                out.append(pattern)
        stack.extend(n.named_children)
    return out


def typed_call(
    callee: ts.Node,
    locals_: dict[str, str],
    self_type: str | None,
    fields: dict[str, dict[str, str]],
) -> str | None:
    """The callee of a method call with its receiver written as a type or expression
    (``self.map.find`` -> ``FlagMap.find``, ``td.path`` -> ``tmpdir().path``), or None when
    the receiver's head is not something this file declares."""
    text = WS.sub("", node_text(callee))
    # The leftmost operand and the field accesses right above it.
    chain: list[ts.Node] = []
    head = callee
    while head.type in ("field_expression", "call_expression", "try_expression"):
        chain.append(head)
        inner = head.child_by_field_name("value") or head.child_by_field_name("function")
        if inner is None and head.type == "try_expression" and head.named_child_count:
            inner = head.named_children[0]
        if inner is None:
            return None
        head = inner
    name = node_text(head)
    if head.type == "self" and self_type is not None:
        typ, used = self_type, head
        for node in reversed(chain):  # ``self.a.b``: field types, innermost first
            if node.type != "field_expression" or node is callee:
                break
            nxt = fields.get(typ, {}).get(node_text(node.child_by_field_name("field")))
            if nxt is None:
                break
            typ, used = nxt, node
        if used is head:
            return None
        prefix = WS.sub("", node_text(used))
        return typ + text[len(prefix) :] if text.startswith(prefix) else None
    if head.type == "index_expression" and head is not callee:
        # ``stats[i].add(..)``, ``self.dir_patterns[idx].matches_with(..)``: an element
        element = collection_element(head.named_children[0], locals_, self_type, fields)
        prefix = WS.sub("", node_text(head))
        if element is None or not text.startswith(prefix):
            return None
        return element + text[len(prefix) :]
    if head.type != "identifier" or head is callee:
        return None
    bound = arm_binding(head, self_type, fields)
    if bound is not None:
        return bound + text[len(name) :]
    return _substitute(name, text, locals_, _DEPTH)


def _substitute(name: str, text: str, locals_: dict[str, str], depth: int) -> str | None:
    bound = locals_.get(name)
    if bound is None or depth <= 0 or not text.startswith(name):
        return None
    rest = text[len(name) :]
    if not bound.startswith("="):
        return bound + rest
    expr = bound[1:]
    inner = re.match(r"[A-Za-z_]\w*", expr)
    if inner is not None and inner.group(0) in locals_ and inner.group(0) != name:
        expr = _substitute(inner.group(0), expr, locals_, depth - 1) or expr
    out = expr + rest
    return out if len(out) <= _MAX_TYPED else None


def use_pairs(node: ts.Node | None, prefix: str) -> list[tuple[str, str]]:
    """Flatten a ``use`` tree into (local name, full path) pairs."""
    if node is None:
        return []
    join = lambda p: f"{prefix}::{p}" if prefix else p  # noqa: E731
    t = node.type
    if t in ("identifier", "scoped_identifier", "crate", "super", "self"):
        path = join(node_text(node)) if node_text(node) != "self" else prefix
        return [(path.rsplit("::", 1)[-1], path)]
    if t == "use_as_clause":
        path = join(node_text(node.child_by_field_name("path")))
        return [(node_text(node.child_by_field_name("alias")), path)]
    if t == "scoped_use_list":
        base = join(node_text(node.child_by_field_name("path")))
        return use_pairs(node.child_by_field_name("list"), base)
    if t == "use_list":
        return [pair for c in node.named_children for pair in use_pairs(c, prefix)]
    if t == "use_wildcard":
        return [("*", join(node_text(node).removesuffix("::*")))]
    return []
