"""Seep worlds for determinization (``arena.games.worlds``): the deal re-made
consistently with one seat's observation, then its bid and plays replayed.

What the seat knows: its own hand, every play with the cards it moved, and so the four
floor cards once turned up (the cards on the floor and in the piles that no seat
played). Each seat is a place holding the cards it plays in this deal (played ones and
those still held); before the bid the face-down floor is a place, and so is the stock
until it is dealt after play 1. Plays show holdings too, as requirements
(``Knowledge.require``): the bidder held a card of its bid (and one above 8) among its
first four, and a house's owners (followed through the plays: who built, joined by an
addition, or raised it) held a card of its value until it was taken or broken (one
they still hold, or played since).

Drawn at random: which of the bidder's cards were its first four (the first play among
them), and the order of the packets dealt after play 1. The deal starts from a
position at its very beginning (``SeepGame.from_position``), which sets the bazzi's
running difference and count; the observation's record of earlier deals and of
thrown-in redeals (``deal_history``, ``redeal_cards``) is copied onto the state, since
no deal reproduces it.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.api import InconsistentView, State
from arena.games.registry import get_game
from arena.games.seep.actions import CARD_INDEX, CARDS, GAME_INFO, NUM_SEATS, VALUE
from arena.games.seep.position import SeepPosition
from arena.games.worlds import Knowledge, replay

FLOOR = 4
FIRST = 4


def world(
    observation: Any, options: dict[str, Any], rng: random.Random, actor: int | None = None
) -> State:
    """A state of the match that gives ``observation``'s seat this observation."""
    if observation.phase == "game_over":
        raise InconsistentView("seep: the match is over; there is nothing to search")
    knowledge, floor, stock = _knowledge(observation)
    held = knowledge.sample(rng)
    bidder = observation.bidder
    first, later = _first_four(observation, held[bidder], rng)
    hands = [list(first) if seat == bidder else [] for seat in range(NUM_SEATS)]
    packets = {seat: list(held[seat]) for seat in range(NUM_SEATS)}
    packets[bidder] = later
    position = SeepPosition(
        dealer=observation.dealer,
        bid=None,
        play_number=0,
        hands=tuple(tuple(hand) for hand in hands),
        loose=tuple(held[floor]),
        stock=tuple(held[stock]) if stock is not None else _stock(observation, packets, rng),
        scores=tuple(observation.scores),
        void_bazzis=observation.bazzi_number - 1 - sum(observation.scores),
        difference=observation.difference,
        deal_number=observation.deal_number,
        deals_in_bazzi=observation.deals_in_bazzi,
    )
    state = get_game(GAME_INFO.name).from_position(  # type: ignore[attr-defined]
        position, seed=rng.getrandbits(32), options=options
    )
    state.deal_history = list(observation.deal_history)
    state.redeal_cards = [CARD_INDEX[card] for card in observation.redeal_cards]
    script = [] if observation.bid is None else [f"bid {observation.bid}"]
    replay(state, script + [_text(play) for play in observation.plays], rng)
    result: State = state
    return result


def _of_value(value: int) -> list[str]:
    return [card for i, card in enumerate(CARDS) if VALUE[i] == value]


def _value(card: str) -> int:
    return VALUE[CARD_INDEX[card]]


def _knowledge(observation: Any) -> tuple[Knowledge, int, int | None]:
    """The seat's knowledge, the index of the floor's first four cards and of the stock
    (None once dealt)."""
    knowledge = Knowledge("seep", CARDS)
    plays = observation.plays
    sizes = [observation.hand_sizes[s] + sum(p.seat == s for p in plays) for s in range(4)]
    for seat in range(NUM_SEATS):
        knowledge.place(f"seat {seat}", sizes[seat])
    floor = knowledge.place("the floor's first four cards", FLOOR)
    dealt = len(CARDS) - FLOOR - sum(sizes)
    stock = knowledge.place("the stock", dealt) if dealt else None
    me = observation.seat
    knowledge.know_all(me, observation.hand, f"it is in seat {me}'s own hand")
    for play in plays:
        knowledge.know(play.seat, play.card, f"seat {play.seat} is shown playing it")
    if observation.face_down_floor == 0:
        table = [*observation.loose, *(c for h in observation.houses for c in h.cards)]
        table += [card for pile in observation.piles for card in pile.cards]
        for card in table:
            if not knowledge.knows(card):
                knowledge.know(floor, card, "it came to the table without being played")
    _holdings(observation, knowledge)
    return knowledge, floor, stock


