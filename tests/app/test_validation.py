"""The one bounded-integer check every layer shares (pure, no engines)."""

from __future__ import annotations

import pytest

from pegas_memory.errors import InvalidInput
from pegas_memory.validation import bounded_int


def test_bounded_int_accepts_the_range_and_says_what_it_got_otherwise() -> None:
    assert bounded_int(1, "limit", 1, 10) == 1
    assert bounded_int(10, "limit", 1, 10) == 10
    for bad in (0, 11, True, 2.0, "3", None):
        with pytest.raises(InvalidInput) as caught:
            bounded_int(bad, "limit", 1, 10)
        assert str(caught.value) == f"limit must be an integer from 1 to 10, got {bad!r}"
