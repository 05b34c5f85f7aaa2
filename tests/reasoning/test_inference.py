"""Tests of the forward-chaining engine: rule parsing, fixpoint, derivations, truth maintenance.

The closure of the transitive rule is checked against networkx; general rules against a
brute-force evaluator written here independently of the engine (plain nested loops over every
chain, repeated until nothing changes).
"""

from __future__ import annotations

import gc
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Literal

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.errors import InvalidInput, LimitExceeded
from pegas_memory.reasoning.inference import (
    MAX_CHAIN,
    Derivation,
    Edge,
    EdgeKey,
    InferenceResult,
    InvalidRule,
    Limits,
    Rule,
    RuleSet,
    classify_rule_content,
    infer,
    load_rules,
    parse_rule,
    reconcile,
)

Strategy = Literal["semi_naive", "naive"]
STRATEGIES: tuple[Strategy, ...] = ("semi_naive", "naive")
TRANSITIVE = parse_rule(1, '{"if": ["d", "d"], "then": "d"}')
TRANSITIVE_LOOPS = parse_rule(2, '{"if": ["d", "d"], "then": "d", "self_loops": true}')


def edges_of(graph: nx.DiGraph, kind: str = "d") -> list[Edge]:
    return [Edge(int(u), int(v), kind) for u, v in graph.edges()]


def pairs(result: InferenceResult, base: Iterable[Edge] = ()) -> set[tuple[int, int]]:
    return {(e.src, e.dst) for e in result.derived} | {(e.src, e.dst) for e in base}


def confidences(result: InferenceResult) -> dict[EdgeKey, float]:
    return {e.key: e.confidence for e in result.derived}


def reference(
    edges: Iterable[Edge], rules: Iterable[Rule], types: Mapping[int, str] | None = None
) -> dict[EdgeKey, float]:
    """Brute force: enumerate every chain of every rule over all edges until nothing changes."""
    types = types or {}
    base: dict[EdgeKey, float] = {}
    for e in edges:
        base[e.key] = max(base.get(e.key, -1.0), e.confidence)
    conf = dict(base)

    def allowed(rule: Rule, i: int, node: int) -> bool:
        wanted = None if rule.node_types is None else rule.node_types[i]
        return wanted is None or types.get(node) in wanted

    def chains(rule: Rule) -> Iterator[tuple[tuple[int, ...], float]]:
        following: dict[tuple[str, int], list[tuple[int, float]]] = defaultdict(list)
        for (s, d, k), c in conf.items():
            following[(k, s)].append((d, c))

        def walk(nodes: tuple[int, ...], c: float) -> Iterator[tuple[tuple[int, ...], float]]:
            i = len(nodes) - 1
            if i == len(rule.chain):
                yield nodes, c
                return
            for d, c2 in following[(rule.chain[i], nodes[-1])]:
                if c2 >= rule.min_confidence and allowed(rule, i + 1, d):
                    yield from walk((*nodes, d), c * c2)

        for k, s in list(following):
            if k == rule.chain[0] and allowed(rule, 0, s):
                yield from walk((s,), 1.0)

    while True:
        found: dict[EdgeKey, float] = {}
        for rule in rules:
            for nodes, c in chains(rule):
                s, d = (nodes[-1], nodes[0]) if rule.inverse else (nodes[0], nodes[-1])
                key = (s, d, rule.then)
                if (s == d and not rule.self_loops) or key in base:
                    continue
                found[key] = max(found.get(key, -1.0), c)
        changed = [k for k, c in found.items() if k not in conf or c > conf[k] + 1e-9]
        if not changed:
            return {k: c for k, c in conf.items() if k not in base}
        for k in changed:
            conf[k] = found[k]


def assert_same(result: InferenceResult, expected: Mapping[EdgeKey, float]) -> None:
    got = confidences(result)
    assert set(got) == set(expected)
    for key, c in expected.items():
        assert got[key] == pytest.approx(c, abs=1e-6), key


