"""The standalone labelled set as a test (bench/labels/standalone/): every labelled sentence's
chunk is distilled offline; a sentence labelled `atom` must become an atom of its type and one
labelled `passage` must not, except the misses recorded in known-misses.json (what the
distiller still gets wrong, measured by bench/bench_standalone.py). A new miss fails; a
recorded miss that is fixed fails too, until it is taken out of the file, so the file only
shrinks. A sample of every third item runs by default; PEGAS_LABELS_ALL=1 runs them all."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pegas_memory.distill.offline import OfflineDistiller
from pegas_memory.distill.types import ChunkContext

LABELS = Path(__file__).resolve().parents[2] / "bench" / "labels" / "standalone"


def _items() -> list[dict[str, Any]]:
    items = [
        json.loads(line)
        for path in sorted(LABELS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return items if os.environ.get("PEGAS_LABELS_ALL") else items[::3]


def _key(item: dict[str, Any]) -> str:
    return f"{item['doc']}@{item['locator']}+{item['start']}"


def _outcome(item: dict[str, Any]) -> str:
    """ "ok", or what went wrong: "lost", "retyped:<type>", "promoted"."""
    context = ChunkContext(
        title=item["title"], heading_path=tuple(item["heading_path"]), language=item["language"]
    )
    atoms = OfflineDistiller().distill(item["context"], context)
    start, end = item["start"], item["start"] + len(item["sentence"])
    best, kind = 0, None
    for atom in atoms:
        overlap = min(end, atom.quote_end) - max(start, atom.quote_start)
        if overlap > best:
            best, kind = overlap, atom.type
    promoted = kind if best * 2 >= end - start else None
    if item["verdict"] == "atom":
        if promoted is None:
            return "lost"
        return "ok" if promoted == item["type"] else f"retyped:{promoted}"
    return "promoted" if promoted is not None else "ok"


def test_labelled_sentences_are_promoted_or_kept_in_their_passage_as_labelled() -> None:
    known = json.loads((LABELS / "known-misses.json").read_text(encoding="utf-8"))
    items = _items()
    assert len(items) >= 60  # the set is there and the sample is not empty
    new, fixed = [], []
    for item in items:
        outcome, recorded = _outcome(item), known.get(_key(item))
        if outcome != "ok" and outcome != recorded:
            new.append(f"{_key(item)}: {outcome} ({item['sentence'][:80]!r})")
        elif outcome == "ok" and recorded is not None:
            fixed.append(_key(item))
    assert not new, "new misses on the labelled set:\n" + "\n".join(new)
    assert not fixed, "fixed: take these out of known-misses.json:\n" + "\n".join(fixed)
