"""A graded random sample of what `memory_ingest` stores, on documents nobody tuned on (issue 15).

The offline distiller was tuned on alice.epub, the GeoTopo PDF and the 181 web pages. This bench
ingests other documents through the real path (`MemoryService.ingest(IngestRequest(source=...))`
on the embedded default: embedded PostgreSQL, qdrant-edge, FalkorDB, the local embedding model,
the offline distiller), then draws a seeded random sample of the stored atoms:

- English: three sample PDFs (docs/pdf 004-pdflatex-4-pages, 006-pdflatex-outline,
  026-latex-multicolumn) and `--scifact` SciFact abstracts concatenated into one markdown
  document (one `##` heading per paper title), as a researcher would store a reading list;
- Russian: `--ru` TyDi QA GoldP passages (Russian Wikipedia) concatenated into one markdown
  document, one `##` heading per article title.

The documents are picked with a fixed seed (`--doc-seed`), so a new `--seed` draws a fresh sample
of the same atoms. `--exclude-doc-seed 15` leaves out every paper and article an earlier doc-seed
picked (the rules were tuned on those), and `--extra PATH` ingests more documents as they are (a
new document type: an .rst or README.md of a cloned repository).

For each sampled atom it writes the type, claim, the first citation's locator
and quote, and whether the quote is found in the source text at that locator, checked by code:
`exact` (the parsed source's text at the locator's section and character position is the quote),
`in section` (the quote is in that section, at another position), or `no`.

Grades are given by a person reading each atom, kept in `--grades` (a JSON object keyed by the
atom key the sample prints: {"junk": bool, "type": bool, "locator": bool, "why": str}). With the
grades present the markdown table and the totals are written to `--out`; a sampled atom without
a grade is listed as ungraded, so a regrade starts from the printed sample.

    python bench/graded_sample.py --seed 1515 [--grades bench/labels/graded-sample.json]
        [--out bench/results/graded-sample.md] [--dump /tmp/sample.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, embedded_service, log, shared_data_dir

from pegas_memory.app.requests import IngestRequest
from pegas_memory.app.service import MemoryService
from pegas_memory.ingest.chunking import ParsedSource
from pegas_memory.ingest.sources import parse_source, read_source

PDFS = (
    "docs/pdf/004-pdflatex-4-pages/pdflatex-4-pages.pdf",
    "docs/pdf/006-pdflatex-outline/pdflatex-outline.pdf",
    "docs/pdf/026-latex-multicolumn/multicolumn.pdf",
)
GRADING = """Criteria (graded by reading each atom; the same for every seed):
- **junk**: noise, a fragment, or meaningless without its context: the claim alone does not say
  what it is about (no subject, a pronoun or "this method"/"these factors"/"the film" whose
  referent is only in the sentences before). A study's sentence whose subject is named ("342
  cases", "10 patients") is not junk although the study is known only from the citation.
- **type right**: definition = defines a term; fact = a checkable statement (a finding, a
  property, an event, a number); text = aims, questions, method narrative, the rest. Between fact
  and text only a clear error counts (an aim or a question typed fact, a finding typed text).
- **quote found**: checked by code: the parsed source's text at the locator's section and
  character position is the quote (`exact`), or it is elsewhere in that section (`in section`).
- **locator useful**: a person can follow it to the passage (page or heading path, position) and
  its section name is the right one.
