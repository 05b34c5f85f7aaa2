"""The edges of a Python call analysis: run :class:`code_memory.flow.PythonFlow` and turn what
it found (and could not follow) into :class:`Dependency` rows: calls, imports, inherits."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pegas_memory.code_memory.flow import PythonFlow
from pegas_memory.code_memory.flow_rules import fallback_calls, value_deps
from pegas_memory.code_memory.model import (
    MAX_CALL_TARGETS,
    Dependency,
    DepKind,
    Expr,
    Reference,
    RefKind,
    TargetKind,
)
from pegas_memory.progress import on_a_clock

__all__ = ["import_dep", "python_dependencies"]


def python_dependencies(self: PythonFlow) -> list[Dependency]:
    """Run the analysis and return the Python files' calls, imports and inherits edges."""
    self.run()
    candidates = _candidates(self)
    deps = []
    for src, name, line, kind in self.calls:
        n = candidates.get((src, name, line), 1) if kind == TargetKind.INTERNAL else 1
        dst = name if kind == TargetKind.INTERNAL else None
        edge_kind: DepKind = DepKind.MAY_CALL if n > MAX_CALL_TARGETS else DepKind.CALLS
        deps.append(Dependency(src, edge_kind, name, dst, line, kind, candidates=n))
    deps += fallback_calls(self.facts, self.resolved_sites)
    step, total = self.step, len(self.files)

    def walked(n: int) -> None:  # on the clock: every 10th file went 18 s silent (sqlalchemy)
        if step is not None:
            step(n, total, f"resolving dependencies: Python file {n + 1} of {total}")

    walked(0)
    for f in on_a_clock(self.files, walked, check_every=1, clock=self.clock):
        bases: dict[str, list[Expr]] = {s.qualname: list(s.bases) for s in f.scopes}
        only_submodules = _submodule_imports(self, f.references)
        for ref in f.references:
            if ref.kind == RefKind.IMPORTS:
                if (ref.src_qualified_name, ref.line, ref.target) in only_submodules:
                    continue
                deps.append(import_dep(self, ref.src_qualified_name, ref.target, ref.line))
            elif ref.kind == RefKind.INHERITS and bases.get(ref.src_qualified_name):
                expr = bases[ref.src_qualified_name].pop(0)
                info = self.scopes[ref.src_qualified_name]
                values = self.eval(expr, info.parent or info.qualname)
                deps.extend(
                    value_deps(
                        ref.src_qualified_name, RefKind.INHERITS, values, ref.target, ref.line
                    )
                )
    return deps


def _candidates(self: PythonFlow) -> dict[tuple[str, str, int], int]:
    """(caller, callee, line) -> how many internal targets its call site has; the fewest when
    several sites of one line reach the same callee (``f(f(x))``)."""
    out: dict[tuple[str, str, int], int] = {}
    for index, found in self.site_targets.items():
        fact = self.facts[index]
        targets = {t[2:] for t, _ in found if t[0] in "fc"}  # internal functions and classes
        for target in targets:
            key = (fact.scope, target, fact.line)
            out[key] = min(out.get(key, len(targets)), len(targets))
    return out


def _submodule_imports(self: PythonFlow, refs: Sequence[Reference]) -> set[tuple[str, int, str]]:
    """The module-level edges of ``from pkg import a, b`` statements whose every name is a
    submodule (``from . import types``): the statement depends on ``pkg.types``, not on the
    package, whose ``__init__`` would otherwise join every importer to all it imports."""
    by_statement: dict[tuple[str, int], list[str]] = defaultdict(list)
    for ref in refs:
        if ref.kind == RefKind.IMPORTS:
            by_statement[(ref.src_qualified_name, ref.line)].append(ref.target)
    out: set[tuple[str, int, str]] = set()
    for (src, line), targets in by_statement.items():
        for module in targets:
            names = [t for t in targets if t.startswith(module + ".")]
            if module in self.packages and names and all(t in self.modules for t in names):
                out.add((src, line, module))
    return out


def import_dep(self: PythonFlow, src: str, target: str, line: int) -> Dependency:
    if target in self.modules or target in self.kinds:
        return Dependency(src, DepKind.IMPORTS, target, target, line, TargetKind.INTERNAL)
    module, _, name = target.rpartition(".")
    if module in self.packages:
        values = self.module_attr(module, name)
        internal = sorted(v[2:] for v in values if v[0] in "cfm" and v[2:] in self.kinds)
        if internal:
            return Dependency(
                src, DepKind.IMPORTS, internal[0], internal[0], line, TargetKind.INTERNAL
            )
    return Dependency(src, DepKind.IMPORTS, target, None, line, TargetKind.EXTERNAL)
