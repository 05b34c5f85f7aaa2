"""Benchmark: do the offline distiller's claims stand alone? (issue 15, scope 2; distill/context.py)

On the documents of the graded sample (`bench/graded_sample.py`'s `build_documents`: 30 SciFact
abstracts as one markdown reading list, 40 TyDi QA Russian Wikipedia passages as another, one
`## title` per paper or article, and the three sample PDFs; `--doc-seed 15` as there), every
chunk is distilled exactly as ingest does it (`parse_source`, `chunk_source`, a `ChunkContext`
with the document's title, the chunk's heading path and language), once by the distiller of a
base commit (`--base`, extracted with `git archive` and run in a child process) and once by the
working tree. Ingest stores one atom per distinct claim, so distinct claims are counted, per
language:

- **opens with an anaphor**: a personal pronoun or a demonstrative among the first words (en:
  it/they/he/she/its/their/his/her first, this/these/those/such + a noun in the first six words,
  "this study/paper/work/text" excepted: the document itself; ru: он/она/они/его/её/их/ему/
  ней/нём ..., этот/эта/эти/это ... in the first six words, before a dash);
- **no subject** (ru): the first word after a leading prepositional phrase, year or adverb is a
  past-tense verb or short participle ("Родился ...", "В 1916 году уехал ...", "Впервые
  использован ..."), or the claim has neither a verb-looking word nor a dash ("Член ЦК КПСС в
  1952—1971 годах."), or it opens with a relational noun ("Столица — ...", "Площадь суши —
  ...");
- a claim that starts with its section's heading or the document's title followed by ":" (what
  distill/context.py carries) counts as having its subject, for both tests; how many of those
  still hold an anaphor after the subject is counted apart ("carried, anaphor after": "Клод
  Моне: школа ему ..." is resolved by the subject, "<paper title>: these studies ..." may not
  be).

And the atoms graded junk on these same documents: with `--doc-seed 15`, seed 2626's (in
`bench/results/graded-sample.md`); with `--doc-seed 61 --exclude-doc-seed 15 --extra
.../flask/docs/design.rst --extra .../cobra/README.md`, seed 6161's (`bench/labels/
graded-sample-6161.json` and its dump). For each, what the working tree makes of its sentence
now: `carried` (a claim that is the subject, ":" and the sentence), `joined` (a longer claim
that holds it), or `unchanged`. Distinct claims and their mean length (characters) are counted
too: a join makes fewer, longer claims, which retrieval has to live with.

These tests are this bench's own (simpler than distill/context.py's and written apart from it),
so they count how many claims still open that way; whether a carried claim reads well is for a
reader, so 20 changed claims drawn at random are printed before -> after.

Run: PEGAS_SHARED_DATA=/work/shared/data .venv/bin/python bench/bench_self_contained.py
     [--base 7cdc6f8] [--seed 15] [--doc-seed 15] [--exclude-doc-seed 15] [--extra PATH]
     [--out bench/results/self-contained.md]   (the new section goes on top of the file)
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

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_EN_FIRST = {"it", "its", "they", "their", "them", "he", "she", "his", "her", "such"}
_EN_DEM = {"this", "these", "those", "such"}
_EN_SELF = {"study", "paper", "work", "article", "review", "report", "analysis", "trial", "text"}
_RU_PRON = frozenset(
    [
        "он",
        "она",
        "оно",
        "они",
        "его",
        "её",
        "ее",
        "ему",
        "ей",
        "им",
        "их",
        "ним",
        "ней",
        "нём",
        "нем",
        "них",
        "нему",
        "неё",
        "него",
        "этот",
        "эта",
        "эти",
        "это",
        "этого",
        "этой",
        "этом",
        "этим",
        "этих",
        "этому",
        "эту",
    ]
)
_RU_FIXED = re.compile(r"тем не менее|в том числе|тем самым|при этом|то есть", re.IGNORECASE)
_RU_LEAD = re.compile(
    r"^(?:(?:в|во|с|со|на|по|после|до|уже|впервые|затем|позже|также|ранее|вскоре|с\s+\d+"
    r"|\d+(?:[-–—]\d+)?|года?|году|годах|лет|век[аеу]?|[IVXLC]+|января|февраля|марта|апреля|мая"
    r"|июня|июля|августа|сентября|октября|ноября|декабря)[\s,]+)+",
    re.IGNORECASE,
)
_RU_PAST = re.compile(
    r"^[а-яё]{2,}(?:[аеиоуыяё]л(?:а|о|и)?(?:ся|сь)?|(?:ан|ен|ён|ят|ыт)(?:а|о|ы)?)$"
)
_RU_ANY_VERB = re.compile(
    r"^[а-яё]{2,}(?:[аеиоуыяё]л(?:а|о|и)?(?:ся|сь)?|[её]т(?:ся)?|ит(?:ся)?|ют(?:ся)?|ят(?:ся)?"
    r"|ут(?:ся)?|ат(?:ся)?|ан|ен|ён)$"
)
_RU_RELATIONAL = re.compile(
    r"^(?:столица|площадь|население|численность|государственный язык|официальный язык|устье"
    r"|длина|высота|глубина)\b",
    re.IGNORECASE,
)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _strip_subject(claim: str, subjects: set[str]) -> tuple[str, bool]:
    head, sep, rest = claim.partition(": ")
    if sep and head in subjects:
        return rest, True
    return claim, False


def anaphor_opening(claim: str, lang: str) -> bool:
    text = re.split(r"\s[—–-]\s", claim, maxsplit=1)[0]
    if lang == "ru":
        return any(w in _RU_PRON for w in _words(_RU_FIXED.sub(" ", text))[:6])
    words = _words(text)
    if words and words[0] in _EN_FIRST:
        return True
    return any(
        w in _EN_DEM and i + 1 < len(words[:6]) and words[i + 1] not in _EN_SELF
        for i, w in enumerate(words[:6])
    )


def no_subject(claim: str, lang: str) -> bool:
    if lang != "ru":
        return False
    if _RU_RELATIONAL.match(claim):
        return True
    rest = _RU_LEAD.sub("", claim)
    words = _words(rest)
    if words and _RU_PAST.match(words[0]):
        return True
    all_words = _words(claim)
    dash = re.search(r"\s[—–]\s", claim) is not None
    return bool(all_words) and not dash and not any(_RU_ANY_VERB.match(w) for w in all_words)


def distill_documents(paths: list[str], roots: list[str]) -> list[dict[str, Any]]:
    """Every atom of every chunk, as ingest distills them (run in the child process)."""
    return [
        {
            "doc": Path(d.path).name,
            "chunk": d.chunk.ord,
            "subjects": [*d.chunk.heading_path, d.parsed.title or ""],
            "lang": atom.language,
            "claim": atom.claim,
            "quote_start": atom.quote_start,
            "quote_end": atom.quote_end,
        }
        for d in _child.distilled_chunks(paths, roots)
        for atom in d.atoms
    ]


def counts(atoms: list[dict[str, Any]], lang: str) -> dict[str, int]:
    seen: dict[str, dict[str, Any]] = {}
    for a in atoms:
        if a["lang"] == lang:
            seen.setdefault(a["claim"], a)
    mean = sum(len(c) for c in seen) / max(1, len(seen))
    n = {"claims": len(seen), "mean chars": round(mean), "anaphor": 0, "no subject": 0,
         "either": 0, "carried": 0, "carried anaphor": 0,
         "long": sum(len(c) > _RUN_ON_CHARS for c in seen)}  # fmt: skip
    for claim, a in seen.items():
        subjects = {s.rstrip(".") for s in a["subjects"] if s} | _inverted(a["subjects"])
        rest, carried = _strip_subject(claim, subjects)
        n["carried"] += carried
        if carried:
            n["carried anaphor"] += anaphor_opening(rest, lang)
            continue
        ana, nos = anaphor_opening(rest, lang), no_subject(rest, lang)
        n["anaphor"] += ana
        n["no subject"] += nos
        n["either"] += ana or nos
    return n


_RUN_ON_CHARS = 700  # a joined claim past this is a run-on, a new kind of junk


def _inverted(subjects: list[str]) -> set[str]:
    out = set()
    for s in subjects:
        m = re.match(r"^([А-ЯЁ][а-яё-]+),\s+(.+)$", s or "")
        if m:
            out.add(f"{m[2].strip()} {m[1]}")
    return out


def changed(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(before, after) claim pairs: an after atom whose claim is new, with the before atoms whose
    quotes lie inside its quote (the same quote carried, or the sentences it joined)."""
    by_chunk: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for b in before:
        by_chunk.setdefault((b["doc"], b["chunk"]), []).append(b)
    old_claims = {b["claim"] for b in before}
    pairs: list[tuple[str, str]] = []
    for a in after:
        if a["claim"] in old_claims or a["lang"] not in ("en", "ru"):
            continue
        inside = [
            b["claim"]
            for b in by_chunk.get((a["doc"], a["chunk"]), [])
            if a["quote_start"] <= b["quote_start"] and b["quote_end"] <= a["quote_end"]
        ]
        if inside:
            pairs.append((" / ".join(dict.fromkeys(inside)), a["claim"]))
    return list(dict.fromkeys(pairs))


