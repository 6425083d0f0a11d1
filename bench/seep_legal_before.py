"""Seep's legal-move generator as it was before the rewrite that made it read like
section 4 of the rules (commit 6486eef), kept as the baseline of ``bench.seep_legal_speed``.

A copy, not used by the engine: it reads a ``SeepState`` and returns the ascending ids
instead of storing them. Module constants it used and the engine no longer has are
defined here.
"""

from __future__ import annotations

from arena.games.seep.game import (
    ADD_BASE,
    BREAK_BASE,
    BUILD_BASE,
    CAPTURE_BASE,
    CARD_OFFSET,
    FULL,
    HOUSE_VALUES,
    MASK_WEIGHT,
    NUM_SEATS,
    THROW_BASE,
    VALUE,
    SeepState,
    floor_sums,
)

THROW_ONLY: list[int] = [THROW_BASE]
HOUSE_BITS = sum(1 << value for value in HOUSE_VALUES)
ALL_VALUES = sum(1 << value for value in range(1, 14))
BREAK_ROOM = tuple((1 << (14 - v)) - 1 for v in range(14))
BIG_FLOOR = 6


def _mask_tables(loose: list[int]) -> tuple[list[int], list[int]]:
    tables = []
    for part in (loose[:8], loose[8:16]):
        table = [0]
        for card in part:
            weight = MASK_WEIGHT[card]
            table += [m + weight for m in table]
        tables.append(table)
    return tables[0], tables[1]


def compute_legal(self: SeepState) -> list[int]:
    """The former ``SeepState._compute_legal``, returning its list."""
    seat = self.current
    hand = self.hands[seat]
    loose = self.loose
    values = tuple(map(VALUE.__getitem__, loose))
    floor = floor_sums(values)
    fits_of = floor.fits
    captures_of = floor.captures
    options_of = floor.options
    houses = self.houses
    me = 1 << seat
    partner = 1 << ((seat + 2) % NUM_SEATS)
    held = 0
    held_twice = 0
    for c in hand:
        bit = 1 << VALUE[c]
        held_twice |= held & bit
        held |= bit
    owned = helped = breakable = standing = 0
    if houses:
        for house in houses.values():
            bit = 1 << house.value
            standing |= bit
            if house.owners & me:
                owned |= bit
            else:
                if house.owners & partner:
                    helped |= bit
                if house.total == house.value:
                    breakable |= bit
    free = HOUSE_BITS & ~standing
    may_take = ALL_VALUES
    if self.play_number == 0:
        assert self.bid is not None
        free &= 1 << self.bid
        may_take = 1 << self.bid
    reach = (held | helped) & (free | standing)
    blocked = owned & ~held_twice
    takes = standing | floor.sums
    ranks: dict[int, int] = {0: 0}

    def rank(mask: int) -> int:
        m = 0
        bits = mask
        while bits:
            low = bits & -bits
            m += MASK_WEIGHT[loose[low.bit_length() - 1]]
            bits ^= low
        found = ranks[mask] = FULL + mask.bit_count() - m - (m & -m)
        return found

    if len(loose) > BIG_FLOOR:
        low_byte, high_byte = _mask_tables(loose)

        def rank(mask: int) -> int:
            m = low_byte[mask & 255] + high_byte[mask >> 8]
            found = ranks[mask] = FULL + mask.bit_count() - m - (m & -m)
            return found

    ids: list[int] = []
    previous = 0
    options: list[int] = []
    for card in hand:
        v = VALUE[card]
        if v != previous:
            previous = v
            bit = 1 << v
            housing = (fits_of[v] & reach or breakable) and not blocked & bit
            if may_take & bit:
                if takes & bit:
                    options = []
                    for s in captures_of(v):
                        if s or standing & bit:
                            r = ranks.get(s)
                            options.append(CAPTURE_BASE + (rank(s) if r is None else r))
                elif not housing:
                    options = THROW_ONLY
                    ids.append(THROW_BASE + CARD_OFFSET[card])
                    continue
                else:
                    options = [THROW_BASE]
            else:
                options = []
            if housing:
                keeps = (held & ~bit) | (held_twice & bit)
                fits = fits_of[v]
                builds = keeps & free & fits
                adds = (keeps | helped) & standing & fits if standing else 0
                breaks = breakable and breakable & (keeps >> v) & BREAK_ROOM[v]
                while builds:
                    low = builds & -builds
                    builds ^= low
                    value = low.bit_length() - 1
                    base = BUILD_BASE[value]
                    for s in options_of(value, value - v):
                        if s:
                            r = ranks.get(s)
                            options.append(base + (rank(s) if r is None else r))
                while adds:
                    low = adds & -adds
                    adds ^= low
                    value = low.bit_length() - 1
                    base = ADD_BASE[value]
                    for s in options_of(value, value - v):
                        r = ranks.get(s)
                        options.append(base + (rank(s) if r is None else r))
                while breaks:
                    low = breaks & -breaks
                    breaks ^= low
                    value = low.bit_length() - 1
                    base = BREAK_BASE[value]
                    for s in options_of(value + v, 0):
                        r = ranks.get(s)
                        options.append(base + (rank(s) if r is None else r))
        offset = CARD_OFFSET[card]
        for base in options:
            ids.append(base + offset)
    ids.sort()
    return ids