def assert_derivations_valid(
    result: InferenceResult, base: Iterable[Edge], rules: Iterable[Rule]
) -> None:
    by_id = {r.rule_id: r for r in rules}
    present = {e.key for e in base} | {e.key for e in result.derived}
    for conclusion, derivations in result.derivations.items():
        assert conclusion in present
        assert derivations
        for d in derivations:
            rule = by_id[d.rule_id]
            assert [p[2] for p in d.premises] == list(rule.chain)
            assert all(p in present for p in d.premises)
            assert all(a[1] == b[0] for a, b in zip(d.premises, d.premises[1:], strict=False))
            ends = (d.premises[0][0], d.premises[-1][1])
            assert conclusion == (*(ends[::-1] if rule.inverse else ends), rule.then)
    for edge in result.derived:
        assert result.derivations[edge.key]


# ------------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("content", "chain", "then"),
    [
        ('{"if": "imports", "then": "depends_on"}', ("imports",), "depends_on"),
        (
            '{"if": ["depends_on", "depends_on"], "then": "dep"}',
            ("depends_on", "depends_on"),
            "dep",
        ),
        (
            '  {"if": ["calls", "defines", "x2"], "then": "uses"}\n',
            ("calls", "defines", "x2"),
            "uses",
        ),
        ('{"if": ["a"], "then": "b", "name": "n", "description": "why"}', ("a",), "b"),
    ],
)
def test_parse_rule_forms(content: str, chain: tuple[str, ...], then: str) -> None:
    rule = parse_rule(7, content)
    assert (rule.rule_id, rule.chain, rule.then) == (7, chain, then)
    assert rule.min_confidence == 0.0
    assert rule.node_types is None
    assert not rule.inverse and not rule.self_loops
    assert classify_rule_content(content) == "rule"


def test_parse_rule_conditions() -> None:
    rule = parse_rule(
        3,
        '{"if": ["a", "b"], "then": "c", "min_confidence": 0.5, "inverse": true, '
        '"self_loops": true, "node_types": ["code", null, ["fact", "definition"]]}',
    )
    assert rule.min_confidence == 0.5
    assert rule.inverse and rule.self_loops
    assert rule.node_types == (frozenset({"code"}), None, frozenset({"fact", "definition"}))
    every = parse_rule(4, '{"if": ["a", "b"], "then": "c", "types": ["fact", "definition"]}')
    assert every.node_types == (frozenset({"fact", "definition"}),) * 3
    assert parse_rule(5, '{"if": "a", "then": "b", "min_confidence": 1}').min_confidence == 1.0


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"if": "a", "then": ', "not_json"),
        ("If A imports B then A depends on B", "not_json"),
        ("[1, 2]", "not_object"),
        ('"imports"', "not_object"),
        ("42", "not_object"),
        ('{"then": "b"}', "missing_if"),
        ('{"if": "a"}', "missing_then"),
        ('{"if": "Imports", "then": "b"}', "bad_kind"),
        ('{"if": "depends on", "then": "b"}', "bad_kind"),
        ('{"if": "a", "then": "depends-on"}', "bad_kind"),
        ('{"if": "a", "then": "a.b"}', "bad_kind"),
        ('{"if": "a", "then": "1abc"}', "bad_kind"),
        ('{"if": "a", "then": ""}', "bad_kind"),
        ('{"if": "a", "then": "imports\\n"}', "bad_kind"),
        ('{"if": "a", "then": "знает"}', "bad_kind"),
        ('{"if": "a", "then": "x' + "y" * 63 + '"}', "bad_kind"),
        ('{"if": "a", "then": "b\'; DROP TABLE pm_atom; --"}', "bad_kind"),
        ('{"if": ["a", 3], "then": "b"}', "bad_kind"),
        ('{"if": {"a": 1}, "then": "b"}', "bad_kind"),
        ('{"if": "a", "then": ["b"]}', "bad_kind"),
        ('{"if": [], "then": "b"}', "empty_chain"),
        (json.dumps({"if": ["a"] * (MAX_CHAIN + 1), "then": "b"}), "chain_too_long"),
        ('{"if": "a", "then": "b", "min_confidence": "high"}', "bad_condition"),
        ('{"if": "a", "then": "b", "min_confidence": 1.5}', "bad_condition"),
        ('{"if": "a", "then": "b", "min_confidence": -0.1}', "bad_condition"),
        ('{"if": "a", "then": "b", "min_confidence": true}', "bad_condition"),
        ('{"if": "a", "then": "b", "min_confidence": NaN}', "bad_condition"),
        ('{"if": "a", "then": "b", "types": ["facts"]}', "bad_condition"),
        ('{"if": "a", "then": "b", "types": []}', "bad_condition"),
        ('{"if": "a", "then": "b", "types": "fact, code"}', "bad_condition"),
        ('{"if": "a", "then": "b", "node_types": ["fact"]}', "bad_condition"),
        ('{"if": "a", "then": "b", "node_types": "fact"}', "bad_condition"),
        (
            '{"if": "a", "then": "b", "types": ["fact"], "node_types": [null, null]}',
            "bad_condition",
        ),
        ('{"if": "a", "then": "b", "inverse": "yes"}', "bad_condition"),
        ('{"if": "a", "then": "b", "name": 5}', "bad_condition"),
        ('{"if": "a", "then": "b", "min_confidance": 0.5}', "unknown_key"),
    ],
)
def test_invalid_rules_name_their_reason(content: str, reason: str) -> None:
    with pytest.raises(InvalidRule) as caught:
        parse_rule(9, content)
    assert caught.value.reason == reason
    assert caught.value.rule_id == 9
    assert isinstance(caught.value, InvalidInput)
    assert str(caught.value).startswith(f"rule 9 is invalid ({reason}): ")
    assert "delete the rule atom" in str(caught.value)


