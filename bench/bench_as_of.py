"""What an as-of search costs, and whether "as of now" answers as the present does.

One run in a fresh temporary data dir on the embedded default stack, loaded as
bench_search_latency.py loads it (N atoms as an ingest leaves them, N/2 passages, N/2 links,
synthetic clustered vectors, both slices drained and indexed). Then:

1. an instant T is taken, and 10% of the atoms are retracted (status stale, one status change
   each, as memory_forget does) and 5% of the links withdrawn (each leaving an audit line);
2. memory_search (hybrid, limit 10, query embedding excluded) side by side: the present, as of
   T (before the changes), and as of now; p50/p99 and the ratio to the present;
3. agreement: as of now must answer what the present answers (same ids in the same order,
   reported as the share of queries where it does), and as of T must show the retracted atoms
   with the status they had then (the share of retracted atoms among its hits that come back
   with their status before the retraction).

Run: `python bench/bench_as_of.py [--atoms 20000] [--queries 200]`; tables on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import embedded_service, log, md_table, ms, percentile
from bench_search_latency import LIMIT, latencies, load

from pegas_memory.app.requests import SearchRequest
from pegas_memory.search.filters import SearchFilter


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--atoms", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with embedded_service(prefix="pegas-bench-as-of-") as svc:
        conditions, (queries, _qvecs, _counting) = load(svc, args.atoms, args)
        with svc.db.connection() as conn:
            row = conn.execute("SELECT clock_timestamp() AS t").fetchone()
        assert row is not None
        before = row["t"]
        with svc.db.transaction() as conn:
            conn.execute("SELECT set_config('pegas.check_name', 'forget', true)")
            had = {
                int(r["id"]): r["status"]
                for r in conn.execute("SELECT id, status FROM pm_atom WHERE id % 10 = 0")
            }
            retracted = conn.execute(
                "UPDATE pm_atom SET status = 'stale', status_reason = 'retracted: bench' "
                "WHERE id % 10 = 0 RETURNING id"
            ).fetchall()
            conn.execute("SELECT set_config('pegas.withdraw_reason', 'bench', true)")
            links = conn.execute("DELETE FROM pm_atom_link WHERE id % 20 = 0").rowcount
        gone = {int(r["id"]) for r in retracted}
        log(f"retracted {len(gone)} atoms, withdrew {links} links")
        svc.runtime.worker("bench").drain(timeout=3600)
        with svc.db.connection() as conn:
            conn.execute("VACUUM ANALYZE pm_status_change")
            conn.execute("VACUUM ANALYZE pm_withdrawal")
            row = conn.execute("SELECT clock_timestamp() AS t").fetchone()
        assert row is not None
        now = row["t"]

        def search(q: str, at: Any = None) -> Any:
            return svc.search(
                SearchRequest(query=q, limit=LIMIT, flt=SearchFilter(as_of=at) if at else None)
            )

        present = latencies(search, queries)
        then = latencies(lambda q: search(q, before), queries)
        as_now = latencies(lambda q: search(q, now), queries)
        base = percentile(present, 50)
        rows = [
            [what, ms(percentile(v, 50)), ms(percentile(v, 99)), f"{percentile(v, 50) / base:.2f}x"]
            for what, v in (
                ("memory_search (the present)", present),
                ("as_of before the retractions", then),
                ("as_of now", as_now),
            )
        ]
        same = shown = back = atoms_then = 0
        for q in queries:
            current = [(h.store, h.id) for h in search(q).hits]
            same += current == [(h.store, h.id) for h in search(q, now).hits]
            for h in search(q, before).hits:
                atoms_then += h.store == "atom"
                if h.store == "atom" and h.id in gone:
                    shown += 1
                    back += h.status == had[h.id]
    load_avg = os.getloadavg()
    print(f"# bench_as_of: {args.atoms} atoms plus their passages, {len(queries)} queries\n")
    print(md_table(["what", "p50 ms", "p99 ms", "p50 / present"], rows))
    print()
    print(
        md_table(
            ["check", "result"],
            [
                [
                    "as of now answers as the present (same hits, same order)",
                    f"{same}/{len(queries)}",
                ],
                ["atoms among the as-of-T hits", str(atoms_then)],
                [
                    "retracted atoms among as-of-T hits shown with the status they had",
                    f"{back}/{shown}",
                ],
            ],
        )
    )
    print()
    print(md_table(["condition", "value"], [[k, v] for k, v in conditions.items()]))
    print(f"\nload average at the end: {load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f}")


if __name__ == "__main__":
    main()