- **label glued on**: a heading or section label ("RESULTS", "2 Bar") glued onto the claim;
  noted, not counted as junk when the sentence is whole."""
_CHAR = re.compile(r"(?:^|, )char (\d+)$")


@dataclass(frozen=True)
class Sampled:
    key: str
    lang: str
    doc: str
    type: str
    claim: str
    locator: str
    quote: str
    found: str  # exact | in section | no


def atom_key(claim: str) -> str:
    return hashlib.sha1(claim.encode("utf-8")).hexdigest()[:10]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pick_documents(data: Path, scifact: int, ru: int, seed: int, exclude: tuple[int, ...] = ()
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """The SciFact abstracts and TyDi passages `seed` picks. The documents an `exclude` seed
    picked (with the default counts, 30 and 40, as the earlier samples were built) are taken out
    of the pools first, so a new sample is on documents nobody tuned on: same paper id, or same
    Wikipedia article title (TyDi has several passages of one article), is out. The excluded
    seeds are replayed in the order given, each on the pools the ones before it left, as those
    samples were built (doc-seed 61 was drawn `--exclude-doc-seed 15`: so `--exclude-doc-seed 15
    --exclude-doc-seed 61` takes out what it really picked)."""
    corpus = read_jsonl(data / "scifact/corpus.jsonl")
    tydi = read_jsonl(data / "ru/tydiqa_goldp/corpus.jsonl")
    for old in exclude:
        old_rng = random.Random(old)
        seen_ids = {p["_id"] for p in old_rng.sample(corpus, 30)}
        seen_titles = {p["title"].strip() for p in old_rng.sample(tydi, 40)}
        corpus = [p for p in corpus if p["_id"] not in seen_ids]
        tydi = [p for p in tydi if p["title"].strip() not in seen_titles]
    rng = random.Random(seed)
    return rng.sample(corpus, scifact), rng.sample(tydi, ru)


def build_documents(data: Path, folder: Path, scifact: int, ru: int, seed: int,
                    exclude: tuple[int, ...] = (), extra: tuple[Path, ...] = ()
                    ) -> list[Path]:  # fmt: skip
    """The documents to ingest: the three PDFs and the `extra` files as they are, two markdown
    files written here."""
    papers, passages = pick_documents(data, scifact, ru, seed, exclude)
    en = ["# SciFact abstracts (a reading list)", ""]
    for p in papers:
        en += [f"## {p['title'].strip()}", "", p["text"].strip(), ""]
    ru_lines = ["# Статьи Википедии (TyDi QA GoldP, русский)", ""]
    for p in passages:
        ru_lines += [f"## {p['title'].strip()}", "", p["text"].strip(), ""]
    (folder / "scifact-abstracts.md").write_text("\n".join(en), encoding="utf-8")
    (folder / "tydiqa-ru.md").write_text("\n".join(ru_lines), encoding="utf-8")
    return [
        *(data / p for p in PDFS),
        *extra,
        folder / "scifact-abstracts.md",
        folder / "tydiqa-ru.md",
    ]


def quote_found(parsed: ParsedSource, locator: str, quote: str) -> str:
    """Is `quote` in the parsed source at `locator`? The locator ends in "char N": the position
    in the whole text for text and markdown, in the page or chapter otherwise; a section carries
    its offset there (a page's outline sections, a chapter's inner sections); the section is
    the one whose locator starts the citation's."""
    m = _CHAR.search(locator)
    if m is None:
        return "no"
    pos = int(m[1])
    head = locator[: m.start()]
    in_section = False
    for s in parsed.sections:
        if s.locator and not (head == s.locator or head.startswith(s.locator + ",")):
            continue
        rel = pos - s.offset
        if s.text[rel : rel + len(quote)] == quote:
            return "exact"
        in_section = in_section or quote in s.text
    return "in section" if in_section else "no"


def ingest_all(service: MemoryService, paths: list[Path]) -> dict[str, dict[str, Any]]:
    reports: dict[str, dict[str, Any]] = {}
    for path in paths:
        log(f"ingesting {path.name}")
        result = service.ingest(IngestRequest(source=str(path)))
        reports[path.name] = {
            "document_id": result.document_id,
            "atoms_by_type": dict(result.atoms_by_type),
            "dropped": dict(result.dropped),
        }
        log(f"  {reports[path.name]}")
    return reports


def stored_atoms(service: MemoryService) -> list[dict[str, Any]]:
    """Every atom with its first citation (the one a reader sees first) and its document."""
    with service.db.connection() as conn:
        rows = conn.execute(
            """SELECT DISTINCT ON (a.id) a.id, a.type, a.claim, a.language,
                      c.locator, c.quoted_text, d.uri
                 FROM pm_atom a
                 JOIN pm_citation c ON c.atom_id = a.id
                 JOIN pm_document d ON d.id = c.doc_id
                ORDER BY a.id, c.id"""
        ).fetchall()
    return [dict(r) for r in rows]


def draw(atoms: list[dict[str, Any]], parsed: dict[str, ParsedSource], seed: int, n_en: int,
         n_ru: int) -> list[Sampled]:  # fmt: skip
    rng = random.Random(seed)
    out: list[Sampled] = []
    for lang, n in (("en", n_en), ("ru", n_ru)):
        pool = [a for a in atoms if a["language"] == lang]
        for a in sorted(rng.sample(pool, min(n, len(pool))), key=lambda a: a["id"]):
            source = parsed[a["uri"]]
            out.append(
                Sampled(
                    key=atom_key(a["claim"]),
                    lang=lang,
                    doc=Path(source.uri).name if source.kind != "text" else source.title or "",
                    type=a["type"],
                    claim=a["claim"],
                    locator=a["locator"],
                    quote=a["quoted_text"],
                    found=quote_found(source, a["locator"], a["quoted_text"]),
                )
            )
    return out


