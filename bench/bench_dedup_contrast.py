"""Dedup contrast set (issue 15): pairs of real sentences that claim different things must never
merge; true duplicates should. Each pair goes through the dedup decision of the ingest pipeline
(`ingest.dedup.decide` on the pair's vectors, the configured embedder and its threshold), once
with the claim guard (`ingest.claims`) and once without it (the previous behaviour, similarity
alone), in the same run.

Sentences come from SciFact abstracts (en) and the XQuAD paragraphs in English and Russian
(their parallel corpora, see ../shared/data/*/SOURCE.md). Contrast pairs are made by rules from
each sentence: one number or month changed, a negation added or removed, a capitalised name
swapped for one from another sentence, an antonym swapped, a quantifier or a unit changed. The
antonyms come from this bench's own list (`BENCH_ANTONYMS`, common en/ru opposites written for
the bench), not from the guard's list, so a pair the guard never heard of counts too. True
duplicates: the same sentence re-wrapped (a line break in the middle), re-punctuated (final stop
dropped, commas doubled as spaces), with markdown emphasis on a word, or repeated unchanged in
another document.

    python bench/bench_dedup_contrast.py [--per-source 200]
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
from pegas_memory.ingest.claims import ANTONYMS, claim_signature, differences
from pegas_memory.ingest.dedup import decide, threshold_for
from pegas_memory.sentences import split_sentences

Rule = Callable[[str, random.Random, list[str]], str | None]
NUM = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])")
EN_AUX = re.compile(r"\b(is|are|was|were|can|could|has|have|had|does|did|will|may)\b")
EN_NOT = re.compile(r"\b(is|are|was|were|can|could|has|have|had|does|did|will|may) not\b")
RU_VERB = re.compile(r"(?<=\s)(\w+(?:ет|ит|ют|ят|ал|ил|ла|ли|ло|лся|лась|ется|ится))(?=[\s,.])")
CAP = re.compile(r"(?<=[a-zа-яё,] )([A-ZА-ЯЁ][a-zа-яё]{3,})\b")


MONTHS_EN = ("January", "February", "March", "April", "June", "July", "August", "September",
             "October", "November", "December")  # fmt: skip
MONTHS_RU = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
             "сентября", "октября", "ноября", "декабря")  # fmt: skip


def change_number(s: str, rng: random.Random, _: list[str]) -> str | None:
    nums = list(NUM.finditer(s))
    months = [m for m in re.finditer(r"\w+", s) if m.group(0) in MONTHS_EN + MONTHS_RU]
    if months and (not nums or rng.random() < 0.5):
        m = rng.choice(months)
        names = MONTHS_EN if m.group(0) in MONTHS_EN else MONTHS_RU
        other = rng.choice([x for x in names if x != m.group(0)])
        return s[: m.start()] + other + s[m.end() :]
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


# Opposites as (stem, stem): a word starting with one stem (and at most `_TAIL` more letters) gets
# the other stem with the same ending. Written for the bench, independently of ingest.claims.
BENCH_ANTONYMS: tuple[tuple[str, str], ...] = (
    ("increas", "decreas"), ("higher", "lower"), ("high", "low"), ("larger", "smaller"),
    ("large", "small"), ("greater", "lesser"), ("more", "less"), ("positive", "negative"),
    ("early", "late"), ("earlier", "later"), ("strong", "weak"), ("long", "short"),
    ("first", "last"), ("young", "old"), ("rich", "poor"), ("common", "rare"),
    ("present", "absent"), ("major", "minor"), ("internal", "external"), ("upper", "lower"),
    ("better", "worse"), ("best", "worst"), ("ancient", "modern"), ("public", "private"),
    ("north", "south"), ("east", "west"), ("enhanc", "suppress"), ("activat", "inhibit"),
    ("gain", "loss"), ("success", "failure"), ("accept", "reject"), ("open", "closed"),
    ("won", "lost"), ("win", "lose"), ("rise", "fall"), ("rose", "fell"), ("begin", "end"),
    ("start", "end"), ("inside", "outside"), ("before", "after"), ("above", "below"),
    ("maxim", "minim"), ("true", "false"), ("safe", "dangerous"), ("stable", "unstable"),
    ("likely", "unlikely"), ("significant", "insignificant"), ("effective", "ineffective"),
    ("direct", "indirect"), ("dependent", "independent"), ("heavy", "light"),
    ("wide", "narrow"), ("deep", "shallow"), ("fast", "slow"), ("hot", "cold"),
    ("warm", "cool"), ("wet", "dry"), ("up", "down"), ("left", "right"), ("allow", "forbid"),
    ("увелич", "уменьш"), ("больш", "меньш"), ("выше", "ниже"), ("высок", "низк"),
    ("сильн", "слаб"), ("ранн", "поздн"), ("нов", "стар"), ("перв", "последн"),
    ("длинн", "коротк"), ("богат", "бедн"), ("север", "юг"), ("запад", "восток"),
    ("внутренн", "внешн"), ("верхн", "нижн"), ("крупн", "мелк"), ("широк", "узк"),
    ("тёпл", "холодн"), ("горяч", "холодн"), ("лучш", "худш"), ("молод", "стар"),
    ("частн", "государственн"), ("начал", "конч"), ("открыт", "закрыт"), ("побед", "поражен"),
    ("рост", "падени"), ("прав", "лев"), ("светл", "тёмн"), ("быстр", "медленн"),
    ("глубок", "мелк"), ("тяжёл", "лёгк"), ("част", "редк"), ("известн", "неизвестн"),
    ("возможн", "невозможн"), ("зависим", "независим"), ("полн", "пуст"),
)  # fmt: skip
_TAIL = 4
WORD = re.compile(r"[^\W\d_]+")


def swap_antonym(s: str, rng: random.Random, _: list[str]) -> str | None:
    words = list(WORD.finditer(s))
    order = list(BENCH_ANTONYMS)
    rng.shuffle(order)
    for a, b in order:
        for src, dst in ((a, b), (b, a)):
            for m in words:
                low = m.group(0).casefold()
                tail = len(low) - len(src)
                if low.startswith(src) and (tail <= _TAIL if len(src) > 3 else tail == 0):
                    repl = dst + m.group(0)[len(src) :]
                    if m.group(0)[0].isupper():
                        repl = repl[0].upper() + repl[1:]
                    return s[: m.start()] + repl + s[m.end() :]
    return None


def swap_guard_antonym(s: str, rng: random.Random, _: list[str]) -> str | None:
    """The previous rule of this bench: an antonym from the guard's own list (ingest.claims)."""
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


