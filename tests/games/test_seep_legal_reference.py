"""Seep's legal-move generator against a slow, literal reading of section 4
(``tests/games/seep_reference.py``): the two must list exactly the same ids.

Positions come from random playouts (every decision of each match is checked, so a few
dozen matches give over a thousand positions) and from an adversarial builder: big
floors of many loose cards, several houses, cemented ones, houses owned by the mover,
his partner, the opponents or several of them, the mover holding one or two cards of a
house's value, and the opening play. The builder describes each as a ``SeepPosition``
and starts it with ``SeepGame.from_position``, which checks it against what real play
allows (every card once, hand sizes for the play number, the floor invariants I1-I3).
The larger runs are marked slow (``pytest -m slow``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.seep.game import (
    CARDS,
    VALUE,
    PlacedHouse,
    SeepGame,
    SeepPosition,
    SeepState,
    plays_made,
)
from tests.games import playouts, seep_reference
from tests.games.seep_reference import Position

GAME = SeepGame()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = {"bazzis": 1, "max_deals": 1}


def reference_position(state: SeepState) -> Position:
    """The engine's position as the reference reads it."""
    at = state.position()
    houses = tuple(
        seep_reference.House(house.value, house.cards, frozenset(house.owners))
        for house in at.houses
    )
    return Position(
        at.to_move,
        at.hands[at.to_move],
        at.loose,
        houses,
        at.bid if at.play_number == 0 else None,
    )


def same_as_reference(state: SeepState, _: object = None) -> None:
    if state.is_terminal() or state.position().bid is None:
        return
    expected = seep_reference.legal_ids(reference_position(state))
    assert state.legal_actions() == expected, (
        reference_position(state),
        [state.action_text(a) for a in set(state.legal_actions()) ^ set(expected)],
    )


# --- positions of random play ----------------------------------------------------------------

CHECKED: list[int] = []


def _check_playout(seed: int, policy_seed: int) -> int:
    checked = 0

    def step(state: SeepState, rng: random.Random) -> None:
        nonlocal checked
        if state.phase == "play":
            same_as_reference(state)
            checked += 1

    playouts.playout(GAME.new_state, seed, policy_seed, SHORT_MATCH, step)
    return checked


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_random_play_lists_what_section_4_allows_at_every_decision(
    seed: int, policy_seed: int
) -> None:
    CHECKED.append(_check_playout(seed, policy_seed))


def test_the_random_play_test_checked_over_a_thousand_positions() -> None:
    """Runs after the test above in the same module: its 60 playouts of 48 plays."""
    if not CHECKED:
        pytest.skip("the playout test did not run")
    assert sum(CHECKED) >= 1000


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_random_play_lists_what_section_4_allows_many_matches(seed: int, policy_seed: int) -> None:
    _check_playout(seed, policy_seed)


# --- adversarial positions ---------------------------------------------------------------------


