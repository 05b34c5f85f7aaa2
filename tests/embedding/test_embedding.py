"""Embedders: the real local models, and the Ollama client against a fake Ollama on loopback."""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from pegas_memory.config import load_settings
from pegas_memory.embedding.embedders import (
    LOCAL_MODELS,
    Embedder,
    LocalEmbedder,
    OllamaEmbedder,
    PromptFormat,
    RetryPolicy,
    build_embedder,
    cosine,
    l2_normalize,
    prompt_format_for,
)
from pegas_memory.errors import BackendUnavailable, InvalidInput
from tests.fake_ollama import FakeOllama, hashed_embedding
from tests.loopback import free_port

RU = "Кошка спит на тёплом подоконнике."
EN = "The cat is sleeping on the warm windowsill."
UNRELATED = "Центральный банк повысил ключевую ставку до шестнадцати процентов."


def norm(vector: list[float]) -> float:
    return math.sqrt(sum(v * v for v in vector))


# --------------------------------------------------------------------------- pure helpers


def test_l2_normalize_scales_rows_and_keeps_zero_rows() -> None:
    rows = l2_normalize([[3.0, 4.0], [0.0, 0.0]])
    assert rows == [[0.6, 0.8], [0.0, 0.0]]


def test_retry_policy_backs_off_exponentially_with_a_cap() -> None:
    assert RetryPolicy(retries=4, base_delay=0.5, max_delay=1.5).delays() == [0.5, 1.0, 1.5, 1.5]
    assert RetryPolicy(retries=0).delays() == []


def test_retry_policy_is_one_for_both_model_clients() -> None:
    """The chat client pauses with the embedder's policy, capped by its deadline."""
    from pegas_memory import backoff
    from pegas_memory.distill.llm import OllamaChat

    policy = RetryPolicy(retries=3, base_delay=0.5, max_delay=1.5)
    assert [policy.delay(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 1.5, None]
    assert policy.delay(2, budget=0.25) == 0.25
    assert policy.delay(1, budget=-1.0) == 0.0
    assert RetryPolicy is backoff.RetryPolicy
    assert OllamaChat("http://127.0.0.1:1", "m", retries=3)._retry.retries == 3


def test_prompt_format_known_and_unknown_models() -> None:
    gemma = prompt_format_for("embeddinggemma:300m")
    assert gemma.for_query("x") == "task: search result | query: x"
    assert gemma.for_document("x") == "title: none | text: x"
    assert prompt_format_for("some-new-model") == PromptFormat()


def test_cosine() -> None:
    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [0.0, 3.0]) == pytest.approx(0.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0


# --------------------------------------------------------------------------- local models

LOCAL_NAMES = sorted(LOCAL_MODELS)


@pytest.fixture(params=LOCAL_NAMES)
def local(request: pytest.FixtureRequest) -> LocalEmbedder:
    return LocalEmbedder(request.param)


def test_local_embedding_is_real_normalised_and_of_the_declared_dim(local: LocalEmbedder) -> None:
    assert isinstance(local, Embedder)
    vectors = local.embed_documents([RU, EN, ""])
    assert len(vectors) == 3
    for v in vectors:
        assert len(v) == local.dim == LOCAL_MODELS[local.name].dim
        assert norm(v) == pytest.approx(1.0, abs=1e-5)
    # A real model separates different texts; a constant or hashed stand-in would not rank
    # the translation pair above an unrelated sentence (next test).
    assert cosine(vectors[0], vectors[1]) < 0.9999
    query = local.embed_query(RU)
    assert len(query) == local.dim and norm(query) == pytest.approx(1.0, abs=1e-5)


def test_local_translation_pair_is_closer_than_an_unrelated_pair(local: LocalEmbedder) -> None:
    ru, en, other = local.embed_documents([RU, EN, UNRELATED])
    assert cosine(ru, en) > cosine(ru, other) + 0.02
    assert cosine(en, ru) > cosine(en, other) + 0.02
    # Cross-lingual search: an English query finds the Russian passage first.
    query = local.embed_query("Where is the cat sleeping?")
    assert cosine(query, ru) > cosine(query, other)


def test_local_is_deterministic_across_calls_and_batch_shapes(local: LocalEmbedder) -> None:
    texts = [RU, EN, UNRELATED, "Короткий текст.", "Short text."]
    first = local.embed_documents(texts)
    again = local.embed_documents(texts)
    one_by_one = [local.embed_documents([t])[0] for t in texts]
    for a, b, c in zip(first, again, one_by_one, strict=True):
        assert a == pytest.approx(b, abs=1e-6)
        assert a == pytest.approx(c, abs=1e-5)


def test_local_empty_list_gives_empty_list(local: LocalEmbedder) -> None:
    assert local.embed_documents([]) == []


def test_local_rejects_non_strings(local: LocalEmbedder) -> None:
    with pytest.raises(InvalidInput, match="not str"):
        local.embed_documents(["ok", 42])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="not one string"):
        local.embed_documents("a single string")


