"""Forward-chaining inference over atom links: rule parsing, fixpoint evaluation, truth maintenance.

Pure logic, no database or driver. Edges are ``pm_atom_link`` rows reduced to (src, dst, kind,
confidence); rules are the JSON content of ``logical_rule`` atoms. The caller loads extracted
edges and rules, calls :func:`reconcile` (or :func:`infer`) and writes back what it returns: edges
to add, confidences to update, edges to withdraw, and each inferred edge's derivations.

Rule language, one JSON object per rule::

    {"if": "imports", "then": "depends_on"}
    {"if": ["depends_on", "depends_on"], "then": "depends_on"}

``if`` chains 1..MAX_CHAIN kinds: ``x0 -k1-> x1 ... -kn-> xn`` yields ``x0 -then-> xn``. Options:
``min_confidence`` (0..1, every premise edge at least this); ``types`` (atom types every chain
node must have one of) or ``node_types`` (one entry per node x0..xn: null, a type or a list of
types); ``inverse`` (conclude ``xn -then-> x0``); ``self_loops`` (default false: a transitive rule
over a cycle does not yield ``a -> a``, which tells the agent nothing and clutters neighbour
queries; the closure is networkx's ``transitive_closure(G, reflexive=None)``, and with
``self_loops`` its ``reflexive=False``); ``name`` and ``description`` (free text).

Kinds are single tokens (``^[a-z][a-z0-9_]{0,62}$``, the pm_atom_link check). Content that is not
JSON, or a JSON object whose ``if``/``then`` are sentences, is a human-readable rule: ignored and
counted, never an error. Anything else that fails validation raises :class:`InvalidRule`.

Derived confidence is the product of the premise confidences (uncertainty compounds along a
chain); an edge with several derivations keeps the best. Extracted edges keep their confidence
and are never derived again, though they may gain a derivation.
"""

from __future__ import annotations

import gc
import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pegas_memory.errors import InvalidInput, LimitExceeded
from pegas_memory.models import AtomType

KIND_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,62}")
# The reason an inferred link's audit line gives when truth maintenance withdraws it.
WITHDRAWN = "truth maintenance: no derivation holds it any more"
ATOM_TYPES: frozenset[str] = frozenset(AtomType)
MAX_CHAIN = 8

EdgeKey = tuple[int, int, str]
"""(src atom id, dst atom id, kind): the unique key of pm_atom_link."""

_EXAMPLE = '{"if": ["imports", "depends_on"], "then": "depends_on"}'
_KEYS = frozenset(
    {"if", "then", "min_confidence", "types", "node_types", "inverse", "self_loops"}
    | {"name", "description"}
)


RuleDefect = Literal[
    "not_json",
    "not_object",
    "missing_if",
    "missing_then",
    "bad_kind",
    "empty_chain",
    "chain_too_long",
    "bad_condition",
    "unknown_key",
]
"""Why a rule was rejected: stable codes the caller may count or show."""


class InvalidRule(InvalidInput):
    """A logical_rule atom's content is not a valid inference rule."""

    def __init__(self, rule_id: int, reason: RuleDefect, detail: str):
        self.rule_id = rule_id
        self.reason = reason
        self.detail = detail
        super().__init__(
            f"rule {rule_id} is invalid ({reason}): {detail}; fix its content "
            f"(e.g. {_EXAMPLE}) or delete the rule atom"
        )


@dataclass(frozen=True, slots=True)
class Edge:
    """One directed link between two atoms."""

    src: int
    dst: int
    kind: str
    confidence: float = 1.0

    def __post_init__(self) -> None:
        # A confidence above 1 would let a cycle strengthen its own edges for ever.
        if not 0.0 <= self.confidence <= 1.0:
            raise InvalidInput(f"edge {self.key}: confidence {self.confidence} is outside 0..1")

    @property
    def key(self) -> EdgeKey:
        return (self.src, self.dst, self.kind)


