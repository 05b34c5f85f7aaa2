"""Bounds on the value sets of the Python call analysis (`code_memory.flow`), so that memory stays
bounded on large repositories.

On sqlalchemy (630k lines) the unbounded analysis passed 5.7 GB: attribute chains read on
external values (``x:typing.Protocol.selectable.mapper...``) flowed through parameters and
multiplied, so one slot held thousands of external names and the whole analysis tens of millions.
Two caps stop that, both keeping the analysis monotone (slots still only grow, then stop):

- at most ``MAX_PER_TAG`` external names, constants and containers per slot: further ones are
  dropped (a call that would reach only dropped external names stays unresolved, by the text
  written; constants only serve as subscript keys and containers as element sources, and a slot
  fed hundreds of them is a merge point whose element reads are noise anyway);
- at most ``MAX_SLOT_VALUES`` values per slot: past that the slot is *saturated*, it takes the
  marker ``UNKNOWN`` and grows no more; a call through a saturated value set is recorded as
  unresolved rather than guessed among hundreds of candidates.

Which values a cap keeps is a function of the slot and the values offered, never of the order
a set happens to iterate in (see `bounded_update`), so that with the deterministic worklist of
`code_memory.flow` the same files give the same edges whatever the hash seed.

Values are interned on entry: the same abstract value sits in many slots, one string object.
Pure logic: no I/O.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

MAX_SLOT_VALUES = 512
# External names, constants, containers: kept per slot up to these counts, further ones dropped.
MAX_PER_TAG = {"x": 24, "k": 8, "o": 32}
UNKNOWN = "u:"
# Below this size a slot is updated without counting its external names.
_FAST = 16


def bounded_update(
    current: set[str], values: Iterable[str], counts: dict[str, int] | None
) -> tuple[bool, dict[str, int] | None]:
    """Add ``values`` to the slot ``current`` within the caps. ``counts`` is the slot's count of
    capped values per tag (None while the slot is small, computed once it is not). Returns whether
    the slot grew and its counts to keep."""
    if UNKNOWN in current:
        return False, counts
    new = [v for v in values if v not in current]
    if not new:
        return False, counts
    if counts is None and len(current) + len(new) <= _FAST:
        current.update(map(sys.intern, new))
        return True, None
    if counts is None:
        counts = dict.fromkeys(MAX_PER_TAG, 0)
        for v in current:
            if v[0] in counts:
                counts[v[0]] += 1
    grew = False
    # Sorted, so that which values a cap keeps never depends on the order a set iterates in
    # (string hashes change with PYTHONHASHSEED: the same tree gave different edges per run).
    for v in sorted(new):
        tag = v[0]
        if tag in counts:
            if counts[tag] >= MAX_PER_TAG[tag]:
                continue
            counts[tag] += 1
        if len(current) >= MAX_SLOT_VALUES:
            current.add(UNKNOWN)
            return True, counts
        current.add(sys.intern(v))
        grew = True
    return grew, counts
