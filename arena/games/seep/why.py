"""Seep: throws, captures, builds, adds and breaks that the floor or the hand do not allow."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.play.why.words import (
    Card,
    Observation,
    card_in,
    codes,
    show,
    shown,
)
from arena.v1 import seep_pb2

SEEP_VALUES = {rank: value for value, rank in enumerate("A23456789TJQK", start=1)}


def _sums_to(cards: Sequence[Card], value: int) -> list[Card] | None:
    """Some loose cards adding up to ``value`` (a capture), smallest first."""
    for size in range(1, len(cards) + 1):
        for group in itertools.combinations(cards, size):
            if sum(SEEP_VALUES[c[0]] for c in group) == value:
                return list(group)
    return None


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Seep's house rules for a throw: the opening bid, compulsory capture, houses,
    and keeping a card of your own house's value."""
    if verb not in ("", "throw"):
        return None
    value = SEEP_VALUES[card[0]]
    loose = codes(observation.loose)
    houses = {house.value: house for house in observation.houses}
    if not observation.plays and observation.HasField("bid") and value != observation.bid:
        return (
            f"the opening play must use your bid of {observation.bid}: throw or capture a "
            f"card of value {observation.bid}, or build with any card"
        )
    if value in houses:
        return f"a house of {value} is on the floor: a card of value {value} must capture it"
    group = _sums_to(loose, value)
    if group is not None:
        return f"capturing is compulsory: {show(card)} can take {shown(group)}"
    return _owned_house_fault(observation, card)


SEEP_ORDER = {r + u: i for i, (r, u) in enumerate(itertools.product("A23456789TJQK", "CDHS"))}
"""Seep's canonical card order (by value, then suit): how actions list cards."""


def _packs(values: Sequence[int], target: int) -> bool:
    """Whether ``values`` split into groups that each add up to ``target`` (the first
    value's group found first)."""
    if not values:
        return True
    first, rest = values[0], list(values[1:])
    for size in range(len(rest) + 1):
        for picked in itertools.combinations(range(len(rest)), size):
            if first + sum(rest[i] for i in picked) == target:
                left = [v for i, v in enumerate(rest) if i not in picked]
                if _packs(left, target):
                    return True
    return False


def _seep_value(card: Card) -> int:
    return SEEP_VALUES[card[0]]


@dataclass(frozen=True)
class _Move:
    """A typed capture, build, add or break whose cards the seat holds or are loose:
    parsed once so that each rule below reads only what it checks."""

    observation: Observation
    verb: str
    words: list[str]
    card: Card
    taken: list[Card]
    rest: list[Card]
    """The loose cards left on the floor after the move."""

    @property
    def value(self) -> int:
        return _seep_value(self.card)

    @property
    def houses(self) -> dict[int, Any]:
        return {house.value: house for house in self.observation.houses}

    @property
    def opening(self) -> bool:
        return not self.observation.plays and bool(self.observation.HasField("bid"))


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
    rest = [c for c in loose if c not in taken]
    return _Move(observation, verb, words, card, taken, rest)


def _capture_fault(move: _Move) -> str | None:
    """A capture takes the bid's value on the opening play, takes something, takes only
    groups of its card's value, and takes every such group."""
    value, card = move.value, move.card
    if move.opening and value != move.observation.bid:
        bid = move.observation.bid
        return f"the opening play must use your bid of {bid}: capture only with a {bid}"
    if not move.taken and value not in move.houses:
        return f"a capture must take something: no house of {value}, so name loose cards"
    if not _packs([_seep_value(c) for c in move.taken], value):
        return (
            f"the cards captured must make groups that each add up to {value}, the value "
            f"of {show(card)}"
        )
    left = _sums_to(move.rest, value)
    if left is not None:
        return f"a capture must be maximal: {shown(left)} also add up to {value} and must go too"
    return None


def _house_fault(move: _Move) -> str | None:
    """A build, add or break: first the rules of that verb, then those of every house."""
    number = int(move.words[2])
    if move.verb == "break":
        fault = _break_fault(move, number)
        target, group = number + move.value, []
    else:
        fault = _build_fault(move, number)
        target, group = number, [move.card]
    if fault is not None:
        return fault
    if move.opening and target != move.observation.bid:
        bid = move.observation.bid
        return f"the opening play must use your bid of {bid}: a house of {bid} only"
    return (
        _house_sum_fault(move, target, group)
        or _keep_fault(move, target)
        or _owned_house_fault(move.observation, move.card)
    )


def _break_fault(move: _Move, number: int) -> str | None:
    """Only another seat's uncemented house may be broken, and not above 13."""
    house = move.houses.get(number)
    if house is None:
        return f"you may only break a house on the floor, and there is no house of {number}"
    if house.cemented:
        return f"the house of {number} is cemented: it may not be broken"
    if move.observation.seat in house.owners:
        return f"you own the house of {number}: you may not break your own house"
    target = number + move.value
    if target > 13:
        return f"a house may not go above 13: {number} + {move.value} is {target}"
    return None


def _build_fault(move: _Move, target: int) -> str | None:
    """A house is worth 9 to 13; a build starts one (with loose cards), an add joins one."""
    if not 9 <= target <= 13:
        return "a house must have a value from 9 to 13"
    if move.verb == "build" and target in move.houses:
        return f"a house of {target} is on the floor already: you may only add to it"
    if move.verb == "add" and target not in move.houses:
        return f"you may only add to a house on the floor, and there is no house of {target}"
    if move.verb == "build" and not move.taken:
        return "a build must use loose cards with your card"
    return None


def _house_sum_fault(move: _Move, target: int, group: list[Card]) -> str | None:
    """The house's cards make groups of its value, and loose cards of that value join it."""
    if not _packs([_seep_value(c) for c in [*group, *move.taken]], target):
        with_card = f"{show(move.card)} and the loose cards" if group else "the loose cards"
        return f"{with_card} must make groups that each add up to {target}"
    same = [c for c in move.rest if _seep_value(c) == target]
    if same:
        return f"loose cards of value {target} must join the house: {shown(same)}"
    return None


def _keep_fault(move: _Move, target: int) -> str | None:
    """A house needs a card in hand to take it, unless the seat adds to its side's house."""
    seat = move.observation.seat
    keeps = [c for c in codes(move.observation.hand) if c != move.card and _seep_value(c) == target]
    house = move.houses.get(target)
    partner = (seat + 2) % 4
    helped = house is not None and (seat in house.owners or partner in house.owners)
    if not keeps and not (move.verb == "add" and helped):
        return (
            f"you may make a house of {target} only if you keep a card of value {target} "
            f"in hand to capture it"
        )
    return None


def _owned_house_fault(observation: Observation, card: Card) -> str | None:
    """Playing away the last card that could take your own house would strand it."""
    hand = codes(observation.hand)
    value = _seep_value(card)
    for house_value, house in {house.value: house for house in observation.houses}.items():
        others = [c for c in hand if c != card and _seep_value(c) == house_value]
        if observation.seat in house.owners and value == house_value and not others:
            return (
                f"you own the house of {house_value}: you must keep a card of that value "
                f"until the house is taken or broken"
            )
    return None


def _seep_ordered(
    verb: str, words: Sequence[str], taken: Sequence[Card], legal: Sequence[str]
) -> str | None:
    head = words[: len(words) - len(taken)]
    ordered = " ".join([*head, *sorted(taken, key=SEEP_ORDER.__getitem__)])
    if ordered.casefold() in (t.casefold() for t in legal):
        return f"the cards must be listed in order: {ordered}"
    return None
