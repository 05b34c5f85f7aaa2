"""Benchmark: does memory_get_context hand the agent the answer? Whole articles ingested as
documents (the user's path), questions asked through `get_context`, and the answer string looked
for in what comes back.

XQuAD (../shared/data/ru/xquad) holds 48 Wikipedia articles, five paragraphs each, in Russian and
in English, with 1,190 questions whose answers are spans of one paragraph. Each article is
ingested as one markdown document (its paragraphs one after the other), so a document is several
chunks long and the answer sits somewhere inside it: what the small-to-big context shows around a
hit decides whether the agent sees it. Sets: `ru` (Russian questions over the Russian articles),
`en` (English over English), `en-ru` (English questions over the Russian articles, the Russian
answer looked for).

Per question and token budget, counted over the context's items whose citations name the gold
article (an answer like "308" may occur in another article by chance; that is not counted):

- **article found**: an item of the gold article is in the context at all (retrieval);
- **answer shown**: the answer string (case-folded, whitespace collapsed, ё as е) is in the text
  of such an item: its claim, quote or surrounding context;
- **answer shown, first item**: the same within the first item of the gold article;
- tokens: what the context costs (`tokens_estimate`); the call's median time in process (the
  query vectors are preloaded from the vector cache, so no embedding is timed).

The answer-shown share is what the agent can answer from; article-found minus answer-shown is
what small-to-big loses (the right document, the wrong part of it).

    PEGAS_SHARED_DATA=/work/shared/data python bench/bench_get_context.py [--sets ru,en,en-ru]
        [--budgets 500,1000,2000] [--questions 0] [--vector-cache FILE] [--label NAME]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import embedded_service, log, md_table, percentile, shared_data_dir
from bench_ingest_retrieval import VectorCache, drain

from pegas_memory.app.requests import ContextRequest, IngestRequest
from pegas_memory.app.service import MemoryService

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    answer: str
    article: str


def _norm(text: str) -> str:
    return _WS.sub(" ", text.casefold().replace("ё", "е")).strip()


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def load_set(root: Path, name: str) -> tuple[dict[str, str], list[Question]]:
    """(article id -> markdown text, questions) of one set."""
    d = root / "ru" / "xquad"
    corpus = d / ("corpus_en.jsonl" if name == "en" else "corpus.jsonl")
    paragraphs: dict[str, list[tuple[int, str]]] = {}
    for row in _rows(corpus):
        m = re.fullmatch(r"(xq\d+)p(\d+)", row["_id"])
        assert m is not None, row["_id"]
        paragraphs.setdefault(m[1], []).append((int(m[2]), row["text"].strip()))
    articles = {a: "\n\n".join(t for _, t in sorted(ps)) + "\n" for a, ps in paragraphs.items()}
    asked = _rows(d / ("queries.jsonl" if name == "ru" else "queries_en.jsonl"))
    answers = {r["_id"]: r["metadata"]["answer"] for r in _rows(d / "queries.jsonl")}
    if name == "en":
        answers = {r["_id"]: r["metadata"]["answer"] for r in asked}
    questions = []
    for r in asked:
        article = re.fullmatch(r"(xq\d+)p\d+", r["metadata"]["paragraph_id"])
        assert article is not None
        questions.append(Question(r["_id"], r["text"], answers[r["_id"]], article[1]))
    return articles, questions


@dataclass
class Tally:
    found: int = 0
    shown: int = 0
    first: int = 0
    tokens: int = 0
    items: int = 0
    n: int = 0
    ms: list[float] = field(default_factory=list)


class _Q:  # what VectorCache.load_into reads of a query
    def __init__(self, text: str) -> None:
        self.text = text


def run_set(
    service: MemoryService, articles: dict[str, str], questions: Sequence[Question],
    budgets: Sequence[int], label: str,
) -> tuple[dict[int, Tally], list[dict]]:  # fmt: skip
    article_of: dict[int, str] = {}
    t0 = time.monotonic()
    for n, (article, text) in enumerate(sorted(articles.items()), start=1):
        report = service.pipeline.ingest(IngestRequest(source=text, kind="markdown", title=None))
        assert report.document_id is not None, report
        article_of[report.document_id] = article
        if n % 10 == 0:
            log(f"{label}: ingested {n}/{len(articles)}")
    drain(service, label)
    seconds = time.monotonic() - t0
    log(f"{label}: {len(articles)} articles ingested and projected in {seconds:.0f} s")
    with service.db.connection() as conn:
        versions = {
            int(r["id"]): article_of[int(r["identity_id"])]
            for r in conn.execute("SELECT id, identity_id FROM pm_document").fetchall()
            if int(r["identity_id"]) in article_of
        }
        row = conn.execute("SELECT count(*) AS n FROM pm_chunk").fetchone()
        chunks = row["n"] if row else 0
    log(f"{label}: {chunks} chunks")
    tallies = {b: Tally() for b in budgets}
    misses: list[dict] = []
    for q in questions:
        answer = _norm(q.answer)
        for budget in budgets:
            started = time.perf_counter()
            result = service.get_context(
                ContextRequest(question=q.text, budget_tokens=budget, register_gap=False)
            )
            t = tallies[budget]
            t.ms.append((time.perf_counter() - started) * 1000)
            t.n += 1
            t.tokens += result.tokens_estimate
            t.items += len(result.items)
            gold = [
                item for item in result.items
                if any(versions.get(c.document_id or -1) == q.article for c in item.citations)
            ]  # fmt: skip
            texts = [
                _norm(" ".join([i.claim, i.context, *(c.quote for c in i.citations)])) for i in gold
            ]
            shown = [answer in t_ for t_ in texts]
            t.found += bool(gold)
            t.shown += any(shown)
            t.first += bool(shown and shown[0])
            if budget == max(budgets) and gold and not any(shown):
                misses.append({"q": q.text, "answer": q.answer, "items": [
                    {"store": i.store, "claim": i.claim[:200], "context": i.context[:300]}
                    for i in gold[:2]
                ]})  # fmt: skip
    return tallies, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="ru,en,en-ru")
    parser.add_argument("--budgets", default="500,1000,2000")
    parser.add_argument(
        "--questions", type=int, default=0, help="0: all 1,190 per set; N: N spread evenly"
    )
    parser.add_argument("--vector-cache", type=Path, default=None)
    parser.add_argument("--label", default="this build")
    parser.add_argument("--misses", type=Path, default=None, help="JSON of the unshown answers")
    args = parser.parse_args()
    root = shared_data_dir()
    budgets = [int(b) for b in args.budgets.split(",")]
    cache = VectorCache(args.vector_cache)
    rows = []
    all_misses: dict[str, list[dict]] = {}
    for name in args.sets.split(","):
        articles, questions = load_set(root, name)
        if args.questions and args.questions < len(questions):  # spread over the articles
            step = len(questions) / args.questions
            questions = [questions[int(i * step)] for i in range(args.questions)]
        with embedded_service("pegas-bench-context-") as service:
            cache.load_into(service, [_Q(q.text) for q in questions])  # type: ignore[misc]
            tallies, misses = run_set(service, articles, questions, budgets, name)
            cache.save_from(service)
        all_misses[name] = misses
        for budget, t in tallies.items():
            rows.append([
                name, budget, t.n, f"{t.found / t.n:.3f}", f"{t.shown / t.n:.3f}",
                f"{t.first / t.n:.3f}", f"{(t.found - t.shown) / t.n:.3f}",
                f"{t.tokens / t.n:.0f}", f"{t.items / t.n:.1f}", f"{percentile(t.ms, 50):.1f}",
            ])  # fmt: skip
    print(f"# memory_get_context on XQuAD articles ingested whole ({args.label})\n")
    print(md_table(
        ["set", "budget", "questions", "article found", "answer shown", "shown, first item",
         "found, not shown", "tokens", "items", "get_context p50 ms"],
        rows,
    ))  # fmt: skip
    if args.misses is not None:
        args.misses.write_text(json.dumps(all_misses, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