def junk_2626(graded: Path) -> list[tuple[str, str, str, str]]:
    """(lang, claim, why) of the atoms graded junk in graded-sample.md's seed 2626 table."""
    text = graded.read_text(encoding="utf-8")
    section = text[text.index("## Seed 2626") :]
    rows, lang = [], ""
    for line in section.splitlines():
        if line.startswith("### "):
            lang = line.split()[1]
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)]
        if line.startswith("| ") and len(cells) > 11 and cells[7] == "**junk**":
            rows.append((lang, cells[4].replace("\\|", "|"), cells[11], ""))
    return rows


def junk_6161(labels: Path, dump: Path) -> list[tuple[str, str, str, str]]:
    """(lang, claim, why, quote) of the atoms graded junk in a sample's labels (6161, 7171,
    8181), claims and quotes from its dump."""
    grades = json.loads(labels.read_text(encoding="utf-8"))
    sample = json.loads(dump.read_text(encoding="utf-8"))["sample"]
    return [
        (s["lang"], s["claim"], grades[s["key"]]["why"], s.get("quote", ""))
        for s in sample
        if grades.get(s["key"], {}).get("junk")
    ]


# The graded samples drawn on a doc-seed's documents: the sample's seed and its commit.
_GRADED = {61: (6161, "f4d5cd8"), 71: (7171, "a69fdfe"), 81: (8181, "eb8a511")}


