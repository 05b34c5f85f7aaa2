"""Inference over code: the seed's two rules on click 8.1.7 against networkx.

Indexes `src/click` of the copy in /work/shared/data/code (see its SOURCE.md; override with
PEGAS_BENCH_CLICK), stores `{"if": "imports", "then": "depends_on"}` and `{"if": ["depends_on",
"depends_on"], "then": "depends_on"}`, runs memory_infer, and compares the derived depends_on
edges between module symbols with the transitive closure (networkx, reflexive=None: no
self-loops, as the rules) of two module import graphs computed without the rules:
- the stored imports lifted to modules in SQL here (what the rules read): must be equal;
- the imports Python's `ast` finds in the sources (relative imports resolved, imports of names
  of a package resolved to the module defining them when it is a submodule): how far the
  indexer's import edges are from the code itself (item 2 of issue 16, not the rules).
Writes bench/results/code-inference.md.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import time
from pathlib import Path

import networkx as nx

from pegas_memory.app.requests import StoreRequest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import embedded_service, md_table

CLICK = Path(os.environ.get("PEGAS_BENCH_CLICK", "/work/shared/data/code/click-8.1.7/src"))
RULES = (
    {"if": "imports", "then": "depends_on"},
    {"if": ["depends_on", "depends_on"], "then": "depends_on"},
)
LIFTED = b"""
SELECT DISTINCT ms.qualified_name AS a, md.qualified_name AS b
  FROM pm_code_dependency d
  JOIN pm_code_symbol s ON s.id = d.src_symbol_id
  JOIN pm_code_symbol t ON t.id = d.dst_symbol_id
  JOIN pm_code_symbol ms ON ms.repo = s.repo AND ms.path = s.path AND ms.kind = 'module'
  JOIN pm_code_symbol md ON md.repo = t.repo AND md.path = t.path AND md.kind = 'module'
 WHERE d.kind = 'imports' AND ms.id <> md.id
"""
DERIVED = b"""
SELECT s.qualified_name AS a, t.qualified_name AS b FROM pm_code_inferred i
  JOIN pm_code_symbol s ON s.id = i.src_symbol_id
  JOIN pm_code_symbol t ON t.id = i.dst_symbol_id
 WHERE i.kind = 'depends_on' AND s.kind = 'module' AND t.kind = 'module'
"""


def ast_imports(src: Path) -> set[tuple[str, str]]:
    """Module -> module imports of the package under `src`, from the sources alone."""
    modules: dict[str, Path] = {}
    for file in src.rglob("*.py"):
        parts = list(file.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = file
    edges = set()
    for name, file in modules.items():
        package = name if file.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(file.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[: len(base) - node.level + 1] if node.level else []
                stem = ".".join([*base, *(node.module.split(".") if node.module else [])])
                targets = [
                    f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem
                    for a in node.names
                ]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.add((name, target))
    return edges


def closure(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    return set(nx.transitive_closure(nx.DiGraph(sorted(edges)), reflexive=None).edges())


def main() -> None:
    with embedded_service("pegas-bench-codeinf-", ingest_roots=[str(CLICK)]) as service:
        started = time.perf_counter()
        indexed = service.store_code(str(CLICK), repo="click")
        index_s = time.perf_counter() - started
        for rule in RULES:
            text = json.dumps(rule)
            service.store(StoreRequest(claim=f"rule {text}", type="logical_rule", content=text))
        started = time.perf_counter()
        report = service.infer()
        infer_s = time.perf_counter() - started
        with service.db.connection() as conn:
            lifted = {(r["a"], r["b"]) for r in conn.execute(LIFTED).fetchall()}
            derived = {(r["a"], r["b"]) for r in conn.execute(DERIVED).fetchall()}
    from_ast = ast_imports(CLICK)
    rows = []
    for label, graph in (
        ("stored imports lifted to modules", lifted),
        ("ast of the sources", from_ast),
    ):
        expected = closure(graph)
        rows.append(
            [
                label,
                len({n for e in graph for n in e}),
                len(graph),
                len(expected),
                len(derived),
                len(derived - expected),
                len(expected - derived),
                "yes" if derived == expected else "NO",
            ]
        )
    table = md_table(
        [
            "module import graph",
            "modules",
            "import edges",
            "closure (networkx)",
            "derived by rules",
            "derived, not in closure",
            "in closure, not derived",
            "equal",
        ],
        rows,
    )
    extra = sorted(lifted - from_ast)
    notes_extra = f" Lifted import edges the ast graph lacks: {extra}." if extra else ""
    missing = sorted(closure(from_ast) - derived)[:10]
    notes = (
        f"click 8.1.7 `src/` ({indexed.files_seen} files, {indexed.symbols_total} symbols, "
        f"{indexed.dependencies} dependencies) indexed in {index_s:.1f} s; memory_infer: "
        f"{report.rounds} rounds, {report.code_derived} code edges derived in all (module and "
        f"symbol level), {infer_s:.2f} s wall. Rules: {', '.join(json.dumps(r) for r in RULES)}."
    )
    notes += notes_extra
    if missing:
        notes += f" Closure pairs of the ast graph the rules did not derive (first 10): {missing}."
    print(table)
    print()
    print(notes)
    out = Path(__file__).resolve().parent / "results" / "code-inference.md"
    out.write_text(
        "# Inference over code: the seed's rules on click against networkx\n\n"
        "`python bench/bench_inference_code.py` (see its docstring).\n\n"
        f"{table}\n\n{notes}\n",
        "utf-8",
    )


if __name__ == "__main__":
    main()
