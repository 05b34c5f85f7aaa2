"""Declared types of local variables, for the walker to write a call on its receiver's type.

Java (``Gson g = new Gson(); g.toJson()`` -> ``Gson.toJson``) and Go (``cmd := &Command{}``,
``var cmd = &Command{}``, ``cmd *Command``) locals, read from the method or function around a
call. Pure functions of tree-sitter nodes (Rust's live in :mod:`code_memory.lang_rust`).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from pegas_memory.code_memory.syntax import WS, descendants, node_text

JAVA_METHODS = frozenset({"method_declaration", "constructor_declaration"})


def go_locals(node: ts.Node) -> dict[str, str]:
    """Types of the Go function's parameters and locals around ``node`` that name a type of
    the same package or of an imported one: ``x *T`` and ``x *pkg.T`` parameters, ``var x T``,
    ``x := &T{...}`` / ``T{...}``."""
    fn = node.parent
    while fn is not None and fn.type not in ("function_declaration", "method_declaration"):
        fn = fn.parent
    if fn is None:
        return {}
    found: dict[str, set[str]] = {}
    for kind in ("parameter_declaration", "var_spec"):
        for decl in descendants(fn, kind):
            written = re.sub(r"\[.*\]", "", node_text(decl.child_by_field_name("type")))
            written = written.lstrip("*")
            if not written:  # ``var x = value``: typed by its value below
                continue
            for name in decl.children_by_field_name("name"):
                found.setdefault(node_text(name), set()).add(written)
    pairs: list[tuple[ts.Node, ts.Node]] = []
    for decl in descendants(fn, "short_var_declaration"):
        left, right = decl.child_by_field_name("left"), decl.child_by_field_name("right")
        if left is None or right is None or left.named_child_count != right.named_child_count:
            continue
        pairs.extend(zip(left.named_children, right.named_children, strict=True))
    for decl in descendants(fn, "var_spec"):  # ``var cmd = &Command{..}``
        names, values = decl.children_by_field_name("name"), decl.child_by_field_name("value")
        untyped = decl.child_by_field_name("type") is None and values is not None
        if untyped and values is not None and len(names) == values.named_child_count:
            pairs.extend(zip(names, values.named_children, strict=True))
    if pairs:
        for name, value in pairs:
            literal = value.named_children[0] if value.type == "unary_expression" else value
            if literal.type == "composite_literal" and literal.child_by_field_name("type"):
                written = node_text(literal.child_by_field_name("type"))
                found.setdefault(node_text(name), set()).add(written)
    # A type of the package (``Command``) or of an imported one (``cli.Command``,
    # ``simplelru.LRUCache[K, V]`` without its type arguments).
    return {
        k: next(iter(v))
        for k, v in found.items()
        if len(v) == 1 and re.fullmatch(r"([a-z_]\w*\.)?[A-Z][A-Za-z0-9_]*", next(iter(v)))
    }


def java_locals(node: ts.Node, cache: dict[int, dict[str, str]]) -> dict[str, str]:
    """Declared types of the parameters and local variables of the method around ``node``
    (``var x = new T()`` gives T), then of its class's fields; a name declared with two types
    is left out."""
    method = node.parent
    while method is not None and method.type not in JAVA_METHODS:
        method = method.parent
    if method is None:
        return {}
    cached = cache.get(method.id)
    if cached is not None:
        return cached
    found: dict[str, set[str]] = {}
    primitives: dict[str, set[str]] = {}  # argument types only: never a receiver
    for kind in ("formal_parameter", "local_variable_declaration", "enhanced_for_statement"):
        for decl in descendants(method, kind):
            type_node = decl.child_by_field_name("type")
            if kind == "enhanced_for_statement":  # class-typed ones: _java_loop_variables
                written = node_text(type_node).strip()
                _java_primitive(written, [decl.child_by_field_name("name")], primitives)
                continue
            names = (
                [decl.child_by_field_name("name")]
                if kind == "formal_parameter"
                else [
                    d.child_by_field_name("name") for d in descendants(decl, "variable_declarator")
                ]
            )
            written = re.sub(r"<.*", "", node_text(type_node)).strip()
            if written == "var":
                init = next(descendants(decl, "object_creation_expression"), None)
                written = (
                    re.sub(r"<.*", "", node_text(init.child_by_field_name("type"))) if init else ""
                )
            if not re.fullmatch(r"[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)*", written):
                _java_primitive(written, names, primitives)  # ``int n``, ``int[] bits``
                continue  # other arrays, type variables of one letter stay unknown
            for name in names:
                if name is not None:
                    found.setdefault(node_text(name), set()).add(written)
                    element = java_element(node_text(type_node))
                    if element:
                        found.setdefault(node_text(name) + "[]", set()).add(element)
    _java_loop_variables(method, found)
    out = {k: next(iter(v)) for k, v in found.items() if len(v) == 1 and len(next(iter(v))) > 1}
    # Fields of the enclosing class (``private Gson gson;``) where no local hides them.
    body = method.parent
    fields_primitive: dict[str, set[str]] = {}
    for field in body.named_children if body is not None and body.type == "class_body" else ():
        if field.type != "field_declaration":
            continue
        written = re.sub(r"<.*", "", node_text(field.child_by_field_name("type"))).strip()
        named = re.fullmatch(r"[A-Z][A-Za-z0-9_]+(\.[A-Z][A-Za-z0-9_]*)*", written)
        element = java_element(node_text(field.child_by_field_name("type")))
        for decl in field.children_by_field_name("declarator"):
            field_name = node_text(decl.child_by_field_name("name"))
            if not field_name or field_name in found:
                continue
            if named:
                out[field_name] = written  # ``TextStyle.Builder`` kept whole: not any Builder
            if element and field_name + "[]" not in found:
                out[field_name + "[]"] = element
            if field_name not in primitives:
                _java_primitive(written, [decl.child_by_field_name("name")], fields_primitive)
    # Loop variables over a field (``for (T x : items)``, ``items.forEach(x -> ..)``).
    _java_loop_variables(method, found, out)
    for k, v in found.items():
        if len(v) == 1 and k not in out and len(next(iter(v))) > 1:
            out[k] = next(iter(v))
    for table in (primitives, fields_primitive):
        for k, v in table.items():
            if len(v) == 1 and k not in out and k not in found:
                out[k] = next(iter(v))
    cache[method.id] = out
    return out


_JAVA_PRIMITIVES = frozenset({"byte", "short", "char", "int", "long", "float", "double", "boolean"})


def _java_primitive(written: str, names: list[ts.Node | None], into: dict[str, set[str]]) -> None:
    """``int n`` -> n: int; ``int[] bits`` -> ``bits[]``: int (an indexed element's type)."""
    text = WS.sub("", written)
    key, element = ("[]", text[:-2]) if text.endswith("[]") else ("", text)
    if element not in _JAVA_PRIMITIVES:
        return
    for name in names:
        if name is not None:
            into.setdefault(node_text(name) + key, set()).add(element)


# Collections whose one type argument is the element a loop or ``forEach`` hands out.
_JAVA_COLLECTIONS = frozenset(
    {
        "List",
        "ArrayList",
        "LinkedList",
        "Set",
        "HashSet",
        "LinkedHashSet",
        "TreeSet",
        "SortedSet",
        "Collection",
        "Iterable",
        "Queue",
        "Deque",
        "ArrayDeque",
    }
)
_JAVA_TYPE = re.compile(r"[A-Z][A-Za-z0-9_]*(\.[A-Z][A-Za-z0-9_]*)*")


def java_element(written: str) -> str:
    """The element type of a declared collection or array type: ``List<Option>`` and
    ``Option[]`` -> ``Option``; "" when the type is no such container or its element is not a
    plain class name (a type variable, a wildcard)."""
    text = WS.sub("", written)
    if text.endswith("[]") and _JAVA_TYPE.fullmatch(text[:-2]):
        return text[:-2]
    head, _, rest = text.partition("<")
    if head.rsplit(".", 1)[-1] not in _JAVA_COLLECTIONS or not rest.endswith(">"):
        return ""
    inner = rest[:-1]
    return inner if _JAVA_TYPE.fullmatch(inner) and len(inner) > 1 else ""


def _java_loop_variables(
    method: ts.Node,
    found: dict[str, set[str]],
    fields: dict[str, str] | None = None,
) -> None:
    """Add the variables of enhanced ``for`` loops (their declared type, or for ``var`` the
    element type of what they loop over) and the one parameter of a lambda given to
    ``forEach`` on a typed collection (``options.forEach(o -> o.equals(x))``). With
    ``fields``, only loops over a field (the locals were done without them)."""

    def element_of(value: ts.Node | None) -> str:
        name = node_text(value) if value is not None and value.type == "identifier" else ""
        local = found.get(name + "[]")
        if fields is None:
            return next(iter(local)) if local and len(local) == 1 else ""
        return "" if name in found else fields.get(name + "[]", "")

    for loop in descendants(method, "enhanced_for_statement"):
        name = node_text(loop.child_by_field_name("name"))
        written = re.sub(r"<.*", "", node_text(loop.child_by_field_name("type"))).strip()
        if written == "var":
            written = element_of(loop.child_by_field_name("value"))
        elif fields is not None:
            continue  # an explicit type was taken with the locals
        if name and _JAVA_TYPE.fullmatch(written or "-"):
            found.setdefault(name, set()).add(written)
    for lam in descendants(method, "lambda_expression"):
        params = lam.child_by_field_name("parameters")
        call = lam.parent.parent if lam.parent is not None else None
        if params is None or params.type != "identifier" or call is None:
            continue
        if call.type != "method_invocation" or node_text(call.child_by_field_name("name")) != (
            "forEach"
        ):
            continue
        element = element_of(call.child_by_field_name("object"))
        if element:
            found.setdefault(node_text(params), set()).add(element)


def java_declared_fields(node: ts.Node) -> list[tuple[str, str]]:
    """(field, declared type without type arguments) of a Java field or interface constant
    declaration (``Token.Tag tagPending, tagDone;``)."""
    written = re.sub(r"<.*", "", node_text(node.child_by_field_name("type"))).strip()
    if not written:
        return []
    names = (d.child_by_field_name("name") for d in node.children_by_field_name("declarator"))
    return [(node_text(n), written) for n in names if n is not None]


_JAVA_BODIES = frozenset({"class_body", "interface_body", "enum_body_declarations"})
_JAVA_NAMED = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
)
# Nodes whose ``name`` is a local name (a parameter, a variable, a pattern's binding).
_JAVA_BINDERS = frozenset(
    {
        "formal_parameter",
        "catch_formal_parameter",
        "variable_declarator",
        "enhanced_for_statement",
        "resource",
        "instanceof_expression",
    }
)


