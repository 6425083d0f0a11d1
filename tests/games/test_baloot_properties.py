"""Properties of Baloot's own rules, each over 200 seeded random
playouts (a thousand with ``pytest --hypothesis-profile=thorough``).

Each test draws a deal seed, a seed for the random player and the options, then plays a
whole match choosing uniformly among the legal actions. Short matches (``max_rounds`` 1
to 3) keep the per-step checks affordable; the score
check also plays full-length games. What every game must do (termination, determinism,
illegal actions, hidden cards in observations, the wire, replays) is in
``test_every_game.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Event
from arena.games.baloot.game import BalootGame, BalootState
from tests.games import playouts
from tests.games.generic import card_codes

GAME = BalootGame()
ALL_CARDS = frozenset(r + s for s in "CDHS" for r in "789TJQKA")
STEP_LIMIT = 50_000

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SHORT_MATCH = st.fixed_dictionaries({"max_rounds": st.integers(min_value=1, max_value=3)})
ONE_OR_TWO_ROUNDS = st.fixed_dictionaries({"max_rounds": st.integers(min_value=1, max_value=2)})
ANY_LENGTH = st.fixed_dictionaries({"max_rounds": st.integers(min_value=1, max_value=100)})


def playout(
    seed: int,
    policy_seed: int,
    options: Mapping[str, object],
    each_step: Callable[[BalootState, random.Random], None] | None = None,
) -> tuple[BalootState, list[int]]:
    return playouts.playout(GAME.new_state, seed, policy_seed, options, each_step, STEP_LIMIT)


# --- cards ----------------------------------------------------------------------------------


def _every_card_is_somewhere(state: BalootState, _: random.Random) -> None:
    held = [card for hand in state.hands for card in hand]
    played = [p.card for trick in state.tricks for p in trick.cards]
    played += [p.card for p in state.trick]
    unseen = list(state.face_down)
    if state.buyer is None:
        unseen.append(state.up_card)  # on the table until the buyer takes it
    everything = held + played + unseen
    assert len(everything) == 32 and set(everything) == ALL_CARDS
    view = state.observation(0)
    assert view.hand_sizes == tuple(len(hand) for hand in state.hands)
    assert len(view.tricks) <= 8 and len(view.trick) < 4


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_all_32_cards_are_held_played_face_down_or_up_at_every_step(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    playout(seed, policy_seed, options, _every_card_is_somewhere)


# --- hidden information ---------------------------------------------------------------------


class Knowledge:
    """What each seat may know in the current round, kept up to date from the event log.

    Public: the up-card, played cards, and the declarations published after trick 1 (the
    only public event allowed to name unplayed cards, and only right after trick 1).
    Private to a seat: its first five cards, its draw and its own declaration. Any other
    public event may name public cards only.
    """

    def __init__(self) -> None:
        self.read = 0
        self.own: list[set[str]] = [set() for _ in range(4)]
        self.public: set[str] = set()
        self.tricks = 0
        self.previous = ""

    def update(self, events: Sequence[Event]) -> None:
        for event in events[self.read :]:
            kind, data = event.kind, event.data
            if kind == "deal":
                assert event.visible_to == ()
                self.own = [set(hand) for hand in data["hands"]]
                self.public, self.tricks = set(), 0
            elif kind in ("up_card", "play"):
                assert event.public
                self.public.add(data["card"])
            elif kind == "projects":
                assert event.public and self.tricks == 1 and self.previous == "trick"
                self.public |= card_codes(data)
            elif kind in ("draw", "declare"):
                assert event.seat is not None and event.visible_to == (event.seat,)
                self.own[event.seat] |= card_codes(data)
            else:
                assert event.public, event
                assert card_codes(data) <= self.public, event
                self.tricks += kind == "trick"
            self.previous = kind
        self.read = len(events)


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=ONE_OR_TWO_ROUNDS)
def test_events_show_cards_only_as_the_rules_make_them_public(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    """With the generic suite's check (each seat is shown only cards named by events it
    may see), no seat ever sees another seat's or the face-down cards."""
    state, _ = playout(seed, policy_seed, options)
    Knowledge().update(state.events)


# --- scores from the log ----------------------------------------------------------------------
# An independent reading of rules §6-§8, from the event log alone.

SUN_VALUES = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_VALUES = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PROJECT_VALUE = {
    "sun": {"sira": 4, "fifty": 10, "hundred": 20, "four_aces": 40},
    "hokum": {"sira": 2, "fifty": 5, "hundred": 10, "four_aces": 10},
}
NATURAL = "AKQJT987"


def convert(contract: str, abnat: int) -> int:
    if contract == "hokum":
        whole, rest = divmod(abnat, 10)
        return whole + (rest > 5)
    if abnat % 10 == 5:
        return abnat * 2 // 10
    return round(abnat / 10) * 2


def check_project(kind: str, cards: Sequence[str], hand: set[str]) -> None:
    """A declared project is held and is what it says."""
    assert set(cards) <= hand
    if len({c[0] for c in cards}) == 1:
        assert len(cards) == 4 and cards[0][0] in "TJQKA"
        assert kind == ("four_aces" if cards[0][0] == "A" else "hundred")
        return
    assert len({c[1] for c in cards}) == 1
    ranks = "".join(c[0] for c in cards)
    assert ranks in NATURAL and len(ranks) >= 3
    assert kind == {3: "sira", 4: "fifty"}.get(len(ranks), "hundred")


