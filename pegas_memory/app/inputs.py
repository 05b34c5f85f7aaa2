"""Checks of free text arriving at the service: what the database and the indexes cannot take.

Pure functions: a NUL, a lone surrogate, an empty required field or a text over its limit
becomes InvalidInput with a message that says what to do, before any transaction starts.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from pegas_memory.errors import InvalidInput
from pegas_memory.search.filters import SearchFilter

MAX_CLAIM_CHARS = 8_000
MAX_REASON_CHARS = 2_000  # why a change was made: every tool, the UI and the audit line
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_METADATA_CHARS = 64_000

_EMPTY_HINTS = {
    "claim": "give the statement to remember",
    "source": "give a URL, a file path or the text itself",
}


def clean_text(value: str, name: str, limit: int, *, required: bool) -> str:
    """`value` unchanged when it is storable text within `limit`; else InvalidInput."""
    if "\x00" in value:
        raise InvalidInput(f"{name} contains a NUL character; remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{name} is not valid UTF-8 text (lone surrogate); re-encode it"
        ) from exc
    if required and not value.strip():
        hint = _EMPTY_HINTS.get(name, "leave it out or fill it in")
        raise InvalidInput(f"{name} is empty; {hint}")
    if len(value) > limit:
        raise InvalidInput(
            f"{name} is {len(value):,} characters, over the limit of {limit:,}; "
            "shorten it, or use memory_ingest for long sources"
        )
    return value


def as_of_filter(flt: SearchFilter | None) -> SearchFilter | None:
    """The filter with its `as_of` instant checked: a time without a zone is UTC; an instant
    still to come is refused (the memory cannot say what it will believe)."""
    if flt is None or flt.as_of is None:
        return flt
    at = flt.as_of if flt.as_of.tzinfo else flt.as_of.replace(tzinfo=UTC)
    if at > datetime.now(UTC):
        raise InvalidInput(
            f"as_of {at.isoformat()} is in the future; leave it out to ask what the memory "
            "believes now"
        )
    return replace(flt, as_of=at)