def _named_class_body(node: ts.Node) -> bool:
    """The body of a named class, interface, enum or record (an anonymous class's body is not:
    its members are inside a member of the named class)."""
    if node.type in ("enum_body", "enum_body_declarations"):
        return True  # an enum's members, or its constants (each with its body) as members
    return node.type in _JAVA_BODIES and node.parent is not None and node.parent.type in _JAVA_NAMED


def java_declared_names(node: ts.Node, cache: dict[int, frozenset[str]]) -> frozenset[str]:
    """Every name declared as a local in the member of a named class around ``node`` (its
    method, constructor, initializer or field, lambdas and anonymous classes inside it
    included): parameters, variables, loop, catch, resource, lambda and pattern bindings. A
    name used there and not among them is a field (JLS 6.5.6.1); so many are taken that a local
    of unknown type is never read as a field."""
    member = node
    while member.parent is not None and not _named_class_body(member.parent):
        member = member.parent
    cached = cache.get(member.id)
    if cached is not None:
        return cached
    names: set[str] = set()
    stack = [member]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type in _JAVA_BINDERS:
            name = n.child_by_field_name("name")
            names.update([node_text(name)] if name is not None else [])
        elif n.type in ("inferred_parameters", "type_pattern", "spread_parameter"):
            names.update(node_text(c) for c in n.named_children if c.type == "identifier")
        elif n.type == "lambda_expression":
            params = n.child_by_field_name("parameters")
            if params is not None and params.type == "identifier":
                names.add(node_text(params))
    cache[member.id] = found = frozenset(names)
    return found


