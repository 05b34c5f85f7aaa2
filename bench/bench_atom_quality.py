"""Benchmark: are the offline distiller's atoms clean, typed and self-contained on real documents?

Two corpora, each distilled chunk by chunk exactly as ingest does (chunk_source, ChunkContext with
the chunk's language), once with the distiller as it was before issue 15 (offline.py and
sentences.py of commit 9337532, loaded from git into temporary modules, fed what parse_pdf fed it:
ligatures mapped, NUL characters dropped) and once with the current tree (pages cleaned by
`ingest.layout.clean_pages` first):

1. GeoTopo (117-page German lecture notes, pypdf): atoms whose quote holds a running header
   ("8 1.2. METRISCHE RÄUME") or a bare page-number line (target 0); minus signs pypdf left as
   NUL: how many survive as a minus/superscript minus, how many pages are flagged damaged;
   "Definition N" blocks in the text vs those that became a `definition` atom (target >= 70/85);
   atom count and type mix.
2. The 181 pages of the Scrapinghub extraction benchmark (html/*.html.gz + ground-truth.json),
   through `parse_html` (trafilatura): junk = share of atoms whose quote is not inside the gold
   articleBody (both sides whitespace-collapsed, markdown emphasis/escape characters and inline
   tags dropped, quote/dash style unified), target <= 3%; coverage = share of gold sentences
   (>= 4 words) that lie inside some atom's quote, and inside an atom's quote or a passage (the
   page's chunks, which search returns too: docs/decisions/0006).

Data: $PEGAS_SHARED_DATA, else the first `shared/data` found above the repository root.
Run: .venv/bin/python bench/bench_atom_quality.py [--html-limit N] [--sample DOC]
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import types
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pegas_memory.config import load_settings  # noqa: E402
from pegas_memory.distill.offline import OfflineDistiller  # noqa: E402
from pegas_memory.distill.types import ChunkContext, DraftAtom  # noqa: E402
from pegas_memory.ingest.chunking import ParsedSource, Section, chunk_source  # noqa: E402
from pegas_memory.ingest.layout import clean_pages  # noqa: E402
from pegas_memory.ingest.sources import parse_html  # noqa: E402
from pegas_memory.text import detect_language  # noqa: E402

BEFORE_COMMIT = "9337532"
GEOTOPO = "docs/pdf/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
ALICE = "docs/epub/alice.epub"
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st"})
_HEADER = re.compile(r"^\d{1,3} \d+\.\d+\. [A-ZÄÖÜ ]{4,}$|^[ivx]{1,5}$|^\d{1,3}$", re.MULTILINE)
_DEF_BLOCK = re.compile(r"^Definition \d+", re.MULTILINE)
_MARKS = str.maketrans(
    {"«": '"', "»": '"', "“": '"', "”": '"', "„": '"', "’": "'", "‘": "'", "—": "-", "–": "-"}
    | dict.fromkeys("*_\\`")
)

Distill = Callable[[str, ChunkContext], list[DraftAtom]]


def shared_data() -> Path:
    if "PEGAS_SHARED_DATA" in os.environ:
        return Path(os.environ["PEGAS_SHARED_DATA"])
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    raise SystemExit("set PEGAS_SHARED_DATA to the shared data directory")


def old_distiller() -> Distill:
    """The offline distiller of BEFORE_COMMIT with its own (razdel-only) sentence splitter."""

    def load(path: str, name: str) -> types.ModuleType:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{BEFORE_COMMIT}:{path}"],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        spec = importlib.util.spec_from_loader(name, loader=None)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        exec(compile(source, path, "exec"), module.__dict__)
        return module

    sentences = load("pegas_memory/sentences.py", "_old_sentences")
    offline = load("pegas_memory/distill/offline.py", "_old_offline")
    offline.split_sentences = sentences.split_sentences  # type: ignore[attr-defined]
    distiller = offline.OfflineDistiller()
    return distiller.distill  # type: ignore[no-any-return]


def norm(text: str) -> str:
    text = re.sub(r"</?[a-z]{1,6}>", "", text)  # inline tags trafilatura keeps (<u>)
    return re.sub(r"\s+", " ", text.translate(_MARKS)).strip().casefold()


@dataclass
class Numbers:
    atoms: int = 0
    types: Counter[str] = field(default_factory=Counter)
    values: dict[str, Any] = field(default_factory=dict)


def distill_source(parsed: ParsedSource, distill: Distill) -> list[DraftAtom]:
    atoms: list[DraftAtom] = []
    for chunk in chunk_source(parsed, max_chunks=100_000):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        atoms.extend(distill(chunk.text, context))
    return atoms


def pdf_pages(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [(p.extract_text() or "").translate(_LIGATURES) for p in PdfReader(path).pages]


def pdf_source(pages: Sequence[str], uri: str) -> ParsedSource:
    sections = tuple(Section(t.strip(), f"p. {i + 1}") for i, t in enumerate(pages) if t.strip())
    return ParsedSource("pdf", uri, None, None, detect_language("\n".join(pages)[:4000]), None,
                        None, sections, "0")  # fmt: skip


def bench_geotopo(data: Path, distill: Distill, *, layout: bool) -> tuple[Numbers, list[DraftAtom]]:
    raw = pdf_pages(data / GEOTOPO)
    nul_total = sum(p.count("\x00") for p in raw)
    damaged = 0
    if layout:
        cleaned = clean_pages(raw)
        pages = [p.text for p in cleaned.pages]
        damaged = sum(p.damaged for p in cleaned.pages)
    else:
        pages = [p.replace("\x00", "") for p in raw]
    atoms = distill_source(pdf_source(pages, str(data / GEOTOPO)), distill)
    out = Numbers(len(atoms), Counter(a.type for a in atoms))
    out.values["header atoms"] = sum(bool(_HEADER.search(a.quote)) for a in atoms)
    text = "\n".join(pages)
    out.values["minus kept"] = f"{sum(text.count(c) for c in '−⁻')}/{nul_total}"
    out.values["damaged pages"] = damaged
    blocks = list(_DEF_BLOCK.finditer("\n".join(raw)))
    heads = {m[0] for m in blocks}
    found = {
        m[0] for a in atoms if a.type == "definition" for m in _DEF_BLOCK.finditer(a.quote)
    }  # fmt: skip
    out.values["definitions"] = f"{len(found & heads)}/{len(heads)}"
    return out, atoms


@dataclass
class PageScore:
    """One page's counts: atoms, junk atoms, gold sentences (>= 4 words) and those covered."""

    atoms: int = 0
    junk: int = 0
    loose_junk: int = 0
    sentences: int = 0
    covered: int = 0
    in_passages: int = 0  # covered by an atom's quote or by a passage (a chunk) of the page


