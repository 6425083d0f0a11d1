"""Seep's legal plays: the analysis of a floor's loose values (``FloorSums``, cached per
multiset by ``floor_sums``) and ``Turn``, the plays of one decision clause by clause of
section 4 of the rules. Part of the engine ``arena.games.seep.game``, which exports these names
and whose docstring explains the bitmasks.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from arena.games.seep.actions import (
    ADD_BASE,
    ALL_VALUES,
    BREAK_BASE,
    BREAK_ROOM,
    BUILD_BASE,
    CAPTURE_BASE,
    FULL,
    HOUSE_BITS,
    HOUSE_VALUES,
    MASK_WEIGHT,
    MAX_SUM,
    NUM_SEATS,
    THROW_BASE,
    VALUE,
)

if TYPE_CHECKING:
    from arena.games.seep.plays import SeepPlays

# --- Floor analysis: groups and packable sets as bitmasks over the loose cards ------------

BITS_BELOW: tuple[int, ...] = tuple(1 << (MAX_SUM - t) for t in range(MAX_SUM + 1))
"""Bit 13 - t by t, for the sums' mirror image."""
SUMS = (1 << (MAX_SUM + 1)) - 1
"""Every sum a group may have, 0..13."""


class FloorSums:
    """What a multiset of loose values allows, as bitmasks over the loose cards listed in
    canonical order (bit i = i-th loose card). Shared by every floor with these values.

    ``groups[t]`` lists every set of loose cards whose values add up to t (1..13). A set
    is t-packable when it is a union of pairwise disjoint groups of sum t; the empty set
    is. ``required[t]`` is the mask of the loose cards of value t.
    """

    __slots__ = (
        "_capture",
        "_options",
        "_packable",
        "_reaching",
        "addends",
        "groups",
        "required",
        "sums",
        "sums_below",
    )

    def __init__(self, values: tuple[int, ...]) -> None:
        """Built from the analysis of all but the last value (cached too): the last card
        has the highest bit, so every group of the others keeps its mask, and the new
        groups are those of sum up to 13 - its value with its bit added, and the card
        alone. Lists of groups that gain nothing are shared with that analysis."""
        if not values:
            self.groups: list[list[int]] = [[] for _ in range(MAX_SUM + 1)]
            self.sums = self.sums_below = 0
            self.required = [0] * (MAX_SUM + 1)
        else:
            rest, value = floor_sums(values[:-1]), values[-1]
            bit = 1 << (len(values) - 1)
            before = rest.groups
            self.groups = groups = before[:]
            for t in range(MAX_SUM - value, 0, -1):
                if before[t]:  # values ascend: the others' groups below 14 - value
                    groups[t + value] = [*groups[t + value], *map(bit.__or__, before[t])]
            groups[value] = [*groups[value], bit]
            self.sums = rest.sums | (rest.sums << value | 1 << value) & SUMS
            """Bit t set when some loose cards add up to t."""
            self.sums_below = rest.sums_below | rest.sums_below >> value | BITS_BELOW[value]
            """Bit 13 - t set when some loose cards add up to t."""
            self.required = rest.required[:]
            """Per value t, the mask of the loose cards of value t."""
            self.required[value] |= bit
        self.addends = self.sums | 1
        """Bit t set when a card may have loose cards adding up to t beside it (0: alone):
        ``addends << v`` is ``fits[v]``."""
        self._packable: dict[int, list[int]] = {}
        self._capture: dict[int, list[int]] = {}
        self._options: dict[int, list[int]] = {}
        self._reaching: dict[int, int] = {}

    @property
    def fits(self) -> list[int]:
        """Per card value v: bit V set when v alone or v plus some loose cards make V."""
        return [self.addends << v for v in range(MAX_SUM + 1)]

    def reaching(self, reach: int) -> int:
        """The card values v (bit v) that some loose cards raise to a value of ``reach``
        (v + t in ``reach`` for a sum t of loose cards), for a whole hand at once."""
        found = self._reaching.get(reach)
        if found is None:
            found = 0
            if reach & ~HOUSE_BITS:
                rest = self.sums
                while rest:  # v plus loose cards adding up to t: v + t in reach
                    low = rest & -rest
                    found |= reach >> (low.bit_length() - 1)
                    rest ^= low
            else:  # the same, by the (fewer) values in reach: v = value - t
                below = self.sums_below
                for value in HOUSES_IN[reach >> 9]:
                    found |= below >> (MAX_SUM - value)
            found = self._reaching[reach] = found & ALL_VALUES
        return found

    def packable(self, t: int) -> list[int]:
        found = self._packable.get(t)
        if found is None:
            groups = self.groups[t]
            if len(groups) < 2:  # most sums: none or one group, nothing to unite
                found = self._packable[t] = [0, *groups]
                return found
            unions = {0}
            for group in groups:
                unions.update([u | group for u in unions if not u & group])
            found = self._packable[t] = list(unions)
        return found

    def captures(self, value: int) -> list[int]:
        """Maximal captures for a card of ``value``: value-packable sets that every group
        of that sum meets (nothing left may add up to the card). ``[0]`` when nothing sums
        to ``value``."""
        found = self._capture.get(value)
        if found is None:
            groups = self.groups[value]
            if len(groups) < 2:  # none: the empty set; one: that group
                found = self._capture[value] = groups[:] or [0]
                return found
            found = self._capture[value] = [
                s for s in self.packable(value) if all(s & g for g in groups)
            ]
        return found

    def options(self, target: int, short: int) -> list[int]:
        """Sets S such that a hand card worth ``target - short`` plus S is target-packable
        and S holds every loose card of value ``target``: a group of sum ``short`` (none
        when ``short`` is 0) plus a target-packable set. May include the empty set; none
        when ``short`` is negative."""
        if short < 0:
            return []  # the card alone is worth more than the house
        key = target * 16 + short
        found = self._options.get(key)
        if found is None:
            need = self.required[target]
            packs = self.packable(target)
            if need:
                packs = [p for p in packs if p & need == need]
            if not short:
                found = packs
            elif packs == [0]:  # often nothing adds up to the target: the groups alone
                found = self.groups[short]
            else:
                found = list({g | p for g in self.groups[short] for p in packs if not g & p})
            self._options[key] = found
        return found