def java_fields(root: ts.Node) -> dict[str, dict[str, str]]:
    """Class simple name -> field -> declared type (type arguments dropped) for the classes of
    one file, nested ones too: ``builder.initializerBlock.build()`` with ``Builder builder``
    and ``CodeBlock.Builder initializerBlock`` in ``Builder`` is a ``CodeBlock.Builder``
    call."""
    out: dict[str, dict[str, str]] = {}
    for kind in ("class_declaration", "record_declaration", "enum_declaration"):
        for cls in descendants(root, kind):
            body = cls.child_by_field_name("body")
            fields = out.setdefault(node_text(cls.child_by_field_name("name")), {})
            for field in body.named_children if body is not None else ():
                if field.type != "field_declaration":
                    continue
                written = re.sub(r"<.*", "", node_text(field.child_by_field_name("type"))).strip()
                if not _JAVA_TYPE.fullmatch(written) or len(written) < 2:
                    continue
                for decl in field.children_by_field_name("declarator"):
                    fields[node_text(decl.child_by_field_name("name"))] = written
    return out


def go_struct_fields(root: ts.Node) -> dict[str, dict[str, str]]:
    """The field types of a Go file's structs as written, without ``*`` and type arguments:
    ``{"Cache": {"lru": "simplelru.LRU"}}`` for ``lru *simplelru.LRU[K, V]``."""
    out: dict[str, dict[str, str]] = {}
    for spec in descendants(root, "type_spec"):
        inner = spec.child_by_field_name("type")
        if inner is None or inner.type != "struct_type":
            continue
        fields = out.setdefault(node_text(spec.child_by_field_name("name")), {})
        for decl in descendants(inner, "field_declaration"):
            written = node_text(decl.child_by_field_name("type"))
            for name in decl.children_by_field_name("name"):
                fields[node_text(name)] = re.sub(r"\[.*\]", "", written).lstrip("*")
    return out


