"""Dataset loaders of the retrieval evaluation (bench/eval_retrieval.py).

Each loader turns one public set under the shared data directory into an `EvalSet`: the documents
to store as atoms (with the topic or tags that scope them) and the queries with their graded
relevance, following the recipe of the set's SOURCE.md:

- SciFact (BEIR): title + abstract per atom, the 300 test claims, qrels/test.tsv;
- LoCoMo: one atom per dialog turn written as the paper's RAG runs embed it,
  `(<session date_time>) <speaker> said, "<text>"` (+ `[shares <caption>]`), each conversation
  its own topic; evidence dia_ids normalised as SOURCE.md prescribes; category 5 excluded;
- LongMemEval-S subset: one atom per haystack session, each question's haystack its own tag;
  "user" keeps the user turns only (the official recipe, `noans_` renaming included), "both"
  keeps both roles as a memory stores them; abstention questions are skipped;
- XQuAD-ru paragraphs (ru and parallel en questions) and sentences; TyDi QA ru as title + text.

Loaders only read files; nothing here touches the service.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Doc:
    ext_id: str
    claim: str
    content: str = ""
    topic: str | None = None
    tags: tuple[str, ...] = ()
    # Its decay profile as the memory would choose it (a conversation turn or session is the
    # agent's conversational memory, a paper's abstract timeless document knowledge) and the
    # time it is about (when it was said), for the decay comparison (--decay off,on).
    decay: str = "timeless"
    about: datetime | None = None


@dataclass(frozen=True)
class Query:
    qid: str
    text: str
    relevant: dict[str, int]  # ext_id -> grade (> 0)
    topic: str | None = None  # search filter: only atoms of this topic
    tag: str | None = None  # search filter: only atoms with this tag
    category: str | None = None
    now: datetime | None = None  # when the question is asked (ages count to it); None: now


def locomo_date(text: str) -> datetime | None:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as a UTC time."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def lme_date(text: str) -> datetime | None:
    """A LongMemEval date ("2023/08/11 (Fri) 15:58") as a UTC time."""
    try:
        day, _, clock = text.split(" ")
        return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)
    except ValueError:
        return None


@dataclass(frozen=True)
class EvalSet:
    """One evaluation: a corpus (stored in its own database `store`) and its queries."""

    name: str
    store: str  # data directory name under the cache; sets with the same corpus share it
    docs: list[Doc]
    queries: list[Query]
    kind: str  # "beir" | "locomo" | "lme": which metrics apply
    limit: int  # how many hits each search returns (the largest k of the metrics)
    notes: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        next(f)
        for line in f:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                out.setdefault(qid, {})[did] = int(score)
    return out


def _beir(
    name: str,
    store: str,
    corpus: Path,
    queries: Path,
    qrels: Path,
    *,
    use_title: bool,
    limit: int = 10,
) -> EvalSet:
    docs = []
    for row in _jsonl(corpus):
        title = str(row.get("title") or "").strip()
        text = str(row["text"]).strip()
        if use_title and title:
            # "Title. text" as one claim: the title reads as the passage's first sentence.
            docs.append(Doc(str(row["_id"]), claim=f"{title}. {text}"))
        else:
            docs.append(Doc(str(row["_id"]), claim=text))
    rel = _qrels(qrels)
    qs = [
        Query(str(q["_id"]), str(q["text"]), rel[str(q["_id"])])
        for q in _jsonl(queries)
        if str(q["_id"]) in rel
    ]
    return EvalSet(name, store, docs, qs, "beir", limit)


def scifact(root: Path) -> list[EvalSet]:
    d = root / "scifact"
    return [
        _beir(
            "scifact",
            "scifact",
            d / "corpus.jsonl",
            d / "queries.jsonl",
            d / "qrels" / "test.tsv",
            use_title=True,
            limit=100,
        )
    ]


def xquad(root: Path) -> list[EvalSet]:
    d = root / "ru" / "xquad"
    para = _beir(
        "xquad-ru-para",
        "xquad_para",
        d / "corpus.jsonl",
        d / "queries.jsonl",
        d / "qrels" / "test.tsv",
        use_title=False,
    )
    en = _beir(
        "xquad-en-ru-para",
        "xquad_para",
        d / "corpus.jsonl",
        d / "queries_en.jsonl",
        d / "qrels" / "test.tsv",
        use_title=False,
    )
    sent = _beir(
        "xquad-ru-sent",
        "xquad_sent",
        d / "corpus_sentences.jsonl",
        d / "queries.jsonl",
        d / "qrels" / "test_sentences.tsv",
        use_title=False,
    )
    return [para, sent, en]


def tydi(root: Path) -> list[EvalSet]:
    d = root / "ru" / "tydiqa_goldp"
    return [
        _beir(
            "tydi-ru",
            "tydi",
            d / "corpus.jsonl",
            d / "queries.jsonl",
            d / "qrels" / "test.tsv",
            use_title=True,
        )
    ]


_DIA = re.compile(r"D(\d+):(\d+)")


def locomo_evidence(raw: list[Any]) -> list[str]:
    """Evidence ids normalised per SOURCE.md: split on ; or spaces, parse D<s>:<t> as ints."""
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;\s]+", str(item)):
            m = _DIA.search(part)
            if m:
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                if dia not in out:
                    out.append(dia)
    return out


def locomo(root: Path) -> list[EvalSet]:
    data = json.loads((root / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    docs: list[Doc] = []
    queries: list[Query] = []
    for sample in data:
        conv_id = str(sample["sample_id"])
        conv = sample["conversation"]
        n = 1
        last: datetime | None = None
        while f"session_{n}_date_time" in conv:
            turns = conv.get(f"session_{n}")
            when = conv[f"session_{n}_date_time"]
            said = locomo_date(when)
            if said is not None:
                last = max(last, said) if last else said
            for pos, turn in enumerate(turns or [], start=1):
                text = f'({when}) {turn["speaker"]} said, "{turn["text"]}"'
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                docs.append(
                    Doc(
                        f"{conv_id}/D{n}:{pos}",
                        claim=text,
                        topic=conv_id,
                        decay="conversational",
                        about=said,
                    )
                )
            n += 1
        for i, qa in enumerate(sample["qa"]):
            if int(qa["category"]) == 5:
                continue
            evidence = locomo_evidence(qa.get("evidence") or [])
            queries.append(
                Query(
                    f"{conv_id}#{i}",
                    str(qa["question"]),
                    {f"{conv_id}/{e}": 1 for e in evidence},
                    topic=conv_id,
                    category=str(qa["category"]),
                    now=last,  # the questions come after the last session
                )
            )
    return [EvalSet("locomo", "locomo", docs, queries, "locomo", 25)]


def _lme(root: Path, roles: str) -> EvalSet:
    path = root / "longmemeval" / "longmemeval_s_subset28.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    docs: dict[str, Doc] = {}
    queries: list[Query] = []
    skipped_empty = 0
    for item in data:
        qid = str(item["question_id"])
        if qid.endswith("_abs"):
            continue
        tag = f"q:{qid}"
        gold: dict[str, int] = {}
        for sid, session, when in zip(
            item["haystack_session_ids"],
            item["haystack_sessions"],
            item["haystack_dates"],
            strict=True,
        ):
            sid = str(sid)
            if roles == "user":
                turns = [t for t in session if t["role"] == "user"]
                text = " ".join(str(t["content"]) for t in turns)
                # The official recipe: an evidence session whose evidence is not in a user
                # turn is renamed noans_ and is no longer a correct document.
                if sid.startswith("answer") and not any(t.get("has_answer") for t in turns):
                    sid = "noans" + sid[len("answer") :]
            else:
                text = "\n".join(f"{t['role']}: {t['content']}" for t in session)
            if not text.strip():
                skipped_empty += 1
                continue
            if "answer" in sid:
                gold[sid] = 1
            prev = docs.get(sid)
            tags = (*prev.tags, tag) if prev else (tag,)
            # A session shared by haystacks keeps the date of its first (21 of 1,354 differ).
            about = prev.about if prev else lme_date(str(when))
            docs[sid] = Doc(
                sid,
                claim=text,
                tags=tuple(dict.fromkeys(tags)),
                decay="conversational",
                about=about,
            )
        queries.append(
            Query(
                qid,
                str(item["question"]),
                gold,
                tag=tag,
                category=item["question_type"],
                now=lme_date(str(item["question_date"])),
            )
        )
    notes = [f"{skipped_empty} empty sessions skipped"] if skipped_empty else []
    return EvalSet(f"lme-s-{roles}", f"lme_{roles}", list(docs.values()), queries, "lme", 10, notes)


def lme(root: Path) -> list[EvalSet]:
    return [_lme(root, "user"), _lme(root, "both")]


LOADERS: dict[str, Callable[[Path], list[EvalSet]]] = {
    "xquad": xquad,
    "tydi": tydi,
    "locomo": locomo,
    "lme": lme,
    "scifact": scifact,
}


def restrict(evset: EvalSet, scopes: int) -> EvalSet:
    """The first `scopes` scopes (LoCoMo conversations, LongMemEval haystacks) of a scoped set:
    their documents and queries only. Each scope is searched alone, so a subset is a fair,
    smaller evaluation; unscoped sets are returned unchanged."""
    keys: list[str] = []
    for q in evset.queries:
        key = q.topic or q.tag
        if key is None:
            return evset
        if key not in keys:
            keys.append(key)
    kept = set(keys[:scopes])
    docs = [d for d in evset.docs if d.topic in kept or kept.intersection(d.tags)]
    queries = [q for q in evset.queries if (q.topic or q.tag) in kept]
    note = f"first {len(kept)} of {len(keys)} scopes"
    return EvalSet(
        evset.name, evset.store, docs, queries, evset.kind, evset.limit, [*evset.notes, note]
    )
