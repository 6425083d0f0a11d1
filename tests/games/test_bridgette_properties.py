"""Properties of Bridgette's own rules, each over 200 seeded random
playouts (a thousand with ``pytest --hypothesis-profile=thorough``).

Each test draws a deal seed, a seed for the random player and the number of deals, then
plays a whole match choosing uniformly among the legal actions. Short matches (one or
two deals, plus a tie deal when the totals are equal; a single deal for the costliest
per-step checks) keep the file fast; the score test also plays full six-deal games.
What every game must do (determinism, illegal actions, hidden cards in observations, the
wire, replays) is in ``test_every_game.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event
from arena.games.bridgette.game import BridgetteGame, BridgetteState
from tests.games import playouts
from tests.games.generic import card_codes

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


# --- the length of a match --------------------------------------------------------------


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_a_match_lasts_its_deals_and_at_most_one_tie_deal(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, actions = playout(seed, policy_seed, options)
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


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_55_cards_are_held_discarded_played_or_in_the_stock_at_every_step(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _every_card_is_somewhere)


# --- hidden information ---------------------------------------------------------------------


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


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=ONE_DEAL)
def test_public_events_show_only_the_up_card_and_cards_played(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    """With the generic suite's check (each seat is shown only cards named by events it
    may see), no seat ever sees the stock or the other seat's hand or discards."""
    state, _ = playout(seed, policy_seed, options)
    public_events_show_only_public_cards(state.events)


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


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
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
