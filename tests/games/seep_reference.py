"""A slow, literal reading of section 4 (and 5) of the Seep rules: the legal plays of a
position, found by trying every hand card with every set of loose cards and every house
value, and keeping what the rules allow. No bitmasks and no cleverness beyond memoising
the two arithmetic questions (can these values split into groups of sum t; can some of
them add up to t), so that a reader can check each test against the rule's words.

The answer is the list of action ids, computed from the canonical texts by the encoding
the engine's module docstring documents (computed here from the definition).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "CDHS"
CARDS = tuple(r + s for r in RANKS for s in SUITS)
"""Canonical card order: value, then suit."""
KINDS = ("bid", "capture", "build", "add", "break", "throw")
HOUSE_VALUES = range(9, 14)


def value(card: str) -> int:
    return RANKS.index(card[0]) + 1


def partner(seat: int) -> int:
    return (seat + 2) % 4


@dataclass(frozen=True)
class House:
    value: int
    cards: tuple[str, ...]
    owners: frozenset[int]

    @property
    def cemented(self) -> bool:
        return sum(map(value, self.cards)) > self.value


@dataclass(frozen=True)
class Position:
    """What the legal plays depend on: the mover, his hand, the floor, and whether this
    is the opening play (with the bid)."""

    mover: int
    hand: tuple[str, ...]
    loose: tuple[str, ...]
    houses: tuple[House, ...]
    opening_bid: int | None = None


@functools.cache
def can_make(values: tuple[int, ...], total: int) -> bool:
    """Some non-empty sub-multiset of ``values`` adds up to ``total``."""
    return any(
        sum(group) == total
        for size in range(1, len(values) + 1)
        for group in itertools.combinations(values, size)
    )


@functools.cache
def packable(values: tuple[int, ...], total: int) -> bool:
    """``values`` split into disjoint groups each adding up to ``total`` (the empty
    multiset does). The first value must be in some group: try each."""
    if not values:
        return True
    first, rest = values[0], values[1:]
    for size in range(len(rest) + 1):
        for others in itertools.combinations(range(len(rest)), size):
            if first + sum(rest[i] for i in others) == total:
                left = tuple(v for i, v in enumerate(rest) if i not in others)
                if packable(left, total):
                    return True
    return False


def values_of(cards: Sequence[str]) -> tuple[int, ...]:
    return tuple(sorted(map(value, cards)))


def subsets(cards: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for size in range(len(cards) + 1):
        yield from itertools.combinations(cards, size)


def owns_only_held_houses(mover: int, hand: Sequence[str], houses: Sequence[House]) -> bool:
    """The retention check: every house the mover owns has its value in his hand."""
    held = {value(c) for c in hand}
    return all(h.value in held for h in houses if mover in h.owners)


@dataclass(frozen=True)
class Taken:
    """A set S of loose cards a play may move, and what the rules ask about it."""

    cards: tuple[str, ...]
    values: tuple[int, ...]
    total: int
    left_values: tuple[int, ...]
    """The values of the loose cards outside S."""

    @property
    def tail(self) -> str:
        return "".join(" " + c for c in self.cards)


def loose_sets(loose: Sequence[str]) -> list[Taken]:
    """Every subset of the loose cards, the empty one included."""
    found = []
    for cards in subsets(loose):
        left = [c for c in loose if c not in cards]
        found.append(Taken(cards, values_of(cards), sum(map(value, cards)), values_of(left)))
    return found


def legal_texts(p: Position) -> list[str]:
    """Every legal play of the position as canonical text, each once.

    ``total % t`` tests only spare the slower packing test: a t-packable set adds up to
    a multiple of t."""
    found: set[str] = set()
    houses = {h.value: h for h in p.houses}
    loose_values = values_of(p.loose)
    every_set = loose_sets(p.loose)
    for card in p.hand:
        v = value(card)
        after = list(p.hand)
        after.remove(card)
        held_after = {value(c) for c in after}
        # Section 5: on the opening, only a card of the bid value captures or is thrown,
        # and a build makes a house of the bid value.
        may_take = p.opening_bid is None or v == p.opening_bid
        build_values = HOUSE_VALUES if p.opening_bid is None else [p.opening_bid]

        # THROW: nothing can be captured with the card.
        if (
            may_take
            and v not in houses
            and not can_make(loose_values, v)
            and owns_only_held_houses(p.mover, after, p.houses)
        ):
            found.add(f"throw {card}")

        for taken in every_set:
            with_card = tuple(sorted((v, *taken.values)))  # {c} + S

            # CAPTURE: S v-packable, maximal, non-empty unless the house of v stands.
            if (
                may_take
                and taken.total % v == 0
                and packable(taken.values, v)
                and not can_make(taken.left_values, v)
                and (taken.cards or v in houses)
            ):
                remaining = [h for h in p.houses if h.value != v]
                if owns_only_held_houses(p.mover, after, remaining):
                    found.add(f"capture {card}{taken.tail}")

            # BUILD: a new house of value V, made of c and S, every loose V in S.
            for target in build_values:
                if (
                    target not in houses
                    and taken.cards
                    and (v + taken.total) % target == 0
                    and packable(with_card, target)
                    and target not in taken.left_values
                    and target in held_after
                ):
                    new = House(target, (card, *taken.cards), frozenset({p.mover}))
                    if owns_only_held_houses(p.mover, after, [*p.houses, new]):
                        found.add(f"build {card} {target}{taken.tail}")

            # ADD c and S to the house of value V.
            for target, house in houses.items():
                if (v + taken.total) % target or not packable(with_card, target):
                    continue
                owners = set(house.owners)
                if p.mover in house.owners or partner(p.mover) in house.owners:
                    allowed = True
                else:
                    allowed = target in held_after
                    owners.add(p.mover)
                if allowed:
                    grown = House(target, (*house.cards, card, *taken.cards), frozenset(owners))
                    others = [h for h in p.houses if h.value != target]
                    if owns_only_held_houses(p.mover, after, [*others, grown]):
                        found.add(f"add {card} {target}{taken.tail}")

            # BREAK someone else's ordinary house of value W into W + v.
            for old, house in houses.items():
                new_value = old + v
                if (
                    not house.cemented
                    and p.mover not in house.owners
                    and new_value <= 13
                    and taken.total % new_value == 0
                    and packable(taken.values, new_value)
                    and new_value not in taken.left_values
                    and new_value in held_after
                ):
                    others = [h for h in p.houses if h.value not in (old, new_value)]
                    target_house = houses.get(new_value)
                    owners = {p.mover} | (set(target_house.owners) if target_house else set())
                    merged = House(new_value, (*house.cards, card, *taken.cards), frozenset(owners))
                    if owns_only_held_houses(p.mover, after, [*others, merged]):
                        found.add(f"break {card} {old}{taken.tail}")
    return list(found)


def encode(text: str) -> int:
    """The id of a canonical text: ``(((kind * 52 + card) * 5 + slot) << 52) | rank``,
    rank being the set's position among all subsets of the 52 cards listed in canonical
    order, a prefix before its extensions (the engine's module docstring)."""
    words = text.split()
    kind = KINDS.index(words[0])
    card = CARDS.index(words[1])
    rest = words[2:]
    slot = 0
    if kind in (2, 3, 4):
        slot, rest = int(rest[0]) - 9, rest[1:]
    rank, previous = 0, -1
    for member in sorted(CARDS.index(c) for c in rest):
        rank += 1  # the prefix so far comes first
        rank += sum(2 ** (51 - e) for e in range(previous + 1, member))  # earlier branches
        previous = member
    return (((kind * 52 + card) * 5 + slot) << 52) | rank


def legal_ids(p: Position) -> list[int]:
    """The legal plays as ascending ids (the engine's order)."""
    return sorted(map(encode, legal_texts(p)))
