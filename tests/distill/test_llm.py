"""The Ollama chat client: schema validation, retries, deadlines and error mapping.

Model behaviour comes from tests/fake_ollama.py, a real HTTP server on 127.0.0.1, so the real
`ollama` client code runs; only the schema validator is tested as pure logic.
"""

from __future__ import annotations

import json
import time
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegas_memory.config import load_settings
from pegas_memory.distill.llm import (
    InvalidModelOutput,
    ModelTimeout,
    OllamaChat,
    parse_json_object,
    validate_json,
)
from pegas_memory.distill.ollama import DISTILL_SCHEMA, VERDICT_SCHEMA
from pegas_memory.errors import BackendUnavailable, InvalidInput
from tests.concurrently import concurrently
from tests.fake_ollama import FakeOllama
from tests.loopback import free_port

MODEL = "qwen2.5:7b-instruct"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "minLength": 1},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "ref": {"type": ["integer", "null"]},
    },
    "required": ["answer", "score"],
    "additionalProperties": False,
}


def chat_for(fake: FakeOllama, **kwargs: Any) -> OllamaChat:
    return OllamaChat(fake.url, MODEL, **{"timeout": 10.0, "retries": 2, **kwargs})


def chats(fake: FakeOllama) -> list[dict[str, Any]]:
    return [body for path, body in fake.requests if path == "/api/chat"]


# --- the validator (pure) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"score": 0.5}, "missing 'answer'"),
        ({"answer": "", "score": 0.5}, "shorter than 1"),
        ({"answer": "x", "score": 1.5}, "above the maximum"),
        ({"answer": "x", "score": True}, "expected number, got boolean"),
        ({"answer": "x", "score": 0.1, "kind": "c"}, "is not one of"),
        ({"answer": "x", "score": 0.1, "tags": ["a", "b", "c", "d"]}, "more than 3 items"),
        ({"answer": "x", "score": 0.1, "tags": [1]}, "$.tags[0]: expected string"),
        ({"answer": "x", "score": 0.1, "ref": "7"}, "expected integer or null"),
        ({"answer": "x", "score": 0.1, "extra": 1}, "unexpected key 'extra'"),
        (["answer"], "expected object, got array"),
    ],
)
def test_validator_reports_each_violation(value: Any, fragment: str) -> None:
    errors = validate_json(value, SCHEMA)
    assert any(fragment in e for e in errors), errors


