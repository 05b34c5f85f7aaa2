"""Benchmark: do markup documents (README.md, reStructuredText) distil into clean atoms? (issue 15)

The documents are the ones tuning is allowed on: every `docs/*.rst` of flask and cobra's
`README.md` and `site/content/**/*.md` (the docs of the other cloned repositories are reserved
for the independent grade). Every chunk is distilled exactly as ingest does it (`parse_source`,
`chunk_source`, a `ChunkContext` with the document's title, the chunk's heading path and
language, `OfflineDistiller.distill_counted`), once by the distiller of a base commit (`--base`,
extracted with `git archive` and run in a child process) and once by the working tree. Ingest
stores one atom per distinct claim, so distinct claims are counted:

- atoms by type, and drafts dropped by reason;
- **markup residue** (this bench's own regexes, on claims of prose atoms, i.e. not code or
  table): an rst role (":meth:", ":data:`x`"), a literal marker "::", a markdown link or image
  "[x](y)", an HTML tag ("<img", "<p align>", "</div>"), a badge (shields.io, "badge", "[![")
  and a code-ish claim (a shell prompt "$ " or ">>> ", "go get ...", an rst table's "=== ===",
  a claim of punctuation and digits only, or one opening with ":", ",", ")" ...);
- **bare noun phrases**: a prose claim in which no word looks like an English verb (a short list
  of auxiliaries and common verbs, and -s/-ed/-ing forms after a noun-looking word is not
  checked: this is a rough test, it over-counts verbs, so it under-counts noun phrases);
- the titles the documents get (what the subject carry can use).

30 atoms of the working tree drawn at random (`--seed`) are printed for a reader to grade by the
criteria of bench/results/graded-sample.md.

Run: PYTHONPATH=. .venv/bin/python bench/bench_markup.py [--base 91ecaf7] [--seed 15]
     [--out bench/results/markup.md]
"""

from __future__ import annotations

import random
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import _child

ROOT = Path(__file__).resolve().parent.parent
REPOS = Path("/work/cache/repos")

RESIDUE = {
    "rst role": re.compile(r"(?<![\w:]):[a-z][\w.+-]*:(?:`|\s|$)|`[^`]+`_\b"),
    "literal ::": re.compile(r"::(?:\s|$)"),
    "md link": re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)|\[[^\]\n]+\]\[[^\]\n]+\]|\[[^\]\n]+\]:"),
    # real HTML tags only: "<PROGRAM>", "<username>" and "<script>" in a sentence about it are
    # the documents' own placeholders and examples
    "html tag": re.compile(
        r"</?(?:a|img|div|p|br|hr|sup|sub|span|b|i|em|strong|kbd|details|summary|picture|center"
        r"|h[1-6]|table|tr|td|th|ul|ol|li)(?:\s[^<>]*)?/?>",
        re.IGNORECASE,
    ),
    "badge": re.compile(r"shields\.io|/badge|\[!\[|badge\.svg", re.IGNORECASE),
    # a page speaking of itself, or a seealso entry's bare label ("examples_adjacencylist - ...")
    "self-reference": re.compile(
        r"^(?:this (?:section|page|chapter)|the following examples?|in this section"
        r"|этот раздел|в этом разделе)\b|^[a-z]+(?:_[a-z]+)+ [-–—] ",
        re.IGNORECASE,
    ),
    "rst directive": re.compile(r"(?:^|\s)\.\.\s+[\w-]+::|^\.\. "),
    "code-ish": re.compile(
        r"^\$ |^>>> |^(?:go|pip|npm|python|cobra-cli) (?:get|install|init|add|run|-m)\b"
        r"|^[\W\d]*$|^={3,} |^[:;,.)\]>]"
    ),
}
_VERBS = re.compile(
    r"\b(?:is|are|was|were|be|been|being|am|has|have|had|do|does|did|can|could|will|would|"
    r"shall|should|may|might|must|need|needs|let|lets|use|uses|used|make|makes|made|get|gets|"
    r"provide|provides|provided|allow|allows|allowed|support|supports|supported|work|works|"
    r"run|runs|call|calls|called|define|defines|defined|return|returns|returned|create|"
    r"creates|created|add|adds|added|want|wants|see|know|take|takes|give|gives|keep|keeps|"
    r"mean|means|become|becomes|include|includes|contain|contains|require|requires)\b"
    r"|\b\w{3,}(?:ed|es|ing)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")


def documents() -> list[str]:
    flask = sorted(str(p) for p in (REPOS / "flask/docs").glob("*.rst"))
    site = sorted(str(p) for p in (REPOS / "cobra/site/content").rglob("*.md"))
    cobra = [str(REPOS / "cobra/README.md"), *site]
    return flask + cobra + [str(REPOS / p) for p in GRADED_9191]


# The two markup documents of the seed 9191 graded sample, tunable since it was graded.
GRADED_9191 = ("sqlalchemy/doc/build/orm/self_referential.rst", "ripgrep/crates/globset/README.md")


def distill_documents(paths: list[str], roots: list[str]) -> dict[str, Any]:
    """Every atom and drop of every chunk, as ingest distills them (run in the child)."""
    atoms: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    titles: dict[str, str | None] = {}
    skipped: dict[str, str] = {}
    for d in _child.distilled_chunks(paths, roots, skipped=skipped):
        name = str(Path(d.path).relative_to(REPOS))
        titles[name] = d.parsed.title
        dropped.update(d.drops)
        for atom in d.atoms:
            atoms.append({"doc": name, "type": atom.type, "lang": atom.language,
                          "claim": atom.claim, "locator": d.chunk.locator})  # fmt: skip
    for path, error in skipped.items():  # changes.rst is one ".. include::": nothing to ingest
        titles[str(Path(path).relative_to(REPOS))] = f"(not ingested: {error})"
    return {"atoms": atoms, "dropped": dict(dropped), "titles": titles}