def graded_junk(after: list[dict[str, Any]], rows: list[tuple[str, str, str, str]]) -> list[str]:
    """Table rows (lang, before, why it was junk, what it is now) for the atoms graded junk:
    found by the start of their quote when the sample has it (a carried subject of the graded
    claim may be gone now), else of their claim. `unchanged`: the same claim; `carried`: the
    sentence after a subject and ':'; `alone`: the sentence with nothing carried; `joined`: a
    claim that holds it after other text."""
    claims = list(dict.fromkeys(a["claim"] for a in after))
    out = []
    for lang, claim, why, quote in rows:
        key = (quote or claim).rstrip("…").casefold()[:50]
        found = [c for c in claims if key in c.casefold()]
        alone = [c for c in found if c.casefold().startswith(key)]
        carried = [c for c in found if c.casefold().partition(": ")[2].startswith(key)]
        joined = [c for c in found if c not in carried and c not in alone]
        now = (
            "unchanged" if claim in claims
            else f"carried: {cell(carried[0], 160)}" if carried
            else f"alone: {cell(alone[0], 160)}" if alone
            else f"joined: {cell(joined[0], 240)}" if joined
            else "not found"
        )  # fmt: skip
        out.append(f"| {lang} | {cell(claim, 120)} | {cell(why, 80)} | {now} |")
    return out


def cell(text: str, limit: int = 320) -> str:
    """A table cell; a long claim keeps its start and its end (where a join shows)."""
    text = re.sub(r"\s+", " ", text).strip().replace("|", "\\|")
    head, tail = limit * 5 // 8, limit * 3 // 8 - 3
    return text if len(text) <= limit else text[:head] + " … " + text[-tail:]


