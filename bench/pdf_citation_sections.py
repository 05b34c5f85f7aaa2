"""Benchmark: do PDF citations name the outline section their passage is under?

Every sample PDF of $PEGAS_SHARED_DATA/docs/pdf is parsed (`parse_pdf`), chunked and distilled
by the offline distiller exactly as ingest does, once with a base commit (`--base`, default
main) and once with the working tree (`_child`). Per PDF: outline entries, sections, atoms, the
distinct section paths cited, atoms whose claim starts with a heading line glued on ("3 Baz
Hello, ..."), definitions, and whether each citation's "char N" finds its quote in the parsed
sections (exact). For pdflatex-outline.pdf (9 numbered sections "N Foo|Bar|Baz", several per
page) the truth is known from the printed heading lines: an atom's section is the last heading
line above its position on its page (or the one carried from earlier pages); the table counts
citations naming that section.

Run: PYTHONPATH=. .venv/bin/python bench/pdf_citation_sections.py [--base main] [--out FILE]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from _child import before_and_after, head_commit, parse_or_emit, publish, shared_data_dir

ROOT = Path(__file__).resolve().parent.parent
_HEADING = re.compile(r"(?m)^(\d+) (Foo|Bar|Baz)$")
_CHAR = re.compile(r"char (\d+)$")


def emit(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Per PDF: its parse, and every atom with its citation locator (run in the child)."""
    import tempfile

    from pypdf import PdfReader

    from pegas_memory.config import load_settings
    from pegas_memory.distill.offline import OfflineDistiller
    from pegas_memory.distill.types import ChunkContext
    from pegas_memory.ingest.chunking import chunk_source, citation_locator
    from pegas_memory.ingest.layout import clean_pages
    from pegas_memory.ingest.pdf import parse_pdf

    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pegas-pdfsec-") as tmp:
        settings = load_settings(ingest_roots=roots, data_dir=tmp)
        distiller = OfflineDistiller()
        for path in paths:
            data = Path(path).read_bytes()
            password = "openpassword" if "password" in path else None
            try:
                parsed = parse_pdf(data, settings=settings, uri=path, password=password)
            except Exception as exc:  # an encrypted sample without its password, ...
                out.append({"path": path, "error": f"{type(exc).__name__}: {exc}"[:200]})
                continue
            reader = PdfReader(path)
            if reader.is_encrypted:
                reader.decrypt(password or "")
            raw = [(p.extract_text() or "") for p in reader.pages]
            pages = [p.text.strip() for p in clean_pages(raw).pages]
            atoms = []
            for chunk in chunk_source(parsed, max_chunks=settings.max_chunks):
                context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
                for atom in distiller.distill(chunk.text, context):
                    locator = citation_locator(chunk, atom.quote_start)
                    found = any(
                        s.locator == chunk.section_locator
                        and s.text[int(m[1]) - s.offset :].startswith(atom.quote)
                        for m in [_CHAR.search(locator)]
                        if m
                        for s in parsed.sections
                    )
                    atoms.append({"type": atom.type, "claim": atom.claim, "locator": locator,
                                  "page": chunk.section_locator, "path": chunk.heading_path,
                                  "found": found})  # fmt: skip
            titles = sorted({t for s in parsed.sections for t in s.heading_path})
            out.append({"path": path, "sections": len(parsed.sections), "pages": pages,
                        "titles": titles, "atoms": atoms})  # fmt: skip
    return out


def truth(pages: list[str], page: str, pos: int) -> str | None:
    """The outline PDF's section above position `pos` of page "p. N" (its printed headings)."""
    n = int(page.split()[1])
    for index in range(n - 1, -1, -1):
        text = pages[index] if index < len(pages) else ""
        heads = [m for m in _HEADING.finditer(text) if index < n - 1 or m.start() < pos]
        if heads:
            return heads[-1][2]
    return None


def summary(doc: dict[str, Any]) -> dict[str, Any]:
    if "error" in doc:
        return {"error": doc["error"]}
    atoms = doc["atoms"]
    glued = re.compile(
        r"^\W*(\d+(\.\d+)*\.?\s+)*(" + "|".join(re.escape(t) for t in doc["titles"]) + r")\b"
        if doc["titles"]
        else r"(?!)"
    )
    row: dict[str, Any] = {
        "sections": doc["sections"],
        "atoms": len(atoms),
        "paths": len({tuple(a["path"]) for a in atoms}),
        "glued": sum(bool(glued.match(a["claim"])) for a in atoms),
        "definitions": sum(a["type"] == "definition" for a in atoms),
        "exact": sum(a["found"] for a in atoms),
    }
    if "outline" in doc["path"]:
        right = 0
        for a in atoms:
            pos = int(_CHAR.search(a["locator"])[1])  # type: ignore[index]
            want = truth(doc["pages"], a["page"], pos)
            right += bool(a["path"]) and a["path"][-1] == want
        row["right section"] = right
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--out", type=Path)
    args = parse_or_emit(parser, emit)
    if args is None:  # the child: it read the PDFs with the PYTHONPATH commit
        return
    folder = shared_data_dir() / "docs/pdf"
    paths = sorted(str(p) for p in folder.glob("*/*.pdf"))
    roots = [str(folder)]
    before, after = before_and_after(__file__, ROOT, args.base, paths, roots)
    keys = ["sections", "atoms", "paths", "right section", "glued", "definitions", "exact"]
    lines = [
        f"base {args.base} vs working tree {head_commit(ROOT)} (+ uncommitted changes)",
        "",
        "| PDF | " + " | ".join(keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for b, h in zip(before, after, strict=True):
        sb, sh = summary(b), summary(h)
        name = Path(b["path"]).name
        if "error" in sb or "error" in sh:
            lines.append(f"| {name} | {sb.get('error') or sh.get('error')} |" + " |" * len(keys))
            continue
        cells = [f"{sb[k]} → {sh[k]}" if k in sb else "" for k in keys]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