QUANT = (
    ("all", "some"), ("every", "some"), ("always", "sometimes"), ("most", "few"),
    ("many", "few"), ("each", "some"), ("все", "некоторые"), ("всегда", "иногда"),
    ("каждый", "некоторый"), ("многие", "немногие"), ("часто", "редко"),
    ("большинство", "меньшинство"), ("всех", "некоторых"),
)  # fmt: skip


def change_quantifier(s: str, rng: random.Random, _: list[str]) -> str | None:
    for a, b in QUANT:
        for src, dst in ((a, b), (b, a)):
            m = re.search(rf"(?<!\w){src}(?!\w)", s, re.IGNORECASE)
            if m:
                repl = dst.capitalize() if m.group(0)[0].isupper() else dst
                return s[: m.start()] + repl + s[m.end() :]
    return None


UNIT_SWAP = (
    ("mg", "g"), ("km", "m"), ("kg", "g"), ("ml", "l"), ("%", " mg"), ("years", "months"),
    ("days", "weeks"), ("hours", "minutes"), ("million", "billion"), ("thousand", "million"),
    ("km", "miles"), ("метров", "километров"), ("км", "м"), ("кг", "г"), ("лет", "месяцев"),
    ("тысяч", "миллионов"), ("миллионов", "миллиардов"), ("процентов", "раз"),
)  # fmt: skip


