"""Argument checks shared by the layers that take numbers from the agent.

The tools' pydantic schemas bound their arguments already, but the Python API (service, graph
store, code query) is called directly too, so each layer checks what it relies on. One function,
one message: the agent reads the same sentence whichever layer refused. Pure: no I/O.
"""

from __future__ import annotations

from pegas_memory.errors import InvalidInput


def bounded_int(value: object, name: str, low: int, high: int) -> int:
    """`value` if it is an integer (not a bool) within [low, high]; else InvalidInput."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value
