"""Decay and feedback in ranking on SciFact: nDCG@10 with and without each, in one run, every
cell paired claim by claim against the baseline (decay off, feedback weight 0).

    .venv/bin/python bench/bench_feedback.py [--preset hybrid|lexical] [--weights 0,0.3]
        [--decay off,on,dated] [--agents perfect,noisy] [--store scifact] [--limit-queries N]
        [--mcp]

The whole SciFact corpus (BEIR: title + abstract per atom, 5,183 atoms) is stored as
bench/eval_retrieval.py stores it, in the same store (`--store`, default `scifact` under
$PEGAS_EVAL_CACHE): the same atoms and vectors serve both, so the slow local model embeds each
abstract once. Every search goes through `MemoryService.search` (hybrid by default), every report
through `MemoryService.feedback`; only `Searcher.decay_half_lives` and `Searcher.feedback_weight`
change between the cells.

Feedback is reported on the **train** claims only (qrels/train.tsv, 809 claims) by a simulated
agent (bench/_feedback.py): `perfect` reports every judged-relevant hit of its top 10 `helped`
and the other hits of its top 3 `misled`; `noisy` reports on half the claims and gets a fifth of
its outcomes backwards. It is measured on the **test** claims (qrels/test.tsv, 300, BEIR's
official split), which nobody reported on: what feedback from past questions does for new ones.
Many test claims cite an abstract a train claim cites too; they are shown apart.

Decay modes:
- `off`: no profile applied (the shipped default, PEGAS_DECAY_RANKING=false);
- `on`: the settings' half-lives applied to each atom's stored profile. An abstract is document
  knowledge, `timeless` by default (fusion.default_decay), so this must equal `off`; shown so;
- `dated`: a stress case. Every abstract is made `perishable` (what PEGAS_DECAY_DOCUMENT_DEFAULT=
  perishable would give) with a publication date drawn uniformly over the `--years` before now
  (seeded; SciFact has no dates), ranked with the perishable half-life. The dates say nothing
  about relevance, so this is the cost of decay where age carries no signal. The rows are put
  back as they were on exit.

With `--mcp` the baseline and the perfect agent's cell (decay off) are asked again over the
real stdio transport, a `pegas-memory serve` per feedback weight on the same store, the reports
sent with `memory_feedback`, and compared claim by claim with the service's.

The store's earlier feedback is cleared first, between agents and at the end. Prints markdown
tables.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, log, md_table, paired, shared_data_dir
from _feedback import Agent, clear_feedback, outcomes, ranked, report_outcomes, stored
from eval_data import EvalSet, Query, _beir
from eval_retrieval import cache_root, close_store, ndcg, open_store, project

from pegas_memory.app.requests import SearchPreset
from pegas_memory.app.service import MemoryService
from pegas_memory.search.presets import PRESETS

AGENTS = {
    "perfect": Agent(misled_top=3),
    "noisy": Agent(misled_top=3, share=0.5, flip=0.2),
}
DECAY_MODES = ("off", "on", "dated")


def scifact_split(root: Path) -> tuple[EvalSet, EvalSet]:
    """The corpus with the train claims, and with the test claims."""
    d = root / "scifact"

    def one(qrels: str) -> EvalSet:
        return _beir(
            "scifact",
            "scifact",
            d / "corpus.jsonl",
            d / "queries.jsonl",
            d / "qrels" / qrels,
            use_title=True,
            limit=100,
        )

    return one("train.tsv"), one("test.tsv")


@dataclass(frozen=True)
class Cell:
    decay: str
    agent: str  # "" at weight 0: feedback is not weighed, whoever reported
    weight: float

    @property
    def label(self) -> str:
        feedback = f"{self.agent} agent, weight {self.weight:g}" if self.weight else "none"
        return f"decay {self.decay}, feedback {feedback}"


def per_claim(
    service: MemoryService,
    queries: Sequence[Query],
    preset: SearchPreset,
    atom_ext: dict[int, list[str]],
    limit: int,
) -> list[float]:
    """nDCG@10 of each claim, in order (binary relevance, as pytrec_eval on these qrels)."""
    return [ndcg(ranked(service, q, preset, limit, atom_ext)[0], q.relevant, 10) for q in queries]


@contextmanager
def dated(service: MemoryService, atom_ext: dict[int, list[str]], years: float) -> Iterator[None]:
    """Every atom perishable with a publication date in the `years` before now, then as it was.

    The rows are changed with the triggers off: neither field is in a slice (the vector payload
    and graph node carry neither; ranking reads them from Postgres), so the outbox need not
    re-project 5,183 unchanged vectors, and the as-of history is not what this measures."""
    rng = random.Random(32)
    now = datetime.now(UTC)
    ids = sorted(atom_ext)
    dates = [now - timedelta(days=rng.uniform(0, years * 365.25)) for _ in ids]
    with service.db.connection() as conn:
        before = conn.execute(
            "SELECT id, decay, about_at FROM pm_atom WHERE id = ANY(%s)", (ids,)
        ).fetchall()

    def write(rows: Sequence[tuple[int, str, datetime | None]]) -> None:
        with service.db.transaction() as conn:
            conn.execute("SET LOCAL session_replication_role = replica")
            conn.execute("SET LOCAL statement_timeout = 0")  # minutes on a loaded machine
            conn.execute(
                """UPDATE pm_atom a SET decay = v.decay, about_at = v.about
                     FROM unnest(%s::bigint[], %s::text[], %s::timestamptz[]) AS v(id, decay, about)
                    WHERE a.id = v.id""",
                ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
            )

    write([(i, "perishable", at) for i, at in zip(ids, dates, strict=True)])
    try:
        yield
    finally:
        write([(r["id"], r["decay"], r["about_at"]) for r in before])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="hybrid", choices=sorted(PRESETS))
    parser.add_argument("--weights", default="0,0.3", help="feedback weights; 0 is the baseline")
    parser.add_argument("--decay", default="off,on,dated", help="of off, on, dated")
    parser.add_argument("--agents", default="perfect,noisy", help=f"of {', '.join(AGENTS)}")
    parser.add_argument("--years", type=float, default=5.0, help="dated: dates spread over")
    parser.add_argument("--store", default="scifact", help="the store's name in the cache dir")
    parser.add_argument("--limit-queries", type=int, default=0, help="0: every claim")
    parser.add_argument(
        "--mcp",
        action="store_true",
        help="then ask the baseline and the perfect agent's cell again over MCP (stdio)",
    )
    args = parser.parse_args()
    weights = sorted({float(w) for w in args.weights.split(",")} | {0.0})
    modes = [m for m in args.decay.split(",") if m]
    agents = [a for a in args.agents.split(",") if a]
    if any(m not in DECAY_MODES for m in modes) or "off" not in modes:
        raise SystemExit(f"--decay takes off plus any of {', '.join(DECAY_MODES)}")
    if any(a not in AGENTS for a in agents):
        raise SystemExit(f"--agents takes {', '.join(AGENTS)}")
    train, test = scifact_split(shared_data_dir())
    if args.limit_queries:
        train.queries[:] = train.queries[: args.limit_queries]
        test.queries[:] = test.queries[: args.limit_queries]
    preset: SearchPreset = args.preset
    service, cached = open_store(args.store)
    try:
        atom_ext = stored(service, args.store, [train])
        if PRESETS[preset].dense:
            project(service, args.store)
        half_lives = service.settings.model_copy(update={"decay_ranking": True}).decay_half_lives
        searcher = service.searcher
        limit = test.limit
        scores: dict[Cell, list[float]] = {}
        reported: dict[str, str] = {}

        def measure(decay: str, agent: str, weight: float) -> None:
            searcher.decay_half_lives = {} if decay == "off" else half_lives
            searcher.feedback_weight = weight
            cell = Cell(decay, agent if weight else "", weight)
            t = time.perf_counter()
            scores[cell] = per_claim(service, test.queries, preset, atom_ext, limit)
            log(f"{cell.label}: {time.perf_counter() - t:.0f}s")

        def each_agent(decay_modes: Sequence[str]) -> None:
            for name in agents:
                clear_feedback(service)
                searcher.decay_half_lives = {}
                done = report_outcomes(service, train.queries, preset, atom_ext, AGENTS[name])
                reported[name] = (
                    f"{name}: {AGENTS[name].describe()}; {done.questions} of "
                    f"{len(train.queries)} train claims reported on, {done.helped} helped, "
                    f"{done.misled} misled"
                )
                log(reported[name])
                for w in weights[1:]:
                    for decay in decay_modes:
                        measure(decay, name, w)

        # The reports are made with decay off, so the dated phase gets the same ones again;
        # rewriting the 5,183 rows costs more than searching again (a GIN index per row).
        undated = [m for m in modes if m != "dated"]
        clear_feedback(service)
        for decay in undated:
            measure(decay, "", 0.0)
        each_agent(undated)
        if "dated" in modes:
            with dated(service, atom_ext, args.years):
                measure("dated", "", 0.0)
                each_agent(["dated"])
        clear_feedback(service)
        cached.store.save()
        print_tables(args, service, train, test, scores, reported, len(atom_ext))
    finally:
        close_store(service, cached)
    if args.mcp and len(weights) > 1:
        data_dir = cache_root() / args.store
        over_mcp = anyio.run(mcp_cells, data_dir, train, test, atom_ext, preset, weights[1])
        service, cached = open_store(args.store)
        try:
            clear_feedback(service)
        finally:
            close_store(service, cached)
        rows = []
        for cell, values in over_mcp.items():
            direct = scores[cell]
            same = sum(1 for a, b in zip(direct, values, strict=True) if abs(a - b) < 1e-9)
            rows.append(
                [
                    cell.label,
                    f"{sum(direct) / len(direct):.4f}",
                    f"{sum(values) / len(values):.4f}",
                    f"{same} of {len(values)}",
                ]
            )
        print("\n## The same cells over MCP (stdio, a server per setting)\n")
        heads = ["cell", "MemoryService", "over MCP", "claims with the same nDCG@10"]
        print(md_table(heads, rows))


async def mcp_cells(
    data_dir: Path,
    train: EvalSet,
    test: EvalSet,
    atom_ext: dict[int, list[str]],
    preset: SearchPreset,
    weight: float,
) -> dict[Cell, list[float]]:
    """The baseline and the perfect agent's cell at `weight` (decay off) through the real
    stdio transport: `pegas-memory serve` on the bench's store with PEGAS_FEEDBACK_WEIGHT 0,
    the agent's reports sent with memory_feedback, then a server with the weight set. The
    server embeds each query itself."""
    sys.path.insert(0, str(REPO_ROOT))
    from tests.mcp_harness import mcp_client, stop_host_and_wait, structured

    async def ids_of(client: Any, q: Query, limit: int) -> list[int]:
        args = {"query": q.text, "preset": preset, "limit": limit, "store": "atoms"}
        hits = structured(await client.call_tool("memory_search", args))["hits"]
        return [int(h["id"]) for h in hits]

    def ext_of(ids: Sequence[int]) -> list[str]:
        ext: list[str] = []
        for i in ids:
            ext += [e for e in atom_ext.get(i, []) if e not in ext]
        return ext

    env = {"PEGAS_DATA_DIR": str(data_dir), "PEGAS_EMBEDDED_WORKER": "off"}
    out: dict[Cell, list[float]] = {}
    agent = AGENTS["perfect"]
    rng = random.Random(agent.seed)
    async with mcp_client({**env, "PEGAS_FEEDBACK_WEIGHT": "0"}) as client:
        out[Cell("off", "", 0.0)] = [
            ndcg(ext_of(await ids_of(client, q, test.limit)), q.relevant, 10) for q in test.queries
        ]
        log("over MCP: baseline measured")
        for q in train.queries:
            rng.random()  # the share draw report_outcomes makes
            items = outcomes(q, await ids_of(client, q, 10), atom_ext, agent, rng)
            if items:
                payload = [it.model_dump(mode="json") for it in items]
                args = {"items": payload, "query": q.text}
                structured(await client.call_tool("memory_feedback", args))
        log("over MCP: reported")
    stop_host_and_wait(data_dir)
    async with mcp_client({**env, "PEGAS_FEEDBACK_WEIGHT": f"{weight:g}"}) as client:
        out[Cell("off", "perfect", weight)] = [
            ndcg(ext_of(await ids_of(client, q, test.limit)), q.relevant, 10) for q in test.queries
        ]
    stop_host_and_wait(data_dir)
    return out


def print_tables(
    args: argparse.Namespace,
    service: MemoryService,
    train: EvalSet,
    test: EvalSet,
    scores: dict[Cell, list[float]],
    reported: dict[str, str],
    atoms: int,
) -> None:
    base_cell = Cell("off", "", 0.0)
    base = scores[base_cell]
    cited = {e for q in train.queries for e in q.relevant}
    shared = [i for i, q in enumerate(test.queries) if cited & set(q.relevant)]
    alone = [i for i, q in enumerate(test.queries) if not cited & set(q.relevant)]
    perishable = service.settings.decay_perishable_days
    print(f"# Decay and feedback in ranking: SciFact nDCG@10, preset {args.preset}\n")
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}; {atoms} atoms; {len(test.queries)} test claims "
        f"measured (limit {test.limit}); feedback prior {service.searcher.feedback_prior}; "
        f"dated: perishable half-life {perishable:g} days, dates over {args.years:g} years.\n"
    )
    for line in reported.values():
        print(f"- {line}")
    print()
    rows = []
    for cell, values in scores.items():
        mean = sum(values) / len(values)
        row = [cell.label, f"{mean:.4f}", f"{mean / (sum(base) / len(base)):.3f}"]
        if cell == base_cell:
            rows.append([*row, "baseline", "", "", "", ""])
            continue
        st = paired(base, values)
        rows.append(
            [
                *row,
                st["mean diff"],
                st["95% CI"],
                f"{st['better']} / {st['worse']} / {st['same']}",
                st["P(diff >= 0)"],
                st["sign test p"],
            ]
        )
    heads = ["cell", "nDCG@10", "x baseline", "diff", "95% CI (paired bootstrap)"]
    heads += ["better / worse / same", "P(diff >= 0)", "sign test p"]
    print(f"## All {len(test.queries)} test claims\n")
    print(md_table(heads, rows))
    print()
    parts = (
        (f"sharing a cited abstract with a train claim ({len(shared)})", shared),
        (f"sharing none ({len(alone)})", alone),
    )
    rows = []
    for cell, values in scores.items():
        if cell == base_cell:
            continue
        for label, idx in parts:
            if not idx:
                continue
            a = [base[i] for i in idx]
            b = [values[i] for i in idx]
            st = paired(a, b)
            rows.append(
                [
                    cell.label,
                    label,
                    f"{sum(a) / len(a):.4f}",
                    f"{sum(b) / len(b):.4f}",
                    st["mean diff"],
                    st["95% CI"],
                ]
            )
    print("## By whether a train claim cites the same abstract\n")
    print(md_table(["cell", "test claims", "baseline", "cell nDCG@10", "diff", "95% CI"], rows))


if __name__ == "__main__":
    main()
