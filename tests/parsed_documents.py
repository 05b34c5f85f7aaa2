"""A document as `memory_ingest` reads it, without a database: `parse_file` writes the text into
an ingest root and parses it; `distil_document` distils it chunk by chunk with the offline
distiller, as the pipeline does; `claims_of` distils a bare text."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.config import load_settings
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext, DraftAtom
from pegas_memory.ingest.chunking import ParsedSource, chunk_source
from pegas_memory.ingest.sources import parse_source, read_source


def parse_file(root: Path, name: str, text: str) -> ParsedSource:
    """`text` written to `root/name` (its folders made) and parsed, `root` the ingest root."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    settings = load_settings(ingest_roots=[str(root)], data_dir=root / "data")
    return parse_source(read_source(str(path), settings), settings)


def claims_of(text: str, language: str = "en") -> list[str]:
    """The claims the offline distiller draws from `text` as one chunk with no title."""
    return [a.claim for a in OfflineDistiller().distill(text, ChunkContext(language=language))]


def distil_document(parsed: ParsedSource) -> tuple[list[DraftAtom], dict[str, int], list[str]]:
    """(atoms, drafts dropped by reason, each atom's chunk text) as ingest distils `parsed`."""
    out: list[DraftAtom] = []
    dropped: dict[str, int] = {}
    texts: list[str] = []
    for chunk in chunk_source(parsed):
        context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
        atoms, drops = OfflineDistiller().distill_counted(chunk.text, context)
        out += atoms
        texts += [chunk.text] * len(atoms)
        for reason, n in drops.items():
            dropped[reason] = dropped.get(reason, 0) + n
    return out, dropped, texts
