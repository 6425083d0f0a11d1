"""``arena.recent.Recent`` and the referee's encoders built on it: bounded, the oldest
entry dropped first and one at a time, never everything at once."""

from __future__ import annotations

from typing import Any

import pytest

from arena import wire_bytes
from arena.recent import Recent


def test_the_oldest_entry_goes_first_and_only_it() -> None:
    kept: Recent[str, int] = Recent(3)
    for n, key in enumerate("abcd"):
        assert kept.keep(key, n) == n
    assert list(kept.items()) == [("b", 1), ("c", 2), ("d", 3)]
    kept.keep("b", 10)  # kept again: the same place, nothing dropped
    assert list(kept) == ["b", "c", "d"] and kept["b"] == 10


def test_a_cache_keeps_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one entry, not 0"):
        Recent(0)


def test_a_full_value_memo_drops_one_piece_not_all() -> None:
    made: list[int] = []

    def piece(value: Any) -> bytes:
        made.append(value)
        return bytes([value])

    memo = wire_bytes._Memo(piece, size=3)
    assert [memo[v] for v in (1, 2, 3, 1, 4)] == [b"\x01", b"\x02", b"\x03", b"\x01", b"\x04"]
    assert made == [1, 2, 3, 4]  # 1 came from the memo
    assert list(memo) == [2, 3, 4]
    memo[3]
    assert made == [1, 2, 3, 4]  # 3 was still kept after 1 went


def test_the_identity_and_growing_encoders_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each match's auction is one growing field; thousands of matches never grow the
    memo past its size, and the newest match's is still served from it."""
    monkeypatch.setattr(wire_bytes, "GROWING_MEMO_SIZE", 4)
    calls: list[object] = []

    def element(value: object) -> bytes:
        calls.append(value)
        return b"x"

    grow = wire_bytes._growing(element)
    firsts = [object() for _ in range(10)]
    for first in firsts:
        assert grow((first,)) == b"x"
    last = firsts[-1]
    calls.clear()
    assert grow((last, "more")) == b"xx"
    assert calls == ["more"]  # the prefix came from the memo
    calls.clear()
    grow((firsts[0], "more"))
    assert calls == [firsts[0], "more"]  # the oldest was dropped

    by_id = wire_bytes._by_identity(element)
    values = [object() for _ in range(5000)]
    for v in values:
        by_id(v)
    calls.clear()
    by_id(values[-1])
    by_id(values[0])
    assert calls == [values[0]]  # the newest kept, the oldest long gone