def test_rule_dataclass_checks_its_invariants() -> None:
    with pytest.raises(InvalidRule, match="empty_chain"):
        Rule(1, (), "b")
    with pytest.raises(InvalidRule, match="bad_kind"):
        Rule(1, ("a",), "B")
    with pytest.raises(InvalidRule, match="needs 3 entries"):
        Rule(1, ("a", "b"), "c", node_types=(None,))


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ('{"if": "a", "then": "b"}', "rule"),
        ("If A imports B then A depends on B.", "prose"),
        ("Если A импортирует B, то A зависит от B", "prose"),
        ("", "prose"),
        ("[1] transitive dependencies", "prose"),
        ('{"if": "A imports B", "then": "A depends on B"}', "prose"),
        ('{"if": ["A calls B", "B calls C"], "then": "A reaches C"}', "prose"),
        ('{"if": "imports x", "then": "depends_on"}', "invalid"),
        ('{"if": "a", "then": ', "invalid"),
        ('{"if": "Imports", "then": "Depends"}', "invalid"),
        ("[1, 2]", "invalid"),
    ],
)
def test_classify_rule_content(content: str, kind: str) -> None:
    assert classify_rule_content(content) == kind


def numbered_rules(*contents: str) -> RuleSet:
    """`contents` loaded as the rows of rules 1, 2, ... in that order."""
    return load_rules(list(enumerate(contents, start=1)))


def test_load_rules_sorts_rows() -> None:
    loaded = numbered_rules(
        '{"if": "imports", "then": "depends_on"}',
        "Whatever imports something depends on it",
        '{"if": "imports", "then": "Depends On"}',
        '{"if": ["depends_on", "depends_on"], "then": "depends_on"}',
        '{"if": "imports"}',
    )
    assert [r.rule_id for r in loaded.rules] == [1, 4]
    assert loaded.prose == (2,)
    assert [(e.rule_id, e.reason) for e in loaded.invalid] == [(3, "bad_kind"), (5, "missing_then")]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_classified_and_parse_raises_only_invalid_rule(content: str) -> None:
    assert classify_rule_content(content) in {"rule", "prose", "invalid"}
    try:
        parse_rule(1, content)
    except InvalidRule:
        pass


