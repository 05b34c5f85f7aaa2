"""The base of the typed requests (`pegas_memory.app.requests`, `code_memory.requests`).

A request is frozen and forbids unknown fields. A value outside a Literal, or of the wrong type,
raises InvalidInput naming the field, the same error a Python caller got before the requests
existed, so that the MCP layer and the CLI report it the same way.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)

from pegas_memory.errors import InvalidInput


class Request(BaseModel):
    """Frozen, no unknown fields; a value outside a Literal raises InvalidInput."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    @model_validator(mode="wrap")
    @classmethod
    def _invalid_input(cls, data: Any, handler: ModelWrapValidatorHandler[Request]) -> Request:
        try:
            return handler(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'request'}: {e['msg']}"
                for e in exc.errors()
            )
            raise InvalidInput(f"invalid {cls.__name__}: {problems}") from exc