_FLOOR_CACHE_SIZE = 4096
"""Floors kept analysed, the least recently used dropped first. Each costs 2.5 KB and
more as its options are asked for, so a referee playing Seep for hours held tens of MB
in an unbounded cache (``bench.referee_memory``); the floors a match revisits are its own
few, which a small cache keeps."""


@lru_cache(maxsize=_FLOOR_CACHE_SIZE)
def floor_sums(values: tuple[int, ...]) -> FloorSums:
    """The analysis of a multiset of loose values (ascending), cached: every floor with
    these values shares it (``floor_sums.cache_clear()`` empties the cache)."""
    return FloorSums(values)


# --- Section 4's clauses as pure functions ---------------------------------------------------
# Over plain values: sets of card values as bitmasks (bit V for value V), a floor's
# ``FloorSums`` and its loose-card masks. ``Turn`` combines them into the legal plays and
# the explanations of illegal ones (``why``) ask the same functions, so each rule is
# written once.


def opening_values(bid: int | None) -> int:
    """Section 5: the values the opening play may capture, throw or build with: the bid's
    only. ``bid`` is None for every later play, which may use any value."""
    return ALL_VALUES if bid is None else 1 << bid


def capturing_values(takers: int, standing: int, sums: int) -> int:
    """The values (of ``takers``) whose cards capture: a house of the value stands
    (``standing``) or some loose cards add up to it (``FloorSums.sums``)."""
    return takers & (standing | sums)


def throwing_values(takers: int, standing: int, sums: int) -> int:
    """THROW: the values (of ``takers``) whose cards are thrown, those that cannot capture;
    capturing is compulsory."""
    return takers & ~(standing | sums)


def retained_values(own: int, held_twice: int) -> int:
    """Retention: the values of the houses the mover owns (``own``) of which he holds one
    card only (``held_twice``: the values he holds two or more of). That last card may only
    capture, which takes the house and ends the duty; any other play would leave him owning
    a house whose value he no longer holds. A card of another value leaves his houses safe."""
    return own & ~held_twice


def held_after(held: int, held_twice: int, v: int) -> int:
    """The values the mover still holds once a card of value v has left his hand."""
    bit = 1 << v
    return (held & ~bit) | (held_twice & bit)


def free_values(standing: int, takers: int) -> int:
    """The values a new house may take: 9..13 with no house standing yet; on the opening
    (``takers`` from ``opening_values``) the bid only."""
    return HOUSE_BITS & ~standing & takers


def may_break(cemented: bool, mine: bool) -> bool:
    """Whether the mover may break a house: an ordinary one (cemented houses never break)
    that he does not own (his partner's or an opponent's)."""
    return not cemented and not mine


def build_values(unbuilt: int, fits: int, kept: int) -> int:
    """BUILD with a card of value v: values of ``unbuilt`` (``free_values``) that v alone or
    v with loose cards can make (``FloorSums.fits[v]``), and that the mover still holds
    after the play (``kept``, from ``held_after``): nobody builds for his partner."""
    return unbuilt & fits & kept