def scores_from_log(events: Sequence[Event], max_rounds: int) -> tuple[list[int], int | None]:
    scores = [0, 0]
    rounds = 0
    for index, event in enumerate(events):
        data = event.data
        if event.kind == "deal":
            rounds += 1
            hands = [set(h) for h in data["hands"]]
            assert all(len(h) == 5 for h in hands)
            multiplier, gahwa = 1, False
            declared: dict[int, list[tuple[str, list[str]]]] = {}
            tricks: list[tuple[int, list[str]]] = []
            start = list(scores)
        elif event.kind == "up_card":
            up_card = data["card"]
        elif event.kind == "contract":
            contract, trump, buyer = data["contract"], data["trump"], data["buyer"]
        elif event.kind == "draw":
            hands[event.seat] |= set(data["cards"])  # type: ignore[index]
            if event.seat == buyer:
                assert up_card in data["cards"] and len(data["cards"]) == 3
        elif event.kind == "doubling":
            step = data["doubling"]
            if step != "decline":
                multiplier = {"double": 2, "triple": 3, "four": 4, "gahwa": 4}[step]
                gahwa = step == "gahwa"
        elif event.kind == "declare":
            assert event.seat is not None
            declared[event.seat] = [(p["kind"], p["cards"]) for p in data["projects"]]
        elif event.kind == "trick":
            tricks.append((data["winner"], [p["card"] for p in data["cards"]]))
        elif event.kind == "throw_in":
            assert data["scores"] == scores
            over = rounds >= max_rounds
            assert over == (events[index + 1].kind == "game_end")
            if over:
                a, b = scores
                return scores, None if a == b else (0 if a > b else 1)
        elif event.kind == "hand_end":
            assert len(tricks) == 8 and all(len(h) == 8 for h in hands)
            bidders = buyer % 2
            abnat = [0, 0]
            for winner, cards in tricks:
                abnat[winner % 2] += sum(
                    (TRUMP_VALUES if c[1] == trump else SUN_VALUES)[c[0]] for c in cards
                )
            abnat[tricks[-1][0] % 2] += 10
            assert sum(abnat) == (130 if contract == "sun" else 162)
            # Projects: the team with the best one scores all of its own.
            best: dict[int, tuple[int, int, int]] = {}
            own_points = [0, 0]
            for seat, declarations in declared.items():
                turn = (seat - buyer) % 4
                for kind, cards in declarations:
                    check_project(kind, cards, hands[seat])
                    value = PROJECT_VALUE[contract][kind]
                    key = (value, -NATURAL.index(cards[0][0]), -turn)
                    best[seat % 2] = max(best.get(seat % 2, key), key)
                    own_points[seat % 2] += value
            projects = [0, 0]
            if best:
                top = max(best, key=best.__getitem__)
                projects[top] = own_points[top]
            baloot = [0, 0]
            if trump is not None:
                for seat, hand in enumerate(hands):
                    if {"K" + trump, "Q" + trump} <= hand:
                        baloot[seat % 2] = 2
            kaboot = [t for t in (0, 1) if all(w % 2 == t for w, _ in tricks)]
            if kaboot:
                winner = kaboot[0]
                points = [0, 0]
                points[winner] = (88 if up_card[0] == "A" else 44) + projects[winner]
                points[winner] = points[winner] * multiplier + baloot[winner]
            else:
                totals = [convert(contract, abnat[t]) + projects[t] + baloot[t] for t in (0, 1)]
                winner = bidders if totals[bidders] > totals[1 - bidders] else 1 - bidders
                if winner == bidders and multiplier == 1:
                    points = totals
                else:
                    base = 26 if contract == "sun" else 16
                    points = list(baloot)
                    points[winner] += (base + sum(projects)) * multiplier
            if contract == "sun" and multiplier > 1:
                assert start[bidders] > 100 and start[1 - bidders] < 100
            scores = [scores[0] + points[0], scores[1] + points[1]]
            assert data["scores"] == scores, (data, scores)
            a, b = scores
            if gahwa:
                result: int | None = winner
            elif max(a, b) >= 152 and a != b:
                result = 0 if a > b else 1
            elif rounds >= max_rounds:
                result = None if a == b else (0 if a > b else 1)
            else:
                assert events[index + 1].kind == "deal"
                continue
            assert events[index + 1].kind == "game_end" and index + 2 == len(events)
            return scores, result
    raise AssertionError("the log ends without a final round")


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=ANY_LENGTH)
def test_scores_and_winner_follow_from_the_event_log_alone(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state, _ = playout(seed, policy_seed, options)
    max_rounds = options["max_rounds"]
    assert isinstance(max_rounds, int)
    scores, winner = scores_from_log(state.events, max_rounds)
    assert state.scores() == scores
    assert state.winner() == winner
    assert state.events[-1].data["winner"] == winner


# --- events -----------------------------------------------------------------------------------


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(seed=SEEDS, policy_seed=SEEDS, options=SHORT_MATCH)
def test_each_action_is_first_described_by_an_event_of_its_actor(
    seed: int, policy_seed: int, options: dict[str, object]
) -> None:
    state = GAME.new_state(seed, options)
    policy = random.Random(policy_seed)
    assert state.events[0].kind == "deal" and state.events[0].visible_to == ()
    while not state.is_terminal():
        seat, count = state.current_seat(), len(state.events)
        state.apply(policy.choice(state.legal_actions()))
        assert state.events[count].seat == seat
        assert all(e.text for e in state.events[count:])
        for event in state.events[count:]:
            if event.kind == "deal":
                assert event.visible_to == () and set(event.data) == {"dealer", "hands"}
