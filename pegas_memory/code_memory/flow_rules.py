"""The parts of the Python call analysis (`code_memory.flow`) that read no slot.

How methods bind, the C3 merge of base-class orders, and the edges made from what the analysis
found or could not follow: each is a plain function of its inputs, so it lives apart from the
worklist and can be read (and tested) alone. Pure logic: no parsing, no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from pegas_memory.code_memory.model import Attr, CallSite, Dependency, Fact, RefKind, Scope


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


def fallback_calls(
    kinds: Mapping[str, str], facts: Sequence[Fact], resolved_sites: AbstractSet[int]
) -> list[Dependency]:
    """Call sites the analysis could not follow. ``obj.name(...)`` where ``name`` is a method
    defined exactly once in the repository (and not a dunder) is taken to call it, as a
    reader of the code would; the rest are kept as unresolved edges."""
    methods: dict[str, list[str]] = defaultdict(list)
    for qualname, kind in kinds.items():
        if kind == "method":
            methods[qualname.rpartition(".")[2]].append(qualname)
    deps: list[Dependency] = []
    for index, fact in enumerate(facts):
        if not isinstance(fact, CallSite) or index in resolved_sites:
            continue
        func = fact.call.func
        name = func.name if isinstance(func, Attr) else ""
        found = methods.get(name, []) if not name.startswith("__") else []
        if len(found) == 1:
            deps.append(Dependency(fact.scope, "calls", found[0], found[0], fact.line, "internal"))
        else:
            deps.append(Dependency(fact.scope, "calls", fact.text, None, fact.line, "unresolved"))
    return deps


def value_deps(
    src: str, kind: RefKind, values: AbstractSet[str], written: str, line: int
) -> list[Dependency]:
    """Edges from `src` to the definitions `values` name; `written` unresolved when none."""
    out = []
    for v in sorted(values):
        if v[0] in "cfm":
            out.append(Dependency(src, kind, v[2:], v[2:], line, "internal"))
        elif v[0] == "x":
            out.append(Dependency(src, kind, v[2:], None, line, "external"))
    return out or [Dependency(src, kind, written, None, line, "unresolved")]
