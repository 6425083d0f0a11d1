"""Persian Rummy worlds for determinization (``arena.games.worlds``): the deal in
progress re-made from one seat's observation as a position
(``PersianRummyGame.from_position``), the other hands and the stock drawn at random.

What the seat knows: its own hand, the discard pile and the melds (every card with the
seat that placed it), the pile cards each seat took and still holds, the hand sizes and
the stock's size. The observation keeps no order of the turns, so nothing is replayed:
the position is the present, which is all that decides the rest of the deal; the
state's event log starts there (``arena.openspiel`` gives a clone the seat's own log).
Right after another seat took a pile card, its hand must let it meld the card: unless
the card lays off on the table, one way to meld it (two more of its rank, or two
neighbours in its suit) is drawn and required of that hand. Not modelled: what earlier
turns showed of hidden hands (a seat that drew from the stock rather than take a pile
card may have been unable to meld it); any hand fits them.

The seat to act is ``actor`` when the caller knows it (who acts is public); else it is
read from the pile and the passes, and in the middle of a turn taken after a draw from
the stock that reading is a guess (the observation does not say whose turn it is).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.api import InconsistentView, State
from arena.games.persian_rummy.actions import CARDS, GAME_INFO, NUM_SEATS
from arena.games.persian_rummy.position import PersianRummyPosition
from arena.games.registry import get_game
from arena.games.worlds import Knowledge


def world(
    observation: Any, options: dict[str, Any], rng: random.Random, actor: int | None = None
) -> State:
    """A state of the match that gives ``observation``'s seat this observation."""
    if observation.phase == "game_over":
        raise InconsistentView("persian-rummy: the match is over; there is nothing to search")
    knowledge, stock = _knowledge(observation)
    to_act = _actor(observation) if actor is None else actor
    if observation.chosen_card is not None and to_act != observation.seat:
        _chosen_usable(observation, knowledge, to_act, rng)
    held = knowledge.sample(rng)
    rng.shuffle(held[stock])
    position = PersianRummyPosition(
        hands=tuple(tuple(held[seat]) for seat in range(NUM_SEATS)),
        to_act=to_act,
        dealer=observation.dealer,
        phase=observation.phase,
        stock=tuple(held[stock]),
        pile=tuple(observation.discard_pile),
        melds=tuple(observation.melds),
        known=_known(observation),
        chosen=observation.chosen_card,
        passes=observation.passes,
        deal_number=observation.deal_number,
        scores=tuple(observation.scores),
    )
    state: State = get_game(GAME_INFO.name).from_position(  # type: ignore[attr-defined]
        position, seed=rng.getrandbits(32), options=options
    )
    return state


def _known(observation: Any) -> tuple[tuple[str, ...], ...]:
    known: list[tuple[str, ...]] = [() for _ in range(NUM_SEATS)]
    for entry in observation.known_cards:
        known[entry.seat] = tuple(entry.cards)
    return tuple(known)


def _knowledge(observation: Any) -> tuple[Knowledge, int]:
    """The seat's knowledge, and the index of the stock."""
    knowledge = Knowledge("persian-rummy", CARDS)
    for seat in range(NUM_SEATS):
        knowledge.place(f"seat {seat}", observation.hand_sizes[seat])
    stock = knowledge.place("the stock", observation.stock_size)
    table = [d.card for d in observation.discard_pile]
    table += [p.card for meld in observation.melds for p in meld.cards]
    on_table = knowledge.place("the table", len(table))
    me = observation.seat
    knowledge.know_all(me, observation.hand, f"it is in seat {me}'s own hand")
    for entry in observation.known_cards:
        for card in entry.cards:
            if entry.seat != me or card not in observation.hand:
                knowledge.know(entry.seat, card, f"seat {entry.seat} took it from the pile")
    for discard in observation.discard_pile:
        knowledge.know(on_table, discard.card, "it is in the discard pile")
    for meld in observation.melds:
        for placed in meld.cards:
            knowledge.know(on_table, placed.card, f"it is in meld {meld.id}")
    return knowledge, stock


def _actor(observation: Any) -> int:
    """The seat to act, read from the pile and the passes (see the module)."""
    if observation.chosen_card is not None:
        for entry in observation.known_cards:
            if observation.chosen_card in entry.cards:
                seat: int = entry.seat
                return seat
    last = next((d.seat for d in reversed(observation.discard_pile) if d.seat is not None), None)
    start: int = observation.dealer if last is None else last
    return (start + 1 + int(observation.passes)) % NUM_SEATS


RANKS = "23456789TJQKA"


def _chosen_usable(observation: Any, knowledge: Knowledge, seat: int, rng: random.Random) -> None:
    """Require of ``seat``'s hand one way to meld the card it just took (see the module),
    unless the card lays off on a table meld alone."""
    chosen = observation.chosen_card
    if any(_lays_off(chosen, meld) for meld in observation.melds):
        return

    def free(card: str) -> bool:
        return card != chosen and knowledge.may_hold(seat, card)

    ways: list[tuple[list[str], int]] = []  # cards, and how many of them it needs
    same = [c for c in CARDS if free(c) and _rank(c) == _rank(chosen)]
    if len(same) >= 2:
        ways.append((same, 2))
    if chosen[0] != "X":
        at = RANKS.index(chosen[0])
        for low, high in ((-2, -1), (-1, 1), (1, 2)):
            if at + low >= 0 and at + high < len(RANKS):
                pair = [RANKS[at + low] + chosen[1], RANKS[at + high] + chosen[1]]
                if all(free(card) for card in pair):
                    ways.append((pair, 2))

    def unseen_needed(way: tuple[list[str], int]) -> int:
        return max(0, way[1] - sum(1 for card in way[0] if knowledge.knows(card)))

    ways = [way for way in ways if unseen_needed(way) <= knowledge.room(seat)]
    if not ways:
        return  # no way at all: the position's own check reports it
    cards, needed = rng.choice(ways)
    why = f"seat {seat} took {chosen} and must meld it"
    if _rank(cards[0]) != _rank(cards[-1]):  # a run's two neighbours, both
        for card in cards:
            knowledge.require(seat, [card], 1, why)
    else:
        knowledge.require(seat, cards, needed, why)


def _rank(card: str) -> str:
    return "X" if card[0] == "X" else card[0]


def _lays_off(card: str, meld: Any) -> bool:
    """Whether ``card`` alone extends the table meld ``meld``."""
    cards = [p.card for p in meld.cards]
    if meld.kind == "set":
        return len(cards) == 3 and _rank(cards[0]) == _rank(card)
    if card[0] == "X" or cards[0][1] != card[1]:
        return False
    ranks = sorted(RANKS.index(c[0]) for c in cards)
    return RANKS.index(card[0]) in (ranks[0] - 1, ranks[-1] + 1)
