"""A small Ollama chat client for structured (JSON-schema) answers.

Distillation and self-critique both need the same thing from a model: one JSON object that fits a
schema, or a clear failure. `OllamaChat.complete_json` asks with Ollama's structured outputs
(`format=<schema>`, temperature 0), checks the answer against the schema itself (a model may
ignore the grammar, and older servers do), feeds a wrong answer back with the validation errors so
the retry is not the same deterministic mistake, and stops at a wall-clock deadline so a slow or
absent model never hangs a caller.

Failures are typed: `BackendUnavailable` when the server is down or lacks the model,
`ModelTimeout` (a `BackendUnavailable`) when the deadline passes, and `InvalidModelOutput` when
the model keeps answering something that does not fit.
"""

from __future__ import annotations

import json
import logging
import math
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import httpx
import ollama

from pegas_memory.backoff import RetryPolicy
from pegas_memory.errors import BackendUnavailable, InvalidInput, PegasMemoryError

if TYPE_CHECKING:
    from pegas_memory.config import Settings

log = logging.getLogger(__name__)

# A semantic check on top of the schema: returns None when the answer is acceptable, else a short
# description of what is wrong (sent back to the model on the retry).
AnswerCheck = Callable[[dict[str, Any]], str | None]

# The connect phase gets its own short bound: a refused or black-holed port should fail fast
# instead of eating the whole budget meant for generation.
_CONNECT_TIMEOUT = 5.0


@lru_cache(maxsize=1)
def _tls() -> ssl.SSLContext:
    # Building a TLS context costs ~150 ms (it loads the CA bundle); every call builds its own
    # HTTP client, so they share this one (an SSLContext is safe to share between threads).
    return httpx.create_ssl_context()


class InvalidModelOutput(PegasMemoryError):
    """The model's answers did not fit the requested JSON schema; the check could not run."""


class ModelTimeout(BackendUnavailable):
    """The model server did not answer in time; retry later or raise PEGAS_MODEL_TIMEOUT."""