class Pool:
    """The cards not placed yet, handed out by value."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.left = list(range(52))
        rng.shuffle(self.left)

    def take(self, value: int) -> int | None:
        for i, card in enumerate(self.left):
            if VALUE[card] == value:
                return self.left.pop(i)
        return None

    def any(self, values: range = range(1, 14)) -> int | None:
        return self.take(self.rng.choice(values))

    def some(self) -> int:
        """A card of a random value that is left (the pool is not empty)."""
        while (card := self.any()) is None:
            pass
        return card


def _house(pool: Pool, value: int, cemented: bool) -> list[int] | None:
    """Cards adding up to ``value`` (twice or three times for a cemented house): pairs of
    values x and value - x, or a lone card of the value beside other groups. None when
    the pool lacks a card (what it gave goes back)."""
    rng = pool.rng
    groups = rng.choice((2, 3)) if cemented else 1
    cards: list[int] = []
    for _ in range(groups):
        if cards and rng.random() < 0.3:
            lone = pool.take(value)
            if lone is not None:
                cards.append(lone)
                continue
        x = rng.randint(1, value - 1)
        a, b = pool.take(x), pool.take(value - x)
        cards += [c for c in (a, b) if c is not None]
        if a is None or b is None:
            pool.left += cards
            return None
    return cards


def _codes(cards: list[int]) -> tuple[str, ...]:
    return tuple(CARDS[c] for c in sorted(cards))


def adversarial(seed: int, max_loose: int) -> SeepState:
    """A position chosen to stress the rules (see the module docstring)."""
    rng = random.Random(seed)
    pool = Pool(rng)
    mover = rng.randrange(4)
    if rng.random() < 0.15:  # the opening: the bidder's four cards, four loose cards
        bid = rng.randint(9, 13)
        first = pool.take(bid)
        assert first is not None
        hand = [first, *(pool.some() for _ in "abc")]
        loose = [pool.some() for _ in "abcd"]
        opening = SeepPosition(
            dealer=(mover - 1) % 4,
            bid=bid,
            play_number=0,
            hands=tuple(_codes(hand) if seat == mover else () for seat in range(4)),
            loose=_codes(loose),
            stock=tuple(CARDS[c] for c in pool.left),
        )
        return GAME.from_position(opening, options=SHORT_MATCH)
    bid = rng.randint(9, 13)
    houses: dict[int, tuple[list[int], set[int]]] = {}
    for value in rng.sample(range(9, 14), rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
        cards = _house(pool, value, cemented=rng.random() < 0.4)
        if cards is None:
            continue
        owners: set[int] = set()
        if sum(VALUE[c] for c in cards) == value:
            owners.add(rng.choice((mover, 0, 1, 2, 3)))  # an ordinary house has one owner
        while not owners:
            owners = {s for s in range(4) if rng.random() < 0.4}
        houses[value] = (cards, owners)
    # loose cards: distinct values other than the houses' (I2), a few repeats allowed
    free_values = [v for v in range(1, 14) if v not in houses]
    count = min(rng.randint(0, max_loose), len(free_values))
    loose_values = rng.sample(free_values, count)
    loose_values += rng.choices(loose_values, k=rng.randint(0, 3)) if loose_values else []
    loose = [c for c in (pool.take(v) for v in loose_values[:max_loose]) if c is not None]
    # the play number: the mover's hand size and his place after the bidder, late enough
    # for this floor (4 cards dealt to it plus one per play at most)
    floor = len(loose) + sum(len(cards) for cards, _ in houses.values())
    size = rng.randint(1, 12)
    after_bidder = rng.randrange(4) if size < 12 else rng.randrange(1, 4)
    while after_bidder + 4 * (12 - size) < floor - 4:
        size -= 1
    play_number = after_bidder + 4 * (12 - size)
    dealer = (mover - 1 - after_bidder) % 4
    sizes = [12 - n for n in plays_made(dealer, play_number)]
    assert sizes[mover] == size
    # hands: each owner keeps a card of his house's value (I3), the mover one or two
    hands: list[list[int]] = [[] for _ in range(4)]
    for value, (cards, owners) in list(houses.items()):
        for seat in sorted(owners):
            for _ in range(rng.choice((1, 2)) if seat == mover else 1):
                card = pool.take(value) if len(hands[seat]) < sizes[seat] else None
                if card is not None:
                    hands[seat].append(card)
            if not any(VALUE[c] == value for c in hands[seat]):
                owners.discard(seat)  # no card left to keep, or no room in his hand
        if not owners:
            del houses[value]
            pool.left += cards  # dealt to a hand or a pile instead
    hand = hands[mover]
    while len(hand) < size:
        card = pool.any(range(9, 14)) if rng.random() < 0.5 else pool.any()
        if card is not None:
            hand.append(card)
    for seat in range(4):
        while len(hands[seat]) < sizes[seat]:
            hands[seat].append(pool.some())
    # what is left was captured, by the teams that have played
    played = sorted({seat % 2 for seat, n in enumerate(plays_made(dealer, play_number)) if n})
    piles: tuple[list[int], list[int]] = ([], [])
    for card in pool.left:
        piles[rng.choice(played)].append(card)
    captured = [team for team in (0, 1) if piles[team]]
    position = SeepPosition(
        dealer=dealer,
        bid=bid,
        play_number=play_number,
        hands=tuple(map(_codes, hands)),
        loose=_codes(loose),
        houses=tuple(
            PlacedHouse(value, _codes(cards), tuple(sorted(owners)))
            for value, (cards, owners) in sorted(houses.items())
        ),
        piles=(_codes(piles[0]), _codes(piles[1])),
        last_capture=rng.choice(captured) if captured else None,
    )
    return GAME.from_position(position, options=SHORT_MATCH)


@settings(max_examples=500, deadline=None)
@given(seed=SEEDS)
def test_adversarial_floors_list_what_section_4_allows(seed: int) -> None:
    same_as_reference(adversarial(seed, max_loose=10))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS)
def test_adversarial_floors_up_to_16_loose_cards_list_what_section_4_allows(seed: int) -> None:
    same_as_reference(adversarial(seed, max_loose=16))


def test_the_worked_example_e1_opening_has_exactly_four_plays() -> None:
    """The reference itself, on the rules' example E1 (seat 1 bid 12)."""
    position = Position(1, ("3C", "7D", "QH", "2S"), ("4C", "5S", "9D", "KH"), (), 12)
    assert sorted(seep_reference.legal_texts(position)) == [
        "build 3C 12 4C 5S",
        "build 3C 12 9D",
        "build 7D 12 5S",
        "throw QH",
    ]
