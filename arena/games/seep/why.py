"""Seep: throws, captures, builds, adds and breaks that the floor or the hand do not allow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from arena.games.seep import legal as rules
from arena.games.seep.actions import ALL_VALUES, BREAK_ROOM, CARD_INDEX, HOUSE_BITS, VALUE
from arena.play.why.words import (
    Card,
    Observation,
    card_in,
    codes,
    show,
    shown,
)
from arena.v1 import seep_pb2

# The rules are the engine's own functions, looked up on ``arena.games.seep.legal`` (as
# ``rules``) at each call: this module reads the seat's observation into the values they
# take and puts the first clause that fails into words.


def _value(card: Card) -> int:
    return VALUE[CARD_INDEX[card]]


class _Seat:
    """The seat's observation as the engine's rules take it: sets of values as bitmasks
    (bit V for value V) and the loose cards in canonical order, whose masks ``FloorSums``
    gives (bit i for the i-th loose card)."""

    def __init__(self, observation: Observation) -> None:
        self.observation = observation
        self.houses: dict[int, Any] = {house.value: house for house in observation.houses}
        self.loose = sorted(codes(observation.loose), key=CARD_INDEX.__getitem__)
        self.hand = codes(observation.hand)
        seat = observation.seat
        side = (seat, (seat + 2) % 4)
        self.standing = sum(1 << value for value in self.houses)
        self.own = sum(1 << v for v, house in self.houses.items() if seat in house.owners)
        self.ours = sum(
            1 << v for v, house in self.houses.items() if any(s in house.owners for s in side)
        )
        self.held = self.held_twice = 0
        for card in self.hand:
            bit = 1 << _value(card)
            self.held_twice |= self.held & bit
            self.held |= bit
        self.opening = not observation.plays and bool(observation.HasField("bid"))
        self.takers = rules.opening_values(observation.bid if self.opening else None)

    @cached_property
    def floor(self) -> rules.FloorSums:
        return rules.floor_sums(tuple(_value(card) for card in self.loose))

    def mask(self, cards: Sequence[Card]) -> int:
        return sum(1 << self.loose.index(card) for card in cards)

    def cards(self, mask: int) -> list[Card]:
        return [card for i, card in enumerate(self.loose) if mask >> i & 1]

    def first_group(self, value: int, outside: int = 0) -> list[Card] | None:
        """The loose cards of a group adding up to ``value`` and outside the mask, the
        fewest first, then in the order of the loose cards; None when there is none."""
        groups = [g for g in self.floor.groups[value] if not g & outside]
        if not groups:
            return None
        order = {
            g: (g.bit_count(), [i for i in range(len(self.loose)) if g >> i & 1]) for g in groups
        }
        return self.cards(min(groups, key=order.__getitem__))

    def retained(self, value: int) -> bool:
        return bool(rules.retained_values(self.own, self.held_twice) >> value & 1)


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Seep's house rules for a throw: the opening bid, compulsory capture, houses,
    and keeping a card of your own house's value."""
    if verb not in ("", "throw"):
        return None
    value = _value(card)
    seat = _Seat(observation)
    if not seat.takers >> value & 1:
        return (
            f"the opening play must use your bid of {observation.bid}: throw or capture a "
            f"card of value {observation.bid}, or build with any card"
        )
    if not rules.throwing_values(seat.takers, seat.standing, seat.floor.sums) >> value & 1:
        if value in seat.houses:
            return f"a house of {value} is on the floor: a card of value {value} must capture it"
        return (
            f"capturing is compulsory: {show(card)} can take {shown(seat.first_group(value) or [])}"
        )
    return _owned_house_fault(seat, card)


@dataclass(frozen=True)
class _Move:
    """A typed capture, build, add or break whose cards the seat holds or are loose:
    parsed once so that each rule below reads only what it checks."""

    seat: _Seat
    verb: str
    words: list[str]
    card: Card
    taken: list[Card]

    @property
    def observation(self) -> Observation:
        return self.seat.observation

    @property
    def value(self) -> int:
        return _value(self.card)

    @property
    def taken_mask(self) -> int:
        """The loose cards taken or moved, as ``FloorSums`` masks them."""
        return self.seat.mask(self.taken)

    @property
    def kept(self) -> int:
        """The values the seat still holds after the move (``held_after``)."""
        return rules.held_after(self.seat.held, self.seat.held_twice, self.value)


def explain_action(observation: Observation, text: str, legal: Sequence[str]) -> str | None:
    """A capture, build, add or break typed with cards that do not fit: the sums, the
    houses on the floor, maximal captures and keeping a card of a house's value."""
    words = text.split()
    verb = words[0].casefold() if words else ""
    if verb not in ("capture", "build", "add", "break") or len(words) < 2:
        return None
    if observation.phase == seep_pb2.SEEP_PHASE_BID:
        return "you must bid first: name a house value from 9 to 13 that you hold a card of"
    move = _typed_move(observation, verb, words)
    if not isinstance(move, _Move):
        return move
    fault = _capture_fault(move) if verb == "capture" else _house_fault(move)
    if fault is not None:
        return fault
    return _seep_ordered(verb, words, move.taken, legal)


def _typed_move(observation: Observation, verb: str, words: list[str]) -> _Move | str | None:
    """The move, or why its cards cannot be read as the seat's card and loose cards
    (None when the text names no such card, for the generic explanation)."""
    card = card_in(words[1])
    if card is None or card not in codes(observation.hand):
        return None
    valued = verb != "capture"
    if valued and (len(words) < 3 or not words[2].isdigit()):
        return f"a {verb} names its house value after the card: {verb} {card} <value> <loose cards>"
    typed = [card_in(w) for w in words[3 if valued else 2 :]]
    if any(c is None for c in typed):
        return None
    taken = [c for c in typed if c is not None]
    loose = codes(observation.loose)
    if any(c not in loose for c in taken) or len(set(taken)) < len(taken):
        return f"you may only take or move loose cards, each once; loose: {shown(loose) or 'none'}"
    return _Move(_Seat(observation), verb, words, card, taken)


