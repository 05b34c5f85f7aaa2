"""A tool's wait_seconds is honoured up to the server's answer limit, refused above it with the
maximum named, never cut silently."""

from __future__ import annotations

import pytest

from pegas_memory.errors import InvalidInput
from pegas_memory.server.calls import wait_bound


def test_the_default_wait_and_a_wait_within_the_limit_are_honoured() -> None:
    assert wait_bound(20.0, 120.0, None) == 20.0
    assert wait_bound(20.0, 120.0, 100.0) == 100.0
    assert wait_bound(20.0, 120.0, 108.0) == 108.0
    assert wait_bound(200.0, 120.0, None) == 108.0  # a server default past its own limit


def test_a_longer_wait_is_refused_with_the_maximum() -> None:
    with pytest.raises(InvalidInput, match=r"at most 108 s.*memory_job op=wait"):
        wait_bound(20.0, 120.0, 300.0)
