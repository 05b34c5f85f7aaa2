"""Re-distilling stored documents when the distiller changes (issue 15), on the embedded default.

Each document is ingested with the base commit's offline distiller (`--base`, default eb8a511 =
offline-v5; extracted with `git archive` and run in a child process on the chunks the working
tree cuts, its drafts replayed under its own version string), then ingested again, unchanged,
with the working tree's distiller: that re-distills it in place. Then once more (unchanged, the
same version now: the bytes-only path) and once with `redistill=true` (the same rules: nothing
may change). Reported: what each step did (atoms new / kept / superseded / stale / retyped), the
time of each step, and whether the slices have drifted from PostgreSQL afterwards.

Documents: doc-seed 81 (excluding 15, 61, 71) SciFact abstracts and TyDi ru passages as the graded
sample builds them (`--scifact`, `--ru`), plus cobra's README.md and gson's GsonDesignDocument.md
(none of them reserved). Timings are on a loaded, shared 2-core machine.

    python bench/bench_redistill.py [--base eb8a511] [--scifact 8] [--ru 8]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, embedded_service, log, md_table, shared_data_dir
from graded_sample import build_documents

from pegas_memory.app.requests import IngestRequest
from pegas_memory.distill.types import OFFLINE_VERSION, ChunkContext, DraftAtom
from pegas_memory.ingest.chunking import chunk_source
from pegas_memory.ingest.pipeline import IngestPipeline
from pegas_memory.ingest.sources import parse_source, read_source
from pegas_memory.outbox.reconcile import reconcile

EXTRA = ("cobra/README.md", "gson/GsonDesignDocument.md")
RESULTS = REPO_ROOT / "bench" / "results" / "redistill.md"

CHILD = """
import json, sys
from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import OFFLINE_VERSION, ChunkContext
chunks = json.load(open(sys.argv[1]))
d = OfflineDistiller()
out = []
for c in chunks:
    ctx = ChunkContext(title=c["title"], heading_path=tuple(c["path"]), language=c["language"])
    out.append([
        {"type": a.type, "claim": a.claim, "content": a.content, "confidence": a.confidence,
         "quote": a.quote, "quote_start": a.quote_start, "quote_end": a.quote_end,
         "language": a.language, "metadata": dict(a.metadata), "term": a.term}
        for a in d.distill(c["text"], ctx)
    ])
json.dump({"version": OFFLINE_VERSION, "drafts": out}, open(sys.argv[2], "w"))
"""


class Replay:
    """The base distiller's drafts for the chunks it was given, under its version string."""

    name = "offline"

    def __init__(self, version: str, drafts: dict[str, list[DraftAtom]]) -> None:
        self.prompt_version = version
        self.drafts = drafts

    def distill(self, text: str, context: ChunkContext) -> list[DraftAtom]:
        return list(self.drafts[text])


def base_drafts(base: str, chunks: list[dict[str, Any]]) -> tuple[str, dict[str, list[DraftAtom]]]:
    with tempfile.TemporaryDirectory(prefix="pegas-redistill-base-") as tmp:
        root = Path(tmp)
        archive = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "archive", base], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        (root / "in.json").write_text(json.dumps(chunks), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": tmp}
        subprocess.run(
            [sys.executable, "-c", CHILD, str(root / "in.json"), str(root / "out.json")],
            env=env,
            cwd=tmp,
            check=True,
        )
        got = json.loads((root / "out.json").read_text(encoding="utf-8"))
    drafts = {
        c["text"]: [DraftAtom(**{k: v for k, v in a.items()}) for a in atoms]
        for c, atoms in zip(chunks, got["drafts"], strict=True)
    }
    return str(got["version"]), drafts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="eb8a511")
    ap.add_argument("--scifact", type=int, default=8)
    ap.add_argument("--ru", type=int, default=8)
    args = ap.parse_args()
    data = shared_data_dir()
    folder = Path(tempfile.mkdtemp(prefix="pegas-redistill-docs-", dir="/tmp"))
    try:
        made = build_documents(data, folder, args.scifact, args.ru, 81, (15, 61, 71))[-2:]
        docs = [*made]
        for rel in EXTRA:
            target = folder / rel.replace("/", "-")
            shutil.copy(Path("/work/cache/repos") / rel, target)
            docs.append(target)
        with embedded_service("pegas-bench-redistill-", ingest_roots=[folder]) as svc:
            chunks: list[dict[str, Any]] = []
            for path in docs:
                parsed = parse_source(read_source(str(path), svc.settings), svc.settings)
                for c in chunk_source(parsed, max_chunks=svc.settings.max_chunks):
                    chunks.append(
                        {"text": c.text, "title": parsed.title, "path": list(c.heading_path),
                         "language": c.language}
                    )  # fmt: skip
            log(f"distilling {len(chunks)} chunks with {args.base}")
            version, drafts = base_drafts(args.base, chunks)
            older = IngestPipeline(
                svc.settings, svc.db, svc.runtime, lambda: Replay(version, drafts)
            )
            rows = []
            for path in docs:
                request = IngestRequest(source=str(path))
                steps = []
                forced = request.model_copy(update={"redistill": True})
                for label, pipeline, req in (
                    (f"ingest ({version})", older, request),
                    ("re-ingest", svc.pipeline, request),
                    ("re-ingest again", svc.pipeline, request),
                    ("redistill=true", svc.pipeline, forced),
                ):
                    log(f"{path.name}: {label}")
                    t0 = time.monotonic()
                    r = pipeline.ingest(req)
                    svc.runtime.worker().drain()
                    seconds = time.monotonic() - t0
                    what = "unchanged" if r.unchanged else r.redistilled or f"version {r.version}"
                    steps.append(
                        [path.name, label, what, r.atoms_new, r.atoms_kept, r.superseded,
                         r.marked_stale, r.atoms_retyped, f"{seconds:.2f}"]
                    )  # fmt: skip
                rows += steps
            drift = reconcile(svc.runtime)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    commit = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    table = md_table(
        ["document", "step", "answer", "new", "kept", "superseded", "stale", "retyped", "s"], rows
    )
    text = "\n".join(
        [
            f"## Re-distilling stored documents: {version} ({args.base}) -> {OFFLINE_VERSION}"
            f" ({commit})",
            "",
            "Each document ingested by the base distiller, then re-ingested unchanged by the"
            " working tree's (a re-distill in place), again (the bytes-only path), and with"
            " redistill=true (the same rules). Seconds include draining the outbox into both"
            " slices; loaded, shared 2-core machine (seven sessions), so times are indicative.",
            f"Slices against PostgreSQL afterwards: drift {drift.drift}, outbox pending"
            f" {drift.outbox_pending}.",
            "",
            table,
            "",
        ]
    )
    print(text)
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