def change_unit(s: str, rng: random.Random, _: list[str]) -> str | None:
    for a, b in UNIT_SWAP:
        for src, dst in ((a, b), (b, a)):
            if src == "%":
                m = re.search(r"(?<=\d)\s?%", s)
            else:
                m = re.search(rf"(?<=\d )({re.escape(src)})(?!\w)", s)
            if m:
                return s[: m.start()] + dst + s[m.end() :]
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
    "antonym, guard's list": swap_guard_antonym,
    "quantifier": change_quantifier,
    "unit": change_unit,
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
    parser.add_argument("--per-source", type=int, default=200, help="sentences per source")
    parser.add_argument(
        "--cache", type=Path, default=None, help="a .json file of vectors by text, reused"
    )
    parser.add_argument("--dry", action="store_true", help="show pairs, embed nothing")
    parser.add_argument(
        "--duplicates", type=int, default=60, help="true-duplicate pairs per class and source"
    )
    parser.add_argument(
        "--sample", type=int, default=20, help="pairs per class embedded for the before column"
    )
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
                for s in sents if group == "contrast" else sents[: args.duplicates]:
                    t = rule(s, rng, pool)
                    if (t and t != s) or (t == s and cls == "repeated in another document"):
                        pairs.append((group, f"{cls} ({name})", s, t))
    log(f"{len(pairs)} pairs; embedding")
    if args.dry:
        for group, cls, a, b in pairs[:: max(1, len(pairs) // 60)]:
            print(f"{group} {cls}: {a!r}\n    -> {b!r}")
        print({k: sum(1 for p in pairs if p[1] == k) for k in sorted({p[1] for p in pairs})})
        return
    sample = random.Random(16)
    by_class: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_class[p[1]].append(i)
    sampled = {
        i for ids in by_class.values() for i in sample.sample(ids, min(args.sample, len(ids)))
    }
    guard = [not differences(claim_signature(a), claim_signature(b)) for _, _, a, b in pairs]
    embed = sorted(i for i in range(len(pairs)) if i in sampled or guard[i])
    texts = sorted({x for i in embed for x in pairs[i][2:]})
    vectors: dict[str, list[float]] = {}
    if args.cache and args.cache.exists():
        vectors = json.loads(args.cache.read_text())
    todo = [t for t in texts if t not in vectors]
    log(f"{len(todo)} of {len(texts)} texts to embed")
    for i in range(0, len(todo), 64):
        for t, v in zip(todo[i : i + 64], embedder.embed_documents(todo[i : i + 64]), strict=True):
            vectors[t] = [float(x) for x in v]
        if args.cache and (i % 256 == 0 or i + 64 >= len(todo)):
            args.cache.write_text(json.dumps(vectors))
            log(f"embedded {i + 64}/{len(todo)}")
    # per class: pairs, sampled, merged by similarity alone (in the sample), merged with the guard
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for i, (group, cls, a, b) in enumerate(pairs):
        c = counts[(group, cls)]
        c[0] += 1
        if i not in sampled and not guard[i]:
            continue  # the guard keeps them apart whatever their cosine: decide never merges them
        vs = [vectors[a], vectors[b]]
        sigs = [claim_signature(a), claim_signature(b)]
        after, _ = decide(vs, index=None, collection=None, threshold=threshold, signatures=sigs)
        c[3] += int(after[1].duplicate)
        if group == "contrast" and after[1].duplicate:
            log(f"MERGED {cls}: {a!r} / {b!r}")
        if i in sampled:
            before, _ = decide(vs, index=None, collection=None, threshold=threshold)
            c[1] += 1
            c[2] += int(before[1].duplicate)
            if group == "duplicate" and before[1].duplicate and not after[1].duplicate:
                log(f"KEPT APART {cls}: {after[1].conflicts[0].reasons} {a!r} / {b!r}")
    for group, title in (
        ("contrast", "Contrast pairs (different claims): merged, target 0"),
        ("duplicate", "True duplicates: merged (higher is better)"),
    ):
        rows = []
        tot = [0, 0, 0, 0]
        for (g, cls), (n, k, before, after) in sorted(counts.items()):
            if g != group:
                continue
            rows.append(
                [
                    cls,
                    n,
                    f"{before} of {k} ({before / max(k, 1):.1%})",
                    f"{after} ({after / n:.1%})",
                ]
            )
            tot = [tot[0] + n, tot[1] + k, tot[2] + before, tot[3] + after]
        if tot[0]:
            rows.append(
                [
                    "**all**",
                    tot[0],
                    f"{tot[2]} of {tot[1]} ({tot[2] / max(tot[1], 1):.1%})",
                    f"{tot[3]} ({tot[3] / tot[0]:.1%})",
                ]
            )
        print(f"\n### {title}\n")
        print(f"embedder `{embedder.model_id}`, threshold {threshold}\n")
        print(
            md_table(
                [
                    "class (source)",
                    "pairs",
                    "merged, similarity only (before; on a random sample)",
                    "merged, claim guard (all pairs)",
                ],
                rows,
            )
        )


if __name__ == "__main__":
    main()
