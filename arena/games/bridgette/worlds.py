"""Bridgette worlds for determinization (``arena.games.worlds``): the deal re-made
consistently with one seat's observation, then its exchange, auction and play replayed.

What the seat knows: its own hand, draws and discards, the up-card (in the
non-dealer's hands: held, played or discarded), the number of cards the dealer draws,
every card played, and the voids plays show (a follower who neither followed nor
played the matching colon; a colon of another group played when nothing else was
allowed; a barred suit led). The other seat is two places, the cards it plays with and
its face-down discards, and the stock left undrawn is a third.

Hidden decisions drawn at random: which of the other seat's cards it drew (the up-card
aside), and which it discarded (a place of its own, in a random order). The auction's
holding rules are requirements on the other seat's cards (``Knowledge.require``: two
cards of a suit it bid, four for a jump, one of every suit for no trump).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.api import Deal, InconsistentView, State
from arena.games.bridgette.actions import (
    BID_CALLS,
    BID_TEXTS,
    BIDS,
    CARD_ORDER,
    CARDS,
    GAME_INFO,
    HAND_SIZE,
    LOWEST_ABOVE,
    MATCHING_COLON,
    NON_DEALER_DRAWS,
    NT,
    SUIT_OF,
    TRICKS_PER_DEAL,
)
from arena.games.bridgette.rules import follows, leads
from arena.games.cards import SUITS
from arena.games.registry import get_game
from arena.games.worlds import Knowledge, replay, voids

STOCK = len(CARDS) - 2 * HAND_SIZE


def world(
    observation: Any, options: dict[str, Any], rng: random.Random, actor: int | None = None
) -> State:
    """A state of the match that gives ``observation``'s seat this observation."""
    if observation.phase == "game_over":
        raise InconsistentView("bridgette: the match is over; there is nothing to search")
    me, other = observation.seat, 1 - observation.seat
    knowledge, places = _knowledge(observation)
    held = knowledge.sample(rng)
    cards, discards, stock = (held[i] for i in places)
    rng.shuffle(discards)
    rng.shuffle(stock)
    mine = [*observation.hand, *_played_by(observation, me), *observation.discards]
    mine_dealt = [card for card in mine if card not in observation.drawn]
    theirs = cards + discards
    drawn = _draws(observation, other)
    if other == 1 - observation.dealer:  # the non-dealer drew the up-card
        pool = [card for card in theirs if card != observation.up_card]
        taken = [observation.up_card, *rng.sample(pool, drawn - 1)]
    else:
        taken = rng.sample(theirs, drawn)
    theirs_dealt = [card for card in theirs if card not in taken]
    hands: list[list[str]] = [[], []]
    hands[me], hands[other] = mine_dealt, theirs_dealt
    dealer_first = observation.dealer == me
    non_dealer_draw = taken if dealer_first else list(observation.drawn)
    dealer_draw = list(observation.drawn) if dealer_first else taken
    rest = (*non_dealer_draw, *dealer_draw, *stock)
    state = get_game(GAME_INFO.name).new_state(
        rng.getrandbits(32),
        options,
        deal=Deal(
            tuple(tuple(hand) for hand in hands),
            dealer=observation.dealer,
            rest=rest,
            scores=tuple(observation.scores),
            deal_number=observation.deal_number,
        ),
    )
    mine_out = [f"discard {card}" for card in observation.discards]
    theirs_out = [f"discard {card}" for card in discards]
    exchange = theirs_out + mine_out if dealer_first else mine_out + theirs_out
    replay(state, exchange + _script(observation), rng)
    return state


def _played_by(observation: Any, seat: int) -> list[str]:
    return [p.card for p in _plays(observation) if p.seat == seat]


def _plays(observation: Any) -> list[Any]:
    return [p for trick in observation.tricks for p in trick.cards] + list(observation.trick)


def _draws(observation: Any, seat: int) -> int:
    """How many stock cards ``seat`` has drawn in this deal (0 for a dealer still
    waiting for the non-dealer's discards)."""
    if seat != observation.dealer:
        return NON_DEALER_DRAWS
    drawn = observation.stock_size < STOCK - NON_DEALER_DRAWS
    return observation.dealer_draws if drawn else 0


