"""Properties of Bid Euchre, each over 1,000 seeded random playouts.

Each test draws a deal seed, a seed for the random player and the options, then plays a
whole match choosing uniformly among the legal actions. Short matches (``max_hands`` 1 to
3) keep the per-step checks affordable; a few full-length matches cover the end at 32.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event, IllegalActionError
from arena.games.bid_euchre import NUM_ACTIONS, BidEuchreGame, BidEuchreState
from tests.games import playouts

GAME = BidEuchreGame()
ALL_CARDS = frozenset(r + s for s in "CDHS" for r in "9TJQKA")
STEP_LIMIT = 20_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = st.fixed_dictionaries(
    {
        "stick_the_dealer": st.booleans(),
        "ace_no_face": st.booleans(),
        "max_hands": st.integers(min_value=1, max_value=3),
    }
)
ANY_LENGTH = st.fixed_dictionaries(
    {
        "stick_the_dealer": st.booleans(),
        "ace_no_face": st.booleans(),
        "max_hands": st.integers(min_value=1, max_value=100),
    }
)


def playout(
    seed: int,
    policy_seed: int,
    options: Mapping[str, object],
    each_step: Callable[[BidEuchreState, random.Random], None] | None = None,
) -> tuple[BidEuchreState, list[int]]:
    return playouts.playout(GAME.new_state, seed, policy_seed, options, each_step, STEP_LIMIT)


# --- termination and the legal list ---------------------------------------------------------


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_every_match_ends_and_only_then_runs_out_of_legal_actions(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options, playouts.legal_list_is_canonical)
    assert state.legal_actions() == []
    assert state.events[-1].kind == "game_end"


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_full_length_matches_end_at_32_or_at_max_hands(seed: int, policy_seed: int) -> None:
    state, _ = playout(seed, policy_seed, {})
    a, b = state.scores()
    if max(a, b) >= 32 and a != b:
        assert state.winner() == (0 if a > b else 1)
    else:
        assert state.hands_scored == 100
        assert state.winner() == (None if a == b else (0 if a > b else 1))


# --- cards ----------------------------------------------------------------------------------


def _every_card_is_somewhere(state: BidEuchreState, _: random.Random) -> None:
    views = [state.observation(seat) for seat in range(4)]
    held = [card for view in views for card in view.hand]
    played = [p.card for trick in views[0].tricks for p in trick.cards]
    played += [p.card for p in views[0].trick]
    assert len(held) + len(played) == 24
    assert set(held) | set(played) == ALL_CARDS
    assert views[0].hand_sizes == tuple(len(view.hand) for view in views)


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_24_cards_are_held_or_played_at_every_step(
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


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere inside an observation or event data."""
    if isinstance(value, str):
        return {value} if value in ALL_CARDS else set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(card_codes(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, Mapping):
        return set().union(*(card_codes(v) for v in value.values()))
    if isinstance(value, Sequence):
        return set().union(*(card_codes(v) for v in value))
    return set()


def knowable(events: Sequence[Event], seat: int) -> tuple[set[str], set[str]]:
    """From the log of the current hand: what ``seat`` may know, and what is public."""
    start = max(i for i, e in enumerate(events) if e.kind == "deal")
    deal = events[start]
    public: set[str] = set()
    own = set(deal.data["hands"][seat])
    for event in events[start + 1 :]:
        if event.kind == "play":
            public.add(event.data["card"])
        elif event.kind in ("give", "return") and event.visible_to and seat in event.visible_to:
            own.add(event.data["card"])
    return own | public, public


def _nothing_hidden_leaks(state: BidEuchreState, _: random.Random) -> None:
    for seat in range(4):
        allowed = knowable(state.events, seat)[0]
        seen = card_codes(state.observation(seat))
        assert seen <= allowed, f"seat {seat} sees {sorted(seen - allowed)}"
    start = max(i for i, e in enumerate(state.events) if e.kind == "deal")
    public = knowable(state.events, 0)[1]
    for event in state.events[start + 1 :]:
        if event.public:
            assert card_codes(event.data) <= public, event


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_no_seat_ever_sees_another_seats_unplayed_cards(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _nothing_hidden_leaks)


# --- illegal actions --------------------------------------------------------------------------


def _illegal_actions_change_nothing(state: BidEuchreState, policy: random.Random) -> None:
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
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_an_illegal_action_raises_and_leaves_the_state_unchanged(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _illegal_actions_change_nothing)


# --- scores from the log ----------------------------------------------------------------------

CALL_ORDER = ("pass", "three", "four", "five", "ask", "moon")
TRICKS_PROMISED = {"three": 3, "four": 4, "five": 5, "ask": 6, "moon": 6}
LONE_CALL_PAYS = {"ask": 12, "moon": 24}


def scores_from_log(events: Sequence[Event], max_hands: int) -> tuple[list[int], int | None]:
    """Replay the scoring table (rules §8, §10, D9, D15) over the event log alone."""
    scores = [0, 0]
    hands_scored = 0
    calls: list[tuple[int, str]] = []
    tricks = [0, 0]
    for index, event in enumerate(events):
        if event.kind == "deal":
            calls, tricks = [], [0, 0]
        elif event.kind == "call":
            assert event.seat is not None
            calls.append((event.seat, event.data["call"]))
        elif event.kind == "trick":
            tricks[event.data["winner"] % 2] += 1
        elif event.kind == "hand_end":
            declarer, call = max(calls, key=lambda made: CALL_ORDER.index(made[1]))
            bidders = declarer % 2
            taken = tricks[bidders]
            assert sum(tricks) == 6
            if taken >= TRICKS_PROMISED[call]:
                scores[bidders] += LONE_CALL_PAYS.get(call, taken)
            else:
                scores[bidders] -= TRICKS_PROMISED[call]
            scores[1 - bidders] += 6 - taken
            hands_scored += 1
            assert event.data["scores"] == scores
            a, b = scores
            over = (max(a, b) >= 32 and a != b) or hands_scored >= max_hands
            assert over == (index + 1 < len(events) and events[index + 1].kind == "game_end")
            if over:
                assert index + 2 == len(events)
                return scores, None if a == b else (0 if a > b else 1)
    raise AssertionError("the log ends without a final hand")


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS, options=ANY_LENGTH)
def test_scores_and_winner_follow_from_the_event_log_alone(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options)
    max_hands = options["max_hands"]
    assert isinstance(max_hands, int)
    scores, winner = scores_from_log(state.events, max_hands)
    assert state.scores() == scores
    assert state.winner() == winner
    assert state.events[-1].data["winner"] == winner
