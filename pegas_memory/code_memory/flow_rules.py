"""The parts of the Python call analysis (`code_memory.flow`) that read no slot.

How methods bind, the C3 merge of base-class orders, and the edges made from what the analysis
found or could not follow: each is a plain function of its inputs, so it lives apart from the
worklist and can be read (and tested) alone. Pure logic: no parsing, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from pegas_memory.code_memory.model import (
    Assign,
    Call,
    CallSite,
    Dependency,
    DepKind,
    Expr,
    Fact,
    Loop,
    Name,
    RefKind,
    Return,
    Scope,
    TargetKind,
)


def method_bindings(scopes: Mapping[str, Scope]) -> dict[str, str]:
    """How each method binds when read from a class or instance; plain functions and static
    methods are absent (they do not bind)."""
    out: dict[str, str] = {}
    for info in scopes.values():
        parent = scopes.get(info.parent or "")
        if info.kind != "function" or parent is None or parent.kind != "class":
            continue
        if "staticmethod" not in info.decorators:
            how = "classmethod" if "classmethod" in info.decorators else "method"
            out[f"f:{info.qualname}"] = how
    return out


def c3_merge(cls: str, seqs: list[list[str]]) -> list[str]:
    """`cls` followed by the C3 merge of its bases' orders and the list of bases (the last of
    `seqs`); an inconsistent hierarchy falls back to depth-first order."""
    result = [cls]
    while any(seqs):
        head = next((s[0] for s in seqs if s and not any(s[0] in t[1:] for t in seqs)), None)
        if head is None:  # inconsistent hierarchy: fall back to depth-first order
            head = next(s[0] for s in seqs if s)
        result.append(head)
        seqs = [[x for x in s if x != head] for s in seqs]
    return result


def fallback_calls(facts: Sequence[Fact], resolved_sites: AbstractSet[int]) -> list[Dependency]:
    """Call sites the analysis could not follow, kept as unresolved edges by the text written.

    There is deliberately no "the only method with this name" guess for ``obj.name(...)`` with an
    unknown receiver: on real repositories that sends calls of library methods (``.get()``,
    ``.close()``) to whichever repository method happens to share the name."""
    return [
        Dependency(fact.scope, DepKind.CALLS, fact.text, None, fact.line, TargetKind.UNRESOLVED)
        for index, fact in enumerate(facts)
        if isinstance(fact, CallSite) and index not in resolved_sites
    ]


def value_deps(
    src: str, kind: RefKind, values: AbstractSet[str], written: str, line: int
) -> list[Dependency]:
    """Edges from `src` to the definitions `values` name; `written` unresolved when none."""
    edge = DepKind(kind)
    out = []
    for v in sorted(values):
        if v[0] in "cfm":
            out.append(Dependency(src, edge, v[2:], v[2:], line, TargetKind.INTERNAL))
        elif v[0] == "x":
            out.append(Dependency(src, edge, v[2:], None, line, TargetKind.EXTERNAL))
    return out or [Dependency(src, edge, written, None, line, TargetKind.UNRESOLVED)]


def passthrough_returns(
    facts: Sequence[Fact], scopes: Mapping[str, Scope], binding: Mapping[str, str]
) -> tuple[dict[str, list[int]], set[int]]:
    """Functions that return one of their parameters unchanged (``return func``): function ->
    parameter positions, and the indexes of those Return facts. The analysis keeps them out of
    the merged return slot and answers them per call, from that call's own arguments."""
    # A parameter's annotation or default (an Assign evaluated in another scope) declares it, it
    # does not rebind it: ``def internalcode(f: F) -> F: ...; return f`` still passes ``f`` through.
    assigned = {
        (fact.scope, fact.target.id)
        for fact in facts
        if isinstance(fact, Assign | Loop)
        and isinstance(fact.target, Name)
        and not (isinstance(fact, Assign) and fact.value_scope is not None)
    }
    out: dict[str, list[int]] = {}
    indexes: set[int] = set()
    for i, fact in enumerate(facts):
        if not isinstance(fact, Return) or not isinstance(fact.value, Name):
            continue
        info = scopes.get(fact.scope)
        name = fact.value.id
        if fact.value_scope is not None or info is None or info.kind != "function":
            continue
        if name not in info.params or (fact.scope, name) in assigned:
            continue
        position = info.params.index(name)
        if position == 0 and f"f:{fact.scope}" in binding:
            continue  # ``return self`` / ``return cls``: bound per receiver already
        indexes.add(i)
        positions = out.setdefault(fact.scope, [])
        if position not in positions:
            positions.append(position)
    return out, indexes


def passed_arguments(
    call: Call | None,
    positions: Sequence[int],
    params: Sequence[tuple[str, str]],
    offset: int,
) -> list[tuple[Expr | None, str]]:
    """For each passed-through parameter position: the argument ``call`` gives it (by position,
    ``offset`` 1 for a bound method, else by keyword; None when the call is unknown or leaves it
    to its default) and the parameter's slot, the fallback."""
    out: list[tuple[Expr | None, str]] = []
    for i in positions:
        param, slot = params[i]
        arg: Expr | None = None
        if call is not None:
            if 0 <= i - offset < len(call.args):
                arg = call.args[i - offset]
            else:
                arg = next((a for k, a in call.kwargs if k == param), None)
        out.append((arg, slot))
    return out


def property_getters(scopes: Iterable[Scope]) -> set[str]:
    """Functions read as attributes: ``@property`` getters (their setters share the name)."""
    return {
        s.qualname
        for s in scopes
        if any(d == "property" or d.endswith((".setter", ".getter")) for d in s.decorators)
    }


def enclosing_class(scopes: Mapping[str, Scope], scope: str) -> str | None:
    """The class a method (or a function nested in one) belongs to, for ``super()``."""
    info = scopes.get(scope)
    while info is not None and info.parent is not None:
        parent = scopes.get(info.parent)
        if parent is not None and parent.kind == "class":
            return parent.qualname
        info = parent
    return None