def _capture_fault(move: _Move) -> str | None:
    """A capture takes the bid's value on the opening play, takes something, takes only
    groups of its card's value, and takes every such group."""
    seat, value, card, taken = move.seat, move.value, move.card, move.taken_mask
    if not seat.takers >> value & 1:
        bid = move.observation.bid
        return f"the opening play must use your bid of {bid}: capture only with a {bid}"
    if not taken and not rules.capturing_values(ALL_VALUES, seat.standing, 0) >> value & 1:
        return f"a capture must take something: no house of {value}, so name loose cards"
    if taken not in seat.floor.packable(value):
        return (
            f"the cards captured must make groups that each add up to {value}, the value "
            f"of {show(card)}"
        )
    if taken not in seat.floor.captures(value):
        left = seat.first_group(value, outside=taken) or []
        return f"a capture must be maximal: {shown(left)} also add up to {value} and must go too"
    return None


def _house_fault(move: _Move) -> str | None:
    """A build, add or break: first the rules of that verb, then those of every house."""
    number = int(move.words[2])
    if move.verb == "break":
        fault = _break_fault(move, number)
        target, short = number + move.value, 0
    else:
        fault = _build_fault(move, number)
        target, short = number, number - move.value
    if fault is not None:
        return fault
    if not move.seat.takers >> target & 1:
        bid = move.observation.bid
        return f"the opening play must use your bid of {bid}: a house of {bid} only"
    return (
        _house_sum_fault(move, target, short)
        or _keep_fault(move, number)
        or _owned_house_fault(move.seat, move.card)
    )


def _break_fault(move: _Move, number: int) -> str | None:
    """Only another seat's uncemented house may be broken, and not above 13."""
    house = move.seat.houses.get(number)
    if house is None:
        return f"you may only break a house on the floor, and there is no house of {number}"
    if not rules.may_break(house.cemented, move.observation.seat in house.owners):
        if house.cemented:
            return f"the house of {number} is cemented: it may not be broken"
        return f"you own the house of {number}: you may not break your own house"
    if not BREAK_ROOM[move.value] >> number & 1:
        target = number + move.value
        return f"a house may not go above 13: {number} + {move.value} is {target}"
    return None


def _build_fault(move: _Move, target: int) -> str | None:
    """A house is worth 9 to 13; a build starts one (with loose cards), an add joins one."""
    standing = move.seat.standing
    if not HOUSE_BITS >> target & 1:
        return "a house must have a value from 9 to 13"
    if move.verb == "build" and not rules.free_values(standing, ALL_VALUES) >> target & 1:
        return f"a house of {target} is on the floor already: you may only add to it"
    if move.verb == "add" and not standing >> target & 1:
        return f"you may only add to a house on the floor, and there is no house of {target}"
    floor, short = move.seat.floor, target - move.value
    if (
        move.verb == "build"
        and not move.taken
        and 0 not in rules.house_sets(floor, target, short, True)
    ):
        return "a build must use loose cards with your card"
    return None


def _house_sum_fault(move: _Move, target: int, short: int) -> str | None:
    """The house's cards make groups of its value, and loose cards of that value join it
    (``house_sets``: with every loose card of the value added, the typed cards must fit)."""
    floor, taken = move.seat.floor, move.taken_mask
    sets = rules.house_sets(floor, target, short, move.verb == "build")
    if taken in sets:
        return None
    if taken | floor.required[target] not in sets:
        with_card = (
            "the loose cards" if move.verb == "break" else f"{show(move.card)} and the loose cards"
        )
        return f"{with_card} must make groups that each add up to {target}"
    same = move.seat.cards(floor.required[target] & ~taken)
    return f"loose cards of value {target} must join the house: {shown(same)}"


def _keep_fault(move: _Move, number: int) -> str | None:
    """A house needs a card in hand to take it, unless the seat adds to its side's house:
    the other clauses of the engine's ``build_values``, ``add_values`` and ``break_values``
    hold by now, so only the card kept can fail."""
    seat, value, kept = move.seat, move.value, move.kept
    fits = seat.floor.fits[value]
    if move.verb == "build":
        allowed = (
            rules.build_values(rules.free_values(seat.standing, seat.takers), fits, kept) >> number
        )
    elif move.verb == "add":
        allowed = rules.add_values(seat.standing, fits, kept, seat.ours) >> number
    else:
        allowed = rules.break_values(1 << number, kept, value) >> number
    if not allowed & 1:
        target = number + value if move.verb == "break" else number
        return (
            f"you may make a house of {target} only if you keep a card of value {target} "
            f"in hand to capture it"
        )
    return None


def _owned_house_fault(seat: _Seat, card: Card) -> str | None:
    """Playing away the last card that could take your own house would strand it."""
    value = _value(card)
    if seat.retained(value):
        return (
            f"you own the house of {value}: you must keep a card of that value "
            f"until the house is taken or broken"
        )
    return None


def _seep_ordered(
    verb: str, words: Sequence[str], taken: Sequence[Card], legal: Sequence[str]
) -> str | None:
    """The move is legal but its loose cards were typed out of the canonical order."""
    head = words[: len(words) - len(taken)]
    ordered = " ".join([*head, *sorted(taken, key=CARD_INDEX.__getitem__)])
    if ordered.casefold() in (t.casefold() for t in legal):
        return f"the cards must be listed in order: {ordered}"
    return None
