"""Properties of Seep's own rules, each over 200 seeded random
playouts (a thousand with ``pytest --hypothesis-profile=thorough``).

Each test draws a deal seed, a seed for the random player and the options, then plays a
whole match choosing uniformly among the legal actions. Short matches (one bazzi cut off
after its first deal by ``max_deals``) keep the per-step checks affordable; the score
recomputation plays matches of up to two bazzis of up to two deals each. What every game
must do (determinism, illegal actions, the wire, replays) is in ``test_every_game.py``;
the hidden-card check here is Seep's stronger one, which knows its redeals and which of
its events make a card public."""

from __future__ import annotations

import dataclasses
import operator
import random
from collections.abc import Callable, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event
from arena.games.seep.game import (
    SeepGame,
    SeepObservation,
    SeepPlay,
    SeepState,
)
from tests.games import playouts
from tests.games.generic import card_codes

GAME = SeepGame()
RANKS = "A23456789TJQK"
ALL_CARDS = frozenset(r + s for r in RANKS for s in "CDHS")
KINDS = ("bid", "capture", "build", "add", "break", "throw")
PLAY_KINDS = frozenset(("throw", "capture", "build", "add", "break"))
STEP_LIMIT = 20_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = st.fixed_dictionaries({"bazzis": st.just(1), "max_deals": st.just(1)})
LONGER_MATCH = st.fixed_dictionaries(
    {"bazzis": st.integers(min_value=1, max_value=2), "max_deals": st.integers(1, 2)}
)


def value_of(card: str) -> int:
    return RANKS.index(card[0]) + 1


def order_of(card: str) -> int:
    return 4 * (value_of(card) - 1) + "CDHS".index(card[1])


def playout(
    seed: int,
    policy_seed: int,
    options: Mapping[str, object],
    each_step: Callable[[SeepState, random.Random], None] | None = None,
) -> tuple[SeepState, list[int]]:
    return playouts.playout(GAME.new_state, seed, policy_seed, options, each_step, STEP_LIMIT)


# --- termination and the legal list ---------------------------------------------------------


def canonical_key(text: str) -> tuple[int, int, int, list[int]]:
    """Section 9's order: kind, card, value or house, then the loose cards one by one."""
    words = text.split()
    kind = KINDS.index(words[0])
    if kind == 0:
        return (0, 0, int(words[1]), [])
    rest = words[2:]
    value = int(rest.pop(0)) if words[0] in ("build", "add", "break") else 0
    return (kind, order_of(words[1]), value, [order_of(c) for c in rest])


TEXTS: dict[int, tuple[str, tuple[int, int, int, list[int]]]] = {}
"""Text and canonical key by id; an id's text never depends on the state (the contract)."""


def _legal_list_is_canonical(state: SeepState, _: random.Random) -> None:
    legal = state.legal_actions()
    assert legal == sorted(set(legal))
    assert all(0 <= a < 2**63 for a in legal)
    assert (legal == []) == state.is_terminal() == (state.current_seat() == -1)
    described = []
    for action in legal:
        found = TEXTS.get(action)
        if found is None:
            text = state.action_text(action)
            found = TEXTS[action] = (text, canonical_key(text))
        described.append(found)
    assert len({text for text, _ in described}) == len(described)
    keys = [key for _, key in described]
    assert keys == sorted(keys)


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_every_match_ends_and_only_then_runs_out_of_legal_actions(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options, _legal_list_is_canonical)
    assert state.legal_actions() == []
    assert state.events[-1].kind == "game_end"


# --- cards and the floor invariants ---------------------------------------------------------


def _every_card_is_somewhere(state: SeepState, _: random.Random) -> None:
    places = [
        *state.hands,
        state.face_down,
        state.stock,
        state.loose,
        *(house.cards for house in state.houses.values()),
        *state.piles,
    ]
    found = [card for place in places for card in place]
    assert len(found) == 52 and set(found) == set(range(52))
    view = state.observation(max(state.current_seat(), 0))
    assert view.hand_sizes == tuple(len(hand) for hand in state.hands)
    visible = sum(view.hand_sizes) + len(view.loose) + view.face_down_floor
    visible += sum(len(h.cards) for h in view.houses) + sum(view.captured_counts)
    assert visible == 52 - len(state.stock)


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_52_cards_are_held_on_the_floor_or_taken_at_every_step(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _every_card_is_somewhere)


