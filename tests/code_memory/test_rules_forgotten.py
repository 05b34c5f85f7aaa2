"""Derived code edges go with the rules that made them (issue 29): erasing the rule atoms
withdrew nothing when no derived link between atoms existed (391,457 derived edges stayed on
twisted until the next memory_infer)."""

from __future__ import annotations

import json
from pathlib import Path

from pegas_memory.app.requests import StoreRequest
from tests.code_fixtures import code_service, indexed_files, q


def test_erasing_the_rules_withdraws_their_derived_code_edges(
    database_url: str, tmp_path: Path
) -> None:
    root = tmp_path / "src" / "proj"
    indexed_files(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import g\n\ndef f():\n    return g()\n",
            "pkg/b.py": "def g():\n    '''Возвращает 1 / returns 1.'''\n    return 1\n",
        },
    )
    with code_service(database_url, tmp_path) as svc:
        svc.store_code(str(root), repo="proj")
        text = json.dumps({"if": "imports", "then": "depends_on"})
        rule = svc.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text))
        assert svc.infer().code_derived > 0
        derived = "SELECT count(*) AS n FROM pm_code_inferred WHERE repo = 'proj'"
        assert q(svc, derived)[0]["n"] > 0
        svc.forget(mode="erase", atom_ids=[rule.id])
        assert q(svc, derived)[0]["n"] == 0
