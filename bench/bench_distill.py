"""Benchmark of the offline distiller: throughput and atom mix on real English and Russian text,
and definition detection on a small labelled set; prints markdown tables.

1. Real text (read from $PEGAS_SHARED_DATA, default ../shared/data next to the repository):
   - web articles: the gold article text of the 181 pages in docs/html/ground-truth.json, cut into
     chunks of about 1,500 characters at paragraph breaks;
   - XQuAD paragraphs, English (corpus_en.jsonl) and Russian (corpus.jsonl), 240 each;
   - TyDi QA ru GoldP passages (778), title as context.
   For each: chunks, characters/s, chunks/s, atoms per chunk, the share of each atom type, and the
   share of atoms whose quote is exactly `chunk[quote_start:quote_end]` (must be 100 %).
2. Definition detection: precision and recall of the `definition` type (and of the term) on the
   labelled sentences in LABELLED below (English and Russian, definitions and near misses).

Run: .venv/bin/python bench/bench_distill.py   (one process, one core)
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ATOM_TYPES, ChunkContext

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("PEGAS_SHARED_DATA", ROOT.parent / "shared" / "data"))

# (sentence, expected term or None for "not a definition")
LABELLED: list[tuple[str, str | None]] = [
    ("Entropy is a measure of the uncertainty of a random variable.", "Entropy"),
    ("A monad is a monoid in the category of endofunctors.", "monad"),
    ("Photosynthesis is the process by which plants make sugar from light.", "Photosynthesis"),
    ("Latency refers to the delay between a request and its response.", "Latency"),
    ("An abelian group is defined as a group whose operation is commutative.", "abelian group"),
    ("RAM stands for random-access memory.", "RAM"),
    ("A number divisible only by one and itself is called a prime.", "prime"),
    ("Idempotence means that repeating an operation changes nothing.", "Idempotence"),
    ("Overfitting denotes a model that memorises noise in its training data.", "Overfitting"),
    ("The mitochondrion is an organelle that produces most of the cell's energy.", "mitochondrion"),
    ("This is a problem for every team that ships weekly.", None),
    ("It is a good idea to back up the database first.", None),
    ("The weather is nice today in the city centre.", None),
    ("Shannon published the theory in 1948 at Bell Labs.", None),
    ("The results are shown in the table below.", None),
    ("There are three kinds of atoms in this system.", None),
    ("Python 3.11 is faster than Python 3.10 on most benchmarks.", None),
    ("Our method is the first to solve the task without labels.", None),
    ("Энтропия — это мера неопределённости.", "Энтропия"),
    ("Энтропия — мера неопределённости системы.", "Энтропия"),
    ("Фотосинтез (от греч. φῶς — свет) — процесс образования органических веществ.", "Фотосинтез"),
    ("Окружностью называется множество точек, равноудалённых от центра.", "Окружностью"),
    ("Множество точек, равноудалённых от центра, называется окружностью.", "окружностью"),
    ("Под энтропией понимается мера хаоса системы.", "энтропией"),
    ("Производная определяется как предел отношения приращения функции к приращению аргумента.",
     "Производная"),
    ("Алгоритм — конечная последовательность шагов, решающая задачу.", "Алгоритм"),
    ("Термин «правовое государство» означает государство, подчинённое праву.",
     "правовое государство"),
    ("Москва — столица России.", "Москва"),
    ("Это было давно, и все об этом забыли.", None),
    ("Москва — Санкт-Петербург: поезд идёт четыре часа.", None),
    ("Роберт фон Моль популяризовал термин в 1832 году.", None),
    ("Они называют это успехом, хотя результат скромный.", None),
    ("В 1865 году Клаузиус ввёл понятие энтропии.", None),
    ("Результаты эксперимента приведены в таблице ниже.", None),
]  # fmt: skip


def chunks_of(text: str, size: int = 1500) -> Iterator[str]:
    """Paragraph-aligned chunks of about `size` characters (a stand-in for the real chunker)."""
    current = ""
    for paragraph in text.split("\n\n"):
        if current and len(current) + len(paragraph) > size:
            yield current
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current.strip():
        yield current


def read_jsonl(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def corpora() -> list[tuple[str, list[tuple[str, ChunkContext]]]]:
    sets: list[tuple[str, list[tuple[str, ChunkContext]]]] = []
    gold = json.loads((DATA / "docs" / "html" / "ground-truth.json").read_text(encoding="utf-8"))
    web = [
        (chunk, ChunkContext(title=page.get("title") or None))
        for page in gold.values()
        for chunk in chunks_of(page.get("articleBody") or "")
    ]
    sets.append(("web articles (181 pages)", web))
    xquad = DATA / "ru" / "xquad"
    en = read_jsonl(xquad / "corpus_en.jsonl")
    sets.append(("XQuAD paragraphs en", [(d["text"], ChunkContext()) for d in en]))
    ru = read_jsonl(xquad / "corpus.jsonl")
    sets.append(("XQuAD paragraphs ru", [(d["text"], ChunkContext()) for d in ru]))
    tydi = read_jsonl(DATA / "ru" / "tydiqa_goldp" / "corpus.jsonl")
    sets.append(
        ("TyDi QA ru passages", [(d["text"], ChunkContext(title=d["title"])) for d in tydi])
    )
    return sets


def throughput_table(distiller: OfflineDistiller) -> list[str]:
    short = {"definition": "def", "logical_rule": "rule"}
    head = " | ".join(f"{short.get(t, t)} %" for t in ATOM_TYPES)
    rows = [
        f"| set | chunks | kchars/s | chunks/s | atoms/chunk | {head} | exact quotes |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(ATOM_TYPES) + "---:|",
    ]
    for name, chunks in corpora():
        types: Counter[str] = Counter()
        exact = total = chars = 0
        started = time.perf_counter()
        for text, context in chunks:
            chars += len(text)
            for atom in distiller.distill(text, context):
                total += 1
                types[atom.type] += 1
                exact += text[atom.quote_start : atom.quote_end] == atom.quote
        seconds = time.perf_counter() - started
        shares = " | ".join(f"{100 * types[t] / max(total, 1):.1f}" for t in ATOM_TYPES)
        rows.append(
            f"| {name} | {len(chunks)} | {chars / seconds / 1000:.0f} | "
            f"{len(chunks) / seconds:.0f} | {total / max(len(chunks), 1):.1f} | {shares} | "
            f"{100 * exact / max(total, 1):.1f} % |"
        )
    return rows


def definition_table(distiller: OfflineDistiller) -> list[str]:
    rows = [
        "| language | sentences | definitions (gold) | precision | recall | term exact |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for language, cyrillic in (("en", False), ("ru", True)):
        cases = [(s, t) for s, t in LABELLED if any("а" <= c <= "я" for c in s) == cyrillic]
        tp = fp = fn = terms = 0
        for sentence, term in cases:
            found = [
                a for a in distiller.distill(sentence, ChunkContext()) if a.type == "definition"
            ]
            if found and term:
                tp += 1
                terms += found[0].metadata.get("term") == term
            elif found:
                fp += 1
            elif term:
                fn += 1
        gold = sum(t is not None for _s, t in cases)
        rows.append(
            f"| {language} | {len(cases)} | {gold} | {tp / max(tp + fp, 1):.2f} | "
            f"{tp / max(tp + fn, 1):.2f} | {terms}/{tp} |"
        )
    return rows


def main() -> None:
    distiller = OfflineDistiller()
    distiller.distill("Warm-up: the language model loads once.", ChunkContext())
    print("## Offline distiller on real text (one process)\n")
    print("\n".join(throughput_table(distiller)))
    print("\n## Definition detection on the labelled sentences\n")
    print("\n".join(definition_table(distiller)))


if __name__ == "__main__":
    main()