def test_local_is_thread_safe(local: LocalEmbedder) -> None:
    texts = [f"{RU} Номер {i}." for i in range(6)] + [f"{EN} Number {i}." for i in range(6)]
    expected = local.embed_documents(texts)
    other = LocalEmbedder(local.name, batch_size=2)  # shares the loaded model
    jobs = [(local if i % 2 else other, [texts[i], texts[-1 - i]]) for i in range(len(texts))]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: job[0].embed_documents(job[1]), jobs, timeout=120))
    for i, (first, last) in enumerate(results):
        assert first == pytest.approx(expected[i], abs=1e-5)
        assert last == pytest.approx(expected[-1 - i], abs=1e-5)


def test_e5_uses_query_and_passage_prompts() -> None:
    e5 = LocalEmbedder("e5-small")
    as_query = e5.embed_query(RU)
    (as_passage,) = e5.embed_documents([RU])
    assert cosine(as_query, as_passage) < 0.999  # different prompts give different vectors
    assert cosine(as_query, as_passage) > 0.8


def test_local_model_ids_differ_and_closed_embedder_refuses() -> None:
    ids = {spec.model_id for spec in LOCAL_MODELS.values()}
    assert len(ids) == len(LOCAL_MODELS)
    emb = LocalEmbedder("use-multilingual")
    emb.close()
    with pytest.raises(BackendUnavailable, match="closed"):
        emb.embed_query("x")
    assert LocalEmbedder("use-multilingual").embed_query("x")  # others keep working


def test_unknown_local_embedder_names_the_choices() -> None:
    with pytest.raises(InvalidInput, match="e5-small"):
        LocalEmbedder("bert-base")


# --------------------------------------------------------------------------- selection


def test_build_embedder_local_by_default(tmp_path: Any) -> None:
    settings = load_settings(data_dir=tmp_path, ollama_url=None, local_embedder="use-multilingual")
    emb = build_embedder(settings)
    assert isinstance(emb, LocalEmbedder)
    assert emb.model_id == "local/use-multilingual-v3" and emb.dim == 512


def test_build_embedder_ollama_when_url_set(tmp_path: Any) -> None:
    settings = load_settings(data_dir=tmp_path, ollama_url="http://127.0.0.1:9")
    emb = build_embedder(settings)
    assert isinstance(emb, OllamaEmbedder)
    assert emb.model_id == "ollama/embeddinggemma" and emb.dim == 768
    emb.close()


def test_build_embedder_unknown_local_name(tmp_path: Any) -> None:
    with pytest.raises(InvalidInput, match="PEGAS_LOCAL_EMBEDDER"):
        build_embedder(load_settings(data_dir=tmp_path, ollama_url=None, local_embedder="nope"))


# --------------------------------------------------------------------------- Ollama


def ollama_embedder(url: str, **kwargs: Any) -> OllamaEmbedder:
    kwargs.setdefault("retry", RetryPolicy(retries=2, base_delay=0.01))
    kwargs.setdefault("timeout", 5.0)
    return OllamaEmbedder(url, "embeddinggemma", kwargs.pop("dim", 768), **kwargs)


def embed_inputs(fake: FakeOllama) -> list[list[str]]:
    return [list(body["input"]) for path, body in fake.requests if path == "/api/embed"]


def test_ollama_embeds_in_order_with_the_model_prompts() -> None:
    with FakeOllama() as fake:
        emb = ollama_embedder(fake.url)
        vectors = emb.embed_documents(["alpha beta", "gamma", "beta alpha"])
        query = emb.embed_query("alpha")
        emb.close()
    assert len(vectors) == 3 and all(len(v) == 768 for v in vectors)
    assert all(norm(v) == pytest.approx(1.0) for v in vectors)
    expected = hashed_embedding("title: none | text: gamma", 768)
    assert vectors[1] == pytest.approx(expected)
    assert embed_inputs(fake) == [
        [
            "title: none | text: alpha beta",
            "title: none | text: gamma",
            "title: none | text: beta alpha",
        ],
        ["task: search result | query: alpha"],
    ]
    assert cosine(query, vectors[0]) > cosine(query, vectors[1])