_json = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(
    st.fixed_dictionaries(
        {"if": _json, "then": _json},
        optional={
            "min_confidence": _json,
            "types": _json,
            "node_types": _json,
            "inverse": _json,
            "self_loops": _json,
        },
    )
)
def test_any_json_object_is_a_rule_or_an_invalid_rule(data: dict[str, object]) -> None:
    content = json.dumps(data)
    verdict = classify_rule_content(content)
    try:
        rule = parse_rule(1, content)
    except InvalidRule:
        assert verdict in {"invalid", "prose"}
    else:
        assert verdict == "rule"
        assert 1 <= len(rule.chain) <= MAX_CHAIN


# ------------------------------------------------------------------------------------ closure


def _random_dag(n: int, p: float, seed: int) -> nx.DiGraph:
    rng = random.Random(seed)
    graph = nx.DiGraph()
    graph.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p)
    return graph


GRAPHS = {
    "chain": nx.path_graph(40, create_using=nx.DiGraph),
    "tree": nx.balanced_tree(2, 6, create_using=nx.DiGraph),
    "cycle": nx.cycle_graph(15, create_using=nx.DiGraph),
    "two_cycles_joined": nx.compose(
        nx.cycle_graph(6, create_using=nx.DiGraph),
        nx.DiGraph([(5, 6), (6, 7), (7, 8), (8, 6), (8, 9)]),
    ),
    "random_dag": _random_dag(60, 0.06, seed=3),
    "random_graph": nx.gnp_random_graph(50, 0.04, seed=5, directed=True),
    "random_graph_dense": nx.gnp_random_graph(25, 0.15, seed=8, directed=True),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_transitive_closure_equals_networkx(name: str, strategy: Strategy) -> None:
    graph = GRAPHS[name]
    base = edges_of(graph)
    plain = infer(base, [TRANSITIVE], strategy=strategy)
    assert plain.complete
    assert pairs(plain, base) == set(nx.transitive_closure(graph, reflexive=None).edges())
    loops = infer(base, [TRANSITIVE_LOOPS], strategy=strategy)
    assert pairs(loops, base) == set(nx.transitive_closure(graph, reflexive=False).edges())
    assert_derivations_valid(plain, base, [TRANSITIVE])
    assert plain.per_rule == ({1: len(plain.derived)} if plain.derived else {})


def test_semi_naive_joins_each_chain_once() -> None:
    base = edges_of(nx.path_graph(30, create_using=nx.DiGraph))
    semi = infer(base, [TRANSITIVE])
    naive = infer(base, [TRANSITIVE], strategy="naive")
    # Every ordered triple i < j < k of a path's nodes is one chain of the transitive rule.
    assert semi.chains_joined == 30 * 29 * 28 // 6
    assert naive.chains_joined > semi.chains_joined
    assert semi.derived == naive.derived
    assert semi.rounds == naive.rounds


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30))
def test_transitive_closure_of_random_edge_sets(raw: list[tuple[int, int]]) -> None:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(10))
    graph.add_edges_from(raw)
    base = edges_of(graph)
    expected = set(nx.transitive_closure(graph, reflexive=False).edges())
    for strategy in STRATEGIES:
        result = infer(base, [TRANSITIVE_LOOPS], strategy=strategy)
        assert pairs(result, base) == expected


# ----------------------------------------------------------------------------- general rules