def go_field_values(root: ts.Node) -> dict[str, dict[str, set[str]]]:
    """What the file puts into its structs' fields: struct -> field -> the functions whose
    (first) result is stored there, as written (``simplelru.NewLRU``), from keyed composite
    literals ``&T{recent: recent}`` whose value is a call or a local bound to a call's first
    result (``recent, err := simplelru.NewLRU[K, V](size, nil)``); any other value is ``?``."""
    out: dict[str, dict[str, set[str]]] = {}
    for literal in descendants(root, "composite_literal"):
        struct = re.sub(r"\[.*\]", "", node_text(literal.child_by_field_name("type")))
        body = literal.child_by_field_name("body")
        if not struct or body is None:
            continue
        fn = literal.parent
        while fn is not None and fn.type not in ("function_declaration", "method_declaration"):
            fn = fn.parent
        bound = _go_bound_calls(fn) if fn is not None else {}
        for element in body.named_children:
            if element.type != "keyed_element" or element.named_child_count != 2:
                continue
            key, value = (_go_element(c) for c in element.named_children)
            if key is None or value is None or key.type not in ("identifier", "field_identifier"):
                continue
            made = _go_callee(value) if value.type in _GO_CALLS else None
            if value.type == "identifier":
                made = bound.get(node_text(value))
            fields = out.setdefault(struct, {})
            fields.setdefault(node_text(key), set()).add(made or "?")
    return out


_GO_CALLS = frozenset({"call_expression", "type_conversion_expression"})


def _go_element(node: ts.Node) -> ts.Node | None:
    return (
        node.named_children[0] if node.type == "literal_element" and node.named_children else None
    )