def add_values(standing: int, fits: int, kept: int, ours: int) -> int:
    """ADD with a card of value v to a standing house, ordinary or cemented, that v alone or
    v with loose cards can make (``fits``). Allowed to his side (``ours``: the houses he or
    his partner owns; retention keeps an owner's card) without a card of the value, and to
    an opponent only if he still holds one after the play (``kept``; he then joins the
    owners)."""
    return standing & fits & (kept | ours)


def break_values(breakable: int, kept: int, v: int) -> int:
    """BREAK with a card of value v: houses W he may break (``may_break``) with W + v at most
    13, when he still holds a card of W + v after the play (``kept``)."""
    return breakable & (kept >> v) & BREAK_ROOM[v]


def house_sets(floor: FloorSums, value: int, short: int, build: bool) -> list[int]:
    """The loose cards S that a house of ``value`` takes in with a card worth ``value -
    short`` (BUILD, ADD) or with a broken house and the card (BREAK, ``short`` 0): the card
    and S are ``value``-packable (beside the card's own group, S may hold further groups),
    and S holds every loose card of that value. A BUILD moves loose cards: S is not empty."""
    sets = floor.options(value, short)
    return [s for s in sets if s] if build and not short else sets


# --- Legal plays: section 4, one helper per clause ------------------------------------------

HOUSES_IN: tuple[tuple[int, ...], ...] = tuple(
    tuple(value for value in HOUSE_VALUES if bits >> (value - 9) & 1) for bits in range(32)
)
"""The house values in a set of them, ascending, indexed by the set's bits 9..13 (``>> 9``)."""


VALUE_BIT: tuple[int, ...] = tuple(1 << value for value in VALUE)
"""Per card index, the bit of its capture value in a set of values."""

BIG_FLOOR = 6
"""Above this many loose cards, ``Turn.add_ids`` reads card masks from byte tables."""

STEP: tuple[int, ...] = tuple(1 - weight for weight in MASK_WEIGHT)
"""Per card index, what the card adds to the rank part of a set's id (module docstring:
``FULL + |S| - M - low(M)``) unless it is the set's last card,"""
LAST_RANK: tuple[int, ...] = tuple(FULL + 1 - 2 * weight for weight in MASK_WEIGHT)
"""and the rank part of a set that ends with it, before its other cards' ``STEP``s."""


def held_values(hand: list[int]) -> tuple[int, int]:
    """The values a hand in canonical order holds, and those it holds two or more cards
    of (bit V for V)."""
    held = held_twice = last = 0
    for card in hand:  # in canonical order, as hands are kept: a value's cards adjoin
        bit = VALUE_BIT[card]
        if bit == last:
            held_twice |= bit
        else:
            held |= bit
            last = bit
    return held, held_twice


def _mask_tables(loose: list[int]) -> tuple[list[int], list[int]]:
    """The card mask ``M`` of every subset of the first 8 loose cards, and of the next 8."""
    tables = []
    for part in (loose[:8], loose[8:16]):
        table = [0]
        for card in part:
            weight = MASK_WEIGHT[card]
            table += [m + weight for m in table]
        tables.append(table)
    return tables[0], tables[1]


