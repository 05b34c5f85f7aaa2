"""A distiller of another commit, run beside the working tree's: the before/after benches of
what ingest stores (bench_self_contained, bench_carry, bench_markup).

A bench extracts the base commit with `git archive` (`base_tree`) and runs itself in a child
process with that tree first on PYTHONPATH (`run_child`), so the child imports the base
commit's `pegas_memory` and prints its atoms as JSON. This module imports nothing of
`pegas_memory` (and `_common` is not imported here), so it never puts the working tree ahead of
the base tree in the child.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def head_commit(root: Path) -> str:
    """The working tree's short commit id."""
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


@contextmanager
def base_tree(root: Path, commit: str) -> Iterator[Path]:
    """`commit`'s files in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="pegas-bench-base-") as tmp:
        archive = subprocess.run(["git", "-C", str(root), "archive", commit],
                                 capture_output=True, check=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        yield Path(tmp)


def run_child(script: str, pythonpath: Path, paths: list[str], roots: list[str]) -> Any:
    """What `script --emit OUT --roots ... --docs ...` writes to OUT, run with `pythonpath`
    first (a base tree, or the repository itself for the working tree)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    cmd = [sys.executable, str(Path(script).resolve()), "--emit", str(out), "--roots", *roots,
           "--docs", *paths]  # fmt: skip
    try:
        subprocess.run(cmd, env=env, check=True, cwd=str(pythonpath))
        return json.loads(out.read_text(encoding="utf-8"))
    finally:
        out.unlink(missing_ok=True)


def add_child_arguments(parser: argparse.ArgumentParser) -> None:
    """The hidden arguments `run_child` passes: where to write, which documents, which roots."""
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--docs", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--roots", nargs="*", help=argparse.SUPPRESS)


def emit_if_child(args: argparse.Namespace, distill: Callable[[list[str], list[str]], Any]) -> bool:
    """In the child (`--emit` given): write `distill(docs, roots)` as JSON and say so."""
    if not args.emit:
        return False
    result = distill(args.docs, args.roots)
    args.emit.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return True


def comparison_parser(description: str, base: str) -> argparse.ArgumentParser:
    """The arguments every before/after bench takes: `--base` (its default `base`) and `--out`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base", default=base, help="the commit whose distiller is 'before'")
    parser.add_argument("--out", type=Path, help="write the markdown here")
    return parser


def parse_or_emit(
    parser: argparse.ArgumentParser, distill: Callable[[list[str], list[str]], Any]
) -> argparse.Namespace | None:
    """The bench's arguments; None in the child, which has written `distill(docs, roots)`."""
    add_child_arguments(parser)
    args = parser.parse_args()
    return None if emit_if_child(args, distill) else args


def before_and_after(
    script: str, root: Path, base: str, paths: list[str], roots: list[str]
) -> tuple[Any, Any]:
    """What `script`'s child writes for the same documents with the `base` commit's tree first on
    PYTHONPATH, then with the working tree's (`root`); progress on stderr."""
    print(f"distilling {len(paths)} documents with {base}", file=sys.stderr, flush=True)
    with base_tree(root, base) as tree:
        before = run_child(script, tree, paths, roots)
    print(f"distilling with the working tree ({head_commit(root)})", file=sys.stderr, flush=True)
    return before, run_child(script, root, paths, roots)


def shared_data_dir() -> Path:
    """`_common.shared_data_dir()`, imported here only when called: in the parent, never in the
    child (`_common` imports the working tree's `pegas_memory`)."""
    from _common import shared_data_dir as shared

    return shared()


def publish(text: str, out: Path | None) -> None:
    """The report on stdout, and in `out` when given."""
    print(text)
    if out:
        out.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class Distilled:
    """One chunk of one document, and what the offline distiller made of it."""

    path: str
    parsed: Any  # pegas_memory.ingest.chunking.ParsedSource
    chunk: Any  # pegas_memory.ingest.chunking.Chunk
    context: Any  # pegas_memory.distill.types.ChunkContext
    atoms: list[Any]  # DraftAtom
    drops: dict[str, int]  # drafts dropped, by reason


def distilled_chunks(paths: list[str], roots: list[str], *, labels: bool = False,
                     skipped: dict[str, str] | None = None) -> Iterator[Distilled]:  # fmt: skip
    """Every chunk of every document, distilled as ingest does, by the `pegas_memory` first on
    PYTHONPATH (imported here, in the child). `labels` also reads Sphinx `:ref:` labels as their
    sections' titles, as the pipeline does (where the commit has it). A document with nothing
    to ingest (flask's changes.rst is one include directive) is skipped, its error in `skipped`."""
    from pegas_memory.config import load_settings
    from pegas_memory.distill.offline import OfflineDistiller
    from pegas_memory.distill.types import ChunkContext
    from pegas_memory.errors import IngestError
    from pegas_memory.ingest.chunking import chunk_source
    from pegas_memory.ingest.sources import parse_source, read_source

    resolve: Callable[[Any, Any], Any] | None = None
    if labels:
        try:  # absent before session 10
            from pegas_memory.distill.xrefs import labels_of, resolve_labels

            resolve = lambda atoms, parsed: resolve_labels(atoms, labels_of(parsed.metadata))  # noqa: E731
        except ImportError:
            pass
    with tempfile.TemporaryDirectory(prefix="pegas-child-") as tmp:
        settings = load_settings(ingest_roots=roots, data_dir=tmp)
        distiller = OfflineDistiller()
        counted = getattr(distiller, "distill_counted", None)
        for path in paths:
            try:
                parsed = parse_source(read_source(path, settings), settings)
            except IngestError as exc:
                if skipped is not None:
                    skipped[path] = str(exc)
                continue
            for chunk in chunk_source(parsed, max_chunks=settings.max_chunks):
                context = ChunkContext(parsed.title, chunk.heading_path, chunk.language)
                if counted is not None:
                    atoms, drops = counted(chunk.text, context)
                else:  # a base commit from before the drop counts
                    atoms, drops = distiller.distill(chunk.text, context), {}
                if resolve is not None:
                    atoms = resolve(atoms, parsed)
                yield Distilled(path, parsed, chunk, context, list(atoms), dict(drops))
