"""A small Ollama server on 127.0.0.1 speaking the real HTTP protocol, for tests.

It serves `/api/embed`, `/api/chat`, `/api/tags`, `/api/show` and `/api/version`, so the real
`ollama` client code runs against it. Behaviour is set per test:

    with FakeOllama(chat=lambda req: {"atoms": []}) as fake:
        settings = load_settings(ollama_url=fake.url)

`embed(texts, model) -> list[list[float]]` defaults to a deterministic hashed bag-of-words vector
of `dim` dimensions. `chat(request_json) -> str | dict` returns the assistant message content
(a dict is JSON-encoded). Set `delay` to make every answer slow, `fail_status` to answer errors.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def hashed_embedding(text: str, dim: int) -> list[float]:
    """A deterministic bag-of-words vector: shared words give cosine similarity."""
    vec = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class FakeOllama:
    def __init__(
        self,
        *,
        dim: int = 768,
        models: tuple[str, ...] = ("embeddinggemma", "qwen2.5:7b-instruct"),
        embed: Callable[[list[str], str], list[list[float]]] | None = None,
        chat: Callable[[dict[str, Any]], str | dict[str, Any]] | None = None,
        delay: float = 0.0,
        fail_status: int | None = None,
    ) -> None:
        self.dim = dim
        self.models = list(models)
        self.embed = embed or (lambda texts, model: [hashed_embedding(t, self.dim) for t in texts])
        self.chat = chat or (lambda request: {"atoms": []})
        self.delay = delay
        self.fail_status = fail_status
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeOllama:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> dict[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                return json.loads(raw or b"{}")

            def do_GET(self) -> None:
                fake.requests.append((self.path, {}))
                if self.path == "/api/tags":
                    self._send(200, {"models": [{"name": m, "model": m} for m in fake.models]})
                elif self.path == "/api/version":
                    self._send(200, {"version": "0.0.0-fake"})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = self._body()
                fake.requests.append((self.path, body))
                if fake.delay:
                    time.sleep(fake.delay)
                if fake.fail_status:
                    self._send(fake.fail_status, {"error": "fake failure"})
                    return
                model = body.get("model", "")
                if self.path not in ("/api/show",) and model and model not in fake.models:
                    self._send(404, {"error": f"model '{model}' not found"})
                    return
                if self.path == "/api/embed":
                    inputs = body.get("input", [])
                    texts = [inputs] if isinstance(inputs, str) else list(inputs)
                    self._send(200, {"model": model, "embeddings": fake.embed(texts, model)})
                elif self.path == "/api/chat":
                    answer = fake.chat(body)
                    content = answer if isinstance(answer, str) else json.dumps(answer)
                    self._send(
                        200,
                        {
                            "model": model,
                            "created_at": "2026-01-01T00:00:00Z",
                            "message": {"role": "assistant", "content": content},
                            "done": True,
                            "done_reason": "stop",
                        },
                    )
                elif self.path == "/api/show":
                    name = body.get("model") or body.get("name")
                    if name not in fake.models:
                        self._send(404, {"error": f"model '{name}' not found"})
                    else:
                        self._send(200, {"model_info": {"embedding_length": fake.dim}})
                else:
                    self._send(404, {"error": "not found"})

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                # A client that gave up (timeout tests) makes the late write fail: expected.
                return

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