def squash(text: str) -> str:
    """`norm` without any whitespace or zero-width character: the gold text has spaces inside
    quotes ('“ Dancing with the Stars.”') and U+200B that the page does not; a quote that is in
    the gold article but for those is not page furniture."""
    return re.sub(r"[\s\u200b\u200c\u200d\ufeff]+", "", norm(text))


def score_pages(
    data: Path, distill: Distill, limit: int | None, junk_out: list[str] | None = None
) -> tuple[dict[str, PageScore], list[DraftAtom]]:
    gold = json.loads((data / "docs/html/ground-truth.json").read_text(encoding="utf-8"))
    settings = load_settings(data_dir=tempfile.gettempdir())
    all_atoms: list[DraftAtom] = []
    pages: dict[str, PageScore] = {}
    from pegas_memory.sentences import split_sentences

    for key in sorted(gold)[:limit]:
        html = gzip.decompress((data / f"docs/html/html/{key}.html.gz").read_bytes())
        url = gold[key]["url"]
        body = norm(gold[key]["articleBody"])
        loose_body = squash(gold[key]["articleBody"])
        parsed = parse_html(html, settings=settings, uri=url, url=url)
        atoms = distill_source(parsed, distill)
        passages = "\n".join(norm(c.text) for c in chunk_source(parsed, max_chunks=100_000))
        all_atoms.extend(atoms)
        quotes = [norm(a.quote) for a in atoms]
        page = pages[key] = PageScore(atoms=len(atoms))
        page.junk = sum(q not in body for q in quotes)
        page.loose_junk = sum(squash(a.quote) not in loose_body for a in atoms)
        if junk_out is not None:
            junk_out.extend(
                f"{key}\t{a.type}\t{a.claim}"
                for a, q in zip(atoms, quotes, strict=True)
                if q not in body
            )
        quoted = "\n".join(quotes)
        for s in split_sentences(gold[key]["articleBody"]):
            if len(s.text.split()) >= 4:
                page.sentences += 1
                page.covered += norm(s.text) in quoted
                page.in_passages += norm(s.text) in quoted or norm(s.text) in passages
    return pages, all_atoms


def summary(pages: Sequence[PageScore]) -> dict[str, str]:
    atoms = sum(p.atoms for p in pages)
    junk = sum(p.junk for p in pages)
    loose = sum(p.loose_junk for p in pages)
    covered = sum(p.covered for p in pages)
    both = sum(p.in_passages for p in pages)
    sentences = sum(p.sentences for p in pages)
    return {
        "junk": f"{junk / max(1, atoms):.2%} ({junk} of {atoms})",
        "junk, gold whitespace ignored": f"{loose / max(1, atoms):.2%} ({loose} of {atoms})",
        "coverage": f"{covered / max(1, sentences):.1%} ({covered} of {sentences})",
        "coverage by atoms and passages": f"{both / max(1, sentences):.1%} ({both} of {sentences})",
    }


