"""Properties of Persian Rummy's own rules, each over 200 seeded random
playouts (a thousand with ``pytest --hypothesis-profile=thorough``).

Each test draws a deal seed and a seed for the random player, then plays a whole match
(two deals) choosing uniformly among the legal actions. A match is some 200 decisions,
so one test runs every per-step check (two deals, legal lists that fit the phase, the 56
cards in place, what the events and the known cards reveal) and one recomputes the scores
from the event log. What every game must do (termination, determinism, illegal actions,
hidden cards in observations, the wire, replays) is in ``test_every_game.py``. Each check
is a named function whose assertion messages say which property failed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import reduce
from operator import or_

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event
from arena.games.persian_rummy.game import PersianRummyGame, PersianRummyState
from tests.games import playouts
from tests.games.generic import card_codes

GAME = PersianRummyGame()
RANKS = "23456789TJQKA"
ALL_CARDS = frozenset([r + s for r in RANKS for s in "CDHS"] + ["X1", "X2", "X3", "X4"])
STEP_LIMIT = 3_000
"""Far above any real match: a deal has at most 27 draws and 56 takes (each melds a card for
good), at most three passes before each take plus the closing four, and one discard per
drawing turn, so two deals stay under about 1,200 decisions."""

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

Check = Callable[[PersianRummyState, random.Random], None]


def playout(
    seed: int, policy_seed: int, each_step: Check | None = None
) -> tuple[PersianRummyState, list[int]]:
    return playouts.playout(GAME.new_state, seed, policy_seed, {}, each_step, STEP_LIMIT)


# --- termination and the legal list ---------------------------------------------------------


def every_step(*checks: Check) -> Check:
    def check(state: PersianRummyState, policy: random.Random) -> None:
        for one in checks:
            one(state, policy)

    return check


def _legal_list_fits_the_phase(state: PersianRummyState, _: random.Random) -> None:
    """The legal list fits the phase (the generic suite checks its order and texts)."""
    texts = [state.action_text(a) for a in state.legal_actions()]
    kinds = [t.split(" ", 1)[0] for t in texts]
    phase = state.phase
    if phase == "draw":
        assert set(kinds) <= {"draw", "take", "pass"}
        assert ("draw" in kinds) != ("pass" in kinds)
    elif phase == "use_chosen":
        chosen = state.observation(state.current_seat()).chosen_card
        assert kinds and set(kinds) <= {"meld", "layoff"}
        assert all(chosen in t.split() for t in texts)
    elif phase == "meld":
        assert "discard" in kinds and set(kinds) <= {"meld", "layoff", "discard"}


# --- cards ----------------------------------------------------------------------------------


BIT = tuple(1 << card for card in range(56))


def _every_card_is_in_one_place(state: PersianRummyState, _: random.Random) -> None:
    """Hands, stock, pile and table together hold each of the 56 cards exactly once.

    Read from the engine's own records (card-index bit masks), since the stock's order
    is in no observation; the acting seat's view of the sizes must agree with them.
    """
    table = [card for meld in state.melds for card, _seat in meld.cards]
    union = reduce(or_, state.hands, 0) | reduce(or_, map(BIT.__getitem__, state.stock), 0)
    union |= reduce(or_, map(BIT.__getitem__, state.pile), 0)
    union |= reduce(or_, map(BIT.__getitem__, table), 0)
    count = sum(map(int.bit_count, state.hands))
    on_table = len(table)
    assert union == (1 << 56) - 1
    assert count + len(state.stock) + len(state.pile) + on_table == 56
    view = state.observation(max(state.current_seat(), 0))
    assert view.stock_size == len(state.stock)
    assert list(view.hand_sizes) == [mask.bit_count() for mask in state.hands]
    assert len(view.discard_pile) == len(state.pile)
    assert sum(len(meld.cards) for meld in view.melds) == on_table


# --- hidden information ---------------------------------------------------------------------


class Knowledge:
    """What each seat may know, built from the event log as it grows: the public cards of
    the current deal (turned up, discarded, taken, melded, laid off) and the cards the seat
    was dealt or drew. Public events may only name public cards; private ones are the deal
    (nobody) and a stock draw (the drawer)."""

    PUBLIC_KINDS = ("turn_up", "discard", "take", "meld", "layoff")

    def __init__(self) -> None:
        self.seen = 0
        self.public: set[str] = set()
        self.allowed: list[set[str]] = [set() for _ in range(4)]
        self.taken: list[set[str]] = [set() for _ in range(4)]

    def update(self, events: Sequence[Event]) -> None:
        for event in events[self.seen :]:
            data = event.data
            if event.kind == "deal":
                self.public = set()
                self.allowed = [set(hand) for hand in data["hands"]]
                self.taken = [set() for _ in range(4)]
            elif event.kind == "stock_card":
                assert event.seat is not None
                self.allowed[event.seat].add(data["card"])
            elif event.kind in self.PUBLIC_KINDS:
                cards = set(data["cards"]) if "cards" in data else {data["card"]}
                self.public |= cards
                for allowed in self.allowed:
                    allowed |= cards
                if event.kind == "take":
                    assert event.seat is not None
                    self.taken[event.seat] |= cards
            if event.public and event.kind not in ("hand_end", "dealer_draw"):
                # The end of a deal shows the hands; the draw for dealer uses its own pack.
                assert card_codes(data) <= self.public, event
            elif not event.public:
                assert event.kind in ("deal", "stock_card")
                assert event.visible_to == (() if event.kind == "deal" else (event.seat,))
        self.seen = len(events)


def known_cards_are_taken_cards() -> Check:
    """The event log reveals cards only as the rules make them public (``Knowledge``),
    and every seat's record of the cards others took from the pile lists only cards they
    took. With the generic suite's check (each seat is shown only cards named by events
    it may see), no seat ever sees hidden cards."""
    knowledge = Knowledge()
    known_checked: list[object] = [None]

    def check(state: PersianRummyState, _: random.Random) -> None:
        knowledge.update(state.events)
        view = state.observation(max(state.current_seat(), 0))
        # Every seat is shown the same known_cards object: check it when it changes.
        if view.known_cards is not known_checked[0]:
            for known in view.known_cards:
                assert set(known.cards) <= knowledge.taken[known.seat]
            known_checked[0] = view.known_cards

    return check


# --- scores from the log ----------------------------------------------------------------------


def card_value(card: str) -> int:
    """Rules §1: joker 20, ace 15, K/Q/J/10 ten, 2-9 pips."""
    if card[0] == "X":
        return 20
    return {"A": 15, "K": 10, "Q": 10, "J": 10, "T": 10}.get(card[0]) or int(card[0])


def scores_from_log(events: Sequence[Event]) -> tuple[list[int], int | None]:
    """Replay the scoring of rules §6-§8 over the event log alone."""
    scores = [0, 0]
    table = [0, 0]
    bonus = [0, 0]
    deals = 0
    for event in events:
        if event.kind == "deal":
            table, bonus = [0, 0], [0, 0]
        elif event.kind in ("meld", "layoff"):
            assert event.seat is not None
            cards = event.data["cards"]
            points = sum(card_value(c) for c in cards)
            four_at_once = (
                event.kind == "meld" and len(cards) == 4 and len({c[0] for c in cards}) == 1
            )
            table[event.seat % 2] += 2 * points if four_at_once else points
        elif event.kind == "go_out":
            assert event.seat is not None
            bonus[event.seat % 2] += 25
        elif event.kind == "hand_end":
            left = event.data["hands"]
            for team in (0, 1):
                in_hand = sum(card_value(c) for seat in (team, team + 2) for c in left[seat])
                scores[team] += table[team] - in_hand + bonus[team]
            deals += 1
            assert event.data["scores"] == scores
    assert deals == 2
    a, b = scores
    return scores, None if a == b else (0 if a > b else 1)


# --- the tests ----------------------------------------------------------------------------------


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_every_match_ends_after_two_deals_with_legal_lists_and_cards_sound_at_each_step(
    seed: int, policy_seed: int
) -> None:
    """Two deals, legal lists that fit the phase, the 56 cards in place, the events and
    the known cards as public as the rules say."""
    state, _ = playout(
        seed,
        policy_seed,
        every_step(
            _legal_list_fits_the_phase,
            _every_card_is_in_one_place,
            known_cards_are_taken_cards(),
        ),
    )
    assert state.legal_actions() == []
    assert [e.kind for e in state.events].count("hand_end") == 2
    assert state.events[-1].kind == "game_end"


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_a_matchs_log_alone_gives_its_scores(seed: int, policy_seed: int) -> None:
    state, _ = playout(seed, policy_seed)
    scores, winner = scores_from_log(state.events)
    assert state.scores() == scores
    assert state.winner() == winner
    assert state.events[-1].data == {"winner": winner, "scores": scores}
