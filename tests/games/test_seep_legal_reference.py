"""Seep's legal-move generator against a slow, literal reading of section 4
(``tests/games/seep_reference.py``): the two must list exactly the same ids.

Positions come from random playouts (every decision of each match is checked, so a few
dozen matches give over a thousand positions) and from an adversarial builder: big
floors of many loose cards, several houses, cemented ones, houses owned by the mover,
his partner, the opponents or several of them, the mover holding one or two cards of a
house's value, and the opening play. The builder arranges a state through its private
fields, as ``test_seep_rules.position`` does (test-only), keeping the floor invariants
I1-I3 that the engine may assume. The larger runs are marked slow (``pytest -m slow``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.seep import CARDS, VALUE, House, SeepGame, SeepState
from tests.games import playouts, seep_reference
from tests.games.seep_reference import Position

GAME = SeepGame()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = {"bazzis": 1, "max_deals": 1}


def reference_position(state: SeepState) -> Position:
    """The engine's position as the reference reads it."""
    seat = state.current
    houses = tuple(
        seep_reference.House(
            value,
            tuple(CARDS[c] for c in house.cards),
            frozenset(s for s in range(4) if house.owners >> s & 1),
        )
        for value, house in sorted(state.houses.items())
    )
    return Position(
        seat,
        tuple(CARDS[c] for c in state.hands[seat]),
        tuple(CARDS[c] for c in state.loose),
        houses,
        state.bid if state.play_number == 0 else None,
    )


def same_as_reference(state: SeepState, _: object = None) -> None:
    if state.phase != "play":
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


def _house(pool: Pool, value: int, cemented: bool) -> list[int] | None:
    """Cards adding up to ``value`` (twice or three times for a cemented house): pairs of
    values x and value - x, or a lone card of the value beside other groups."""
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
        if a is None or b is None:
            return None
        cards += [a, b]
    return cards


def adversarial(seed: int, max_loose: int) -> SeepState:
    """A position chosen to stress the rules (see the module docstring)."""
    rng = random.Random(seed)
    pool = Pool(rng)
    state = GAME.new_state(0, SHORT_MATCH)
    state.events.clear()
    mover = rng.randrange(4)
    state.dealer, state.bidder = (mover + 3) % 4, mover
    state.phase = "play"
    state.face_down, state.stock = [], []
    state.hands = [[] for _ in range(4)]
    state.houses = {}
    state.current = mover
    if rng.random() < 0.15:  # the opening: the bidder's four cards, four loose cards
        bid = rng.randint(9, 13)
        first = pool.take(bid)
        assert first is not None
        state.hands[mover] = sorted([first, *(c for c in (pool.any() for _ in "abc") if c)])
        state.loose = sorted(c for c in (pool.any() for _ in "abcd") if c is not None)
        state.bid, state.play_number = bid, 0
        state._compute_legal()
        return state
    state.bid, state.play_number = rng.randint(9, 13), rng.randint(1, 47)
    house_values = rng.sample(range(9, 14), rng.choice((0, 1, 2, 2, 3, 3, 4, 5)))
    owners_by_value: dict[int, int] = {}
    for value in house_values:
        cards = _house(pool, value, cemented=rng.random() < 0.4)
        if cards is None:
            continue
        owners = 0
        while not owners:
            owners = sum(1 << s for s in range(4) if rng.random() < 0.4)
        owners_by_value[value] = owners
        total = sum(VALUE[c] for c in cards)
        state.houses[value] = House(value, sorted(cards), total, owners)
    # loose cards: distinct values other than the houses' (I2), a few repeats allowed
    free_values = [v for v in range(1, 14) if v not in state.houses]
    count = min(rng.randint(0, max_loose), len(free_values))
    loose_values = rng.sample(free_values, count)
    loose_values += rng.choices(loose_values, k=rng.randint(0, 3)) if loose_values else []
    loose = [pool.take(v) for v in loose_values[:max_loose]]
    state.loose = sorted(c for c in loose if c is not None)
    # hands: each owner keeps a card of his house's value (I3), the mover one or two
    for value, owners in owners_by_value.items():
        for seat in range(4):
            if owners >> seat & 1:
                for _ in range(rng.choice((1, 2)) if seat == mover else 1):
                    card = pool.take(value)
                    if card is not None:
                        state.hands[seat].append(card)
                if not any(VALUE[c] == value for c in state.hands[seat]):
                    state.houses[value].owners &= ~(1 << seat)  # no card left to keep
        if not state.houses[value].owners:
            del state.houses[value]  # its cards stay out of play; harmless here
    hand = state.hands[mover]
    size = rng.randint(1, 12)
    while len(hand) < size:
        card = pool.any(range(9, 14)) if rng.random() < 0.5 else pool.any()
        if card is not None:
            hand.append(card)
    for seat in range(4):
        state.hands[seat].sort()
    state._compute_legal()
    return state


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