def _knowledge(observation: Any) -> tuple[Knowledge, tuple[int, int, int]]:
    """The seat's knowledge, and the indices of the other seat's cards, its discards
    and the stock."""
    me, other = observation.seat, 1 - observation.seat
    knowledge = Knowledge("bridgette", CARDS)
    played = _played_by(observation, other)
    size = observation.hand_sizes[other] + len(played)
    discarded = HAND_SIZE + _draws(observation, other) - size
    cards = knowledge.place(f"seat {other}", size)
    out = knowledge.place(f"seat {other}'s discards", discarded)
    stock = knowledge.place("the stock", observation.stock_size)
    mine = knowledge.place(f"seat {me}", len(observation.hand) + len(_played_by(observation, me)))
    mine_out = knowledge.place(f"seat {me}'s discards", len(observation.discards))
    knowledge.know_all(mine, observation.hand, f"it is in seat {me}'s own hand")
    knowledge.know_all(mine_out, observation.discards, f"seat {me} discarded it")
    for play in _plays(observation):
        place = mine if play.seat == me else cards
        knowledge.know(place, play.card, f"seat {play.seat} is shown playing it")
    up = observation.up_card
    if other == 1 - observation.dealer and not knowledge.knows(up):
        knowledge.bar(stock, [up], "the non-dealer drew the up-card")
    _bar_voids(observation, knowledge, cards)
    _holding_rules(observation, knowledge, cards)
    return knowledge, (cards, out, stock)


def _holding_rules(observation: Any, knowledge: Knowledge, place: int) -> None:
    """What the other seat's bids show it held: two cards of a suit it bid, four for a
    jump, a card of every suit for no trump."""
    other = 1 - observation.seat
    high = -1
    for made in observation.calls:
        if made.call.kind != "bid":
            continue
        bid = BID_CALLS.index(made.call)
        strain = BIDS[bid][1]
        if made.seat == other:
            why = f"seat {other} bid {BID_TEXTS[bid]}"
            if strain == NT:
                for suit in SUITS:
                    knowledge.require(place, _suit(suit), 1, why)
            else:
                jump = bid != LOWEST_ABOVE[high + 1][strain]
                knowledge.require(place, _suit(SUITS[strain]), 4 if jump else 2, why)
        high = bid


def _suit(suit: str) -> list[str]:
    return [card for card in CARDS if SUIT_OF[card] == suit]


def _ordered(hand: list[str]) -> list[str]:
    return sorted(hand, key=CARD_ORDER.__getitem__)


def _bar_voids(observation: Any, knowledge: Knowledge, place: int) -> None:
    """The other seat's voids, from every trick it played to."""
    other = 1 - observation.seat
    tricks = [t.cards for t in observation.tricks] + [observation.trick]
    barred: str | None = None
    for number, cards in enumerate(tricks):
        if not cards:
            continue
        lead = cards[0]
        if lead.seat == other:

            def leading(hand: list[str], barred: str | None = barred) -> list[str]:
                return leads(_ordered(hand), barred)

            knowledge.bar(place, voids(lead.card, knowledge.pack, leading), "it led a barred suit")
        for follow in cards[1:]:
            if follow.seat == other:

                def following(hand: list[str], led: str = lead.card) -> list[str]:
                    return follows(_ordered(hand), led)

                shown = voids(follow.card, knowledge.pack, following)
                knowledge.bar(place, shown, f"it did not follow {lead.card}")
        colon = len(cards) == 2 and cards[1].card == MATCHING_COLON.get(lead.card)
        barred = SUIT_OF[lead.card] if colon and number < TRICKS_PER_DEAL - 1 else None


def _script(observation: Any) -> list[str]:
    """The auction and the play as action texts."""
    texts = dict(zip(BID_CALLS, (f"bid {text}" for text in BID_TEXTS), strict=True))
    script = [texts.get(c.call, c.call.kind) for c in observation.calls]
    return script + [f"play {p.card}" for p in _plays(observation)]