def distinct(atoms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for a in atoms:
        seen.setdefault(a["claim"], a)
    return list(seen.values())


def residue(claim: str) -> list[str]:
    return [name for name, rx in RESIDUE.items() if rx.search(claim)]


def bare_noun_phrase(claim: str) -> bool:
    return len(_WORD.findall(claim)) >= 2 and _VERBS.search(claim) is None


def summary(result: dict[str, Any]) -> dict[str, Any]:
    atoms = distinct(result["atoms"])
    prose = [a for a in atoms if a["type"] not in ("code", "table", "logical_rule")]
    flags: Counter[str] = Counter()
    flagged: list[tuple[str, dict[str, Any]]] = []
    for a in prose:
        hits = residue(a["claim"])
        flags.update(hits)
        if hits:
            flagged.append((", ".join(hits), a))
    bare = [a for a in prose if bare_noun_phrase(a["claim"])]
    return {
        "atoms": len(atoms),
        "types": Counter(a["type"] for a in atoms),
        "dropped": result["dropped"],
        "flags": flags,
        "flagged": flagged,
        "residue atoms": len(flagged),
        "prose": len(prose),
        "bare": bare,
        "bare facts": sum(a["type"] == "fact" for a in bare),
    }


def cell(text: str, limit: int = 260) -> str:
    text = re.sub(r"\s+", " ", text).strip().replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main() -> None:
    parser = _child.comparison_parser(__doc__.splitlines()[0], "91ecaf7")
    parser.add_argument("--seed", type=int, default=15, help="seed of the 30 printed atoms")
    args = _child.parse_or_emit(parser, distill_documents)
    if args is None:  # the child: it distilled with the PYTHONPATH commit
        return

    paths = documents()
    roots = [str(REPOS / "flask"), str(REPOS / "cobra"), str(REPOS / "sqlalchemy"),
             str(REPOS / "ripgrep")]  # fmt: skip
    commit = _child.head_commit(ROOT)
    before_raw, after_raw = _child.before_and_after(__file__, ROOT, args.base, paths, roots)
    before, after = summary(before_raw), summary(after_raw)
    dirty = " (uncommitted changes)" if _dirty() else ""
    lines = [
        f"## Markup documents: flask docs/*.rst and cobra README.md + site/content ({args.base}"
        f" -> {commit}{dirty})",
        "",
        f"{len(paths)} documents (28 flask .rst, cobra README.md and {len(paths) - 31} site pages,"
        " sqlalchemy's orm/self_referential.rst and ripgrep's crates/globset/README.md),"
        " each chunk distilled as ingest does; distinct claims counted (one run: counts, not"
        " timings). Residue and bare noun phrases are this bench's own regexes (module"
        " docstring), on prose atoms (not code or table).",
        "",
        "| distiller | atoms | by type | prose atoms | with markup residue | bare noun phrases"
        " (of them fact) | dropped drafts, by reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in ((args.base, before), (commit, after)):
        types = ", ".join(f"{k} {v}" for k, v in sorted(s["types"].items()))
        drops = ", ".join(f"{k} {v}" for k, v in sorted(s["dropped"].items())) or "none"
        lines.append(
            f"| {name} | {s['atoms']} | {types} | {s['prose']} | {s['residue atoms']} "
            f"({s['residue atoms'] / max(1, s['prose']):.1%}) | {len(s['bare'])} "
            f"({s['bare facts']}) | {drops} |"
        )
    lines += ["", "Residue by kind (an atom may have several):", "",
              "| kind | " + f"{args.base} | {commit} |", "|---|---|---|"]  # fmt: skip
    for kind in RESIDUE:
        lines.append(f"| {kind} | {before['flags'].get(kind, 0)} | {after['flags'].get(kind, 0)} |")
    lines += ["", "Titles the working tree gives (what a claim without a subject can carry):", ""]
    titles = after_raw["titles"]
    for doc in ("cobra/README.md", "flask/docs/design.rst", "flask/docs/quickstart.rst"):
        lines.append(f"- `{doc}`: {titles.get(doc)!r}")
    if after["flagged"]:
        lines += ["", "Residue left in the working tree's atoms:", "",
                  "| kind | doc | type | claim |", "|---|---|---|---|"]  # fmt: skip
        for kind, a in after["flagged"][:40]:
            lines.append(f"| {kind} | {a['doc']} | {a['type']} | {cell(a['claim'], 200)} |")
    for doc in GRADED_9191:
        mine = [a for a in distinct(after_raw["atoms"]) if a["doc"] == doc]
        was = sum(a["doc"] == doc for a in distinct(before_raw["atoms"]))
        head = f"Every prose atom of `{doc}` in the working tree (atoms {was} -> {len(mine)}):"
        lines += ["", head, "", "| # | type | claim |", "|---|---|---|"]
        for i, a in enumerate(a for a in mine if a["type"] not in ("code", "table")):
            lines.append(f"| {i + 1} | {a['type']} | {cell(a['claim'])} |")
    rng = random.Random(args.seed)
    atoms = distinct(after_raw["atoms"])
    shown = rng.sample(atoms, min(30, len(atoms)))
    lines += ["", f"30 atoms of the working tree drawn at random (seed {args.seed}):", "",
              "| # | doc | type | claim |", "|---|---|---|---|"]  # fmt: skip
    for i, a in enumerate(shown, 1):
        lines.append(f"| {i} | {a['doc']} | {a['type']} | {cell(a['claim'])} |")
    _child.publish("\n".join(lines) + "\n", args.out)


def _dirty() -> bool:
    out = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "pegas_memory"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return bool(out.strip())


if __name__ == "__main__":
    main()
