"""Properties of Bridgette, each over 1,000 seeded random playouts.

Each test draws a deal seed, a seed for the random player and the number of deals, then
plays a whole match choosing uniformly among the legal actions. Short matches (one or
two deals, plus a tie deal when the totals are equal; a single deal for the costliest
per-step checks) keep the file fast; the score test also plays full six-deal games.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import wire
from arena.games.api import Event, IllegalActionError
from arena.games.bridgette import NUM_ACTIONS, BridgetteGame, BridgetteState
from tests.games import playouts

GAME = BridgetteGame()
ALL_CARDS = frozenset([r + s for s in "CDHS" for r in "23456789TJQKA"] + ["GC", "RC", "LC"])
STEP_LIMIT = 5_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = st.fixed_dictionaries({"deals": st.integers(min_value=1, max_value=2)})
ONE_DEAL = st.just({"deals": 1})
"""One deal is always decided (one seat scores), so the match is exactly one deal long."""
ANY_LENGTH = st.fixed_dictionaries({"deals": st.integers(min_value=1, max_value=6)})


def playout(
    seed: int,
    policy_seed: int,
    options: Mapping[str, object],
    each_step: Callable[[BridgetteState, random.Random], None] | None = None,
) -> tuple[BridgetteState, list[int]]:
    return playouts.playout(GAME.new_state, seed, policy_seed, options, each_step, STEP_LIMIT)


# --- termination and the legal list ---------------------------------------------------------


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_every_match_ends_and_only_then_runs_out_of_legal_actions(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, actions = playout(seed, policy_seed, options, playouts.legal_list_is_canonical)
    assert state.legal_actions() == []
    assert state.events[-1].kind == "game_end"
    deals = state.deal_number
    regular = options["deals"]
    assert isinstance(regular, int) and deals in (regular, regular + 1)
    # 2 + (4 to 12) discards, at most 3 calls per bid level and strain, 26 cards per deal.
    assert len(actions) <= deals * (14 + 3 * 36 + 1 + 26)


# --- cards ----------------------------------------------------------------------------------


def _every_card_is_somewhere(state: BridgetteState, _: random.Random) -> None:
    views = [state.observation(seat) for seat in range(2)]
    held = [card for view in views for card in view.hand]
    discarded = [card for view in views for card in view.discards]
    played = [p.card for trick in views[0].tricks for p in trick.cards]
    played += [p.card for p in views[0].trick]
    everywhere = held + discarded + played + list(state.stock)
    assert len(everywhere) == 55
    assert set(everywhere) == ALL_CARDS
    assert views[0].stock_size == len(state.stock)
    assert views[0].hand_sizes == tuple(len(view.hand) for view in views)
    if views[0].phase in ("auction", "play"):
        in_trick = {p.seat for p in views[0].trick}
        for view in views:
            assert len(view.hand) == 13 - len(view.tricks) - (view.seat in in_trick)


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_55_cards_are_held_discarded_played_or_in_the_stock_at_every_step(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _every_card_is_somewhere)


# --- determinism ----------------------------------------------------------------------------


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_the_same_seed_and_actions_replay_the_same_match(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, actions = playout(seed, policy_seed, options)
    replay = GAME.new_state(seed, options)
    for action in actions:
        replay.apply(action)
    assert replay.events == state.events
    assert replay.snapshot() == state.snapshot()


# --- hidden information ---------------------------------------------------------------------


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere inside an observation or event data."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if item in ALL_CARDS:
                found.add(item)
        elif kind is tuple or kind is list:
            stack.extend(item)
        elif kind is dict:
            stack.extend(item.values())
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            names = _FIELD_NAMES.get(kind)
            if names is None:
                names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(item))
            stack.extend(getattr(item, name) for name in names)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, Sequence):
            stack.extend(item)
    return found


def knowable(events: Sequence[Event], seat: int) -> tuple[set[str], set[str]]:
    """From the log of the current deal: what ``seat`` may know, and what is public.

    A seat knows the cards dealt to it and drawn by it; everybody knows the up-card and
    the cards played. Nobody knows the stock or the other seat's discards.
    """
    start = max(i for i, e in enumerate(events) if e.kind == "deal")
    own = set(events[start].data["hands"][seat])
    public: set[str] = set()
    for event in events[start + 1 :]:
        if event.kind in ("play", "up_card"):
            public.add(event.data["card"])
        elif event.kind == "drawn" and event.visible_to == (seat,):
            own |= set(event.data["cards"])
    return own | public, public


def _nothing_hidden_leaks(state: BridgetteState, _: random.Random) -> None:
    for seat in range(2):
        allowed = knowable(state.events, seat)[0]
        seen = card_codes(state.observation(seat))
        assert seen <= allowed, f"seat {seat} sees {sorted(seen - allowed)}"
        assert not set(state.discards[1 - seat]) & set(state.observation(seat).discards)


def public_events_show_only_public_cards(events: Sequence[Event]) -> None:
    """Walk the log once: a public event may show only the up-card and cards played, by
    the time it is logged; a private one is for one seat at most."""
    public: set[str] = set()
    for event in events:
        if event.kind == "deal":
            assert event.visible_to == ()
            public = set()
            continue
        if event.kind in ("play", "up_card"):
            public.add(event.data["card"])
        if event.public:
            assert card_codes(event.data) <= public, event
        else:
            assert event.visible_to is not None and len(event.visible_to) == 1, event
            assert event.seat == event.visible_to[0], event


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=ONE_DEAL)
def test_no_seat_ever_sees_the_stock_or_the_other_seats_hand_or_discards(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options, _nothing_hidden_leaks)
    public_events_show_only_public_cards(state.events)


# --- illegal actions --------------------------------------------------------------------------


def _illegal_actions_change_nothing(state: BridgetteState, policy: random.Random) -> None:
    if policy.random() < 0.5:
        return  # every other step on average: two snapshots per check are the cost here
    legal = set(state.legal_actions())
    illegal = [a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]
    before = state.snapshot()
    seat = state.current_seat()
    for action in policy.sample(illegal, 3):
        try:
            state.apply(action)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"illegal action {action} was accepted")
    assert state.snapshot() == before
    assert state.current_seat() == seat


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=ONE_DEAL)
def test_an_illegal_action_raises_and_leaves_the_state_unchanged(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _illegal_actions_change_nothing)


# --- wire conversion --------------------------------------------------------------------------


def _converts_to_the_wire(state: BridgetteState, _: random.Random) -> None:
    if state.is_terminal():
        for seat in range(2):
            wire.observation("bridgette", state.observation(seat))
        return
    request = wire.act_request(
        state, match_id="p", decision_index=0, deadline_s=1.0, legal=state.legal_actions()
    )
    assert request.WhichOneof("observation") == "bridgette"
    assert [a.id for a in request.legal_actions] == state.legal_actions()
    assert all(a.WhichOneof("payload") == "bridgette" for a in request.legal_actions)
    wire.observation("bridgette", state.observation(1 - state.current_seat()))


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=ONE_DEAL)
def test_every_observation_and_legal_action_converts_to_an_act_request(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _converts_to_the_wire)


# --- scores from the log ----------------------------------------------------------------------

STRAIN_ORDER = ("C", "D", "H", "S", "NT")
POINTS = {  # by level: clubs, diamonds, hearts, spades, no trump (rules §8)
    0: (None, None, None, None, 150),
    1: (150, 150, 150, 150, 250),
    2: (250, 250, 250, 250, 250),
    3: (250, 250, 250, 250, 750),
    4: (250, 250, 750, 750, 750),
    5: (750, 750, 750, 750, 1500),
    6: (1500, 1500, 1500, 1500, 2200),
    7: (2200, 2200, 2200, 2200, 2500),
}
DOWN = {1: (100, 200, 300), 2: (200, 500, 700), 3: (300, 800, 1100)}
DOWN |= {4: (400, 1100, 1500), 5: (700, 2000, 2700), 6: (1000, 3000, 4000)}


def deal_score(level: int, strain: str, doubling: int, won: int) -> tuple[bool, int]:
    """Rules §8 written out again: (made, points to the declarer or to the opponent)."""
    needed = 6 + level
    if won < needed:
        return False, DOWN[min(needed - won, 6)][doubling]
    points = POINTS[level][STRAIN_ORDER.index(strain)]
    assert points is not None
    if won == needed and level <= 5:
        points += 250
    elif won == needed and level == 6:
        points += 100
    if won == needed + 3:
        points += 350
    points += (0, 400, 1000)[doubling]
    return True, points * (1, 2, 4)[doubling]


def scores_from_log(events: Sequence[Event], deals: int) -> tuple[list[int], int]:
    """Replay the auction, the tricks and the scoring over the event log alone."""
    scores = [0, 0]
    deals_scored = 0
    bid: tuple[int, int, str] | None = None  # (bidder, level, strain)
    doubling = 0
    passes = 0
    tricks = [0, 0]
    for index, event in enumerate(events):
        if event.kind == "deal":
            bid, doubling, passes, tricks = None, 0, 0, [0, 0]
        elif event.kind == "call":
            assert event.seat is not None
            call = event.data["call"]
            if call == "bid":
                bid, doubling = (event.seat, event.data["level"], event.data["strain"]), 0
            elif call == "double":
                doubling = 1
            elif call == "redouble":
                doubling = 2
            else:
                passes += 1
        elif event.kind == "trick":
            tricks[event.data["winner"]] += 1
        elif event.kind == "hand_end":
            assert bid is not None and sum(tricks) == 13
            declarer, level, strain = bid
            made, points = deal_score(level, strain, doubling, tricks[declarer])
            scores[declarer if made else 1 - declarer] += points
            deals_scored += 1
            assert event.data["scores"] == scores
            a, b = scores
            over = deals_scored >= deals and a != b
            assert over == (index + 1 < len(events) and events[index + 1].kind == "game_end")
            if over:
                assert index + 2 == len(events)
                return scores, 0 if a > b else 1
    raise AssertionError("the log ends without a final deal")


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=ANY_LENGTH)
def test_scores_and_winner_follow_from_the_event_log_alone(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options)
    deals = options["deals"]
    assert isinstance(deals, int)
    scores, winner = scores_from_log(state.events, deals)
    assert state.scores() == scores
    assert state.winner() == winner
    assert state.events[-1].data["winner"] == winner