def main() -> None:
    parser = _child.comparison_parser(__doc__.splitlines()[0], "7cdc6f8")
    parser.add_argument("--seed", type=int, default=15, help="seed of the 20 printed pairs")
    parser.add_argument("--doc-seed", type=int, default=15)
    parser.add_argument("--exclude-doc-seed", type=int, action="append", default=[])
    parser.add_argument("--extra", type=Path, action="append", default=[],
                        help="another document, distilled as it is (repeatable)")  # fmt: skip
    parser.add_argument("--save", type=Path, help="write both runs' atoms here (JSON), to read")
    args = _child.parse_or_emit(parser, distill_documents)
    if args is None:  # the child: it distilled with the PYTHONPATH commit
        return

    from graded_sample import build_documents  # the graded sample's own documents

    data = _child.shared_data_dir()
    commit = _child.head_commit(ROOT)
    with tempfile.TemporaryDirectory(prefix="pegas-selfc-docs-") as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        extra = tuple(p.resolve() for p in args.extra)
        docs = build_documents(data, folder, 30, 40, args.doc_seed,
                               tuple(args.exclude_doc_seed), extra)  # fmt: skip
        paths = [str(p) for p in docs]
        roots = [str(data / "docs/pdf"), str(folder), *sorted({str(p.parent) for p in extra})]
        before, after = _child.before_and_after(__file__, ROOT, args.base, paths, roots)
    if args.save:
        saved = {"base": args.base, "commit": commit, "before": before, "after": after}
        args.save.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
    without = f" without doc-seed {args.exclude_doc_seed}" if args.exclude_doc_seed else ""
    extras = "".join(f" + {p.name}" for p in args.extra)
    lines = [
        f"## Self-contained claims on the graded-sample documents ({args.base} -> {commit};"
        f" doc-seed {args.doc_seed}{without}{extras})",
        "",
        "Distinct claims per language, each chunk distilled as ingest does (one run; counts, not"
        " timings, so the machine's load does not matter). 'anaphor' and 'no subject' are this"
        " bench's own tests (module docstring); a claim that starts with its section's subject"
        " and ':' counts as having one.",
        "",
        "| lang | distiller | claims | mean chars | opens with an anaphor | no subject (ru)"
        " | either | carry a subject | carried, anaphor after | over 700 chars |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for lang in ("en", "ru"):
        for name, atoms in ((args.base, before), (commit, after)):
            c = counts(atoms, lang)
            share = c["either"] / max(1, c["claims"])
            lines.append(
                f"| {lang} | {name} | {c['claims']} | {c['mean chars']} | {c['anaphor']}"
                f" | {c['no subject']} "
                f"| {c['either']} ({share:.1%}) | {c['carried']} | {c['carried anaphor']}"
                f" | {c['long']} |"
            )
    pairs = changed(before, after)
    rng = random.Random(args.seed)
    shown = rng.sample(pairs, min(20, len(pairs)))
    lines += [
        "",
        f"{len(pairs)} claims changed; 20 drawn at random (seed {args.seed}), before -> after "
        "(a joined atom lists the claims it replaced, separated by ' / '):",
        "",
        "| # | before | after |",
        "|---|---|---|",
    ]
    for i, (old, new) in enumerate(shown, 1):
        lines.append(f"| {i} | {cell(old)} | {cell(new)} |")
    graded = ROOT / "bench/results/graded-sample.md"
    sample_seed, graded_at = _GRADED.get(args.doc_seed, (0, ""))
    labels = ROOT / f"bench/labels/graded-sample-{sample_seed}.json"
    dump = ROOT / f"bench/labels/graded-sample-{sample_seed}.dump.json"
    junk: list[tuple[str, str, str, str]] = []
    if args.doc_seed == 15 and graded.exists():
        junk, where = (
            junk_2626(graded),
            "bench/results/graded-sample.md (seed 2626, graded at 381bf3b)",
        )
    elif sample_seed and labels.exists() and dump.exists():
        junk, where = (
            junk_6161(labels, dump),
            f"{labels.relative_to(ROOT)} (seed {sample_seed}, graded at {graded_at})",
        )
    if junk:
        rows = graded_junk(after, junk)
        lines += [
            "",
            f"The {len(rows)} atoms graded junk in {where}, and what the working tree makes of"
            " each sentence now (not regraded):",
            "",
            "| lang | graded junk | why | now |",
            "|---|---|---|---|",
            *rows,
        ]
        states = ("unchanged", "carried", "alone", "joined", "not found")
        tally = {st: sum(r.rsplit(" | ", 1)[1].startswith(st) for r in rows) for st in states}
        lines += ["", "Now: " + ", ".join(f"{st} {n}" for st, n in tally.items()) + "."]
    table = "\n".join(lines) + "\n"
    if args.out:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        args.out.write_text(table + ("\n" + old if old else ""), encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
