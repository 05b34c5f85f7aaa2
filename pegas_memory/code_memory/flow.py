"""Python call resolution: a flow-insensitive points-to analysis in the spirit of PyCG.

Names, attributes, container elements, parameters and return values are *slots* holding sets of
abstract values (functions, classes, instances, modules, external names, constants); the flow
facts of :mod:`code_memory.python` are replayed until no slot grows. That follows aliases,
imports, ``self``/``cls``/``super()``, the C3 class hierarchy, functions passed, returned and
stored in attributes, lists and dicts, and type annotations. The replay is a worklist: a fact is
re-evaluated only when a slot it read grows; derived values (method resolution orders, attribute
lookups) are cached readers too, dropped when their inputs change. Pure logic: no I/O.
The same files give the same edges whatever the hash seed: nothing follows a set's order (files
by path, `flow_worklist` rounds, a call's values expanded and its targets bound sorted, capped
values taken sorted).
"""

from __future__ import annotations

import builtins
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet

from pegas_memory.code_memory.flow_bounds import UNKNOWN, bounded_update
from pegas_memory.code_memory.flow_rules import (
    c3_merge,
    enclosing_class,
    method_bindings,
    passed_arguments,
    passthrough_returns,
    property_getters,
)
from pegas_memory.code_memory.flow_worklist import Worklist
from pegas_memory.code_memory.model import (
    Assign,
    Attr,
    Call,
    CallSite,
    Const,
    Container,
    DefRef,
    Expr,
    FileIndex,
    Instance,
    Loop,
    ModuleRef,
    Name,
    OneOf,
    Return,
    Scope,
    Subscript,
    TargetKind,
    Wrapped,
)
from pegas_memory.progress import on_a_clock

_BUILTINS = frozenset(dir(builtins))
# Builtins that call the functions they are given; their results are those functions' results.
_HIGHER_ORDER = frozenset({"x:builtins.map", "x:builtins.filter", "x:builtins.sorted"})
# A safety net only: each fact is re-evaluated when an input grows, and slots only grow.
_MAX_EVALS_PER_FACT = 50
_MAX_EXTERNAL_PARTS = 5  # external names' depth: ``name = name.decode()`` would grow forever
_EMPTY: frozenset[str] = frozenset()
_CHECK_EVALS = 16  # clock read this often; one ``step`` per 200 went 38 s silent (sqlalchemy)

Reader = int | str  # a fact index, or the key of a derived value such as "mro:pkg.Class"