def cell(text: str, limit: int = 260) -> str:
    text = re.sub(r"\s+", " ", text).strip().replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(sample: list[Sampled], grades: dict[str, dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        f"## Seed {meta['seed']} (commit {meta['commit']}"
        + (f", doc-seed {meta['doc_seed']}" if "doc_seed" in meta else "")
        + (f" without doc-seed {meta['exclude_doc_seed']}" if meta.get("exclude_doc_seed") else "")
        + ")",
        "",
        f"Atoms stored: {meta['atoms']}; by language {meta['by_lang']}. Per document "
        "(atoms by type, drafts dropped by reason):",
        "",
    ]
    for name, rep in meta["reports"].items():
        lines.append(f"- `{name}`: {rep['atoms_by_type']}, dropped {rep['dropped']}")
    lines += ["", GRADING, ""]
    yn = {True: "ok", False: "**no**"}
    totals: dict[str, dict[str, int]] = {}
    for lang in ("en", "ru"):
        rows = [s for s in sample if s.lang == lang]
        lines += [
            f"### {lang} ({len(rows)} atoms)",
            "",
            "| # | doc | type | claim | locator | quote found | junk | type right | locator useful "
            "| glued label | why |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        t = totals.setdefault(lang, {"n": 0, "graded": 0, "junk": 0, "type": 0, "quote": 0,
                                      "locator": 0, "glued": 0})  # fmt: skip
        for i, s in enumerate(rows, 1):
            g = grades.get(s.key)
            t["n"] += 1
            t["quote"] += s.found == "exact"
            if g is None:
                marks = ["ungraded"] * 3 + ["", ""]
            else:
                t["graded"] += 1
                t["junk"] += bool(g["junk"])
                t["type"] += bool(g["type"])
                t["locator"] += bool(g["locator"])
                t["glued"] += bool(g.get("glued"))
                marks = [("**junk**" if g["junk"] else "ok"), yn[bool(g["type"])],
                         yn[bool(g["locator"])], "glued" if g.get("glued") else "",
                         cell(g.get("why", ""), 120)]  # fmt: skip
            lines.append(
                f"| {i} | {cell(s.doc, 24)} | {s.type} | {cell(s.claim)} | {cell(s.locator, 170)} "
                f"| {s.found} | " + " | ".join(marks) + " |"
            )
        lines.append("")
    lines += [
        "### Totals",
        "",
        "| language | atoms | graded | junk | type right | quote found (exact) | locator useful "
        "| label glued on |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for lang, t in totals.items():
        g = max(1, t["graded"])
        lines.append(
            f"| {lang} | {t['n']} | {t['graded']} | {t['junk']} ({t['junk'] / g:.0%}) "
            f"| {t['type']} ({t['type'] / g:.0%}) "
            f"| {t['quote']} ({t['quote'] / max(1, t['n']):.0%}) "
            f"| {t['locator']} ({t['locator'] / g:.0%}) | {t['glued']} ({t['glued'] / g:.0%}) |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1515)
    parser.add_argument("--doc-seed", type=int, default=15)
    parser.add_argument("--scifact", type=int, default=30, help="SciFact abstracts (English)")
    parser.add_argument("--ru", type=int, default=40, help="TyDi QA passages (Russian)")
    parser.add_argument("--n-en", type=int, default=50)
    parser.add_argument("--n-ru", type=int, default=50)
    parser.add_argument(
        "--exclude-doc-seed",
        type=int,
        action="append",
        default=[],
        help="leave out the documents this doc-seed picked (repeatable)",
    )
    parser.add_argument("--extra", type=Path, action="append", default=[],
                        help="another document to ingest as it is (repeatable)")  # fmt: skip
    labels = REPO_ROOT / "bench/labels/graded-sample.json"
    parser.add_argument("--grades", type=Path, default=labels)
    parser.add_argument("--out", type=Path, help="write the graded table here (appended)")
    parser.add_argument("--dump", type=Path, help="write the sample as JSON here, for grading")
    parser.add_argument("--from-dump", type=Path, help="render a dumped sample, no ingest")
    args = parser.parse_args()
    grades = json.loads(args.grades.read_text(encoding="utf-8")) if args.grades.exists() else {}
    if args.from_dump:
        dumped = json.loads(args.from_dump.read_text(encoding="utf-8"))
        sample = [Sampled(**s) for s in dumped["sample"]]
        write(render(sample, grades, dumped["meta"]), args.out)
        return

    data = shared_data_dir()
    commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="pegas-graded-") as tmp:
        folder = Path(tmp)
        extra = tuple(p.resolve() for p in args.extra)
        paths = build_documents(data, folder, args.scifact, args.ru, args.doc_seed,
                                tuple(args.exclude_doc_seed), extra)  # fmt: skip
        roots = [str(data / "docs/pdf"), str(folder), *sorted({str(p.parent) for p in extra})]
        with embedded_service("pegas-bench-graded-", ingest_roots=roots) as service:
            reports = ingest_all(service, paths)
            atoms = stored_atoms(service)
            parsed: dict[str, ParsedSource] = {}
            for path in paths:
                raw = read_source(str(path), service.settings)
                parsed[raw.uri] = parse_source(raw, service.settings)
    sample = draw(atoms, parsed, args.seed, args.n_en, args.n_ru)
    by_lang: dict[str, int] = {}
    for a in atoms:
        by_lang[a["language"]] = by_lang.get(a["language"], 0) + 1
    meta = {"seed": args.seed, "commit": commit, "atoms": len(atoms), "by_lang": by_lang,
            "reports": reports, "doc_seed": args.doc_seed,
            "exclude_doc_seed": args.exclude_doc_seed}  # fmt: skip
    if args.dump:
        dumped = {"meta": meta, "sample": [asdict(s) for s in sample]}
        args.dump.write_text(json.dumps(dumped, ensure_ascii=False, indent=1), encoding="utf-8")
    write(render(sample, grades, meta), args.out)


def write(table: str, out: Path | None) -> None:
    if out:
        with out.open("a", encoding="utf-8") as f:
            f.write("\n" + table)
    print(table)


if __name__ == "__main__":
    main()
