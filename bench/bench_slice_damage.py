"""Seconds to notice and to repair each kind of damage to the slices' files (issue 30), under a
running serve: the embedded worker and self-check running with a `--period` second check, the
vector store in the engine host, FalkorDB embedded, embeddings from a fake Ollama on loopback
(hashed vectors: the repair reads vectors from the embedding cache either way).

Per case and round: `--atoms` atoms are in the slices; the damage is done (random bytes over a
file of the atoms' collection or of FalkorDB's append-only directory, a file truncated, a
directory deleted); "notice" is the time to the end of the self-check that found it, "repair"
to the end of the repair (the next check then finds the slices whole). Every round ends with
every atom found by dense search and `reconcile` finding no drift, or the bench fails. The
ratio column is notice / period: at most 1 plus one check's duration means "within one
period". Compare with bench/bench_recovery.py's vector row (directory deleted through the
in-process engine, 0.5 s period) in bench/results/recovery.md.

    python bench/bench_slice_damage.py [--rounds 3] [--atoms 200] [--period 1.0] [--only WORDS]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import log, md_table, percentile

from pegas_memory.app.service import MemoryService
from pegas_memory.db.embedded import start_embedded_postgres
from tests.outbox import slice_damage as damage
from tests.pgcluster import create_database

Inflict = Callable[[MemoryService], None]


def _vector(kind: str, how: str) -> Inflict:
    def inflict(service: MemoryService) -> None:
        path = damage.vector_file(damage.atom_collection(service), kind)
        if how == "random":
            damage.write_random(path, seed=int(time.time()))
        else:
            damage.truncate(path)

    return inflict


def _graph(kind: str, how: str) -> Inflict:
    def inflict(service: MemoryService) -> None:
        path = damage.graph_file(service, kind)
        if how == "random":
            damage.write_random(path, seed=int(time.time()), at_least=4096)
        else:
            damage.truncate(path)

    return inflict


def cases() -> dict[str, Inflict]:
    out: dict[str, Inflict] = {}
    for kind in damage.VECTOR_FILES:
        out[f"vector {kind}: random bytes"] = _vector(kind, "random")
        out[f"vector {kind}: truncated"] = _vector(kind, "truncate")
    out["vector collection directory deleted"] = lambda s: damage.delete_tree(
        damage.atom_collection(s)
    )
    for kind in damage.GRAPH_FILES:
        out[f"graph {kind}: random bytes"] = _graph(kind, "random")
        out[f"graph {kind}: truncated"] = _graph(kind, "truncate")
    out["graph append-only directory deleted"] = lambda s: damage.delete_tree(
        s.settings.data_dir / "graph" / "appendonlydir"
    )
    return out


def one_round(service: MemoryService, inflict: Inflict, stored: dict[str, int]) -> damage.Outcome:
    # One store first, as a serve in use has: the AOF increment is empty right after a rewrite.
    n = len(stored)
    stored.update(damage.store(service, [f"Round atom {n}: the sea {n} is salty"]))
    damage.flushed(service)  # every vector file kind on disk
    damage.settled(service)
    since = service.runtime.monitor.last_repair
    damaged_at = time.time()
    inflict(service)
    outcome = damage.until_repaired(service, since, damaged_at)
    damage.settled(service)
    missing = damage.missing_from_dense(service, stored)
    if missing:
        raise AssertionError(f"not found by dense search after the repair: {missing[:3]}")
    drift = damage.drift(service)
    if drift:
        raise AssertionError(f"reconcile found {drift} drift after the repair")
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--atoms", type=int, default=200)
    parser.add_argument("--period", type=float, default=1.0)
    parser.add_argument("--only", default="", help="run the cases whose name holds this text")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="pegas-bench-damage-", dir="/tmp"))
    server = start_embedded_postgres(root / "pg")
    rows = []
    try:
        with damage.serving(root / "data", create_database(server.uri), args.period) as service:
            claims = [
                f"Fact number {i}: river {i} flows into sea {i % 7}"
                if i % 2
                else f"Факт номер {i}: река {i} впадает в море {i % 7}"
                for i in range(args.atoms)
            ]
            stored = damage.store(service, claims)
            for name, inflict in cases().items():
                if args.only and args.only not in name:
                    continue
                noticed, repaired = [], []
                for n in range(args.rounds):
                    outcome = one_round(service, inflict, stored)
                    noticed.append(outcome.noticed)
                    repaired.append(outcome.repaired)
                    log(
                        f"{name} round {n + 1}: noticed {outcome.noticed:.2f} s, "
                        f"repaired {outcome.repaired:.2f} s"
                    )
                rows.append(
                    [
                        name,
                        args.rounds,
                        f"{percentile(noticed, 50):.2f}",
                        f"{max(noticed):.2f}",
                        f"{percentile(noticed, 50) / args.period:.2f}",
                        f"{percentile(repaired, 50):.2f}",
                        f"{max(repaired):.2f}",
                    ]
                )
    finally:
        server.close()
        shutil.rmtree(root, ignore_errors=True)
    print(
        md_table(
            [
                "damage",
                "rounds",
                "notice median (s)",
                "notice max (s)",
                "notice / period",
                "repair median (s)",
                "repair max (s)",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
