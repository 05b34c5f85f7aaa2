"""Draws the unlabelled sample of the standalone labelled set (bench/labels/standalone/).

Each document in the cache folder (default /work/cache/unseen-docs; public documents of kinds
the distiller was not tuned on, listed in bench/labels/standalone/SOURCES.md) is parsed and
chunked exactly as `memory_ingest` does (`load_source`, `chunk_source`), its chunks' sentences
are split with razdel, and a seeded random sample of sentences is drawn per document. Each item
keeps its whole chunk as context, so the labelled set runs without the documents (the test and
`bench/bench_standalone.py` distil the chunk again). Labels are added by a grader who does not
see what any distiller made of the sentence.

Run: .venv/bin/python bench/standalone_sample.py [--cache DIR] [--per-doc-en 20]
     [--per-doc-ru 35] [--seed 2026] > /tmp/sample.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from razdel import sentenize

from pegas_memory.config import Settings
from pegas_memory.errors import IngestError
from pegas_memory.ingest.chunking import chunk_source
from pegas_memory.ingest.sources import load_source


def sample(cache: Path, per_doc: int | dict[str, int], seed: int) -> list[dict[str, object]]:
    """`per_doc` random sentences of each document in `cache`, with their chunk."""
    settings = Settings(ingest_roots=(str(cache),))
    items: list[dict[str, object]] = []
    for path in sorted(p for p in cache.iterdir() if p.suffix in (".pdf", ".md", ".epub", ".html")):
        try:
            parsed = load_source(str(path), settings)
        except IngestError as exc:  # a finding too: SOURCES.md says which and why
            print(f"skipped {path.name}: {exc}", file=sys.stderr)
            continue
        chunks = chunk_source(parsed)
        pool = [
            (chunk, s)
            for chunk in chunks
            for s in sentenize(chunk.text)
            if len(s.text.split()) >= 3
        ]
        rng = random.Random(f"{seed}:{path.name}")
        n = per_doc[path.stem.split("-", 1)[0]] if isinstance(per_doc, dict) else per_doc
        for chunk, s in sorted(rng.sample(pool, min(n, len(pool))), key=lambda p: p[0].ord):
            items.append(
                {
                    "doc": path.stem,
                    "language": path.stem.split("-", 1)[0],
                    "title": parsed.title,
                    "heading_path": list(chunk.heading_path),
                    "locator": chunk.locator,
                    "context": chunk.text,
                    "start": s.start,
                    "sentence": s.text,
                }
            )
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/unseen-docs"))
    parser.add_argument("--per-doc-en", type=int, default=20)
    parser.add_argument("--per-doc-ru", type=int, default=35)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    per_doc = {"en": args.per_doc_en, "ru": args.per_doc_ru}
    for item in sample(args.cache, per_doc, args.seed):
        sys.stdout.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