def test_multi_kind_chains() -> None:
    rules = numbered_rules(
        '{"if": "imports", "then": "depends_on"}',
        '{"if": ["depends_on", "depends_on"], "then": "depends_on"}',
        '{"if": ["calls", "defined_in", "part_of"], "then": "touches"}',
        '{"if": "defines", "then": "defined_by", "inverse": true}',
    ).rules
    base = [
        Edge(1, 2, "imports"),
        Edge(2, 3, "imports"),
        Edge(3, 4, "depends_on"),
        Edge(10, 11, "calls"),
        Edge(11, 12, "defined_in"),
        Edge(12, 13, "part_of"),
        Edge(11, 14, "defined_in"),  # dead end: 14 is part of nothing
        Edge(20, 21, "defines"),
    ]
    result = infer(base, rules)
    dep = {(s, d) for s, d, k in confidences(result) if k == "depends_on"}
    assert dep == {(1, 2), (2, 3), (1, 3), (2, 4), (1, 4)}  # (3, 4) was extracted already
    assert set(confidences(result)) - {(s, d, "depends_on") for s, d in dep} == {
        (10, 13, "touches"),
        (21, 20, "defined_by"),
    }
    assert result.per_rule == {1: 2, 2: 3, 3: 1, 4: 1}
    assert result.derivations[(10, 13, "touches")] == (
        Derivation(3, ((10, 11, "calls"), (11, 12, "defined_in"), (12, 13, "part_of"))),
    )
    assert_derivations_valid(result, base, rules)
    assert_same(result, reference(base, rules))


def test_node_type_conditions() -> None:
    per_position = parse_rule(
        1, '{"if": ["r", "r"], "then": "s", "node_types": ["code", null, "fact"]}'
    )
    every = parse_rule(2, '{"if": ["r", "r"], "then": "t", "types": ["fact", "code"]}')
    types = {1: "code", 2: "text", 3: "fact", 4: "code", 5: "fact"}
    base = [Edge(1, 2, "r"), Edge(2, 3, "r"), Edge(4, 5, "r"), Edge(5, 3, "r"), Edge(2, 6, "r")]
    result = infer(base, [per_position, every], types)
    # 1 -> 2 -> 3 passes per position but not "every node"; 4 -> 5 -> 3 passes both; node 6 is
    # missing from the type map, so 1 -> 2 -> 6 matches no condition.
    assert set(confidences(result)) == {(1, 3, "s"), (4, 3, "s"), (4, 3, "t")}
    assert_same(result, reference(base, [per_position, every], types))
    assert confidences(infer(base, [per_position])) == {}


def test_confidence_is_product_of_premises_and_best_derivation_wins() -> None:
    rule = parse_rule(1, '{"if": ["d", "d"], "then": "d"}')
    base = [Edge(1, 2, "d", 0.9), Edge(2, 4, "d", 0.8), Edge(1, 3, "d", 0.5), Edge(3, 4, "d", 1.0)]
    result = infer(base, [rule])
    assert confidences(result) == {(1, 4, "d"): pytest.approx(0.72)}
    assert len(result.derivations[(1, 4, "d")]) == 2
    long_chain = [Edge(i, i + 1, "d", 0.9) for i in range(5)]
    assert confidences(infer(long_chain, [rule]))[(0, 5, "d")] == pytest.approx(0.9**5)


def test_a_better_derivation_in_a_later_round_strengthens_the_edge_and_its_consequences() -> None:
    weak = [Edge(0, 1, "d", 0.5), Edge(1, 3, "d", 0.5)]
    strong = [Edge(0, 2, "d"), Edge(2, 4, "d"), Edge(4, 3, "d"), Edge(3, 5, "d")]
    for strategy in STRATEGIES:
        result = infer(weak + strong, [TRANSITIVE], strategy=strategy)
        # Round 1 finds 0 -> 3 at 0.25 through node 1; round 2 finds it at 1.0 through 2 and 4,
        # and 0 -> 5, first derived from the weak 0 -> 3, must follow.
        assert confidences(result)[(0, 3, "d")] == 1.0
        assert confidences(result)[(0, 5, "d")] == 1.0


