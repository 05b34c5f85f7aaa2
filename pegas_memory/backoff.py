"""The retry policy of the model clients: how often, and how patiently, a call is tried again.

The embedder (`embedding.embedders.OllamaEmbedder`) and the chat client (`distill.llm.OllamaChat`)
talk to the same Ollama server and meet the same transient failures (a restart, a busy server):
both retry them with this one policy, exponential backoff capped, instead of two hand-made loops.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a model call is retried after a transient failure."""

    retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0

    def delays(self) -> list[float]:
        """Sleep before each retry: exponential backoff, capped."""
        return [min(self.max_delay, self.base_delay * 2**i) for i in range(max(0, self.retries))]

    def delay(self, failures: int, *, budget: float | None = None) -> float | None:
        """The pause after the `failures`-th failure, or None when the retries are used up.

        `budget` (seconds left before a caller's deadline) caps the pause, so a retry never
        sleeps past the deadline it must honour.
        """
        if failures < 1 or failures > self.retries:
            return None
        pause = min(self.max_delay, self.base_delay * 2 ** (failures - 1))
        return pause if budget is None else max(0.0, min(pause, budget))