class Turn:
    """The legal plays of one decision, clause by clause of section 4 of the rules.

    Made once per decision from the state. Sets of values are bitmasks (bit V for value
    V); sets of loose cards are masks over the loose list (bit i for the i-th loose card),
    as ``FloorSums`` gives them. ``plays_of(v)`` lists what a card of value v may do, as
    ids without the card's part; each clause is a pure function above, named after what
    it gives.
    """

    __slots__ = (
        "_loose",
        "_tables",
        "breakable",
        "capturers",
        "floor",
        "held",
        "held_twice",
        "housing",
        "ours",
        "standing",
        "throwers",
        "unbuilt",
    )

    def __init__(self, state: SeepPlays) -> None:
        seat = state.current
        held, held_twice = held_values(state.hands[seat])
        self.held = held  # values the mover holds
        self.held_twice = held_twice  # values he holds two or more cards of
        standing = own = ours = breakable = 0
        if state.houses:
            me, partner = 1 << seat, 1 << ((seat + 2) % NUM_SEATS)
            for value, house in state.houses.items():
                bit = 1 << value
                standing |= bit
                mine = house.owners & me
                if mine:
                    own |= bit
                if mine or house.owners & partner:
                    ours |= bit  # his side's
                if may_break(house.total > value, bool(mine)):
                    breakable |= bit
        self.standing = standing  # every house
        self.ours = ours
        self.breakable = breakable
        takers = opening_values(state.bid if state.play_number == 0 else None)
        self.unbuilt = unbuilt = free_values(standing, takers)
        loose = state.loose
        self.floor = floor = floor_sums(tuple(map(VALUE.__getitem__, loose)))
        self._loose = loose
        self._tables: tuple[list[int], list[int]] | None = None
        self.capturers = capturing_values(takers, standing, floor.sums)
        self.throwers = throwing_values(takers, standing, floor.sums)
        # HOUSING, a quick sieve that spares most cards the three house plays: the values
        # v whose card might BUILD, ADD or BREAK. With loose cards, v must make a value the
        # mover may build or add to if he keeps what he holds now; alone, v must be such a
        # value that he holds twice (the card leaves his hand) or may add to without
        # keeping one. Or v must raise a house he may break to a value he holds. And
        # retention must not hold v. The clauses are asked with every value in reach
        # (``HOUSE_BITS``) and the most he can keep, so they stay the only judges of each
        # card's plays.
        reach = build_values(unbuilt, HOUSE_BITS, held) | add_values(
            standing, HOUSE_BITS, held, ours
        )
        alone = build_values(unbuilt, HOUSE_BITS, held_twice) | add_values(
            standing, HOUSE_BITS, held_twice, ours
        )
        housing = floor.reaching(reach) | alone
        for value in HOUSES_IN[breakable >> 9]:
            housing |= held >> value  # the house's value + v is a value he holds
        self.housing = housing & ~retained_values(own, held_twice)

    def plays_of(self, v: int, part: int = 0) -> list[int]:
        """Every legal play of a card of value v, in kind order, as ids without the card
        or, given its part of the ids (``CARD_OFFSET``), with it.

        A card captures or is thrown, never both (it is thrown only when it cannot
        capture); it may also build, add or break, unless retention holds it back.
        """
        bit = 1 << v
        plays: list[int] = []
        # CAPTURE: S is v-packable and maximal; empty only when nothing adds up to v and
        # the house of v stands (every capture by v takes it along).
        if self.capturers & bit:
            self.add_ids(plays, CAPTURE_BASE + part, self.floor.captures(v))
        if self.housing & bit:
            self.house_plays(plays, v, part)
        if self.throwers & bit:
            plays.append(THROW_BASE + part)
        return plays

    def house_plays(self, plays: list[int], v: int, part: int) -> None:
        """Append the BUILD, ADD and BREAK plays of a card of value v (its part of the ids
        ``part``)."""
        floor = self.floor
        kept = held_after(self.held, self.held_twice, v)
        fits = floor.addends << v  # floor.fits[v]
        # Each clause is asked only when its houses exist: a free value v can make, a
        # standing house, a house the mover may break.
        if self.unbuilt & fits:
            for value in HOUSES_IN[build_values(self.unbuilt, fits, kept) >> 9]:
                sets = house_sets(floor, value, value - v, True)
                self.add_ids(plays, BUILD_BASE[value] + part, sets)
        if self.standing:
            for value in HOUSES_IN[add_values(self.standing, fits, kept, self.ours) >> 9]:
                sets = house_sets(floor, value, value - v, False)
                self.add_ids(plays, ADD_BASE[value] + part, sets)
        if self.breakable:
            for house in HOUSES_IN[break_values(self.breakable, kept, v) >> 9]:
                sets = house_sets(floor, house + v, 0, False)
                self.add_ids(plays, BREAK_BASE[house] + part, sets)

    # -- ids ---------------------------------------------------------------------------------

    def add_ids(self, plays: list[int], base: int, sets: list[int]) -> None:
        """Append ``base`` (kind and slot) plus the rank part of the id of each set of
        loose cards (module docstring). Written as ``LAST_RANK`` of the set's last card
        plus ``STEP`` of each other card, it costs one addition a card on these 60-bit
        numbers where the closed form takes several; most sets hold one or two cards."""
        loose = self._loose
        if len(loose) > BIG_FLOOR:
            self._add_big_floor_ids(plays, base, sets)
            return
        for s in sets:
            if not s:
                plays.append(base)  # the empty set's rank is 0
                continue
            top = s.bit_length() - 1
            rank = base + LAST_RANK[loose[top]]
            rest = s ^ 1 << top
            while rest:
                low = rest & -rest
                rank += STEP[loose[low.bit_length() - 1]]
                rest ^= low
            plays.append(rank)

    def _add_big_floor_ids(self, plays: list[int], base: int, sets: list[int]) -> None:
        """``add_ids`` on a big floor, where the lists are long: each set's card mask
        ``M`` from two byte tables, the masks of every subset of the first 8 loose cards
        and of the next 8, made at the first use, and its rank by the closed form."""
        tables = self._tables
        if tables is None:
            tables = self._tables = _mask_tables(self._loose)
        low_byte, high_byte = tables
        for s in sets:
            if not s:
                plays.append(base)
                continue
            m = low_byte[s & 255] + high_byte[s >> 8]
            plays.append(base + FULL + s.bit_count() - m - (m & -m))
