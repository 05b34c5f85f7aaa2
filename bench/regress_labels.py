"""Benchmark: every graded atom of the labelled samples, re-distilled before and after (issue 15).

The graded samples of seeds 6161, 7171, 8181, 9191, 10101 and 11111 (`bench/graded_sample.py`,
labels and the claims the readers saw in `bench/labels/graded-sample-<seed>*.json`) were drawn from
documents that are tunable now. This bench rebuilds each seed's documents (its doc-seed with the
exclusions, its extras, the XQuAD ru articles it used, written here from xquad.ru.json),
distills them chunk by chunk as ingest does, once by a base commit's distiller (`--base`, in a
child process on a `git archive` of it) and once by the working tree, and finds every graded
atom again by its quote:

- `same`: an atom with the graded claim is still made (`retyped` in the rows if its type changed);
- `changed`: atoms whose quote overlaps the graded quote are made, none with the graded claim;
- `gone`: no atom covers the quote any more (dropped, or merged into a wider one not found).

Labelled junk that changed or went is what a fix may have repaired; labelled good that changed
or went is what it may have broken: both lists are printed for reading, with the base's and the
working tree's claims side by side. Per-chunk distillation is not all of ingest (dedup and
overlap drops come later), so a few `gone` are overlap repeats. Counts, not timings.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/regress_labels.py
     [--base main] [--seeds 9191 10101] [--out bench/results/regress-labels.md]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import _child

ROOT = Path(__file__).resolve().parent.parent
REPOS = Path("/work/cache/repos")
# seed -> (doc-seed, the doc-seeds it excluded, its repository extras, its XQuAD ru articles)
SEEDS: dict[int, tuple[int, tuple[int, ...], tuple[str, ...], tuple[int, int]]] = {
    6161: (61, (15,), ("flask/docs/design.rst", "cobra/README.md"), (0, 0)),
    7171: (71, (15, 61), ("gson/GsonDesignDocument.md", "express/Readme.md"), (0, 3)),
    8181: (81, (15, 61, 71), ("sqlalchemy/README.rst", "gson/README.md"), (3, 6)),
    9191: (91, (15, 61, 71, 81),
           ("sqlalchemy/doc/build/orm/self_referential.rst", "ripgrep/crates/globset/README.md"),
           (6, 9)),
    10101: (95, (15, 61, 71, 81, 91),
            ("sqlalchemy/doc/build/core/event.rst", "ripgrep/crates/ignore/README.md"), (9, 12)),
    11111: (99, (15, 61, 71, 81, 91, 95),
            ("sqlalchemy/doc/build/orm/backref.rst", "gson/ReleaseProcess.md"), (12, 15)),
    12121: (103, (15, 61, 71, 81, 91, 95, 99),
            ("sqlalchemy/doc/build/orm/versioning.rst", "gson/Troubleshooting.md"), (15, 18)),
    13131: (107, (15, 61, 71, 81, 91, 95, 99, 103),
            ("sqlalchemy/doc/build/orm/contextual.rst", "flask/docs/signals.rst"), (18, 21)),
    14141: (111, (15, 61, 71, 81, 91, 95, 99, 103, 107),
            ("sqlalchemy/doc/build/orm/nonstandard_mappings.rst", "ripgrep/RELEASE-CHECKLIST.md",
             "ripgrep/AI_POLICY.md"), (21, 24)),
    15151: (115, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111),
            ("sqlalchemy/doc/build/orm/mapped_attributes.rst", "flask/docs/server.rst"), (24, 27)),
    16161: (119, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111, 115),
            ("sqlalchemy/doc/build/orm/composites.rst", "ripgrep/FAQ.md"), (27, 30)),
    17171: (123, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111, 115, 119),
            ("flask/docs/appcontext.rst", "cobra/site/content/active_help.md"), (30, 33)),
    18181: (127, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111, 115, 119, 123),
            ("click/docs/why.md", "httpx/docs/async.md"), (33, 36)),
    19191: (131, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111, 115, 119, 123, 127),
            ("click/docs/complex.md", "httpx/docs/compatibility.md"), (36, 39)),
    20201: (135, (15, 61, 71, 81, 91, 95, 99, 103, 107, 111, 115, 119, 123, 127, 131),
            ("click/docs/shell-completion.md", "httpx/docs/logging.md"), (39, 42)),
}  # fmt: skip


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every atom of every chunk with its type and quote, as ingest distills them (the child)."""
    return [{"path": d.path, "type": a.type, "claim": a.claim, "quote": a.quote}
            for d in _child.distilled_chunks(paths, roots) for a in d.atoms]  # fmt: skip