def test_min_confidence_filters_premises() -> None:
    rule = parse_rule(1, '{"if": ["d", "d"], "then": "d", "min_confidence": 0.6}')
    base = [Edge(1, 2, "d", 0.9), Edge(2, 3, "d", 0.7), Edge(3, 4, "d", 0.9), Edge(4, 5, "d", 0.5)]
    result = infer(base, [rule])
    # 1 -> 3 is derived at 0.63, 2 -> 4 at 0.63, 1 -> 4 at 0.567 (from 1->3 and 3->4, or 1->2
    # and 2->4); nothing crosses the 0.5 edge, and a derived edge below 0.6 cannot be a premise.
    assert confidences(result) == {
        (1, 3, "d"): pytest.approx(0.63),
        (2, 4, "d"): pytest.approx(0.63),
        (1, 4, "d"): pytest.approx(0.567),
    }
    assert_same(result, reference(base, [rule]))


def test_extracted_edge_gains_a_derivation_but_is_not_derived() -> None:
    base = [Edge(1, 2, "d"), Edge(2, 3, "d"), Edge(1, 3, "d", 0.3)]
    result = infer(base, [TRANSITIVE])
    assert result.derived == ()
    assert result.derivations[(1, 3, "d")] == (Derivation(1, ((1, 2, "d"), (2, 3, "d"))),)
    assert result.per_rule == {}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_running_again_on_the_output_derives_nothing(strategy: Strategy) -> None:
    rules = [TRANSITIVE, parse_rule(3, '{"if": ["d", "e"], "then": "e", "inverse": true}')]
    graph = nx.gnp_random_graph(30, 0.08, seed=2, directed=True)
    base = edges_of(graph) + [Edge(u, v, "e", 0.7) for u, v in list(graph.edges())[::3]]
    first = infer(base, rules, strategy=strategy)
    assert first.derived
    second = infer([*base, *first.derived], rules, strategy=strategy)
    assert second.derived == ()
    assert second.rounds == 1
    assert second.complete


def test_derivations_are_capped_per_rule() -> None:
    hub = [Edge(0, i, "d") for i in range(1, 8)] + [Edge(i, 9, "d") for i in range(1, 8)]
    full = infer(hub, [TRANSITIVE])
    assert len(full.derivations[(0, 9, "d")]) == 3
    capped = infer(hub, [TRANSITIVE], limits=Limits(derivations_per_rule=1))
    assert len(capped.derivations[(0, 9, "d")]) == 1


def test_limits() -> None:
    path = edges_of(nx.path_graph(65, create_using=nx.DiGraph))
    stopped = infer(path, [TRANSITIVE], limits=Limits(max_rounds=2))
    assert (stopped.rounds, stopped.complete) == (2, False)
    assert pairs(stopped, path) < pairs(infer(path, [TRANSITIVE]), path)
    with pytest.raises(LimitExceeded, match="raise max_rounds"):
        reconcile(path, [], [TRANSITIVE], limits=Limits(max_rounds=2))
    with pytest.raises(LimitExceeded, match="derived over 100 edges"):
        infer(path, [TRANSITIVE], limits=Limits(max_derived=100))
    assert gc.isenabled()  # the engine pauses the collector while it runs, even when it raises
    with pytest.raises(InvalidInput, match="at least 1"):
        Limits(max_rounds=0)
    with pytest.raises(InvalidInput, match="rule ids must be unique"):
        infer(path, [TRANSITIVE, TRANSITIVE])
    with pytest.raises(InvalidInput, match=r"outside 0\.\.1"):
        Edge(1, 2, "d", 1.5)
    nothing = infer(path, [])
    assert (nothing.rounds, nothing.complete, nothing.derived) == (0, True, ())


_kinds = st.sampled_from(["a", "b", "c"])
_rules = st.builds(
    lambda i, chain, then, floor, inverse, loops, types: Rule(
        i,
        tuple(chain),
        then,
        floor,
        (None, *types[: len(chain)]) if types else None,
        inverse,
        loops,
    ),
    st.integers(1, 5),
    st.lists(_kinds, min_size=1, max_size=3),
    _kinds,
    st.sampled_from([0.0, 0.6]),
    st.booleans(),
    st.booleans(),
    st.none() | st.lists(st.sampled_from([None, frozenset({"fact"})]), min_size=3, max_size=3),
)
_edges = st.lists(
    st.builds(Edge, st.integers(0, 6), st.integers(0, 6), _kinds, st.sampled_from([0.5, 0.8, 1.0])),
    max_size=14,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edges, st.lists(_rules, min_size=1, max_size=3, unique_by=lambda r: r.rule_id))
