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