def xquad_document(data: Path, folder: Path, first: int, stop: int) -> Path | None:
    """XQuAD ru articles [first, stop) as the graders wrote them: "# Title", then paragraphs."""
    if first == stop:
        return None
    articles = json.loads((data / "ru/xquad/source/xquad.ru.json").read_text("utf-8"))["data"]
    lines: list[str] = []
    for article in articles[first:stop]:
        lines += [f"# {article['title'].replace('_', ' ')}", ""]
        for paragraph in article["paragraphs"]:
            lines += [paragraph["context"], ""]
    letter = "abcdefghijklmnop"[first // 3]
    path = folder / ("xquad-ru.md" if first == 0 else f"xquad-ru-{letter}.md")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def labelled_documents(data: Path, folder: Path, seeds: Iterable[int]
                       ) -> tuple[dict[int, list[str]], list[str], list[str]]:  # fmt: skip
    """Each labelled seed's documents written under `folder` (its doc-seed with the exclusions,
    its extras, its XQuAD articles): the paths per seed, all paths once, the ingest roots."""
    sys.path.insert(0, str(ROOT / "bench"))
    from graded_sample import build_documents

    by_seed: dict[int, list[str]] = {}
    paths: list[str] = []
    roots = {str(data / "docs/pdf")}
    for seed in seeds:
        doc_seed, exclude, extras, (first, stop) = SEEDS[seed]
        sub = folder / str(seed)
        sub.mkdir()
        xquad = xquad_document(data, sub, first, stop)
        extra = tuple(REPOS / e for e in extras) + ((xquad,) if xquad else ())
        docs = [str(p) for p in build_documents(data, sub, 30, 40, doc_seed, exclude, extra)]
        by_seed[seed] = docs
        paths += [p for p in docs if p not in paths]
        roots |= {str(sub), *(str(p.parent) for p in extra)}
    return by_seed, paths, sorted(roots)


def norm(text: str) -> str:
    return " ".join(text.split())


def covers(atom_quote: str, quote: str) -> bool:
    """Does an atom's quote overlap the graded quote (a window of it, or inside it)?"""
    if quote in atom_quote or (len(atom_quote) >= 30 and atom_quote in quote):
        return True
    size = min(40, len(quote))
    windows = {quote[:size], quote[len(quote) // 2 - size // 2 :][:size], quote[-size:]}
    return any(w and w in atom_quote for w in windows)


def outcome(graded: dict[str, Any], atoms: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """`same`, `retyped`, `changed` or `gone`, and the claims now made over the graded quote."""
    quote = norm(graded["quote"])
    near = [a for a in atoms if covers(norm(a["quote"]), quote)]
    claims = sorted({f"[{a['type']}] {a['claim']}" for a in near})
    exact = [a for a in near if a["claim"] == graded["claim"]]
    if any(a["type"] == graded["type"] for a in exact):
        return "same", claims
    if exact:
        return "retyped", claims
    return ("changed" if near else "gone"), claims


def cell(text: str, limit: int = 260) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main() -> None:
    parser = _child.comparison_parser(__doc__.splitlines()[0], "main")
    parser.add_argument("--seeds", type=int, nargs="*", default=sorted(SEEDS))
    args = _child.parse_or_emit(parser, distill_documents)
    if args is None:  # the child: it distilled with the PYTHONPATH commit
        return

    data = _child.shared_data_dir()
    commit = _child.head_commit(ROOT)
    labels = ROOT / "bench/labels"
    with tempfile.TemporaryDirectory(prefix="pegas-regress-docs-") as tmp:
        by_seed, paths, roots = labelled_documents(data, Path(tmp), args.seeds)
        before, after = _child.before_and_after(__file__, ROOT, args.base, paths, roots)

    totals = [
        "| seed | graded | label | base same | base changed/gone | head same | head changed"
        " | head gone | differ base→head |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    rows: list[str] = []
    for seed in args.seeds:
        grades = json.loads((labels / f"graded-sample-{seed}.json").read_text("utf-8"))
        dump = json.loads((labels / f"graded-sample-{seed}.dump.json").read_text("utf-8"))
        docs = set(by_seed[seed])
        b_atoms = [a for a in before if a["path"] in docs]
        h_atoms = [a for a in after if a["path"] in docs]
        counts: dict[str, dict[str, int]] = {}
        for graded in dump["sample"]:
            grade = grades.get(graded["key"])
            if grade is None:
                continue
            label = "junk" if grade.get("junk") else "good"
            b_out, b_claims = outcome(graded, b_atoms)
            h_out, h_claims = outcome(graded, h_atoms)
            c = counts.setdefault(label, dict.fromkeys(
                ("n", "b_same", "b_other", "same", "changed", "gone", "differ"), 0))  # fmt: skip
            c["n"] += 1
            c["b_same"] += b_out in ("same", "retyped")
            c["b_other"] += b_out not in ("same", "retyped")
            c["same" if h_out in ("same", "retyped") else h_out] += 1
            if b_claims != h_claims or b_out != h_out:
                c["differ"] += 1
                mark = "" if grade.get("type", True) else ", type✗"
                rows.append(
                    f"| {seed} | {graded['key']} | {label}{mark}"
                    f" | {cell(graded['claim'], 160)} | {b_out}: "
                    + "<br>".join(cell(x) for x in b_claims)
                    + f" | {h_out}: "
                    + "<br>".join(cell(x) for x in h_claims)
                    + " |"
                )
        for label, c in sorted(counts.items()):
            totals.append(
                f"| {seed} | {c['n']} | {label} | {c['b_same']} | {c['b_other']} |"
                f" {c['same']} | {c['changed']} | {c['gone']} | {c['differ']} |"
            )
    lines = [
        f"## Graded atoms re-distilled: {args.base} -> {commit}",
        "",
        "`bench/regress_labels.py`: each labelled sample's documents distilled chunk by chunk by"
        " both distillers in one run; each graded atom found again by its quote.",
        "",
        *totals,
        "",
        "Every graded atom whose claims differ between the base and the working tree (read each:"
        " a labelled-junk row should now stand alone, a labelled-good row must not get worse):",
        "",
        "| seed | key | label | graded claim | base | working tree |",
        "|---|---|---|---|---|---|",
        *rows,
    ]
    _child.publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