def test_semi_naive_equals_naive_equals_reference(edges: list[Edge], rules: list[Rule]) -> None:
    types = {n: "fact" for n in range(0, 7, 2)}
    semi = infer(edges, rules, types)
    naive = infer(edges, rules, types, strategy="naive")
    expected = reference(edges, rules, types)
    assert_same(semi, expected)
    assert_same(naive, expected)
    assert semi.complete and naive.complete
    assert_derivations_valid(semi, edges, rules)
    again = infer([*edges, *semi.derived], rules, types)
    assert again.derived == ()


# ------------------------------------------------------------------------- truth maintenance

IMPORTS = parse_rule(10, '{"if": "imports", "then": "depends_on"}')
DEPENDS = parse_rule(11, '{"if": ["depends_on", "depends_on"], "then": "depends_on"}')


def stored(*keys: EdgeKey, confidence: float = 1.0) -> list[Edge]:
    return [Edge(*key, confidence) for key in keys]


def test_one_support_removed_withdraws_the_conclusion() -> None:
    base = [Edge(1, 2, "d"), Edge(2, 3, "d")]
    plan = reconcile(base, stored((1, 3, "d")), [TRANSITIVE], deleted_edges=[(2, 3, "d")])
    assert plan.withdraw == ((1, 3, "d"),)
    assert (plan.keep, plan.add, plan.update) == ((), (), ())


def test_one_of_two_supports_removed_keeps_the_conclusion() -> None:
    base = [Edge(1, 2, "d"), Edge(2, 4, "d"), Edge(1, 3, "d"), Edge(3, 4, "d")]
    before = infer(base, [TRANSITIVE])
    assert len(before.derivations[(1, 4, "d")]) == 2
    plan = reconcile(base, before.derived, [TRANSITIVE], deleted_edges=[(2, 4, "d")])
    assert plan.withdraw == ()
    assert plan.keep == ((1, 4, "d"),)
    assert plan.result.derivations[(1, 4, "d")] == (Derivation(1, ((1, 3, "d"), (3, 4, "d"))),)


def test_withdrawal_is_transitive() -> None:
    base = [Edge(1, 2, "imports"), Edge(2, 3, "imports")]
    before = infer(base, [IMPORTS, DEPENDS])
    assert set(confidences(before)) == {
        (1, 2, "depends_on"),
        (2, 3, "depends_on"),
        (1, 3, "depends_on"),
    }
    plan = reconcile(base, before.derived, [IMPORTS, DEPENDS], deleted_edges=[(1, 2, "imports")])
    # 1 -> 3 rested only on 1 -> 2 depends_on, itself resting on the deleted import.
    assert plan.withdraw == ((1, 2, "depends_on"), (1, 3, "depends_on"))
    assert plan.keep == ((2, 3, "depends_on"),)


def test_conclusions_on_a_cycle_do_not_keep_each_other_alive() -> None:
    rules = numbered_rules(
        '{"if": "p", "then": "q"}', '{"if": "q", "then": "r"}', '{"if": "r", "then": "q"}'
    ).rules
    base = [Edge(1, 2, "p")]
    before = infer(base, rules)
    assert {d.rule_id for d in before.derivations[(1, 2, "q")]} == {1, 3}
    plan = reconcile(base, before.derived, rules, deleted_edges=[(1, 2, "p")])
    assert plan.withdraw == ((1, 2, "q"), (1, 2, "r"))
    cycle = edges_of(nx.cycle_graph(5, create_using=nx.DiGraph))
    closed = infer(cycle, [TRANSITIVE])
    plan = reconcile(cycle, closed.derived, [TRANSITIVE], deleted_edges=[(4, 0, "d")])
    assert set(plan.keep) == {(i, j, "d") for i in range(5) for j in range(i + 2, 5)}
    assert len(plan.withdraw) == len(closed.derived) - len(plan.keep)