def bench_html(
    data: Path, distill: Distill, limit: int | None, junk_out: list[str] | None = None
) -> tuple[Numbers, list[DraftAtom]]:
    pages, all_atoms = score_pages(data, distill, limit, junk_out)
    out = Numbers(len(all_atoms), Counter(a.type for a in all_atoms))
    out.values.update(summary(list(pages.values())))
    return out, all_atoms


def furniture_split(data: Path, limit: int | None, seed: int, tuned: int) -> None:
    """HTML junk and coverage with the current distiller, page furniture pruned or not
    (`ingest.furniture.prune_furniture` replaced by a no-op), on all pages and separately on the
    pages the rules were tuned on (`tuned` picked by `seed`) and on the held-out rest."""
    import pegas_memory.ingest.html as html_mod

    distill = OfflineDistiller().distill
    keep = html_mod.prune_furniture
    html_mod.prune_furniture = lambda root: 0  # type: ignore[assignment]
    try:
        before, _ = score_pages(data, distill, limit)
    finally:
        html_mod.prune_furniture = keep
    after, _ = score_pages(data, distill, limit)
    keys = sorted(before)
    tune = set(random.Random(seed).sample(keys, min(tuned, len(keys))))
    parts = {
        f"all {len(keys)} pages": keys,
        f"{len(tune)} tuning pages (seed {seed})": [k for k in keys if k in tune],
        f"{len(keys) - len(tune)} held-out pages": [k for k in keys if k not in tune],
    }
    print("| pages | measure | furniture kept | furniture pruned |")
    print("|---|---|---|---|")
    for name, part in parts.items():
        b = summary([before[k] for k in part])
        a = summary([after[k] for k in part])
        for measure in b:
            print(f"| {name} | {measure} | {b[measure]} | {a[measure]} |")


def bench_epub(data: Path, distill: Distill) -> Numbers:
    """alice.epub: atoms (distinct claims, as ingest's exact dedup keeps them) and types."""
    from pegas_memory.ingest.epub import parse_epub

    settings = load_settings(data_dir=tempfile.gettempdir())
    parsed = parse_epub((data / ALICE).read_bytes(), settings=settings, uri=str(data / ALICE))
    atoms = list({a.claim: a for a in distill_source(parsed, distill)}.values())
    return Numbers(len(atoms), Counter(a.type for a in atoms))


def mix(numbers: Numbers) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(numbers.types.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html-limit", type=int, default=None)
    parser.add_argument("--only", choices=["before", "after"], default=None)
    parser.add_argument(
        "--furniture-split", type=int, metavar="SEED", default=None,
        help="only the HTML pages, page furniture pruned or not, tuning and held-out parts",
    )  # fmt: skip
    parser.add_argument("--tuned", type=int, default=120, help="pages in the tuning part")
    args = parser.parse_args()
    data = shared_data()
    if args.furniture_split is not None:
        furniture_split(data, args.html_limit, args.furniture_split, args.tuned)
        return
    runs: dict[str, tuple[Distill, bool]] = {
        "before": (old_distiller(), False),
        "after": (OfflineDistiller().distill, True),
    }
    rows: list[tuple[str, str, str, str]] = []
    results: dict[str, tuple[Numbers, Numbers, Numbers]] = {}
    for name, (distill, layout) in runs.items():
        if args.only and name != args.only:
            continue
        results[name] = (
            bench_geotopo(data, distill, layout=layout)[0],
            bench_html(data, distill, args.html_limit)[0],
            bench_epub(data, distill),
        )
    names = list(results)
    geo_keys = ["header atoms", "minus kept", "damaged pages", "definitions"]
    for key in geo_keys:
        rows.append(("GeoTopo PDF", key, *(str(results[n][0].values[key]) for n in names)))  # type: ignore[arg-type]
    rows.append(
        (
            "GeoTopo PDF",
            "atoms (types)",
            *(f"{results[n][0].atoms} ({mix(results[n][0])})" for n in names),
        )
    )  # type: ignore[arg-type]
    for key in (
        "junk",
        "junk, gold whitespace ignored",
        "coverage",
        "coverage by atoms and passages",
    ):
        rows.append(("181 HTML pages", key, *(str(results[n][1].values[key]) for n in names)))  # type: ignore[arg-type]
    rows.append(
        (
            "181 HTML pages",
            "atoms (types)",
            *(f"{results[n][1].atoms} ({mix(results[n][1])})" for n in names),
        )
    )  # type: ignore[arg-type]
    rows.append(
        ("alice.epub", "distinct atoms (types)",
         *(f"{results[n][2].atoms} ({mix(results[n][2])})" for n in names))
    )  # type: ignore[arg-type]  # fmt: skip
    print("| corpus | measure | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