def _go_callee(call: ts.Node) -> str | None:
    """``simplelru.NewLRU`` of ``simplelru.NewLRU[K, V](..)`` (read as a conversion to a
    generic type when it has one argument); None for anything else."""
    fn = call.child_by_field_name("function")
    if call.type == "type_conversion_expression":
        generic = call.child_by_field_name("type")
        fn = generic.child_by_field_name("type") if generic is not None else None
    text = node_text(fn) if fn is not None else ""
    return text if re.fullmatch(r"([a-z_]\w*\.)?[A-Za-z_]\w*", text) else None


def go_bound_call(node: ts.Node, name: str) -> ts.Node | None:
    """The call expression the local ``name`` of the Go function around ``node`` is bound to
    by ``:=`` (its first result), when every ``:=`` of that name binds it to a call of the same
    text and no ``var`` or parameter declares it; None otherwise."""
    fn = node.parent
    while fn is not None and fn.type not in ("function_declaration", "method_declaration"):
        fn = fn.parent
    if fn is None:
        return None
    for kind in ("parameter_declaration", "var_spec"):
        for decl in descendants(fn, kind):
            if any(node_text(n) == name for n in decl.children_by_field_name("name")):
                return None
    calls: dict[str, ts.Node] = {}
    for decl in descendants(fn, "short_var_declaration"):
        left, right = decl.child_by_field_name("left"), decl.child_by_field_name("right")
        if left is None or right is None or not left.named_child_count:
            continue
        names = [node_text(n) for n in left.named_children]
        if name not in names:
            continue
        value = right.named_children[0] if right.named_child_count == 1 else None
        if names[0] != name or value is None or value.type != "call_expression":
            return None
        calls[node_text(value.child_by_field_name("function"))] = value
    return next(iter(calls.values())) if len(calls) == 1 else None


def _go_bound_calls(fn: ts.Node) -> dict[str, str]:
    """Locals of ``fn`` bound (once) to a call's first result: name -> the callee as written."""
    found: dict[str, set[str]] = {}
    for decl in descendants(fn, "short_var_declaration"):
        left, right = decl.child_by_field_name("left"), decl.child_by_field_name("right")
        if left is None or right is None or not left.named_child_count:
            continue
        value = right.named_children[0] if right.named_child_count == 1 else None
        callee = _go_callee(value) if value is not None and value.type in _GO_CALLS else None
        found.setdefault(node_text(left.named_children[0]), set()).add(callee or "?")
    return {k: next(iter(v)) for k, v in found.items() if len(v) == 1 and "?" not in v}


def go_field_call(
    callee: ts.Node, receiver: str | None, owner: str | None, fields: dict[str, dict[str, str]]
) -> str | None:
    """``c.lru.Cap`` in a method of ``Cache`` whose field ``lru`` is ``*simplelru.LRU[K, V]``:
    ``simplelru.LRU.Cap``, a call on the field's type; None when that is not known."""
    operand, method = callee.child_by_field_name("operand"), callee.child_by_field_name("field")
    if operand is None or method is None or operand.type != "selector_expression" or not owner:
        return None
    recv, field = operand.child_by_field_name("operand"), operand.child_by_field_name("field")
    if recv is None or field is None or node_text(recv) != receiver:
        return None
    typed = fields.get(owner.rsplit(".", 1)[-1], {}).get(node_text(field))
    return f"{typed}.{node_text(method)}" if typed else None


_LITERALS = {
    "string_literal": "String",
    "class_literal": "Class",
    "character_literal": "char",
    "decimal_integer_literal": "int",
    "hex_integer_literal": "int",
    "octal_integer_literal": "int",
    "binary_integer_literal": "int",
    "decimal_floating_point_literal": "double",
    "hex_floating_point_literal": "double",
    "null_literal": "null",
    "true": "boolean",
    "false": "boolean",
}


