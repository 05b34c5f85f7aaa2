"""Benchmark: which claims carry their section's subject, before and after (issue 15, scope 2).

`distill/context.py` puts the section's subject in front of a claim that does not stand alone
("Оренбург: в 1743 году ..."). This bench distils, exactly as ingest does (`parse_source`,
`chunk_source`, a `ChunkContext` per chunk), the documents one may tune on:

- doc-seeds 15, 61, 71 and 81 (each without the documents of the seeds before it) of
  `bench/graded_sample.py`: 30 SciFact abstracts (en) and 40 TyDi QA Russian Wikipedia passages
  each, with the sample PDFs;
- flask's `docs/*.rst`, cobra's `README.md`, and the extras of samples 7171 and 8181 (gson's
  `GsonDesignDocument.md` and `README.md`, express's `Readme.md`, sqlalchemy's `README.rst`,
  XQuAD ru articles 0-5 as `/tmp/xquad-ru.md` and `/tmp/xquad-ru-b.md`), when present,

once with the distiller of a base commit (`--base`, `git archive` into a temporary folder, run in
a child process) and once with the working tree. Atoms are matched by document, chunk and quote
span; for each language it counts the claims that carry a subject before and after and lists
every claim whose carry changed. `--show` of them (drawn with `--seed`) are printed with the
subject and the quote, for a reader to grade as right / redundant / wrong: whether a carry is
right is for a reader, not for a rule written next to the rule it checks.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/bench_carry.py --base 91ecaf7
     [--seed 7] [--show 30] [--out bench/results/carry.md]
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

import _child

ROOT = Path(__file__).resolve().parent.parent
REPOS = Path("/work/cache/repos")


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every atom of every chunk, as ingest distills them (run in the child process)."""
    try:
        from pegas_memory.distill.carry import topic
    except ImportError:  # a base commit from before distill/carry.py
        from pegas_memory.distill.context import topic  # type: ignore[attr-defined,no-redef]

    return [
        {
            "doc": d.path,
            "chunk": d.chunk.ord,
            "lang": atom.language,
            "type": atom.type,
            "claim": atom.claim,
            "quote": atom.quote,
            "span": [atom.quote_start, atom.quote_end],
            "subject": atom.metadata.get("subject"),
            "why": atom.metadata.get("context"),
            "topic": topic(d.context),
        }
        for d in _child.distilled_chunks(paths, roots)
        for atom in d.atoms
    ]


# The doc-seeds one may tune on, each without the documents of the seeds before it (as the
# graded samples 6161, 7171 and 8181 drew them), and those samples' extra documents.
_DOC_SEEDS = ((15, ()), (61, (15,)), (71, (15, 61)), (81, (15, 61, 71)))
_TUNABLE_EXTRAS = [
    REPOS / "gson/GsonDesignDocument.md", REPOS / "express/Readme.md",
    REPOS / "sqlalchemy/README.rst", REPOS / "gson/README.md",
    Path("/tmp/xquad-ru.md"), Path("/tmp/xquad-ru-b.md"),  # XQuAD ru articles 0-2 and 3-5
]  # fmt: skip


def documents(data: Path, tmp: Path) -> tuple[list[str], list[str]]:
    """The paths to distil and the ingest roots they need (see the module docstring)."""
    from graded_sample import build_documents

    paths: list[str] = []
    roots = [str(data / "docs/pdf")]
    for seed, exclude in _DOC_SEEDS:
        folder = tmp / f"doc-seed-{seed}"
        folder.mkdir()
        roots.append(str(folder))
        built = build_documents(data, folder, 30, 40, seed, exclude)
        paths += [str(p) for p in built if seed == 15 or str(p).startswith(str(folder))]
    extra = [*sorted((REPOS / "flask/docs").glob("*.rst")), REPOS / "cobra/README.md",
             *_TUNABLE_EXTRAS]  # fmt: skip
    for p in extra:
        if p.exists():
            paths.append(str(p))
            roots.append(str(p.parent))
    return paths, list(dict.fromkeys(roots))


def short_doc(path: str) -> str:
    m = re.search(r"doc-seed-(\d+)/(.+)$", path)
    return f"{m[2]} (doc-seed {m[1]})" if m else "/".join(Path(path).parts[-2:])


def cell(text: str | None, limit: int = 300) -> str:
    text = re.sub(r"\s+", " ", text or "").strip().replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "…"