def _holdings(observation: Any, knowledge: Knowledge) -> None:
    """The cards plays show a seat held (see the module)."""
    bidder = observation.bidder

    def kept(seat: int, after: int, value: int | None) -> list[str]:
        """Cards (of ``value``, or above 8) ``seat`` may have held until play index
        ``after``: unseen ones, its own hand if it is the observer, and those it played
        from then on."""
        later = {p.card for p in observation.plays[after:] if p.seat == seat}
        if seat == observation.seat:
            later.update(observation.hand)
        return [
            card
            for card in CARDS
            if (_value(card) == value if value is not None else _value(card) > 8)
            and (card in later or not knowledge.knows(card))
        ]

    if observation.bid is None:
        knowledge.require(bidder, kept(bidder, 0, None), 1, "the bidder has a card above 8")
    else:
        bid = observation.bid
        knowledge.require(bidder, kept(bidder, 0, bid), 1, f"seat {bidder} bid {bid}")
    for seat, value, until in _ownerships(observation.plays):
        why = f"seat {seat} owned the house of {value}"
        knowledge.require(seat, kept(seat, until, value), 1, why)


def _ownerships(plays: Any) -> list[tuple[int, int, int]]:
    """Each seat's ownership of a house, as (seat, value, index of the play that ended
    it, or the number of plays while it stands): an owner holds a card of the value
    all along, as the rules' retention check demands."""
    owners: dict[int, set[int]] = {}
    ended: list[tuple[int, int, int]] = []

    def end(value: int | None, index: int) -> None:
        if value is not None:
            ended.extend((seat, value, index) for seat in owners.pop(value, set()))

    for index, play in enumerate(plays):
        seat, partner = play.seat, (play.seat + 2) % NUM_SEATS
        if play.kind == "capture":
            end(play.value, index)
        elif play.kind == "build":
            owners[play.value] = {seat}
        elif play.kind == "add":
            before = owners.setdefault(play.value, set())
            if seat in before or partner not in before:
                before.add(seat)  # an owner already, or joining (a partner's need not)
        elif play.kind == "break":
            end(play.broken_value, index)
            owners.setdefault(play.value, set()).add(seat)
    return ended + [(seat, v, len(plays)) for v, seats in owners.items() for seat in seats]


def _first_four(
    observation: Any, cards: list[str], rng: random.Random
) -> tuple[list[str], list[str]]:
    """The bidder's first four cards (its first play and a card of its bid among them;
    after an opening build, a card of its bid besides the one played) and the rest of
    its cards."""
    pool = list(cards)
    rng.shuffle(pool)
    first: list[str] = []
    if observation.plays:
        first.append(observation.plays[0].card)
    value = observation.bid
    built = bool(observation.plays) and observation.plays[0].kind == "build"
    if value is not None and (built or not any(_value(c) == value for c in first)):
        first += [next(c for c in pool if _value(c) == value and c not in first)]
    first += [c for c in pool if c not in first][: FIRST - len(first)]
    return first, [c for c in pool if c not in first]


def _stock(observation: Any, packets: dict[int, list[str]], rng: random.Random) -> tuple[str, ...]:
    """The 44 cards dealt after play 1, in packets of four in the dealing order."""
    b = observation.bidder
    order = [b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3]
    dealt: list[str] = []
    for seat in order:
        take = packets[seat % NUM_SEATS]
        dealt += take[:4]
        del take[:4]
    return tuple(dealt)


def _text(play: Any) -> str:
    """The action text of a recorded play."""
    loose = "".join(f" {card}" for card in play.loose)
    if play.kind in ("throw", "capture"):
        return f"{play.kind} {play.card}{loose}"
    value = play.broken_value if play.kind == "break" else play.value
    return f"{play.kind} {play.card} {value}{loose}"