def test_ollama_batches_large_inputs() -> None:
    texts = [f"text number {i}" for i in range(150)]
    with FakeOllama() as fake:
        emb = ollama_embedder(fake.url, batch_size=64)
        vectors = emb.embed_documents(texts)
    assert [len(batch) for batch in embed_inputs(fake)] == [64, 64, 22]
    assert vectors[149] == pytest.approx(
        hashed_embedding("title: none | text: text number 149", 768)
    )
    assert emb.embed_documents([]) == []


def test_ollama_normalises_vectors() -> None:
    def unnormalised(texts: list[str], model: str) -> list[list[float]]:
        return [[3.0, 4.0] + [0.0] * 766 for _ in texts]

    with FakeOllama(embed=unnormalised) as fake:
        (vector,) = ollama_embedder(fake.url).embed_documents(["x"])
    assert vector[:2] == pytest.approx([0.6, 0.8])


def test_ollama_server_down_is_a_clear_error_after_bounded_retries() -> None:
    sleeps: list[float] = []
    emb = OllamaEmbedder(
        f"http://127.0.0.1:{free_port()}",
        timeout=2.0,
        retry=RetryPolicy(retries=2, base_delay=0.01),
        sleep=sleeps.append,
    )
    started = time.monotonic()
    with pytest.raises(BackendUnavailable) as err:
        emb.embed_query("hello")
    assert time.monotonic() - started < 5
    assert "is unreachable" in str(err.value)
    assert "unset PEGAS_OLLAMA_URL" in str(err.value)
    assert sleeps == [0.01, 0.02]


def test_ollama_model_missing_says_how_to_pull_and_does_not_retry() -> None:
    with FakeOllama(models=("qwen2.5:7b-instruct",)) as fake:
        emb = ollama_embedder(fake.url)
        with pytest.raises(BackendUnavailable, match="ollama pull embeddinggemma"):
            emb.embed_documents(["x"])
    assert len(embed_inputs(fake)) == 1


def test_ollama_slow_server_is_bounded_by_the_timeout() -> None:
    with FakeOllama(delay=3.0) as fake:
        emb = ollama_embedder(fake.url, timeout=0.3, retry=RetryPolicy(retries=1, base_delay=0.01))
        started = time.monotonic()
        with pytest.raises(BackendUnavailable, match="PEGAS_MODEL_TIMEOUT"):
            emb.embed_query("x")
        elapsed = time.monotonic() - started
    assert elapsed < 2.5  # two attempts of 0.3 s, far below one 3 s answer
    assert len(embed_inputs(fake)) == 2


def test_ollama_wrong_dimension_is_refused() -> None:
    with FakeOllama(dim=384) as fake:
        emb = ollama_embedder(fake.url, dim=768)
        with pytest.raises(BackendUnavailable, match="PEGAS_EMBEDDING_DIM=384"):
            emb.embed_documents(["x"])


def test_ollama_server_errors_are_retried_then_reported() -> None:
    with FakeOllama(fail_status=503) as fake:
        emb = ollama_embedder(fake.url, retry=RetryPolicy(retries=2, base_delay=0.01))
        with pytest.raises(BackendUnavailable, match="HTTP 503"):
            emb.embed_query("x")
    assert len(embed_inputs(fake)) == 3


def test_ollama_recovers_from_a_dropped_connection() -> None:
    calls = {"n": 0}

    def flaky(texts: list[str], model: str) -> list[list[float]]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("simulated crash: the handler closes the connection unanswered")
        return [hashed_embedding(t, 768) for t in texts]

    with FakeOllama(embed=flaky) as fake:
        vector = ollama_embedder(fake.url).embed_query("x")
    assert len(vector) == 768 and calls["n"] == 2


def test_ollama_ignores_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(var, dead_proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with FakeOllama() as fake:
        assert len(ollama_embedder(fake.url).embed_query("x")) == 768


def test_ollama_is_thread_safe() -> None:
    texts = [f"document {i} about topic {i % 5}" for i in range(40)]
    with FakeOllama() as fake:
        emb = ollama_embedder(fake.url, batch_size=3)
        expected = emb.embed_documents(texts)
        chunks = [texts[i : i + 5] for i in range(0, 40, 5)]
        barrier = threading.Barrier(4)

        def work(chunk: list[str]) -> list[list[float]]:
            barrier.wait(timeout=10)
            return emb.embed_documents(chunk)

        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(work, chunks[:4], timeout=30))
            results += list(pool.map(emb.embed_documents, chunks[4:], timeout=30))
        emb.close()
    flat = [v for chunk in results for v in chunk]
    assert len(flat) == 40
    for got, want in zip(flat, expected, strict=True):
        assert got == pytest.approx(want)