def graded_junk(after: list[dict[str, Any]], text: str) -> list[tuple[str, str, str, str]]:
    """(lang, claim, why, now) for each atom graded junk in the seed 6161 sample: now is the
    working tree's claim with the same quote start in a doc-seed 61 document."""
    section = text[text.index("### Seed 6161") : text.index("## Earlier samples")]
    mine = [a for a in after if "doc-seed-61/" in a["doc"] or a["doc"].startswith(str(REPOS))]
    rows, lang = [], ""
    for line in section.splitlines():
        if line.startswith("#### "):
            lang = line.split()[1]
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)]
        if not (line.startswith("| ") and len(cells) > 11 and cells[7] == "**junk**"):
            continue
        claim, why = cells[4].replace("\\|", "|"), cells[11]
        key = claim.rstrip("…").casefold()[:50]
        found = [a["claim"] for a in mine if key in a["claim"].casefold()]
        carried = [c for c in found if c.casefold().partition(": ")[2].startswith(key)]
        now = (f"carried: {carried[0]}" if carried else "unchanged" if found
               else "other (not found as it was)")  # fmt: skip
        rows.append((lang, claim, why, now))
    return rows


def main() -> None:
    parser = _child.comparison_parser(__doc__.splitlines()[0], "91ecaf7")
    parser.add_argument("--seed", type=int, default=7, help="seed of the printed sample")
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument("--lang", default="", help="print only changed claims of this language")
    parser.add_argument("--all", action="store_true", help="print every changed claim")
    parser.add_argument("--dump", type=Path, help="write the working tree's atoms (json) here")
    args = _child.parse_or_emit(parser, distill_documents)
    if args is None:  # the child: it distilled with the PYTHONPATH commit
        return

    commit = _child.head_commit(ROOT)
    with tempfile.TemporaryDirectory(prefix="pegas-carry-docs-") as tmp:
        paths, roots = documents(_child.shared_data_dir(), Path(tmp))
        before, after = _child.before_and_after(__file__, ROOT, args.base, paths, roots)
    if args.dump:
        args.dump.write_text(json.dumps(after, ensure_ascii=False, indent=0), encoding="utf-8")

    def key(a: dict[str, Any]) -> tuple[str, int, int, int]:
        return a["doc"], a["chunk"], a["span"][0], a["span"][1]

    old = {key(a): a for a in before}
    changed: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []
    lines = [
        f"## Carried subjects on the tunable documents ({args.base} -> {commit})",
        "",
        "Atoms of doc-seeds 15, 61, 71 and 81 (SciFact en, TyDi ru), flask's docs/*.rst,"
        " cobra's README.md and the 7171/8181 extras (gson, express, sqlalchemy READMEs, XQuAD ru"
        " 0-5), each chunk distilled as ingest does; matched by document, chunk and quote"
        " span (counts, not timings: the machine's load does not matter).",
        "",
        "| lang | atoms | carry before | carry after | carry added | carry removed "
        "| subject changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for lang in ("en", "ru"):
        mine = [a for a in after if a["lang"] == lang]
        n_before = sum(1 for a in before if a["lang"] == lang and a["subject"])
        added = removed = moved = 0
        for a in mine:
            b = old.get(key(a))
            was = b["subject"] if b else None
            if (was or None) != (a["subject"] or None) or (b and b["claim"] != a["claim"]):
                changed.append((b, a))
            added += bool(a["subject"]) and not was
            removed += bool(was) and not a["subject"]
            moved += bool(was) and bool(a["subject"]) and was != a["subject"]
        n_after = sum(1 for a in mine if a["subject"])
        lines.append(
            f"| {lang} | {len(mine)} | {n_before} | {n_after} | {added} | {removed} | {moved} |"
        )
    pool = [c for c in changed if not args.lang or c[1]["lang"] == args.lang]
    shown = pool if args.all else random.Random(args.seed).sample(pool, min(args.show, len(pool)))
    lines += [
        "",
        f"{len(pool)} claims changed; {len(shown)} shown"
        + ("" if args.all else f" (drawn at random, seed {args.seed})")
        + ": the claim after, the claim before, the document.",
        "",
        "| # | lang | after | before | document |",
        "|---|---|---|---|---|",
    ]
    for i, (b, a) in enumerate(shown, 1):
        lines.append(
            f"| {i} | {a['lang']} | {cell(a['claim'])} | {cell(b['claim'] if b else '(none)')} "
            f"| {cell(short_doc(a['doc']), 60)} |"
        )
    graded = ROOT / "bench/results/graded-sample.md"
    if graded.exists():
        rows = graded_junk(after, graded.read_text(encoding="utf-8"))
        tally = {st: sum(r[3].startswith(st) for r in rows) for st in ("carried", "unchanged")}
        lines += [
            "",
            f"The {len(rows)} atoms graded junk in bench/results/graded-sample.md (seed 6161, "
            "doc-seed 61, graded at f4d5cd8), and what the working tree makes of each sentence "
            "(not regraded; 'carried' says only that a subject is in front of it now):",
            "",
            "| lang | graded junk | why | now |",
            "|---|---|---|---|",
            *(
                f"| {lang} | {cell(c, 120)} | {cell(w, 90)} | {cell(n, 160)} |"
                for lang, c, w, n in rows
            ),
            "",
            "Now: "
            + ", ".join(f"{st} {n}" for st, n in tally.items())
            + f", other {len(rows) - sum(tally.values())}.",
        ]
    _child.publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
