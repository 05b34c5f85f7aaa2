"""Hypothesis strategies from a tool's inputSchema (`arguments_for`): hypothesis-jsonschema 0.23.1
breaks on objects with the installed hypothesis 6.170 (it calls a removed internal API)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


def arguments_for(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for `schema`: the subset pydantic emits for tool arguments ($ref/$defs,
    anyOf/oneOf, enum, const, string with length and date-time format, integer and number with
    bounds, boolean, null, array, object with required and optional properties)."""
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        return _strategy(defs[str(schema["$ref"]).rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(option, defs) for option in schema[key]])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, defs) for k in kind])
    if kind == "string":
        if schema.get("format") == "date-time":
            return st.datetimes(timezones=st.timezones() | st.none()).map(lambda d: d.isoformat())
        return st.text(
            min_size=int(schema.get("minLength", 0)), max_size=int(schema.get("maxLength", 60))
        )
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -(2**70) - 1) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", 2**70 + 1) - 1)
        return st.integers(int(low), int(high))
    if kind == "number":
        return st.floats(
            min_value=schema.get("minimum", schema.get("exclusiveMinimum")),
            max_value=schema.get("maximum", schema.get("exclusiveMaximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = _strategy(schema.get("items", {}), defs)
        return st.lists(
            items, min_size=int(schema.get("minItems", 0)), max_size=int(schema.get("maxItems", 5))
        )
    if kind == "object" or "properties" in schema:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed = {k: _strategy(v, defs) for k, v in properties.items() if k in required}
        optional = {k: _strategy(v, defs) for k, v in properties.items() if k not in required}
        if not properties and schema.get("additionalProperties", True) is not False:
            return st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=4)
        return st.fixed_dictionaries(fixed, optional=optional)
    return JSON_VALUES