@dataclass(frozen=True, slots=True)
class Rule:
    """A validated rule; ``node_types[i]`` constrains chain node x_i (None: any type).

    Raises:
        InvalidRule: the fields break an invariant (bad kind, chain length, condition).
    """

    rule_id: int
    chain: tuple[str, ...]
    then: str
    min_confidence: float = 0.0
    node_types: tuple[frozenset[str] | None, ...] | None = None
    inverse: bool = False
    self_loops: bool = False

    def __post_init__(self) -> None:
        if not self.chain:
            raise InvalidRule(self.rule_id, "empty_chain", "'if' lists no edge kind")
        if len(self.chain) > MAX_CHAIN:
            detail = f"'if' chains {len(self.chain)} kinds, at most {MAX_CHAIN} are allowed"
            raise InvalidRule(self.rule_id, "chain_too_long", detail)
        for kind in (*self.chain, self.then):
            _check_kind(self.rule_id, kind)
        if not 0.0 <= self.min_confidence <= 1.0:
            raise InvalidRule(self.rule_id, "bad_condition", "'min_confidence' must be within 0..1")
        if self.node_types is not None and len(self.node_types) != len(self.chain) + 1:
            detail = f"'node_types' needs {len(self.chain) + 1} entries, one per chain node"
            raise InvalidRule(self.rule_id, "bad_condition", detail)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Rules loaded from logical_rule atoms: usable, rejected (with reason), human-readable."""

    rules: tuple[Rule, ...]
    invalid: tuple[InvalidRule, ...]
    prose: tuple[int, ...]


def _check_kind(rule_id: int, kind: object) -> str:
    if not isinstance(kind, str):
        raise InvalidRule(rule_id, "bad_kind", f"edge kinds are strings, got {type(kind).__name__}")
    if KIND_PATTERN.fullmatch(kind) is None:
        hint = " (a chain is a JSON list of kinds)" if any(c.isspace() for c in kind) else ""
        detail = (
            f"{kind!r} is not a single-token kind: lowercase letters, digits and '_', "
            f"starting with a letter, at most 63 characters{hint}"
        )
        raise InvalidRule(rule_id, "bad_kind", detail)
    return kind


def _type_set(rule_id: int, value: object, where: str) -> frozenset[str]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise InvalidRule(rule_id, "bad_condition", f"{where} must be a type or list of types")
    unknown = sorted(set(names) - ATOM_TYPES)
    if unknown:
        detail = f"{where} names unknown atom types {unknown}; known: {sorted(ATOM_TYPES)}"
        raise InvalidRule(rule_id, "bad_condition", detail)
    return frozenset(names)


def _flag(rule_id: int, data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidRule(rule_id, "bad_condition", f"'{key}' must be true or false")
    return value


def _rule_from_object(rule_id: int, data: Mapping[str, Any]) -> Rule:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise InvalidRule(rule_id, "unknown_key", f"keys {unknown}; allowed: {sorted(_KEYS)}")
    if "if" not in data:
        raise InvalidRule(rule_id, "missing_if", "the object has no 'if' (premise kinds)")
    if "then" not in data:
        raise InvalidRule(rule_id, "missing_then", "the object has no 'then' (a kind)")
    premises = data["if"]
    if isinstance(premises, str):
        chain: tuple[str, ...] = (premises,)
    elif isinstance(premises, list):
        chain = tuple(_check_kind(rule_id, kind) for kind in premises)
    else:
        raise InvalidRule(rule_id, "bad_kind", "'if' must be a kind or a list of kinds")
    threshold = data.get("min_confidence", 0.0)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise InvalidRule(rule_id, "bad_condition", "'min_confidence' must be a number")
    if "types" in data and "node_types" in data:
        raise InvalidRule(rule_id, "bad_condition", "use either 'types' or 'node_types', not both")
    node_types: tuple[frozenset[str] | None, ...] | None = None
    if "types" in data:
        every = _type_set(rule_id, data["types"], "'types'")
        node_types = (every,) * (len(chain) + 1)
    elif "node_types" in data:
        raw = data["node_types"]
        if not isinstance(raw, list):
            raise InvalidRule(rule_id, "bad_condition", "'node_types' must be a list")
        node_types = tuple(
            None if entry is None else _type_set(rule_id, entry, f"'node_types'[{i}]")
            for i, entry in enumerate(raw)
        )
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise InvalidRule(rule_id, "bad_condition", f"'{key}' must be a string")
    return Rule(
        rule_id=rule_id,
        chain=chain,
        then=data["then"],
        min_confidence=float(threshold),
        node_types=node_types,
        inverse=_flag(rule_id, data, "inverse"),
        self_loops=_flag(rule_id, data, "self_loops"),
    )


def _human_readable(data: Mapping[str, Any]) -> bool:
    """A JSON rule written in words ({"if": "A imports B", "then": "..."}) is prose, not a typo."""
    premises = data.get("if")
    parts = [*(premises if isinstance(premises, list) else [premises]), data.get("then")]
    return all(isinstance(part, str) and len(part.split()) > 1 for part in parts)


def _rule_from_json(rule_id: int, data: object) -> Rule:
    if not isinstance(data, dict):
        raise InvalidRule(rule_id, "not_object", f"the JSON is a {type(data).__name__}")
    return _rule_from_object(rule_id, data)


def _classify(rule_id: int, content: str) -> Rule | InvalidRule | None:
    """The rule, why it is invalid, or None for a human-readable (ignored) rule."""
    stripped = content.strip()
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        # Only text that starts like a JSON object was meant to be machine-readable.
        if stripped.startswith("{"):
            return InvalidRule(rule_id, "not_json", "the content is not valid JSON")
        return None
    if isinstance(data, dict) and _human_readable(data):
        return None
    try:
        return _rule_from_json(rule_id, data)
    except InvalidRule as exc:
        return exc


def classify_rule_content(content: str) -> Literal["rule", "prose", "invalid"]:
    """Say whether a logical_rule atom's content is a rule, human-readable prose, or invalid.

    Prose (ignored, counted) is text that does not parse as JSON and does not start with "{", or a
    JSON object whose "then" and every "if" entry are multi-word sentences.
    """
    outcome = _classify(0, content)
    if outcome is None:
        return "prose"
    return "invalid" if isinstance(outcome, InvalidRule) else "rule"


def parse_rule(rule_id: int, content: str) -> Rule:
    """Parse and validate one rule, strictly: prose is refused too (as not_json or bad_kind).

    Raises:
        InvalidRule: the content is not a valid rule; ``reason`` says why.
    """
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        detail = "the content is not JSON (human-readable rules are ignored by inference)"
        raise InvalidRule(rule_id, "not_json", detail) from None
    return _rule_from_json(rule_id, data)


def load_rules(rows: Iterable[tuple[int, str]]) -> RuleSet:
    """Sort (atom id, content) rows of logical_rule atoms into usable, invalid and prose rules."""
    rules: list[Rule] = []
    invalid: list[InvalidRule] = []
    prose: list[int] = []
    for rule_id, content in rows:
        outcome = _classify(rule_id, content)
        if outcome is None:
            prose.append(rule_id)
        elif isinstance(outcome, InvalidRule):
            invalid.append(outcome)
        else:
            rules.append(outcome)
    return RuleSet(tuple(rules), tuple(invalid), tuple(prose))


class Derivation(NamedTuple):
    """One way an edge was concluded: the rule and its premise edges, in chain order.

    A named tuple rather than a dataclass: the engine builds one per recorded chain, and tuples
    are several times cheaper to build and compare.
    """

    rule_id: int
    premises: tuple[EdgeKey, ...]


@dataclass(frozen=True)
class InferenceResult:
    """What one evaluation to fixpoint produced.

    ``derived``: the new edges only, sorted by key. ``derivations``: for every derived edge, and
    every input edge a rule also concludes, up to ``limits.derivations_per_rule`` derivations per
    rule. ``per_rule``: derived edges per rule (an edge two rules conclude counts for both).
    ``complete`` is False when ``limits.max_rounds`` stopped the evaluation before the fixpoint:
    what was derived is sound but edges may be missing. ``chains_joined``: work done.
    """

    strategy: Literal["semi_naive", "naive"]
    rounds: int
    complete: bool
    derived: tuple[Edge, ...]
    derivations: Mapping[EdgeKey, tuple[Derivation, ...]]
    per_rule: Mapping[int, int]
    elapsed_s: float
    chains_joined: int = 0


@dataclass(frozen=True)
class Reconciliation:
    """How to bring the stored inferred edges to the fixpoint of the surviving support.

    ``add``: edges to insert (inferred = true); ``update``: stored inferred edges whose derived
    confidence changed; ``withdraw``: stored inferred edges that lost every derivation; ``keep``:
    stored inferred edges that still have one. ``result.derivations`` holds the derivations to
    store for ``add``, ``update`` and ``keep``.
    """

    add: tuple[Edge, ...]
    update: tuple[Edge, ...]
    withdraw: tuple[EdgeKey, ...]
    keep: tuple[EdgeKey, ...]
    result: InferenceResult


@dataclass(frozen=True, slots=True)
class Limits:
    """Safety caps of one evaluation (settings the caller may expose).

    Raises:
        InvalidInput: a cap is below 1.
    """

    max_rounds: int = 100
    max_derived: int = 2_000_000
    derivations_per_rule: int = 3

    def __post_init__(self) -> None:
        if min(self.max_rounds, self.max_derived, self.derivations_per_rule) < 1:
            raise InvalidInput(f"inference limits must be at least 1, got {self}")


# Products of the same confidences may differ in the last bits: a smaller gain is rounding.
_EPS = 1e-9

_Adjacency = dict[str, dict[int, dict[int, float]]]


class _Graph:
    """Edges of the kinds some rule reads, indexed by kind, then node, both ways."""

    def __init__(self) -> None:
        self.out: _Adjacency = {}
        self.inn: _Adjacency = {}

    def put(self, src: int, dst: int, kind: str, confidence: float) -> None:
        self.out.setdefault(kind, {}).setdefault(src, {})[dst] = confidence
        self.inn.setdefault(kind, {}).setdefault(dst, {})[src] = confidence


class _Evaluator:
    """Mutable state of one evaluation; semi-naive and naive differ only in what they join."""

    def __init__(
        self,
        edges: Iterable[Edge],
        rules: tuple[Rule, ...],
        node_types: Mapping[int, str],
        cap: int,
    ) -> None:
        self.rules = rules
        self.types = node_types
        self.cap = cap
        self.read = frozenset(kind for rule in rules for kind in rule.chain)
        self.base: dict[EdgeKey, float] = {}
        for edge in edges:
            # The database holds one row per key; should a caller pass duplicates, the strongest
            # wins, as in the repository's upsert.
            known = self.base.get(edge.key)
            if known is None or edge.confidence > known:
                self.base[edge.key] = edge.confidence
        self.full = _Graph()
        for (src, dst, kind), confidence in self.base.items():
            if kind in self.read:
                self.full.put(src, dst, kind, confidence)
        self.derived: dict[EdgeKey, float] = {}
        self.pending: dict[EdgeKey, float] = {}
        self.derivations: dict[EdgeKey, list[Derivation]] = {}
        self.joined = 0

    def step(self, delta: _Graph, naive: bool) -> _Graph:
        """Run one round; return the edges it added or strengthened (the next delta)."""
        self.pending = {}
        for rule in self.rules:
            # Naive joins everything with everything, so position 0 enumerates every chain.
            # Semi-naive puts the delta at each position in turn; positions left of it take only
            # old edges, so a chain with several new edges is found once, not once per new edge.
            for pos in range(1 if naive else len(rule.chain)):
                self._join(rule, pos, delta, exclude_left=not naive)
        fresh = _Graph()
        for key, confidence in self.pending.items():
            known = self.derived.get(key)
            if known is None or confidence > known + _EPS:
                self.derived[key] = confidence
                if key[2] in self.read:
                    self.full.put(*key, confidence)
                    fresh.put(*key, confidence)
        return fresh

    def _allowed(self, rule: Rule, position: int, node: int) -> bool:
        wanted = rule.node_types[position] if rule.node_types else None
        return wanted is None or self.types.get(node) in wanted

    def _join(self, rule: Rule, pos: int, delta: _Graph, *, exclude_left: bool) -> None:
        chain = rule.chain
        seeds = delta.out.get(chain[pos])
        if not seeds:
            return
        floor = rule.min_confidence
        out = [self.full.out.get(kind, {}) for kind in chain]
        inn = [self.full.inn.get(kind, {}) for kind in chain]
        new_in = [delta.inn.get(kind, {}) if exclude_left else {} for kind in chain]
        empty: dict[int, float] = {}
        free = rule.node_types is None
        for a, targets in seeds.items():
            if not (free or self._allowed(rule, pos, a)):
                continue
            for b, confidence in targets.items():
                if confidence < floor or not (free or self._allowed(rule, pos + 1, b)):
                    continue
                paths: list[tuple[tuple[int, ...], float]] = [((a, b), confidence)]
                for j in range(pos + 1, len(chain)):
                    paths = [
                        ((*nodes, y), product * c)
                        for nodes, product in paths
                        for y, c in out[j].get(nodes[-1], empty).items()
                        if c >= floor and (free or self._allowed(rule, j + 1, y))
                    ]
                for j in range(pos - 1, -1, -1):
                    paths = [
                        ((x, *nodes), product * c)
                        for nodes, product in paths
                        for x, c in inn[j].get(nodes[0], empty).items()
                        if c >= floor
                        and x not in new_in[j].get(nodes[0], empty)
                        and (free or self._allowed(rule, j, x))
                    ]
                self.joined += len(paths)
                for nodes, product in paths:
                    self._conclude(rule, nodes, product)

    def _conclude(self, rule: Rule, nodes: tuple[int, ...], confidence: float) -> None:
        src, dst = (nodes[-1], nodes[0]) if rule.inverse else (nodes[0], nodes[-1])
        if src == dst and not rule.self_loops:
            return
        key = (src, dst, rule.then)
        records = self.derivations.get(key)
        if records is None:
            records = self.derivations[key] = []
        rule_id = rule.rule_id
        cap = self.cap
        if len(records) < cap or sum(1 for r in records if r[0] == rule_id) < cap:
            record = Derivation(rule_id, tuple(zip(nodes, nodes[1:], rule.chain, strict=False)))
            # Naive evaluation and strengthened edges find a chain again; record it once.
            if record not in records:
                records.append(record)
        if key in self.base:
            return
        known = self.pending.get(key)
        if known is None or confidence > known:
            self.pending[key] = confidence


def infer(
    edges: Iterable[Edge],
    rules: Iterable[Rule],
    node_types: Mapping[int, str] | None = None,
    *,
    strategy: Literal["semi_naive", "naive"] = "semi_naive",
    limits: Limits = Limits(),
) -> InferenceResult:
    """Apply the rules to the edges until nothing new follows.

    ``edges`` are the support (normally the extracted edges); ``node_types`` maps atom id to
    atom type for rules with type conditions (an atom missing from it matches no condition).
    ``strategy="naive"`` re-joins all edges every round: the baseline for benchmarks and tests.

    Raises:
        LimitExceeded: more than ``limits.max_derived`` edges were derived.
        InvalidInput: two rules share an id.
    """
    rules = tuple(rules)
    if len({rule.rule_id for rule in rules}) != len(rules):
        raise InvalidInput("rule ids must be unique: a rule is the atom that holds it")
    started = time.perf_counter()
    collecting = gc.isenabled()
    # The evaluation makes millions of small objects and no reference cycles; generational
    # collections would rescan them over and over for nothing (1.5-2x slower, measured).
    gc.disable()
    try:
        naive = strategy == "naive"
        state = _Evaluator(edges, rules, node_types or {}, limits.derivations_per_rule)
        rounds = 0
        delta = state.full
        while state.rules and delta.out and rounds < limits.max_rounds:
            rounds += 1
            delta = state.step(state.full if naive else delta, naive)
            if len(state.derived) > limits.max_derived:
                raise LimitExceeded(
                    f"inference derived over {limits.max_derived} edges in {rounds} rounds; a "
                    "rule is too broad (e.g. transitive over a dense kind): add min_confidence "
                    "or node_types to it, delete it, or raise the limit"
                )
        per_rule: dict[int, int] = {}
        for key in state.derived:
            for rule_id in {r[0] for r in state.derivations[key]}:
                per_rule[rule_id] = per_rule.get(rule_id, 0) + 1
        return InferenceResult(
            strategy=strategy,
            rounds=rounds,
            complete=not state.rules or not delta.out,
            derived=tuple(Edge(*key, c) for key, c in sorted(state.derived.items())),
            derivations={key: tuple(records) for key, records in state.derivations.items()},
            per_rule=per_rule,
            elapsed_s=time.perf_counter() - started,
            chains_joined=state.joined,
        )
    finally:
        if collecting:
            gc.enable()


def reconcile(
    extracted: Iterable[Edge],
    stored_inferred: Iterable[Edge],
    rules: Iterable[Rule],
    node_types: Mapping[int, str] | None = None,
    *,
    deleted_edges: Iterable[EdgeKey] = (),
    deleted_rules: Iterable[int] = (),
    unsupported_atoms: Iterable[int] = (),
    limits: Limits = Limits(),
) -> Reconciliation:
    """Truth maintenance: recompute the fixpoint of the surviving support and diff it.

    Serves memory_infer too (no deletions; new edges or rules) because both are "make the stored
    inferred edges equal the fixpoint". The surviving support is ``extracted`` minus
    ``deleted_edges`` and minus the edges touching ``unsupported_atoms`` (atoms now stale or
    contested: their edges stay stored but support nothing); the rules are ``rules`` minus
    ``deleted_rules``. A stored inferred edge stays exactly when it is derivable from that
    support, so a conclusion resting only on a withdrawn conclusion goes too, and edges on a
    cycle cannot keep each other alive. Recomputing costs one :func:`infer`; DRed would need
    every derivation stored, which grows with the cube of a component's size under a transitive
    rule, so it is not used.

    Raises:
        LimitExceeded: too many edges derived, or no fixpoint within ``limits.max_rounds``
            (withdrawing then could drop edges that later rounds would derive).
        InvalidInput: two rules share an id.
    """
    dead, gone, dropped = set(deleted_edges), set(unsupported_atoms), set(deleted_rules)
    support = [e for e in extracted if e.key not in dead and not {e.src, e.dst} & gone]
    live = [rule for rule in rules if rule.rule_id not in dropped]
    result = infer(support, live, node_types, limits=limits)
    if not result.complete:
        raise LimitExceeded(
            f"inference did not reach a fixpoint in {limits.max_rounds} rounds, so nothing was "
            "withdrawn; raise max_rounds or make the rules narrower"
        )
    stored = {edge.key: edge for edge in stored_inferred}
    derived = {edge.key: edge for edge in result.derived}
    return Reconciliation(
        add=tuple(e for k, e in derived.items() if k not in stored),
        update=tuple(
            e
            for k, e in derived.items()
            if k in stored and abs(e.confidence - stored[k].confidence) > _EPS
        ),
        withdraw=tuple(sorted(k for k in stored if k not in derived)),
        keep=tuple(sorted(k for k in stored if k in derived)),
        result=result,
    )