def codes(cards: Sequence[int]) -> list[str]:
    """Card codes of engine card indices (4 * (value - 1) + suit)."""
    return [RANKS[card // 4] + "CDHS"[card % 4] for card in cards]


def _floor_invariants_hold(state: SeepState, _: random.Random) -> None:
    loose_values = [value_of(c) for c in codes(state.loose)]
    assert len(state.loose) <= 16 and len(state.houses) <= 5
    for value, house in state.houses.items():  # I1: one house per value, named by it
        assert house.value == value and 9 <= value <= 13
        members = codes(house.cards)
        assert len(members) >= 2
        total = sum(value_of(c) for c in members)
        assert total == house.total and total % value == 0
        assert value not in loose_values  # I2
        assert house.owners
        for owner in range(4):  # I3
            if house.owners >> owner & 1:
                assert value in [value_of(c) for c in codes(state.hands[owner])]
    if state.phase == "play" and state.play_number == 0:
        assert not state.houses


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_invariants_i1_to_i3_hold_after_every_play(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _floor_invariants_hold)


# --- the event log ---------------------------------------------------------------------------


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_each_action_is_logged_first_by_an_event_of_its_own_kind(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    """The actor's own event comes first (the generic suite checks that); here its kind
    is also the first word of the action's text (``capture``, ``build``, ``bid``...)."""
    state = GAME.new_state(seed, options)
    policy = random.Random(policy_seed)
    while not state.is_terminal():
        action = policy.choice(state.legal_actions())
        text, before = state.action_text(action), len(state.events)
        state.apply(action)
        assert text.startswith(state.events[before].kind), (text, state.events[before])


# --- hidden information ---------------------------------------------------------------------


class Knowledge:
    """What each seat may know in the current deal (redeals included), kept up to date
    from the event log as it grows. Cards a play moves from the floor must already be
    public."""

    def __init__(self) -> None:
        self.seen = 0
        self.own: list[set[str]] = [set() for _ in range(4)]
        self.public: set[str] = set()
        self.deal_over = True

    def update(self, events: Sequence[Event]) -> None:
        for event in events[self.seen :]:
            self.seen += 1
            data = event.data
            if event.kind == "deal":
                if self.deal_over:
                    self.public = set()
                    self.deal_over = False
                self.own = [set(hand) for hand in data["hands"]]
            elif event.kind == "deal_rest":
                assert event.visible_to == (data["seat"],)
                self.own[data["seat"]] |= set(data["cards"])
            elif event.kind in ("floor", "throw_in"):
                self.public |= set(data["cards"])
            elif event.kind in PLAY_KINDS:
                moved = set(data.get("loose", ()))
                if event.kind == "capture":
                    moved |= set(data["house"])
                assert moved <= self.public, event
                self.public.add(data["card"])
            elif event.kind == "leftover":
                assert set(data["cards"]) <= self.public
            elif event.kind == "hand_end":
                self.deal_over = True
            if event.public:
                assert card_codes(data) <= self.public, event
            else:
                assert event.kind in ("deal", "deal_rest")


SHARED_FIELDS = tuple(
    f.name for f in dataclasses.fields(SeepObservation) if f.name not in ("seat", "hand", "plays")
)
shared_part = operator.attrgetter(*SHARED_FIELDS, "plays")
"""Everything in an observation but the seat and its hand: the same for every seat."""
walked_part = operator.attrgetter(*SHARED_FIELDS)


def _no_hidden_leaks() -> Callable[[SeepState, random.Random], None]:
    knowledge = Knowledge()
    checked: list[tuple[SeepPlay, ...]] = [()]  # the plays already walked

    def check(state: SeepState, _: random.Random) -> None:
        """Every seat's observation is one shared public part plus its own hand. The
        record of plays only grows within a deal, so only its new entries are walked."""
        knowledge.update(state.events)
        views = [state.observation(seat) for seat in range(4)]
        shared = shared_part(views[0])
        plays, before = views[0].plays, checked[0]
        new = plays[len(before) :] if plays[: len(before)] == before else plays
        checked[0] = plays
        seen = card_codes([walked_part(views[0]), new])
        assert seen <= knowledge.public, f"everyone sees {sorted(seen - knowledge.public)}"
        for seat, view in enumerate(views):
            assert view.seat == seat
            assert shared_part(view) == shared
            assert set(view.hand) <= knowledge.own[seat], f"seat {seat} holds {view.hand}"

    return check


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_no_seat_ever_sees_another_seats_unplayed_cards_or_the_face_down_floor(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _no_hidden_leaks())


# --- scores from the log ----------------------------------------------------------------------


def points_of(card: str) -> int:
    """Rules section 1: spades their capture value, the other aces 1, the ten of diamonds 6."""
    if card[1] == "S":
        return value_of(card)
    return 1 if card[0] == "A" else 6 if card == "TD" else 0


class LogReplay:
    """The rules' scoring (sections 6-8) replayed over the event log alone."""

    def __init__(self, bazzis: int, max_deals: int) -> None:
        self.bazzis, self.max_deals = bazzis, max_deals
        self.won = [0, 0]
        self.over = 0
        self.difference = 0
        self.deals_in_bazzi = 0
        self.next_dealer: int | None = None
        self.finished = False

    def run(self, events: Sequence[Event]) -> None:
        for event in events:
            assert not self.finished, "events after the end"
            handler = getattr(self, f"on_{event.kind}", None)
            if handler is not None:
                handler(event)

    def on_deal(self, event: Event) -> None:
        if self.next_dealer is not None:
            assert event.data["dealer"] == self.next_dealer
        self.next_dealer = event.data["dealer"]  # a redeal keeps the dealer
        self.loose: set[str] = set()
        self.houses: dict[int, list[str]] = {}
        self.piles: list[list[str]] = [[], []]
        self.bonuses = [0, 0]
        self.last_team: int | None = None
        self.play = 0

    def on_floor(self, event: Event) -> None:
        self.loose = set(event.data["cards"])

    def _take_loose(self, event: Event) -> list[str]:
        self.play += 1
        assert event.data["play"] == self.play
        taken = list(event.data["loose"])
        assert set(taken) <= self.loose
        self.loose -= set(taken)
        return taken

    def on_throw(self, event: Event) -> None:
        self.play += 1
        assert event.data["play"] == self.play
        self.loose.add(event.data["card"])

    def on_capture(self, event: Event) -> None:
        taken = self._take_loose(event)
        card = event.data["card"]
        house = self.houses.pop(value_of(card), [])
        assert sorted(house) == sorted(event.data["house"])
        assert event.seat is not None
        team = event.seat % 2
        self.piles[team] += [card, *taken, *house]
        self.last_team = team
        if not self.loose and not self.houses:
            bonus = 25 if self.play == 1 else 0 if self.play == 48 else 50
            self.bonuses[team] += bonus
            assert event.data["sweep"] and event.data["bonus"] == bonus
        else:
            assert not event.data["sweep"]

    def on_build(self, event: Event) -> None:
        taken = self._take_loose(event)
        assert event.data["value"] not in self.houses
        self.houses[event.data["value"]] = [event.data["card"], *taken]

    def on_add(self, event: Event) -> None:
        taken = self._take_loose(event)
        self.houses[event.data["value"]] += [event.data["card"], *taken]

    def on_break(self, event: Event) -> None:
        taken = self._take_loose(event)
        moved = [*self.houses.pop(event.data["house"]), event.data["card"], *taken]
        self.houses.setdefault(event.data["value"], []).extend(moved)

    def on_leftover(self, event: Event) -> None:
        assert event.data["team"] == self.last_team
        assert set(event.data["cards"]) == self.loose
        self.piles[event.data["team"]] += sorted(self.loose)
        self.loose = set()

    def on_hand_end(self, event: Event) -> None:
        assert self.play == 48 and not self.loose and not self.houses
        assert sorted(self.piles[0] + self.piles[1]) == sorted(ALL_CARDS)
        a, b = (sum(points_of(c) for c in self.piles[t]) + self.bonuses[t] for t in (0, 1))
        assert event.data["deal_scores"] == [a, b]
        self.deals_in_bazzi += 1
        winner, over = None, False
        if a < 9 or b < 9:
            winner, over = (1 if a < 9 else 0), True
        else:
            self.difference += a - b
            if abs(self.difference) >= 100:
                winner, over = (0 if self.difference > 0 else 1), True
            elif self.deals_in_bazzi >= self.max_deals:
                over = True
                winner = None if self.difference == 0 else (0 if self.difference > 0 else 1)
        dealer = self.next_dealer
        assert dealer is not None
        if over and winner is not None:
            self.next_dealer = (dealer + (3 if winner == dealer % 2 else 2)) % 4
        elif over:  # void is decided too (§8): d at a difference of 0, so d's partner
            self.next_dealer = (dealer + 2) % 4
        else:
            lead = self.difference if dealer % 2 == 0 else -self.difference
            self.next_dealer = (dealer + 1) % 4 if lead > 0 else dealer
        if over:
            self.over += 1
            self.difference = 0
            self.deals_in_bazzi = 0
            if winner is not None:
                self.won[winner] += 1
        assert event.data["difference"] == self.difference
        assert event.data["scores"] == self.won

    def on_game_end(self, event: Event) -> None:
        assert self.over == self.bazzis
        x, y = self.won
        assert event.data["winner"] == (None if x == y else (0 if x > y else 1))
        self.finished = True


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=LONGER_MATCH)
def test_scores_and_winner_follow_from_the_event_log_alone(
    seed: int, policy_seed: int, options: dict[str, int]
) -> None:
    state, _ = playout(seed, policy_seed, options)
    replay = LogReplay(options["bazzis"], options["max_deals"])
    replay.run(state.events)
    assert replay.finished
    assert state.scores() == replay.won
    x, y = replay.won
    assert state.winner() == (None if x == y else (0 if x > y else 1))
