"""Dedup contrast set (issue 15): pairs of real sentences that claim different things must never
merge; true duplicates should. Each pair goes through the dedup decision of the ingest pipeline
(`ingest.dedup.decide` on the pair's vectors, the configured embedder and its threshold), once
with the claim guard (`ingest.claims`) and once without it (the previous behaviour, similarity
alone), in the same run.

Sentences come from SciFact abstracts (en) and the XQuAD paragraphs in English and Russian
(their parallel corpora, see ../shared/data/*/SOURCE.md). Contrast pairs are made by rules from
each sentence: one number changed, a negation added or removed, a capitalised name swapped for
one from another sentence, an antonym swapped. True duplicates: the same sentence re-wrapped
(a line break in the middle), re-punctuated (final stop dropped, commas doubled as spaces),
with markdown emphasis on a word, or repeated unchanged in another document.

    python bench/bench_dedup_contrast.py [--per-source 400]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from _common import REPO_ROOT, log, md_table, shared_data_dir

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from pegas_memory.config import load_settings
from pegas_memory.embedding.embedders import build_embedder
from pegas_memory.ingest.claims import ANTONYMS, claim_signature
from pegas_memory.ingest.dedup import decide, threshold_for
from pegas_memory.sentences import split_sentences

Rule = Callable[[str, random.Random, list[str]], str | None]
NUM = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])")
EN_AUX = re.compile(r"\b(is|are|was|were|can|could|has|have|had|does|did|will|may)\b")
EN_NOT = re.compile(r"\b(is|are|was|were|can|could|has|have|had|does|did|will|may) not\b")
RU_VERB = re.compile(r"(?<=\s)(\w+(?:ет|ит|ют|ят|ал|ил|ла|ли|ло|лся|лась|ется|ится))(?=[\s,.])")
CAP = re.compile(r"(?<=[a-zа-яё,] )([A-ZА-ЯЁ][a-zа-яё]{3,})\b")


def change_number(s: str, rng: random.Random, _: list[str]) -> str | None:
    nums = list(NUM.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    raw = m.group(0)
    sep = "," if "," in raw else "."
    value = float(raw.replace(",", "."))
    new = value + rng.choice((1, 2, 10)) if value == int(value) else value * 2
    text = str(int(new)) if new == int(new) else f"{new:.2f}".replace(".", sep)
    return s[: m.start()] + text + s[m.end() :]


def flip_negation(s: str, rng: random.Random, _: list[str]) -> str | None:
    if EN_NOT.search(s):
        return EN_NOT.sub(lambda m: m.group(1), s, count=1)
    if re.search(r"\bне\b", s):
        return re.sub(r"\bне\s+", "", s, count=1)
    if EN_AUX.search(s):
        return EN_AUX.sub(lambda m: f"{m.group(1)} not", s, count=1)
    m = RU_VERB.search(s)
    if m:
        return s[: m.start()] + "не " + s[m.start() :]
    return None


def swap_entity(s: str, rng: random.Random, pool: list[str]) -> str | None:
    mine = CAP.findall(s)
    if not mine:
        return None
    target = rng.choice(mine)
    others = [w for w in pool if w != target and w[0].isupper() == target[0].isupper()]
    if not others:
        return None
    return re.sub(rf"\b{re.escape(target)}\b", rng.choice(others), s, count=1)


def swap_antonym(s: str, rng: random.Random, _: list[str]) -> str | None:
    low = s.casefold()
    for a, b in ANTONYMS:
        for src, dst in ((a, b), (b, a)):
            m = re.search(rf"\b{re.escape(src)}(\w*)", low)
            if m and len(src) > 3:
                word = s[m.start() : m.end()]
                repl = dst + m.group(1) if dst[-1] == src[-1] or len(m.group(1)) else dst
                if word[0].isupper():
                    repl = repl.capitalize()
                return s[: m.start()] + repl + s[m.end() :]
    return None


def rewrap(s: str, rng: random.Random, _: list[str]) -> str | None:
    spaces = [m.start() for m in re.finditer(" ", s)]
    if len(spaces) < 4:
        return None
    cut = spaces[len(spaces) // 2]
    return s[:cut] + "\n" + s[cut + 1 :]


def repunctuate(s: str, rng: random.Random, _: list[str]) -> str | None:
    out = s.rstrip(".!?") if s.endswith((".", "!", "?")) else s + "."
    return out.replace(", ", " , ", 1) if ", " in out else out


def markup(s: str, rng: random.Random, _: list[str]) -> str | None:
    words = [m for m in re.finditer(r"\b\w{5,}\b", s)]
    if not words:
        return None
    m = rng.choice(words)
    return s[: m.start()] + f"**{m.group(0)}**" + s[m.end() :]


def repeated(s: str, rng: random.Random, _: list[str]) -> str | None:
    return s


CONTRAST: dict[str, Rule] = {
    "number or date": change_number,
    "negation": flip_negation,
    "entity": swap_entity,
    "antonym": swap_antonym,
}
DUPLICATE: dict[str, Rule] = {
    "re-wrapped": rewrap,
    "re-punctuated": repunctuate,
    "with markup": markup,
    "repeated in another document": repeated,
}


def sentences(path: Path, n: int, rng: random.Random) -> list[str]:
    out: list[str] = []
    with path.open() as f:
        for line in f:
            doc = json.loads(line)
            for sentence in split_sentences(doc["text"]):
                s = sentence.text.strip()
                if 40 <= len(s) <= 300:
                    out.append(s)
    rng.shuffle(out)
    return out[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-source", type=int, default=400, help="sentences per source")
    args = parser.parse_args()
    rng = random.Random(15)
    data = shared_data_dir()
    sources = {
        "scifact en": data / "scifact" / "corpus.jsonl",
        "xquad en": data / "ru" / "xquad" / "corpus_en.jsonl",
        "xquad ru": data / "ru" / "xquad" / "corpus.jsonl",
    }
    settings = load_settings(ollama_url=None, database_url=None)
    embedder = build_embedder(settings)
    threshold = threshold_for(embedder.model_id, settings.dedup_threshold)
    log(f"embedder {embedder.model_id}, dedup threshold {threshold}")
    pairs: list[tuple[str, str, str, str]] = []  # (group, class, a, b)
    for name, path in sources.items():
        sents = sentences(path, args.per_source, rng)
        pool = sorted({w for s in sents for w in CAP.findall(s)})
        for group, rules in (("contrast", CONTRAST), ("duplicate", DUPLICATE)):
            for cls, rule in rules.items():
                for s in sents:
                    t = rule(s, rng, pool)
                    if (t and t != s) or (t == s and cls == "repeated in another document"):
                        pairs.append((group, f"{cls} ({name})", s, t))
    log(f"{len(pairs)} pairs; embedding")
    texts = sorted({x for p in pairs for x in p[2:]})
    vectors: dict[str, list[float]] = {}
    for i in range(0, len(texts), 64):
        for t, v in zip(
            texts[i : i + 64], embedder.embed_documents(texts[i : i + 64]), strict=True
        ):
            vectors[t] = list(v)
        if i % 256 == 0:
            log(f"embedded {i}/{len(texts)}")
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for group, cls, a, b in pairs:
        vs = [vectors[a], vectors[b]]
        before, _ = decide(vs, index=None, collection=None, threshold=threshold)
        sigs = [claim_signature(a), claim_signature(b)]
        after, _ = decide(vs, index=None, collection=None, threshold=threshold, signatures=sigs)
        c = counts[(group, cls)]
        c[0] += 1
        c[1] += int(before[1].duplicate)
        c[2] += int(after[1].duplicate)
        c[3] += int(len(after[1].conflicts) > 0)
    for group, title in (
        ("contrast", "Contrast pairs (different claims): merged, target 0"),
        ("duplicate", "True duplicates: merged (higher is better)"),
    ):
        rows = []
        tot = [0, 0, 0]
        for (g, cls), (n, before, after, _) in sorted(counts.items()):
            if g != group:
                continue
            rows.append([cls, n, f"{before} ({before / n:.1%})", f"{after} ({after / n:.1%})"])
            tot = [tot[0] + n, tot[1] + before, tot[2] + after]
        if tot[0]:
            rows.append(
                [
                    "**all**",
                    tot[0],
                    f"{tot[1]} ({tot[1] / tot[0]:.1%})",
                    f"{tot[2]} ({tot[2] / tot[0]:.1%})",
                ]
            )
        print(f"\n### {title}\n")
        print(f"embedder `{embedder.model_id}`, threshold {threshold}\n")
        print(
            md_table(
                [
                    "class (source)",
                    "pairs",
                    "merged, similarity only (before)",
                    "merged, claim guard",
                ],
                rows,
            )
        )


if __name__ == "__main__":
    main()