def test_validator_accepts_a_valid_object() -> None:
    value = {"answer": "x", "score": 1, "tags": ["t"], "kind": "b", "ref": None}
    assert validate_json(value, SCHEMA) == []


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def near_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values shaped by the schema, with arbitrary JSON mixed in at every level: some valid,
    many wrong in one place. (hypothesis-jsonschema's object strategy is broken with the
    installed hypothesis, so this stands in for it.)"""
    options: list[st.SearchStrategy[Any]] = [_ANY_JSON]
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    kinds = schema.get("type", [])
    for kind in [kinds] if isinstance(kinds, str) else kinds:
        if kind == "object":
            props = schema.get("properties", {})
            required = set(schema.get("required", ()))
            options.append(
                st.fixed_dictionaries(
                    {k: near_schema(v) for k, v in props.items() if k in required},
                    optional={
                        **{k: near_schema(v) for k, v in props.items() if k not in required},
                        "extra": _ANY_JSON,
                    },
                )
            )
        elif kind == "array":
            options.append(st.lists(near_schema(schema.get("items", {})), max_size=4))
        elif kind == "string":
            options.append(st.text(max_size=6))
        elif kind == "number":
            options.append(st.floats(-1, 2, allow_nan=False))
        elif kind == "integer":
            options.append(st.integers(-3, 3))
        elif kind == "null":
            options.append(st.none())
    return st.one_of(options)


@pytest.mark.parametrize("schema", [SCHEMA, DISTILL_SCHEMA, VERDICT_SCHEMA])
def test_validator_agrees_with_jsonschema(schema: dict[str, Any]) -> None:
    # Our subset validator and the reference implementation must agree on every value.
    seen: list[bool] = []

    @settings(
        max_examples=150,
        deadline=None,
        derandomize=True,  # the final any/all check must not depend on the draw
        suppress_health_check=list(HealthCheck),
    )
    @given(value=near_schema(schema))
    def check(value: Any) -> None:
        reference = jsonschema.Draft202012Validator(schema).is_valid(value)
        seen.append(reference)
        assert (validate_json(value, schema) == []) == reference

    check()
    # Invalid values must have been tried; valid ones are rare for the nested schemas, and the
    # tests above check valid instances explicitly.
    assert not all(seen)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Here you go: {"a": {"b": 2}} hope it helps', {"a": {"b": 2}}),
    ],
)
def test_parse_json_object_tolerates_wrapping(content: str, expected: dict[str, Any]) -> None:
    assert parse_json_object(content) == expected


@pytest.mark.parametrize("content", ["", "no json here", "[1, 2]", '{"a": '])
def test_parse_json_object_rejects_non_objects(content: str) -> None:
    with pytest.raises(ValueError):
        parse_json_object(content)


# --- against the fake server ------------------------------------------------------------------


def test_valid_answer_uses_structured_output_at_temperature_zero() -> None:
    with FakeOllama(chat=lambda req: {"answer": "42", "score": 0.9}) as fake:
        answer = chat_for(fake).complete_json("be terse", "question?", SCHEMA)
    assert answer == {"answer": "42", "score": 0.9}
    (request,) = chats(fake)
    assert request["model"] == MODEL
    assert request["format"] == SCHEMA
    assert request["options"]["temperature"] == 0
    assert request["stream"] is False
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_invalid_json_then_valid_is_retried_with_the_error_fed_back() -> None:
    answers = iter(["{not json", {"answer": "ok", "score": 0.5}])
    with FakeOllama(chat=lambda req: next(answers)) as fake:
        answer = chat_for(fake).complete_json("s", "u", SCHEMA)
    assert answer["answer"] == "ok"
    _first, second = chats(fake)
    assert len(second["messages"]) == 4
    assert second["messages"][2] == {"role": "assistant", "content": "{not json"}
    assert "invalid" in second["messages"][3]["content"]


def test_schema_violation_is_retried() -> None:
    answers = iter([{"answer": "x", "score": 7}, {"answer": "x", "score": 0.7}])
    with FakeOllama(chat=lambda req: next(answers)) as fake:
        answer = chat_for(fake).complete_json("s", "u", SCHEMA)
    assert answer["score"] == 0.7
    assert "above the maximum" in chats(fake)[1]["messages"][3]["content"]


def test_persistently_invalid_output_raises_after_all_retries() -> None:
    with (
        FakeOllama(chat=lambda req: {"answer": 3}) as fake,
        pytest.raises(InvalidModelOutput, match="3 times") as info,
    ):
        chat_for(fake, retries=2).complete_json("s", "u", SCHEMA)
    assert len(chats(fake)) == 3
    assert not isinstance(info.value, BackendUnavailable)


def test_semantic_check_failure_is_retried_then_raised() -> None:
    def yes_or_no(answer: dict[str, Any]) -> str | None:
        return None if answer["answer"] in ("yes", "no") else "must be yes or no"

    with (
        FakeOllama(chat=lambda req: {"answer": "maybe", "score": 0.5}) as fake,
        pytest.raises(InvalidModelOutput, match="must be yes or no"),
    ):
        chat_for(fake, retries=1).complete_json("s", "u", SCHEMA, check=yes_or_no)
    assert len(chats(fake)) == 2


def test_slow_server_is_bounded_by_the_timeout() -> None:
    with FakeOllama(chat=lambda req: {"answer": "late", "score": 1}, delay=3.0) as fake:
        started = time.monotonic()
        with pytest.raises(ModelTimeout, match="PEGAS_MODEL_TIMEOUT"):
            chat_for(fake).complete_json("s", "u", SCHEMA, timeout=0.4)
        elapsed = time.monotonic() - started
    assert elapsed < 2.5
    assert len(chats(fake)) == 1  # no retry once the deadline has passed


def test_server_down_is_backend_unavailable() -> None:
    chat = OllamaChat(f"http://127.0.0.1:{free_port()}", MODEL, timeout=5.0)
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match="not reachable") as info:
        chat.complete_json("s", "u", SCHEMA)
    assert "ollama serve" in str(info.value)
    assert time.monotonic() - started < 4.0
    with pytest.raises(BackendUnavailable, match="not reachable"):
        chat.ensure_model()


def test_missing_model_says_to_pull_it() -> None:
    with FakeOllama(models=("embeddinggemma",)) as fake:
        chat = chat_for(fake)
        with pytest.raises(BackendUnavailable, match=r"`ollama pull qwen2\.5:7b-instruct`"):
            chat.complete_json("s", "u", SCHEMA)
        with pytest.raises(BackendUnavailable, match="ollama pull"):
            chat.ensure_model()
        assert len(chats(fake)) == 1  # a missing model is not retried


def test_ensure_model_passes_when_the_model_is_there() -> None:
    with FakeOllama() as fake:
        chat_for(fake).ensure_model()


def test_server_errors_are_retried_then_reported() -> None:
    with (
        FakeOllama(fail_status=500) as fake,
        pytest.raises(BackendUnavailable, match="failed 2 times"),
    ):
        chat_for(fake, retries=1).complete_json("s", "u", SCHEMA)
    assert len(chats(fake)) == 2


def test_concurrent_calls_get_their_own_answers() -> None:
    def echo(request: dict[str, Any]) -> dict[str, Any]:
        question = request["messages"][1]["content"]
        time.sleep(0.05)  # overlap the requests
        return {"answer": question, "score": 0.5}

    results: dict[int, str] = {}
    with FakeOllama(chat=echo) as fake:
        chat = chat_for(fake)

        def work(i: int) -> None:
            results[i] = chat.complete_json("s", f"q{i}", SCHEMA)["answer"]

        errors = concurrently(work, 8, timeout=20)
    assert not errors
    assert results == {i: f"q{i}" for i in range(8)}


def test_from_settings_uses_the_model_settings() -> None:
    settings_ = load_settings(
        ollama_url="http://127.0.0.1:1", chat_model="m:1b", model_timeout=3.0, model_retries=4
    )
    chat = OllamaChat.from_settings(settings_)
    assert (chat.url, chat.model, chat.timeout, chat.retries) == (
        "http://127.0.0.1:1",
        "m:1b",
        3,
        4,
    )
    with pytest.raises(InvalidInput, match="PEGAS_OLLAMA_URL"):
        OllamaChat.from_settings(load_settings())
    with pytest.raises(InvalidInput):
        OllamaChat("http://x", "m", timeout=0)


def test_answer_with_a_prefix_from_a_server_without_grammar() -> None:
    # Servers that ignore `format` answer in prose around the object: still accepted.
    reply = "Sure!\n```json\n" + json.dumps({"answer": "a", "score": 0}) + "\n```"
    with FakeOllama(chat=lambda req: reply) as fake:
        assert chat_for(fake).complete_json("s", "u", SCHEMA) == {"answer": "a", "score": 0}
