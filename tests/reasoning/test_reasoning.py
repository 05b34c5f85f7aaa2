"""memory_infer and memory_query_graph over real Postgres and FalkorDB."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pegas_memory.app.requests import GraphQueryRequest, StoreRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.db.repo import AtomInput, add_link, insert_atom, set_status
from pegas_memory.errors import InvalidInput
from pegas_memory.models import (
    GraphCountsAnswer,
    GraphDerivationAnswer,
    GraphPathsAnswer,
    GraphQueryResult,
)
from tests.conftest import offline_memory


@pytest.fixture
def service(database_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    with offline_memory(database_url, tmp_path / "data", dim=32) as svc:
        yield svc


def atoms(svc: MemoryService, n: int) -> list[int]:
    with svc.db.transaction() as conn:
        return [insert_atom(conn, AtomInput(type="fact", claim=f"module {i}"))[0] for i in range(n)]


def rule(svc: MemoryService, content: object) -> int:
    text = content if isinstance(content, str) else json.dumps(content)
    return svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text)).id


def inferred(svc: MemoryService) -> set[tuple[int, int, str]]:
    with svc.db.connection() as conn:
        rows = conn.execute(
            "SELECT src_atom_id, dst_atom_id, kind FROM pm_atom_link WHERE inferred"
        ).fetchall()
    return {(r["src_atom_id"], r["dst_atom_id"], r["kind"]) for r in rows}


def test_fixpoint_idempotence_and_derivation(service: MemoryService) -> None:
    a, b, c, d = atoms(service, 4)
    with service.db.transaction() as conn:
        add_link(conn, a, b, "imports", source="extracted")
        add_link(conn, b, c, "imports", source="extracted")
        add_link(conn, c, d, "depends_on", source="extracted")
    r1 = rule(service, {"if": "imports", "then": "depends_on"})
    r2 = rule(service, {"if": ["depends_on", "depends_on"], "then": "depends_on"})
    rule(service, "If a module imports another it depends on it")  # prose: ignored, counted
    first = service.infer()
    assert first.derived == 5 and first.complete and first.rules_used == 2
    assert first.rules_prose_ignored == 1 and first.per_rule[r1] == 2
    assert (a, d, "depends_on") in inferred(service)
    again = service.infer()
    assert again.derived == 0 and again.withdrawn == 0
    why = service.query_graph(
        GraphQueryRequest(op="derivation", src=a, dst=d, kind="depends_on")
    ).result
    assert isinstance(why, GraphDerivationAnswer)
    assert why.inferred and why.derivations[0].rule == r2
    service.runtime.worker().drain()
    counts = service.query_graph(GraphQueryRequest(op="counts")).result
    assert isinstance(counts, GraphCountsAnswer)
    assert counts.links_by_kind["depends_on"].model_dump() == {"extracted": 1, "inferred": 5}
    out = service.query_graph(
        GraphQueryRequest(op="neighbours", node_id=a, kinds=["depends_on"], direction="out")
    ).result
    assert isinstance(out, GraphPathsAnswer)
    assert {p.nodes[-1].id for p in out.paths} == {b, c, d}
    assert all(p.edges[0].inferred for p in out.paths)
    # The JSON the tool returns: an atom link carries its own attributes and no code ones.
    dumped = service.query_graph(
        GraphQueryRequest(op="neighbours", node_id=a, direction="out")
    ).model_dump(mode="json")
    edge = dumped["result"]["paths"][0]["edges"][0]
    assert set(edge) == {"id", "kind", "src", "dst", "confidence", "inferred", "source"}
    assert set(dumped["result"]) == {"op", "paths", "limit", "offset"}
    assert why.model_dump(mode="json")["derivations"][0]["premises"][0][2] in (
        "imports",
        "depends_on",
    )


def test_truth_maintenance(service: MemoryService) -> None:
    a, b, c, x = atoms(service, 4)
    with service.db.transaction() as conn:
        add_link(conn, a, b, "imports")
        add_link(conn, b, c, "imports")
        add_link(conn, a, x, "imports")
        add_link(conn, x, c, "imports")
    rule(service, {"if": ["imports", "imports"], "then": "reaches"})
    service.infer()
    assert (a, c, "reaches") in inferred(service)  # two derivations: via b and via x
    with service.db.transaction() as conn:
        conn.execute("DELETE FROM pm_atom_link WHERE src_atom_id = %s AND dst_atom_id = %s", (a, b))
    kept = service.infer()
    assert kept.withdrawn == 0 and (a, c, "reaches") in inferred(service)  # one support left
    with service.db.transaction() as conn:
        set_status(conn, x, "contested", reason="test", check_name="test")
    gone = service.infer()
    assert gone.withdrawn == 1 and (a, c, "reaches") not in inferred(service)


def test_rule_erased_withdraws_its_conclusions(service: MemoryService) -> None:
    a, b, c = atoms(service, 3)
    with service.db.transaction() as conn:
        add_link(conn, a, b, "part_of")
        add_link(conn, b, c, "part_of")
    rid = rule(service, {"if": ["part_of", "part_of"], "then": "part_of"})
    service.infer()
    assert (a, c, "part_of") in inferred(service)
    service.forget(mode="erase", atom_ids=[rid])  # maintenance runs after forgetting
    assert inferred(service) == set()


def test_invalid_rules_are_reported_and_inputs_are_checked(service: MemoryService) -> None:
    rule(service, {"if": "imports"})
    rule(service, {"if": "DROP TABLE", "then": "x"})
    rule(service, {"if": ["a"] * 20, "then": "b"})
    result = service.infer()
    assert {r["reason"] for r in result.rules_invalid} >= {"missing_then", "chain_too_long"}
    assert len(result.rules_invalid) + result.rules_prose_ignored == 3
    for bad in (["imports'}) DETACH DELETE n //"], ["Two Words"], ["ёж"]):
        with pytest.raises(InvalidInput):
            service.query_graph(GraphQueryRequest(op="neighbours", node_id=1, kinds=bad))
    with pytest.raises(InvalidInput):
        service.query_graph(GraphQueryRequest(op="neighbours", node_id=1, depth=50))
    with pytest.raises(InvalidInput):
        service.query_graph(GraphQueryRequest(op="derivation", src=1, dst=2))


def test_graph_answers_have_a_schema_per_operation() -> None:
    """memory_query_graph's output schema names each operation's fields (no free-form dict)."""
    schema = GraphQueryResult.model_json_schema()
    result = schema["properties"]["result"]
    assert result["discriminator"]["propertyName"] == "op"
    assert set(result["discriminator"]["mapping"]) == {
        "neighbours",
        "paths",
        "counts",
        "derivation",
    }
    assert {"GraphPathsAnswer", "GraphCountsAnswer", "GraphDerivationAnswer"} <= set(
        schema["$defs"]
    )
    parsed = GraphQueryResult.model_validate(
        {
            "op": "counts",
            "result": {
                "op": "counts",
                "links_by_kind": {"x": {"inferred": 2}},
                "code_dependencies_by_kind": {"calls": 3},
            },
        }
    )
    assert isinstance(parsed.result, GraphCountsAnswer)
    assert parsed.result.links_by_kind["x"].extracted == 0
