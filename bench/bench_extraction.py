"""Benchmark: how well and how fast ingest turns real documents into sections and chunks.

1. Extraction quality on the Scrapinghub article-extraction benchmark (181 real pages with gold
   article text, docs/html under the shared data): the text our ParsedSource stores (its sections
   joined) against plain `trafilatura.extract` on the same page in the same run, scored with the
   benchmark's own word-shingle F1 (evaluate.py: 4-gram shingles of `\\w+` tokens, per-page
   normalised tp/fp/fn, precision and recall averaged over pages).
2. Throughput of load_source + chunk_source on the 117-page PDF book and the EPUB (pages/s).

Data: $PEGAS_SHARED_DATA, default ../shared/data relative to the repository root.
Run: .venv/bin/python bench/bench_extraction.py [--limit N]
Prints markdown tables.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pegas_memory.config import load_settings  # noqa: E402
from pegas_memory.ingest.sources import chunk_source, load_source, parse_html  # noqa: E402

_TOKEN = re.compile(r"\w+", re.UNICODE)


def shared_data() -> Path:
    return Path(os.environ.get("PEGAS_SHARED_DATA", ROOT.parent / "shared" / "data"))


def shingles(text: str, n: int = 4) -> Counter[tuple[str, ...]]:
    tokens = _TOKEN.findall(text or "")
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)))


def tp_fp_fn(true: str, pred: str) -> tuple[float, float, float]:
    t, p = shingles(true), shingles(pred)
    t.pop((), None)
    p.pop((), None)
    tp = float(sum((t & p).values()))
    fp = float(sum((p - t).values()))
    fn = float(sum((t - p).values()))
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def scores(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    def precision(tp: float, fp: float, fn: float) -> float:
        if fp == fn == 0:
            return 1.0
        return 0.0 if tp == fp == 0 else tp / (tp + fp)

    def recall(tp: float, fp: float, fn: float) -> float:
        if fp == fn == 0:
            return 1.0
        return 0.0 if tp == fn == 0 else tp / (tp + fn)

    p = statistics.mean(precision(*r) for r in rows if r[0] + r[1] > 0)
    r = statistics.mean(recall(*r) for r in rows if r[0] + r[2] > 0)
    return p, r, 2 * p * r / (p + r)


def bench_html(data: Path, limit: int | None) -> None:
    import trafilatura

    gold = json.loads((data / "docs/html/ground-truth.json").read_text(encoding="utf-8"))
    settings = load_settings(data_dir=tempfile.gettempdir())
    ids = sorted(gold)[:limit]
    rows: dict[str, list[tuple[float, float, float]]] = {"ours": [], "trafilatura": []}
    seconds = {"ours": 0.0, "trafilatura": 0.0}
    errors = 0
    for key in ids:
        html = gzip.decompress((data / f"docs/html/html/{key}.html.gz").read_bytes())
        true = gold[key]["articleBody"]
        url = gold[key]["url"]
        extractors: dict[str, Callable[[bytes, str], str]] = {
            "ours": lambda page, url: parse_html(page, settings=settings, uri=url, url=url).text,
            "trafilatura": lambda page, url: trafilatura.extract(page) or "",
        }
        for name, run in extractors.items():
            start = time.perf_counter()
            try:
                pred = run(html, url)
            except Exception as exc:  # a failed page scores zero, and is counted
                print(f"{name} failed on {key}: {exc}", file=sys.stderr)
                pred, errors = "", errors + 1
            seconds[name] += time.perf_counter() - start
            rows[name].append(tp_fp_fn(true, pred))
    print(f"\n### Extraction quality: {len(ids)} real pages with gold text (shingle F1)\n")
    print("| extractor | precision | recall | F1 | ms/page |")
    print("|---|---|---|---|---|")
    labels = {
        "ours": "ours: ParsedSource text (trafilatura markdown, precision mode, no comments)",
        "trafilatura": "plain trafilatura.extract (defaults)",
    }
    for name in ("ours", "trafilatura"):
        p, r, f1 = scores(rows[name])
        ms = 1000 * seconds[name] / len(ids)
        print(f"| {labels[name]} | {p:.3f} | {r:.3f} | {f1:.3f} | {ms:.0f} |")
    if errors:
        print(f"\n{errors} extraction errors (scored as empty text)")


def bench_books(data: Path) -> None:
    docs = data / "docs"
    books = [
        ("PDF GeoTopo (117 pages)", docs / "pdf/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"),
        ("EPUB Alice (spine documents)", docs / "epub/alice.epub"),
    ]
    settings = load_settings(ingest_roots=[str(docs)], data_dir=tempfile.gettempdir())
    print("\n### Throughput of load_source + chunk_source (one process)\n")
    print("| source | pages | chars | chunks | load s | chunk s | pages/s | chunks/s |")
    print("|---|---|---|---|---|---|---|---|")
    for label, path in books:
        start = time.perf_counter()
        parsed = load_source(str(path), settings)
        loaded = time.perf_counter()
        chunks = chunk_source(parsed, max_chunks=settings.max_chunks)
        done = time.perf_counter()
        pages = int(parsed.metadata.get("pages", len(parsed.sections)))
        total = done - start
        print(
            f"| {label} | {pages} | {len(parsed.text)} | {len(chunks)} | {loaded - start:.2f} | "
            f"{done - loaded:.2f} | {pages / total:.1f} | {len(chunks) / total:.1f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # pypdf warns about fonts on every page of the book
    data = shared_data()
    if not (data / "docs").is_dir():
        sys.exit(f"no shared data at {data}; set PEGAS_SHARED_DATA")
    # Warm the language model and the sentence splitter so the first document is not charged.
    from pegas_memory.sentences import split_sentences
    from pegas_memory.text import detect_language

    detect_language("warm up the language identifier")
    split_sentences("Warm up. The splitter.")
    bench_html(data, args.limit)
    bench_books(data)


if __name__ == "__main__":
    main()