class PythonFlow:
    """Abstract values are strings: ``f:`` function, ``c:`` class, ``i:`` instance, ``m:`` module,
    ``x:`` external name, ``k:`` constant, ``o:`` container, ``b:fn|recv`` bound method,
    ``p:cls|recv`` the proxy ``super()`` returns. Slots: ``v:scope:name`` variables,
    ``a:class:name`` class and instance attributes, ``e:site:key`` container elements,
    ``r:function`` return values."""

    def __init__(
        self,
        files: Sequence[FileIndex],
        *,
        step: Callable[[int, int, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.files = files = sorted(files, key=lambda f: f.path)
        self.step, self.clock = step, clock
        self.modules = {f.module for f in files}
        self.packages = {m.rsplit(".", i)[0] for m in self.modules for i in range(m.count(".") + 1)}
        self.scopes: dict[str, Scope] = {s.qualname: s for f in files for s in f.scopes}
        self.kinds = {s.qualified_name: s.kind for f in files for s in f.symbols}
        self.facts = [fact for f in files for fact in f.facts]
        self.slots: dict[str, set[str]] = {}
        self.tag_counts: dict[str, dict[str, int]] = {}  # capped values per tag of large slots
        self.site_keys: dict[str, set[str]] = defaultdict(set)
        self.declared: dict[str, set[str]] = defaultdict(set)
        for fact in self.facts:
            if isinstance(fact, Assign | Loop) and isinstance(fact.target, Name):
                self.declared[fact.scope].add(fact.target.id)
        for scope in self.scopes.values():
            self.declared[scope.qualname].update(p.lstrip("*") for p in scope.params)
        self.readers: dict[str, set[Reader]] = defaultdict(set)
        self.reader: Reader | None = None
        self.work = Worklist()
        # Derived values by their reader key: "mro:<class>" -> its linearisation, and
        # "attr:<class>:<name>:<recv>" / "super:..." -> what class_attr returns.
        self._mro: dict[str, list[str]] = {}
        self._attrs: dict[str, frozenset[str]] = {}
        self.binding = method_bindings(self.scopes)
        # Each scope's parameters with their slots, in order, for binding call arguments.
        self.param_slots = {
            q: tuple((p, self.var(q, p)) for p in info.params) for q, info in self.scopes.items()
        }
        passthrough = passthrough_returns(self.facts, self.scopes, self.binding)
        self.passthrough, self.passthrough_facts = passthrough
        # Getters read as attributes: ``obj.name`` runs them (property setters share the name).
        self.properties = property_getters(s for f in files for s in f.scopes)
        self.property_names = {q.rpartition(".")[2] for q in self.properties}
        self.site: tuple[str, int] | None = None  # the statement being replayed, for edges
        self._names: dict[tuple[str, str], tuple[str | None, Scope | None]] = {}
        self.calls: set[tuple[str, str, int, TargetKind]] = set()
        self._bound: dict[int, tuple[tuple[int, ...], set[tuple[str, str | None]]]] = {}
        self.resolved_sites: set[int] = set()
        self.site_targets: dict[int, list[tuple[str, str | None]]] = {}  # at the last replay

    # -- the worklist --

    def run(self) -> None:
        for i in range(len(self.facts)):
            self.work.push(i)
        self.drain()
        # Methods nobody is seen calling (entry points, callbacks, API used from outside) would
        # leave ``self`` empty; give it an instance of its own class, then propagate again.
        for info in self.scopes.values():
            first = self.self_param(info)
            if first is not None and not self.slots.get(self.var(info.qualname, first)):
                parent = info.parent or ""
                value = f"c:{parent}" if "classmethod" in info.decorators else f"i:{parent}"
                self.add(self.var(info.qualname, first), {value})
        self.drain()

    def drain(self) -> None:
        budget = _MAX_EVALS_PER_FACT * max(len(self.facts), 1)
        order = self.work.drain(budget)
        if self.step is not None:  # round, evaluations, facts queued: see Worklist.reporter
            report = self.work.reporter(self.step, budget, len(self.facts))
            report(0)  # the drain begins; then every REPORT_SECONDS (progress.on_a_clock)
            order = on_a_clock(order, report, check_every=_CHECK_EVALS, clock=self.clock)
        for index in order:
            self.reader = index
            self.replay(index)
        self.reader = None
        self.site = None

    def replay(self, index: int) -> None:
        fact = self.facts[index]
        self.site = (fact.scope, fact.line) if fact.line else None
        if isinstance(fact, Assign):
            values = self.eval(fact.value, fact.value_scope or fact.scope)
            self.assign(fact.target, values, fact.scope)
        elif isinstance(fact, Return):
            if index not in self.passthrough_facts:
                self.add(f"r:{fact.scope}", self.eval(fact.value, fact.value_scope or fact.scope))
        elif isinstance(fact, CallSite):
            self.call_site(index, fact)
        elif isinstance(fact, Loop):
            self.loop(fact)

    def self_param(self, info: Scope) -> str | None:
        """The ``self``/``cls`` parameter of a method, None for anything else."""
        if info.kind != "function" or not info.params or info.params[0].startswith("*"):
            return None
        parent = self.scopes.get(info.parent or "")
        if parent is None or parent.kind != "class" or "staticmethod" in info.decorators:
            return None
        return info.params[0]

    def get(self, slot: str) -> set[str] | frozenset[str]:
        """A slot's values (do not mutate); the fact being replayed becomes one of its readers."""
        reader = self.reader
        if reader is not None:
            self.readers[slot].add(reader)
        return self.slots.get(slot, _EMPTY)

    def add(self, slot: str, values: Iterable[str]) -> None:
        current = self.slots.get(slot)
        if current is None:
            current = self.slots[slot] = set()
        grew, counts = bounded_update(current, values, self.tag_counts.get(slot))
        if counts is not None:
            self.tag_counts[slot] = counts
        if grew:
            self.changed(slot)

    def changed(self, slot: str) -> None:
        stack = [slot]
        while stack:
            for reader in self.readers.get(stack.pop(), ()):
                if isinstance(reader, int):
                    self.work.push(reader)
                elif self.forget(reader):
                    stack.append(reader)  # a derived value is stale: so are its users

    def forget(self, key: str) -> bool:
        """Drop the derived value ``key``; False when it was not cached."""
        if key.startswith("mro:"):
            return self._mro.pop(key, None) is not None
        return self._attrs.pop(key, None) is not None

    def add_key(self, site: str, key: str) -> None:
        keys = self.site_keys[site]
        if key not in keys:
            keys.add(key)
            self.changed(f"keys:{site}")

    def keys(self, site: str) -> set[str]:
        self.get(f"keys:{site}")
        return self.site_keys[site]

    # -- evaluation --

    def eval(self, expr: Expr, scope: str) -> set[str]:
        if isinstance(expr, Name):
            return self.lookup(expr.id, scope)
        if isinstance(expr, Attr):
            return self.attr(self.eval(expr.obj, scope), expr.name)
        if isinstance(expr, Call):
            return self.call_result(self.eval(expr.func, scope), expr, scope)
        if isinstance(expr, Subscript):
            return self.subscript(expr, scope)
        if isinstance(expr, Const):
            return {f"k:{expr.value}"}
        if isinstance(expr, Container):
            for key, item in expr.items:
                self.add_key(expr.site, key)
                self.add(f"e:{expr.site}:{key}", self.eval(item, scope))
            return {f"o:{expr.site}"}
        if isinstance(expr, DefRef):
            scope_info = self.scopes.get(expr.qualname)
            is_class = scope_info is not None and scope_info.kind == "class"
            return {("c:" if is_class else "f:") + expr.qualname}
        if isinstance(expr, ModuleRef):
            return {("m:" if expr.module in self.packages else "x:") + expr.module}
        if isinstance(expr, OneOf):
            return set().union(*(self.eval(o, scope) for o in expr.options))
        if isinstance(expr, Instance):
            return {f"i:{v[2:]}" for v in self.eval(expr.cls, scope) if v.startswith("c:")}
        if isinstance(expr, Wrapped):
            decorators = self.eval(expr.call.func, scope)
            found = self.call_result(decorators, expr.call, scope)
            if not decorators or any(v.startswith("x:") for v in decorators):
                found |= self.eval(expr.call.args[0], scope)
            return found
        return set()

    def var(self, scope: str, name: str) -> str:
        info = self.scopes.get(scope)
        kind = "a" if info is not None and info.kind == "class" else "v"
        return f"{kind}:{scope}:{name}"

    def lookup(self, name: str, scope: str) -> set[str]:
        key = (name, scope)
        where = self._names.get(key)
        if where is None:
            where = self._names[key] = self._name_slot(name, scope)
        slot, module = where
        if slot is not None:
            return set(self.get(slot))
        if module is not None:
            found = self.star_lookup(module, name, set())
            if found:
                return found
        return {f"x:builtins.{name}"} if name in _BUILTINS else set()

    def _name_slot(self, name: str, scope: str) -> tuple[str | None, Scope | None]:
        """Where ``name`` read in ``scope`` lives: the slot of the scope that declares it, else the
        enclosing module (whose star imports may define it). Declarations never change during
        the analysis, so :meth:`lookup` computes this once per (name, scope)."""
        current: str | None = scope
        first = True
        while current is not None:
            info = self.scopes.get(current)
            if info is None:
                break
            # Python skips class bodies when resolving names inside their methods.
            if (first or info.kind != "class") and name in self.declared[current]:
                return self.var(current, name), None
            if info.kind == "module":
                return None, info  # a module is the outermost scope
            first = False
            current = info.parent
        return None, None

    def star_lookup(self, info: Scope, name: str, seen: set[str]) -> set[str]:
        found: set[str] = set()
        for module in info.star_imports:
            if module not in seen and not name.startswith("_"):
                seen.add(module)
                found |= self.module_attr(module, name, seen)
        return found

    def module_attr(self, module: str, name: str, seen: set[str] | None = None) -> set[str]:
        found = set(self.get(f"v:{module}:{name}"))
        sub = f"{module}.{name}"
        if sub in self.packages:
            found.add(f"m:{sub}")
        info = self.scopes.get(module)
        if not found and info is not None:
            found = self.star_lookup(info, name, seen if seen is not None else {module})
        return found

    def attr(self, values: set[str], name: str) -> set[str]:
        found: set[str] = set()
        for v in values:
            tag, q = v[0], v[2:]
            if tag == "m":
                found |= self.module_attr(q, name)
            elif tag == "c":
                found |= self.class_attr(q, name, None)
            elif tag in "ip":
                cls, _, recv = q.partition("|") if tag == "p" else (q, "", v)
                got = self.class_attr(cls, name, recv, skip_first=tag == "p")
                found |= self.read_properties(got) if name in self.property_names else got
            elif tag == "x" and q.count(".") < _MAX_EXTERNAL_PARTS - 1:
                found.add(f"{v}.{name}")
            elif tag == "u":
                found.add(v)  # unknown stays unknown
        return found

    def read_properties(self, values: AbstractSet[str]) -> set[str]:
        """An attribute read on an instance: a property's getter runs (an edge from the statement
        being replayed) and the read gives what it returns."""
        if not self.properties:
            return set(values)
        out: set[str] = set()
        for v in values:
            fn = v[2:].partition("|")[0]
            if v[0] not in "fb" or fn not in self.properties:
                out.add(v)
                continue
            if self.site is not None:
                self.edge(self.site[0], f"f:{fn}", self.site[1])
            out |= self.returns(v)
        return out

    def derive(self, key: str) -> None:
        """Make what is being evaluated (a fact, or a derived value) a reader of derived ``key``."""
        if self.reader is not None:
            self.readers[key].add(self.reader)

    def mro(self, cls: str) -> list[str]:
        """C3 linearisation; external bases appear as ``x:name`` and end the search."""
        key = f"mro:{cls}"
        self.derive(key)
        cached = self._mro.get(key)
        if cached is not None:
            return cached
        self._mro[key] = [cls]  # guards against cyclic bases while computing
        outer, self.reader = self.reader, key
        try:
            result = self._linearise(cls)
        finally:
            self.reader = outer
        self._mro[key] = result
        return result

    def _linearise(self, cls: str) -> list[str]:
        info = self.scopes.get(cls)
        bases: list[str] = []
        for base in info.bases if info is not None else ():
            for v in sorted(self.eval(base, info.parent or cls) if info else ()):
                if v.startswith("c:") and v[2:] != cls:
                    bases.append(v[2:])
                elif v.startswith("x:"):
                    bases.append(v)
        seqs = [list(self.mro(b)) if not b.startswith("x:") else [b] for b in bases]
        return c3_merge(cls, [*seqs, list(bases)])

    def class_attr(
        self, cls: str, name: str, recv: str | None, *, skip_first: bool = False
    ) -> frozenset[str]:
        """``name`` read on class ``cls`` (on the instance ``recv`` when given), methods bound;
        ``skip_first`` starts after ``cls`` in its MRO, as ``super()`` does. Cached as a derived
        value: a class hierarchy is read through ``self`` far more often than it changes."""
        key = f"{'super' if skip_first else 'attr'}:{cls}:{name}:{recv}"
        self.derive(key)
        found = self._attrs.get(key)
        if found is None:
            outer, self.reader = self.reader, key
            try:
                found = self._attrs[key] = self._class_attr(cls, name, recv, skip_first)
            finally:
                self.reader = outer
        return found

    def _class_attr(
        self, cls: str, name: str, recv: str | None, skip_first: bool
    ) -> frozenset[str]:
        for klass in self.mro(cls)[1 if skip_first else 0 :]:
            if klass.startswith("x:"):
                return frozenset((f"{klass}.{name}",))
            values = self.get(f"a:{klass}:{name}")
            if values:
                return frozenset(self.bind(v, recv, cls) for v in values)
        return _EMPTY

    def bind(self, value: str, recv: str | None, cls: str) -> str:
        how = self.binding.get(value) if value[0] == "f" else None
        if how is None:
            return value
        if how == "classmethod":
            return f"b:{value[2:]}|c:{cls}"
        return f"b:{value[2:]}|{recv}" if recv is not None else value

    def subscript(self, expr: Subscript, scope: str) -> set[str]:
        if expr.key is None:
            return set()
        keys = self.eval(expr.key, scope)
        consts = [k[2:] for k in keys if k.startswith("k:")]
        found: set[str] = set()
        for v in self.eval(expr.obj, scope):
            if not v.startswith("o:"):
                continue
            site = v[2:]
            wanted = [*consts, "*"] if consts else list(self.keys(site))
            for key in wanted:
                found |= self.get(f"e:{site}:{key}")
        return found

    def callees(
        self, values: AbstractSet[str], seen: set[str] | None = None
    ) -> list[tuple[str, str | None]]:
        """(callee value, receiver) pairs a call with these function values runs. ``seen`` guards
        against classes whose ``__init__``/``__call__`` lead back to themselves
        (``A.__init__ = A``): each value is expanded once per call. The values are expanded in
        sorted order: classes that share a constructor (``x:builtins.Exception.__init__``) meet
        ``seen``, and the first one expanded stands for it while the others stay classes, so set
        order made which class lost its edge depend on the hash seed."""
        out: list[tuple[str, str | None]] = []
        seen = set() if seen is None else seen
        for v in sorted(values):
            if v in seen:
                continue
            seen.add(v)
            tag, q = v[0], v[2:]
            if tag == "f" or tag == "x":
                out.append((v, None))
            elif tag == "b":
                fn, _, recv = q.partition("|")
                out.append((f"f:{fn}", recv))
            elif tag == "c":
                init = self.class_attr(q, "__init__", f"i:{q}")
                out.extend((self.callees(init, seen) if init else []) or [(v, None)])
            elif tag == "i":
                out.extend(self.callees(self.class_attr(q, "__call__", v), seen))
        return out

    def returns(
        self, fn: str, call: Call | None = None, scope: str | None = None
    ) -> set[str] | frozenset[str]:
        """What calling ``fn`` returns. A ``return param`` is answered from the call's own
        argument when the call is known: ``self.ensure_sync(f)()`` runs ``f`` of this call, not
        every function any caller ever passed (the merged parameter slot, used otherwise)."""
        q = fn[2:].partition("|")[0]
        found = self.get(f"r:{q}")
        passed = self.passthrough.get(q)
        if not passed:
            return found
        out = set(found)
        offset = 1 if fn[0] == "b" else 0
        for arg, slot in passed_arguments(call, passed, self.param_slots.get(q, ()), offset):
            out |= (
                self.eval(arg, scope) if arg is not None and scope is not None else self.get(slot)
            )
        return out

    def call_result(self, values: set[str], call: Call, scope: str) -> set[str]:
        found: set[str] = set()
        for v in values:
            tag, q = v[0], v[2:]
            if tag == "c":
                found.add(f"i:{q}")
            elif tag in "fb":
                found |= self.returns(v, call, scope)
            elif tag == "i":
                for fn in self.class_attr(q, "__call__", v):
                    found |= self.returns(fn, call, scope)
            elif v == "x:builtins.super":
                cls = enclosing_class(self.scopes, scope)
                if cls is not None:
                    found.add(f"p:{cls}|i:{cls}")
            elif v in ("x:builtins.map", "x:builtins.filter"):
                for arg in call.args:
                    for fn in self.eval(arg, scope):
                        if fn[0] in "fb":
                            found |= self.returns(fn)
            elif (
                tag == "x" and not q.startswith("builtins.") and q.rpartition(".")[2][:1].isupper()
            ):
                found.add(v)  # an external class: its instance's attributes are ext.Cls.attr
        return found

    def call_site(self, index: int, fact: CallSite) -> None:
        call, scope = fact.call, fact.scope
        values = self.eval(call.func, scope)
        if UNKNOWN in values:
            return  # too many candidates (see flow_bounds): unresolved, not guessed
        targets = sorted(self.callees(values), key=lambda t: (t[0], t[1] or ""))
        if targets:
            self.resolved_sites.add(index)
            self.site_targets[index] = targets
        # Arguments are evaluated once per replay, not once per callee: a call through a slot
        # that holds hundreds of callbacks would otherwise evaluate them hundreds of times.
        args: list[set[str]] | None = None
        kwargs: dict[str, set[str]] = {}
        bound: set[tuple[str, str | None]] = set()
        for target, recv in targets:
            self.edge(scope, target, fact.line)
            if target.startswith("f:"):
                if args is None:
                    args = [self.eval(arg, scope) for arg in call.args]
                    kwargs = {key: self.eval(arg, scope) for key, arg in call.kwargs}
                    bound = self.bound_callees(index, args, kwargs)
                if (target, recv) not in bound:
                    bound.add((target, recv))
                    self.bind_args(target[2:], args, kwargs, recv)
            if target in _HIGHER_ORDER:
                for arg in call.args:
                    for fn in self.eval(arg, scope):
                        if fn[0] in "fb":
                            self.edge(scope, "f:" + fn[2:].partition("|")[0], fact.line)

    def bound_callees(
        self, index: int, args: list[set[str]], kwargs: dict[str, set[str]]
    ) -> set[tuple[str, str | None]]:
        """The (callee, receiver) pairs call site ``index`` has already bound exactly these
        arguments to. Slots only grow, so binding them again would change nothing: a site
        replayed because one more callback reached it binds only that one. The arguments are
        kept as a 64-bit fingerprint per set (size, summed hashes), not copied (32 MB on
        sqlalchemy's lib/); a collision, about 2**-64 per replay, would skip one binding."""
        sets = [*args, *(kwargs[k] for k in sorted(kwargs))]
        key = tuple(n for a in sets for n in (len(a), sum(map(hash, a)) & 0xFFFFFFFFFFFFFFFF))
        last = self._bound.get(index)
        if last is None or last[0] != key:
            last = self._bound[index] = (key, set())
        return last[1]

    def edge(self, scope: str, target: str, line: int) -> None:
        kind: TargetKind = TargetKind.EXTERNAL if target.startswith("x:") else TargetKind.INTERNAL
        self.calls.add((scope, target[2:], line, kind))

    def bind_args(
        self, fn: str, args: list[set[str]], kwargs: dict[str, set[str]], recv: str | None
    ) -> None:
        params = self.param_slots.get(fn)
        if params is None:
            return
        if recv is not None and params:
            self.add(params[0][1], {recv})
            params = params[1:]
        for (param, slot), values in zip(params, args, strict=False):
            if param.startswith("*"):
                break
            self.add(slot, values)
        for key, values in kwargs.items():
            for param, slot in params:
                if param == key:
                    self.add(slot, values)

    def assign(self, target: Expr, values: set[str], scope: str) -> None:
        if isinstance(target, Name):
            self.add(self.var(scope, target.id), values)
        elif isinstance(target, Attr):
            for obj in self.eval(target.obj, scope):
                if obj[0] in "ic":
                    self.add(f"a:{obj[2:]}:{target.name}", values)
                elif obj[0] == "m":
                    self.add(f"v:{obj[2:]}:{target.name}", values)
        elif isinstance(target, Subscript) and target.key is not None:
            keys = [k[2:] for k in self.eval(target.key, scope) if k.startswith("k:")] or ["*"]
            for obj in self.eval(target.obj, scope):
                if obj.startswith("o:"):
                    for key in keys:
                        self.add_key(obj[2:], key)
                        self.add(f"e:{obj[2:]}:{key}", values)

    def loop(self, fact: Loop) -> None:
        """``for x in it``: iterating instances runs __iter__ and __next__."""
        items: set[str] = set()
        for v in self.eval(fact.iterable, fact.scope):
            tag, q = v[0], v[2:]
            if tag == "o":
                for key in list(self.keys(q)):
                    items |= self.get(f"e:{q}:{key}")
            elif tag in "fb":
                items.add(v)  # a generator's yields or map()'s results, already returned
            elif tag == "i":
                for it in self.class_attr(q, "__iter__", v):
                    self.edge(fact.scope, "f:" + it[2:].partition("|")[0], fact.line)
                    for inst in self.returns(it):
                        if not inst.startswith("i:"):
                            continue
                        for nxt in self.class_attr(inst[2:], "__next__", inst):
                            fn = nxt[2:].partition("|")[0]
                            self.edge(fact.scope, f"f:{fn}", fact.line)
                            items |= self.get(f"r:{fn}")
        self.assign(fact.target, items, fact.scope)