def validate_json(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Errors of `value` against a JSON schema subset; an empty list means valid.

    Checked keywords: type (one or a list), enum, const, properties, required,
    additionalProperties (boolean), items, minItems, maxItems, minimum, maximum, minLength,
    maxLength, anyOf. Other keywords are not checked: the schemas in this package use only these.
    """
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_is_type(value, name) for name in names):
            return [f"{path}: expected {' or '.join(names)}, got {_type_name(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {list(schema['enum'])}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    if "anyOf" in schema:
        branches = [validate_json(value, sub, path) for sub in schema["anyOf"]]
        if all(branches):
            errors.append(f"{path}: matches no allowed form ({branches[0][0]})")
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        errors += [f"{path}: missing {k!r}" for k in schema.get("required", ()) if k not in value]
        for key, item in value.items():
            if key in props:
                errors += validate_json(item, props[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key {key!r}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                errors += validate_json(item, schema["items"], f"{path}[{i}]")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above the maximum {schema['maximum']}")
    return errors


def _is_type(value: Any, name: str) -> bool:
    # bool is an int in Python but not a number in JSON; NaN and infinities are not JSON at all.
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        # JSON Schema counts 1.0 as an integer; callers convert with int().
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(float(value))
        )
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return False


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return name
    return type(value).__name__


def parse_json_object(content: str) -> dict[str, Any]:
    """The JSON object in a model's answer, tolerating a code fence or chatter around it.

    Raises ValueError when there is no JSON object.
    """
    text = content.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        # Without a grammar some models wrap the object in ```json fences or a sentence.
        start = text.find("{")
        if start < 0:
            raise ValueError("the answer contains no JSON object") from None
        try:
            value, _end = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the answer is not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ValueError(f"the answer is a JSON {_type_name(value)}, not an object")
    return value


class OllamaChat:
    """Structured chat with one Ollama model. Thread-safe: every call builds its own HTTP client
    (bounded by that call's remaining time) and the instance holds no mutable state."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        timeout: float = 60.0,
        retries: int = 2,
        keep_alive: str | None = None,
    ) -> None:
        if timeout <= 0:
            raise InvalidInput(f"model timeout must be positive, got {timeout}")
        if retries < 0:
            raise InvalidInput(f"model retries must be >= 0, got {retries}")
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.keep_alive = keep_alive
        # Transport failures (a restart, a 5xx) are retried with the embedder's policy; short
        # pauses, since the call's own deadline bounds the whole exchange.
        self._retry = RetryPolicy(retries=retries, base_delay=0.2, max_delay=2.0)

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaChat:
        """The chat client the settings describe. Raises InvalidInput when no Ollama URL is set."""
        if not settings.ollama_url:
            raise InvalidInput("PEGAS_OLLAMA_URL is not set; the LLM path needs an Ollama server")
        return cls(
            settings.ollama_url,
            settings.chat_model,
            timeout=settings.model_timeout,
            retries=settings.model_retries,
        )

    def __repr__(self) -> str:
        return f"OllamaChat(url={self.url!r}, model={self.model!r})"

    def complete_json(
        self,
        system: str,
        user: str,
        schema: Mapping[str, Any],
        *,
        timeout: float | None = None,
        check: AnswerCheck | None = None,
    ) -> dict[str, Any]:
        """Ask the model and return its answer: a JSON object that fits `schema` (and `check`).

        `timeout` (default: the client's) bounds the whole call, retries included. An invalid
        answer is retried up to `retries` times with the errors fed back to the model.

        Raises:
            BackendUnavailable: the server is unreachable, keeps failing, or lacks the model.
            ModelTimeout: no acceptable answer before the deadline.
            InvalidModelOutput: every attempt gave output that does not fit.
        """
        budget = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        messages: list[dict[str, str]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        problem = ""
        for attempt in range(self.retries + 1):
            content = self._chat(messages, schema, deadline, budget)
            try:
                answer = parse_json_object(content)
            except ValueError as exc:
                problem = str(exc)
            else:
                errors = validate_json(answer, schema)
                extra = None if errors or check is None else check(answer)
                if not errors and extra is None:
                    return answer
                problem = "; ".join(errors[:8]) if errors else str(extra)
            log.info("model %s gave invalid output (attempt %d): %s", self.model, attempt, problem)
            messages = [
                *messages[:2],
                {"role": "assistant", "content": content[:4000]},
                {
                    "role": "user",
                    "content": "That answer is invalid: "
                    + problem
                    + ". Answer again with only a JSON object that fits the schema.",
                },
            ]
        raise InvalidModelOutput(
            f"model {self.model} gave invalid output {self.retries + 1} times (last: {problem}); "
            "the check could not run: retry later or configure a stronger PEGAS_CHAT_MODEL"
        )

    def _chat(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any],
        deadline: float,
        budget: float,
    ) -> str:
        """One chat round trip; transient server errors are retried until the deadline."""
        failures = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ModelTimeout(
                    f"model {self.model} at {self.url} gave no acceptable answer within "
                    f"{budget:g} s; retry later or raise PEGAS_MODEL_TIMEOUT"
                )
            bound = httpx.Timeout(remaining, connect=min(remaining, _CONNECT_TIMEOUT))
            try:
                with ollama.Client(host=self.url, timeout=bound, verify=_tls()) as client:
                    response = client.chat(
                        model=self.model,
                        messages=list(messages),
                        format=dict(schema),
                        options={"temperature": 0},
                        keep_alive=self.keep_alive,
                    )
                return response.message.content or ""
            except ConnectionError as exc:
                raise BackendUnavailable(
                    f"Ollama at {self.url} is not reachable ({exc}); start it with "
                    "`ollama serve` or unset PEGAS_OLLAMA_URL to use the offline path"
                ) from exc
            except httpx.TimeoutException as exc:
                raise ModelTimeout(
                    f"model {self.model} at {self.url} did not answer within {budget:g} s; "
                    "retry later or raise PEGAS_MODEL_TIMEOUT"
                ) from exc
            except ollama.ResponseError as exc:
                if exc.status_code == 404:
                    raise BackendUnavailable(
                        f"Ollama at {self.url} has no model {self.model!r} ({exc.error}); "
                        f"run `ollama pull {self.model}` or set PEGAS_CHAT_MODEL"
                    ) from exc
                failure: Exception = exc
            except httpx.TransportError as exc:
                failure = exc
            failures += 1
            # A short pause so a restarting server is not hammered; the deadline still rules.
            pause = self._retry.delay(failures, budget=deadline - time.monotonic())
            if pause is None:
                raise BackendUnavailable(
                    f"Ollama at {self.url} failed {failures} times ({failure}); "
                    "check the server log and retry later"
                ) from failure
            time.sleep(pause)

    def ensure_model(self, *, timeout: float | None = None) -> None:
        """Check that the server answers and has the model.

        Raises:
            BackendUnavailable: the server is unreachable or the model is not pulled.
        """
        budget = self.timeout if timeout is None else timeout
        try:
            with ollama.Client(host=self.url, timeout=budget, verify=_tls()) as client:
                names = {m.model for m in client.list().models}
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError) as exc:
            raise BackendUnavailable(
                f"Ollama at {self.url} is not reachable ({exc}); start it with `ollama serve`"
            ) from exc
        # Ollama lists "name:tag"; a configured name without a tag means ":latest".
        wanted = {self.model, f"{self.model}:latest"}
        if not names & wanted:
            raise BackendUnavailable(
                f"Ollama at {self.url} has no model {self.model!r}; "
                f"run `ollama pull {self.model}` or set PEGAS_CHAT_MODEL"
            )
