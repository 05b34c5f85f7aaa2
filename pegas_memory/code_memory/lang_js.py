"""JavaScript/TypeScript module syntax the generic walker needs: CommonJS and ES exports.

Pure functions of tree-sitter nodes, no state: what a ``require`` binds, which assignments
define functions (``exports.x = function``, ``module.exports = ...``, ``X.prototype.y = ...``,
``res.send = function``) and what an ``export`` statement exports. The walker turns their
answers into symbols, references and the file's export table (see ``FileIndex.exports``).
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter as ts

from pegas_memory.code_memory.syntax import node_text

FUNCTION_VALUES = frozenset(
    {"function_expression", "function", "arrow_function", "generator_function", "class"}
)


@dataclass(frozen=True, slots=True)
class Assigned:
    """A function assigned to a member: its name, the owner (``None``: a module export) and
    whether the assignment also exports it (``exports.x``, ``module.exports``)."""

    name: str
    owner: str | None
    export: str | None  # the exported name ("default" for ``module.exports =``), or None


def object_literal_name(declarator: ts.Node) -> str | None:
    """``const api = { parse() {..} }``: the name the object literal's methods belong to (they
    are ``module.api.parse``, not module functions); None for any other declarator."""
    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    while value is not None and value.type in ("as_expression", "satisfies_expression"):
        value = value.named_children[0] if value.named_child_count else None
    if name is None or name.type != "identifier" or value is None or value.type != "object":
        return None
    return node_text(name)


def require_source(node: ts.Node | None) -> str | None:
    """``'./x'`` for a ``require('./x')`` call (also ``await import('./x')``), else None."""
    if node is None:
        return None
    if node.type == "await_expression" and node.named_child_count:
        node = node.named_children[0]
    if node.type != "call_expression":
        return None
    fn = node.child_by_field_name("function")
    if fn is None or node_text(fn) not in ("require", "import"):
        return None
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_child_count else None
    if first is None or first.type not in ("string", "template_string"):
        return None
    return node_text(first).strip("'\"`") or None


def require_bindings(pattern: ts.Node, source: str) -> list[tuple[str, str]]:
    """(local name, import target) for ``const x = require(s)`` (namespace: the bare source) and
    ``const {a, b: c} = require(s)`` (named: ``s#a``, ``s#b``)."""
    if pattern.type == "identifier":
        return [(node_text(pattern), source)]
    out: list[tuple[str, str]] = []
    if pattern.type == "object_pattern":
        for part in pattern.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                out.append((node_text(part), f"{source}#{node_text(part)}"))
            elif part.type == "pair_pattern":
                key = node_text(part.child_by_field_name("key"))
                value = part.child_by_field_name("value")
                if value is not None and value.type == "identifier":
                    out.append((node_text(value), f"{source}#{key}"))
    return out


def assignment_chain(node: ts.Node) -> tuple[list[ts.Node], ts.Node | None]:
    """The targets and the final value of ``a = b = value`` (iteratively: chains can be long)."""
    targets: list[ts.Node] = []
    value: ts.Node | None = node
    while value is not None and value.type == "assignment_expression":
        left = value.child_by_field_name("left")
        if left is not None:
            targets.append(left)
        value = value.child_by_field_name("right")
    return targets, value


def assigned_member(target: ts.Node) -> Assigned | None:
    """What assigning a function to ``target`` defines, or None for targets that define nothing
    (a plain variable, a computed member ``a[b]``)."""
    if target.type != "member_expression":
        return None
    name = node_text(target.child_by_field_name("property"))
    obj = target.child_by_field_name("object")
    if not name or obj is None:
        return None
    written = node_text(obj)
    if written == "module" and name == "exports":
        return Assigned("exports", None, "default")
    if written in ("exports", "module.exports"):
        return Assigned(name, None, name)
    if obj.type == "member_expression" and node_text(obj.child_by_field_name("property")) in (
        "prototype",
    ):
        owner = node_text(obj.child_by_field_name("object"))
        return Assigned(name, owner, None) if owner.isidentifier() else None
    if obj.type == "identifier" and written.isidentifier():
        return Assigned(name, written, None)
    return None


def export_entries(node: ts.Node) -> tuple[list[tuple[str, str]], str | None]:
    """The (exported name, target) entries an ``export`` statement adds, and its ``from`` source.

    Targets: a local name (``export {a as b}`` gives ("b", "a"), ``export default ky`` gives
    ("default", "ky")), or ``source#name`` for a re-export; ``export * from s`` gives ("*", s).
    Declarations (``export function f``) are symbols already and add ("default", "f") only when
    they are the default export."""
    source_node = node.child_by_field_name("source")
    source = node_text(source_node).strip("'\"`") if source_node is not None else None
    is_default = any(c.type == "default" for c in node.children)
    out: list[tuple[str, str]] = []
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    if clause is not None:
        for spec in clause.named_children:
            if spec.type != "export_specifier":
                continue
            name = node_text(spec.child_by_field_name("name"))
            alias = node_text(spec.child_by_field_name("alias")) or name
            out.append((alias, f"{source}#{name}" if source else name))
        return out, source
    if source is not None:
        star = next((c for c in node.named_children if c.type == "namespace_export"), None)
        if star is None:
            out.append(("*", source))
        return out, source
    if is_default:
        value = node.child_by_field_name("value")
        decl = node.child_by_field_name("declaration")
        named = decl.child_by_field_name("name") if decl is not None else None
        if value is not None and value.type == "identifier":
            out.append(("default", node_text(value)))
        elif named is not None:
            out.append(("default", node_text(named)))
    return out, None


MIXIN_CALLS = frozenset({"mixin", "merge", "extend", "Object.assign", "Object.setPrototypeOf"})


def mixed_into(call: ts.Node) -> tuple[str, str] | None:
    """(target, source) of ``mixin(target, source, ..)`` / ``Object.assign(target, source)``
    when both are plain identifiers, else None."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or node_text(fn) not in MIXIN_CALLS:
        return None
    named = [a for a in args.named_children if a.type != "comment"]
    if len(named) < 2 or named[0].type != "identifier" or named[1].type != "identifier":
        return None
    return node_text(named[0]), node_text(named[1])


def bound_call(declarator: ts.Node) -> str | None:
    """The callee name of ``var app = express()`` or ``var app = module.exports = express()``
    (a plain identifier called), else None."""
    _, value = assignment_chain(declarator.child_by_field_name("value") or declarator)
    if value is None or value.type != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    return node_text(fn) if fn is not None and fn.type == "identifier" else None


def exports_as_default(declarator: ts.Node) -> bool:
    """``var app = exports = module.exports = {}``: the variable is the module's export."""
    value = declarator.child_by_field_name("value")
    targets, _ = assignment_chain(value) if value is not None else ([], None)
    return any(node_text(t) == "module.exports" for t in targets)


def declared_names(fn: ts.Node) -> dict[str, str | None]:
    """Parameters and variables a function declares (they shadow module-level names): name ->
    its type when TypeScript annotates it with a plain name (``doc: Doc``, ``let n: T``), else
    the class when its one declaration is ``x = new T(..)``, else None. The bodies of
    functions nested in it are not looked into."""
    out: dict[str, str | None] = {}
    single = fn.child_by_field_name("parameter")
    if single is not None and single.type == "identifier":
        out[node_text(single)] = None
    params = fn.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        ident = p if p.type == "identifier" else p.child_by_field_name("pattern")
        if ident is None:
            ident = p.child_by_field_name("left")
        if ident is not None and ident.type == "identifier":
            out[node_text(ident)] = annotated_type(p)
    body = fn.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                made = annotated_type(node) or _constructed(node.child_by_field_name("value"))
                key = node_text(name)
                out[key] = made if key not in out or out[key] == made else None
        if node.type not in JS_FUNCTIONS:
            stack.extend(node.named_children)
    return out


def annotated_type(declaration: ts.Node) -> str | None:
    """``T`` of a TypeScript parameter or variable annotated ``: T`` with a plain type name;
    None for no annotation or any other type (a union, a generic, ``ns.T``, a literal)."""
    annotation = declaration.child_by_field_name("type")
    if annotation is None or annotation.type != "type_annotation":
        return None
    named = annotation.named_children
    return node_text(named[0]) if len(named) == 1 and named[0].type == "type_identifier" else None


def _constructed(value: ts.Node | None) -> str | None:
    """``T`` for ``new T(..)`` (also ``await``-free, plain identifiers only), else None."""
    if value is None or value.type != "new_expression":
        return None
    ctor = value.child_by_field_name("constructor")
    return node_text(ctor) if ctor is not None and ctor.type == "identifier" else None


_NESTED = frozenset({"function_declaration", "method_definition", "generator_function_declaration"})
JS_FUNCTIONS = FUNCTION_VALUES | _NESTED


@dataclass(frozen=True, slots=True)
class FnScope:
    """What one function declares, for typing the receivers of its calls: its names (see
    declared_names), its plain identifier parameters in order, and the names it assigns or
    declares again anywhere in its body (a parameter rebound there is no longer what the caller
    passed)."""

    declared: dict[str, str | None]
    params: tuple[str, ...]
    rebound: frozenset[str]


def function_scope(fn: ts.Node) -> FnScope:
    """The :class:`FnScope` of a function node (nested functions included in ``rebound``: a
    closure that reassigns ``res`` changes it for the handler too)."""
    params: list[str] = []
    single = fn.child_by_field_name("parameter")
    if single is not None and single.type == "identifier":
        params.append(node_text(single))
    plist = fn.child_by_field_name("parameters")
    for p in plist.named_children if plist is not None else ():
        if p.type == "identifier":
            params.append(node_text(p))
        elif p.type in ("required_parameter", "optional_parameter"):
            # TypeScript: an annotated ``res: ServerResponse`` has its declared type, and that
            # decides, not its name; only an unannotated one is typed by its name.
            pattern = p.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                params.append(node_text(pattern) if p.child_by_field_name("type") is None else "")
    rebound: set[str] = set()
    body = fn.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type in ("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                rebound.add(node_text(left))
        elif node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                rebound.add(node_text(name))
        stack.extend(node.named_children)
    return FnScope(declared_names(fn), tuple(params), frozenset(rebound))


PARAM_MARK = "param:"


def param_typed(params: tuple[str, ...], name: str, member: str) -> str:
    """``res.send`` called on the parameter ``res`` of ``function (req, res, next)``, written
    ``param:req,res,next:res.send`` for the resolver (code_memory.js_handlers), which decides
    from the whole parameter list whether the function is handler-shaped."""
    return f"{PARAM_MARK}{','.join(params)}:{name}.{member}"


def parse_param_typed(typed: str | None) -> tuple[tuple[str, ...], str, str] | None:
    """(parameters, receiver, member) of a :func:`param_typed` string, else None."""
    if not typed or not typed.startswith(PARAM_MARK):
        return None
    params, _, call = typed.removeprefix(PARAM_MARK).rpartition(":")
    name, _, member = call.partition(".")
    if not name or not member:
        return None
    return tuple(params.split(",")), name, member


def typed_call(
    node: ts.Node,
    callee: ts.Node,
    bound: dict[str, str | None],
    declared: dict[int, FnScope],
) -> str | None:
    """``x.m`` with ``x`` typed: ``T.m`` when the innermost function declaring ``x`` made it
    with ``new T(..)``; ``express().use`` for ``app.use`` when no function declares ``app``
    and the module bound ``var app = express()`` (``bound``); the :func:`param_typed` form
    when ``x`` is a parameter of that function never rebound in it. ``declared`` caches
    function_scope per function."""
    obj = callee.child_by_field_name("object") if callee.type == "member_expression" else None
    prop = callee.child_by_field_name("property") if obj is not None else None
    if obj is None or prop is None or obj.type != "identifier":
        return None
    name = node_text(obj)
    scope = node.parent
    while scope is not None:
        if scope.type in JS_FUNCTIONS:
            if scope.id not in declared:
                declared[scope.id] = function_scope(scope)
            facts = declared[scope.id]
            if name in facts.declared:
                made = facts.declared[name]
                if made:
                    return f"{made}.{node_text(prop)}"
                if name in facts.params and name not in facts.rebound:
                    return param_typed(facts.params, name, node_text(prop))
                return None
        scope = scope.parent
    factory = bound.get(name)
    return f"{factory}().{node_text(prop)}" if factory else None