# JDK facts: the methods of java.lang.String that return a String (their declared return type
# in every JDK since 11), so ``"1".repeat(n)`` or ``s.trim()`` with ``String s`` is a String
# argument. Only String's own methods, only those whose return type never varies.
_STRING_TO_STRING = frozenset(
    {
        "concat",
        "formatted",
        "indent",
        "intern",
        "repeat",
        "replace",
        "replaceAll",
        "replaceFirst",
        "strip",
        "stripIndent",
        "stripLeading",
        "stripTrailing",
        "substring",
        "toLowerCase",
        "toString",
        "toUpperCase",
        "translateEscapes",
        "trim",
    }
)


def java_arguments(call: ts.Node) -> list[ts.Node]:
    """The argument expressions of a Java call, comments left out."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [a for a in args.named_children if a.type not in ("line_comment", "block_comment")]


def java_arg_types(call: ts.Node, cache: dict[int, dict[str, str]]) -> tuple[str, ...]:
    """The static type of each argument of a Java call where the site shows it: a literal
    (``1L`` long, ``1.5f`` float, ``null``), a typed local or field (primitives too), an
    element of a typed array (``bits[i]``), ``new T(..)``, a cast ``(T) x``, a static factory
    ``T.of(..)`` (taken to return T), a String method returning a String on a String literal or
    local (``"1".repeat(n)``: a JDK fact, ``_STRING_TO_STRING``); "" when unknown. (A call of a
    repository method is typed at resolution, by its declared return type.)"""
    if call.child_by_field_name("arguments") is None:
        return ()
    out: list[str] = []
    for arg in java_arguments(call):
        kind = _LITERALS.get(arg.type, "")
        suffix = node_text(arg)[-1:].lower()
        if (kind, suffix) in (("int", "l"), ("double", "f")):
            kind = "long" if suffix == "l" else "float"  # ``1L``, ``1.5f`` (``0xFF`` is int)
        if arg.type == "identifier":
            kind = java_locals(call, cache).get(node_text(arg), "")
        elif arg.type == "array_access":  # ``bits[i]`` with ``int[] bits``: its element type
            array = arg.child_by_field_name("array")
            if array is not None and array.type == "identifier":
                kind = java_locals(call, cache).get(node_text(array) + "[]", "")
        elif arg.type in ("object_creation_expression", "cast_expression"):
            kind = re.sub(r"<.*", "", node_text(arg.child_by_field_name("type"))).rsplit(".")[-1]
        elif arg.type == "method_invocation":
            # ``ClassName.get(c)``, ``String.format(..)``: a static factory of a type mostly
            # returns that type (a guess, used only to choose among same-arity overloads).
            owner = arg.child_by_field_name("object")
            if owner is not None and owner.type == "identifier" and node_text(owner)[:1].isupper():
                kind = node_text(owner)
            elif owner is not None and _java_string(owner, call, cache):
                method = node_text(arg.child_by_field_name("name"))
                kind = "String" if method in _STRING_TO_STRING else ""
        out.append(kind)
    return tuple(out)


def _java_string(node: ts.Node, call: ts.Node, cache: dict[int, dict[str, str]]) -> bool:
    """Whether ``node`` is a String literal or a local (or field) declared ``String``."""
    if node.type == "string_literal":
        return True
    return node.type == "identifier" and java_locals(call, cache).get(node_text(node)) == "String"


def java_param_types(signature: str | None, name: str) -> list[str]:
    """``public <T> T fromJson(String json, TypeToken<T> t)`` -> ["String", "TypeToken"];
    ``Object... args`` -> ``Object...``."""
    found = re.search(rf"\b{re.escape(name)}\s*\((.*)\)", signature or "")
    if found is None:
        return []
    params, depth, start, text = [], 0, 0, found.group(1)
    for i, c in enumerate(text + ","):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif c == "," and depth == 0:
            words = re.sub(r"<.*?>|@\w+|\bfinal\b", "", text[start:i]).split()
            written = words[-2] if len(words) >= 2 else ""
            dots = "..." if written.endswith("...") else ""  # varargs: ``Object... args``
            params.append(written.removesuffix("...").rsplit(".", 1)[-1] + dots)
            start = i + 1
    return params