def test_deleted_rule_withdraws_what_only_it_derived() -> None:
    also = parse_rule(12, '{"if": ["imports", "depends_on"], "then": "depends_on"}')
    base = [Edge(1, 2, "imports"), Edge(2, 3, "depends_on"), Edge(3, 4, "imports")]
    rules = [IMPORTS, DEPENDS, also]
    before = infer(base, rules)
    plan = reconcile(base, before.derived, rules, deleted_rules=[11])
    # 1 -> 3 also follows from rule 12; 1 -> 4 and 2 -> 4 needed the transitive rule 11.
    assert plan.keep == ((1, 2, "depends_on"), (1, 3, "depends_on"), (3, 4, "depends_on"))
    assert plan.withdraw == ((1, 4, "depends_on"), (2, 4, "depends_on"))


def test_stale_atoms_stop_supporting() -> None:
    base = [Edge(1, 2, "d"), Edge(2, 3, "d"), Edge(3, 4, "d"), Edge(1, 5, "d"), Edge(5, 3, "d")]
    before = infer(base, [TRANSITIVE])
    plan = reconcile(base, before.derived, [TRANSITIVE], unsupported_atoms=[2])
    assert plan.keep == ((1, 3, "d"), (1, 4, "d"), (5, 4, "d"))
    assert plan.withdraw == ((2, 4, "d"),)
    plan = reconcile(base, before.derived, [TRANSITIVE], unsupported_atoms=[3])
    assert plan.keep == ()


def test_reconcile_adds_new_edges_and_updates_confidences() -> None:
    base = [Edge(1, 2, "d", 0.9), Edge(2, 4, "d", 0.9), Edge(1, 3, "d", 0.5), Edge(3, 4, "d", 0.5)]
    before = infer(base, [TRANSITIVE])
    assert confidences(before) == {(1, 4, "d"): pytest.approx(0.81)}
    plan = reconcile(
        [*base, Edge(4, 5, "d")], before.derived, [TRANSITIVE], deleted_edges=[(1, 2, "d")]
    )
    assert plan.keep == ((1, 4, "d"),)
    assert [(e.key, e.confidence) for e in plan.update] == [((1, 4, "d"), pytest.approx(0.25))]
    assert {e.key for e in plan.add} == {(2, 5, "d"), (3, 5, "d"), (1, 5, "d")}
    assert plan.withdraw == ()
    unchanged = reconcile(base, before.derived, [TRANSITIVE])
    assert (unchanged.add, unchanged.update, unchanged.withdraw) == ((), (), ())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edges, st.lists(_rules, min_size=1, max_size=3, unique_by=lambda r: r.rule_id), st.data())
def test_reconcile_matches_a_fresh_reference(
    edges: list[Edge], rules: list[Rule], data: st.DataObject
) -> None:
    before = infer(edges, rules)
    keys = sorted({e.key for e in edges})
    dead = data.draw(st.sets(st.sampled_from(keys)) if keys else st.just(set()))
    stale = data.draw(st.sets(st.integers(0, 6), max_size=2))
    dropped = data.draw(st.sets(st.sampled_from(sorted({r.rule_id for r in rules}))))
    plan = reconcile(
        edges,
        before.derived,
        rules,
        deleted_edges=dead,
        unsupported_atoms=stale,
        deleted_rules=dropped,
    )
    survivors = [e for e in edges if e.key not in dead and not {e.src, e.dst} & stale]
    expected = reference(survivors, [r for r in rules if r.rule_id not in dropped])
    stored_keys = {e.key for e in before.derived}
    assert set(plan.withdraw) == stored_keys - set(expected)
    assert set(plan.keep) == stored_keys & set(expected)
    assert {e.key for e in plan.add} == set(expected) - stored_keys
