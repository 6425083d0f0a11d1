"""Properties of Bid Euchre's own rules, each over 200 seeded random
playouts (a thousand with ``pytest --hypothesis-profile=thorough``).

Each test draws a deal seed, a seed for the random player and the options, then plays a
whole match choosing uniformly among the legal actions. Short matches (``max_hands`` 1 to
3) keep the per-step checks affordable; a few full-length matches cover the end at 32.
What every game must do (termination, determinism, illegal actions, hidden cards in
observations, the wire, replays) is in ``test_every_game.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event
from arena.games.bid_euchre.game import BidEuchreGame, BidEuchreState
from tests.games import generic, playouts
from tests.games.generic import card_codes

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


# --- the end of a match ------------------------------------------------------------------


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


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_24_cards_are_held_or_played_at_every_step(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _every_card_is_somewhere)


# --- hidden information ---------------------------------------------------------------------


def public_events_show_only_played_cards(events: Sequence[Event]) -> None:
    """Walk the log once: a public event may name only cards played in its hand by the
    time it is logged; the deal is for nobody, a card given or returned in an ASK for the
    two partners only."""
    public: set[str] = set()
    for event in events:
        if event.kind == "deal":
            assert event.visible_to == ()
            public = set()
        elif event.kind == "play":
            public.add(event.data["card"])
        elif event.kind in ("give", "return"):
            assert event.seat is not None and event.visible_to is not None
            assert set(event.visible_to) == {event.seat, (event.seat + 2) % 4}, event
        if event.public:
            assert card_codes(event.data) <= public, event


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_public_events_name_only_played_cards(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    """With the generic suite's check (each seat is shown only cards named by events it
    may see), no seat ever sees another seat's unplayed cards."""
    state, _ = playout(seed, policy_seed, options)
    public_events_show_only_played_cards(state.events)


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


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
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


# --- the joker variant through every generic check ------------------------------------------

JOKER_CASES = [
    generic.Case(
        seed,
        seed * 7 + 1,
        {
            "joker": True,
            "ace_no_face": seed % 2 == 0,
            "stick_the_dealer": seed % 3 != 0,
            "max_hands": 1 + seed % 3,
        },
    )
    for seed in range(8)
]


@pytest.mark.parametrize("check", sorted(generic.MATCH_CHECKS))
def test_the_joker_variant_passes_every_generic_check(check: str) -> None:
    """``test_every_game.py`` draws ``joker`` at random; these cases always play it."""
    for case in JOKER_CASES:
        generic.MATCH_CHECKS[check](GAME, case)


def test_the_joker_variant_passes_every_per_step_check_at_every_step() -> None:
    for case in JOKER_CASES[:3]:
        generic.check_per_step(GAME, case, rate=1.0)
