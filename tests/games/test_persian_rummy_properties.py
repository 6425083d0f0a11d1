"""Properties of Persian Rummy, each over 1,000 seeded random playouts.

Each test draws a deal seed and a seed for the random player, then plays a whole match
(two deals) choosing uniformly among the legal actions. A match is some 200 decisions,
so properties share playouts: one test runs the per-step checks of the table (termination,
canonical legal lists and the 56 cards at every step, illegal ids at about one step in
three), one those of what seats are shown (every seat's observation at every step; the
wire form of every action id and, at one step in ten, of the whole request), and one the
checks of a finished match (determinism, the scores recomputed from the event log). Each
check is a named function whose assertion messages say which property failed.
"""

from __future__ import annotations

import dataclasses
import random
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import reduce
from operator import attrgetter, or_
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import wire
from arena.games.api import Event, IllegalActionError
from arena.games.persian_rummy import PersianRummyGame, PersianRummyState
from tests.games import playouts

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


def _legal_list_is_canonical(state: PersianRummyState, _: random.Random) -> None:
    """Legal ids ascend without repeats, their texts are unique, the list is empty only
    at the end, and it fits the phase."""
    legal = state.legal_actions()
    assert legal == sorted(set(legal))
    assert (legal == []) == state.is_terminal() == (state.current_seat() == -1)
    texts = [state.action_text(a) for a in legal]
    assert len(set(texts)) == len(texts)
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

_FIELDS: dict[type, tuple[str, ...] | None] = {}


def field_names(value: Any) -> tuple[str, ...] | None:
    """The field names of a dataclass instance, None for anything else."""
    kind = type(value)
    try:
        return _FIELDS[kind]
    except KeyError:
        is_instance = dataclasses.is_dataclass(value) and not isinstance(value, type)
        names = tuple(f.name for f in dataclasses.fields(value)) if is_instance else None
        _FIELDS[kind] = names
        return names


def card_codes(value: Any, out: set[str]) -> set[str]:
    """Every card code anywhere inside an observation or event data, added to ``out``."""
    kind = type(value)
    if kind is str:
        if value in ALL_CARDS:
            out.add(value)
    elif kind is int or kind is bool or value is None:
        pass
    elif kind is tuple or kind is list:
        for item in value:
            card_codes(item, out)
    elif (names := field_names(value)) is not None:
        for name in names:
            card_codes(getattr(value, name), out)
    elif isinstance(value, Mapping):
        for item in value.values():
            card_codes(item, out)
    elif isinstance(value, Sequence) and not isinstance(value, str):
        for item in value:
            card_codes(item, out)
    return out


_CARD_FIELDS: dict[type, tuple[str, ...]] = {}
NO_CARDS = (int, bool, tuple[int, ...])


def card_fields(view: object) -> tuple[str, ...]:
    """The fields of an observation whose declared type could hold a card code: every
    field but those typed as numbers (mypy --strict holds the engine to its types)."""
    kind = type(view)
    names = _CARD_FIELDS.get(kind)
    if names is None:
        hints = typing.get_type_hints(kind)
        names = _CARD_FIELDS[kind] = tuple(
            name for name in field_names(view) or () if hints[name] not in NO_CARDS
        )
    return names


_CARD_GETTERS: dict[type, Callable[[object], tuple[object, ...]]] = {}


def card_values(view: object) -> tuple[object, ...]:
    """The values of ``card_fields(view)``, fetched in one call."""
    getter = _CARD_GETTERS.get(type(view))
    if getter is None:
        names = card_fields(view)
        assert len(names) > 1, "attrgetter of one name returns the bare value"
        getter = _CARD_GETTERS[type(view)] = attrgetter(*names)
    return getter(view)


class Walker:
    """``card_codes`` for observations, fast enough for every seat at every step. Only the
    fields that could hold a card are walked, and the answer for every tuple or nested
    frozen dataclass met is remembered by identity: the engine hands all seats the same
    hand, pile and meld objects until they change. Remembered objects are kept alive here,
    so an id is never reused."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[object, frozenset[str]]] = {}

    def codes(self, view: object) -> set[str]:
        out: set[str] = set()
        memo = self.memo
        for value in card_values(view):
            if value is None:
                continue
            if type(value) is str:
                if value in ALL_CARDS:
                    out.add(value)
                continue
            known = memo.get(id(value))
            found = self._remembered(value) if known is None else known[1]
            if found:
                out |= found
        return out

    def _remembered(self, value: object) -> frozenset[str]:
        known = self.memo.get(id(value))
        if known is None:
            known = self.memo[id(value)] = (value, self._walk(value))
        return known[1]

    def _walk(self, value: object) -> frozenset[str]:
        if type(value) is not tuple:
            return frozenset(card_codes(value, set()))
        kinds = set(map(type, value))
        if kinds <= {int}:
            return frozenset()
        if kinds == {str}:
            return ALL_CARDS.intersection(value)
        out: set[str] = set()
        memo = self.memo
        for item in value:
            known = memo.get(id(item))
            if known is not None:
                out |= known[1]
            elif field_names(item) is None:
                card_codes(item, out)
            else:
                out |= self._remembered(item)
        return frozenset(out)


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
                assert card_codes(data, set()) <= self.public, event
            elif not event.public:
                assert event.kind in ("deal", "stock_card")
                assert event.visible_to == (() if event.kind == "deal" else (event.seat,))
        self.seen = len(events)


def nothing_hidden_leaks() -> Check:
    knowledge = Knowledge()
    walker = Walker()
    known_checked: list[object] = [None]

    def check(state: PersianRummyState, _: random.Random) -> None:
        knowledge.update(state.events)
        for seat in range(4):
            view = state.observation(seat)
            seen = walker.codes(view)
            if not seen <= knowledge.allowed[seat]:
                raise AssertionError(f"seat {seat} sees {sorted(seen - knowledge.allowed[seat])}")
        # Every seat is shown the same known_cards object: check it when it changes.
        if view.known_cards is not known_checked[0]:
            for known in view.known_cards:
                assert set(known.cards) <= knowledge.taken[known.seat]
            known_checked[0] = view.known_cards

    return check


# --- illegal actions --------------------------------------------------------------------------


def fingerprint(state: PersianRummyState) -> tuple[object, ...]:
    """A cheap summary of everything an action changes."""
    return (
        state.current_seat(),
        state.phase,
        state.legal_actions(),
        len(state.events),
        tuple(state.hands),
        len(state.stock),
        tuple(state.pile),
        len(state.melds),
        state.passes,
        state.chosen,
        tuple(state.team_scores),
    )


def illegal_actions_change_nothing(full_checks: set[int]) -> Check:
    """At about one step in three, chosen at random: a few ids that are not legal raise,
    and the state's fingerprint stays as it was. At the step in ``full_checks`` the whole
    ``snapshot()`` (a pickle of every attribute, the event log included) is compared
    instead; that is too slow for every step of a thousand matches, but a thousand
    matches give it a thousand states."""
    step = 0

    def check(state: PersianRummyState, policy: random.Random) -> None:
        nonlocal step
        step += 1
        full = step in full_checks
        if not full and policy.random() >= 0.35:
            return
        legal = state.legal_actions()
        candidates = [
            policy.choice(NEAR_MISSES),
            policy.randrange(64, 2048),  # melds
            2048 + policy.randrange(8192 * 56 * 6),  # lay-offs on melds 0..5
            policy.choice((-1, policy.randrange(2**63))),
        ]
        before = state.snapshot() if full else fingerprint(state)
        for action in candidates:
            if action in legal:
                continue
            try:
                state.apply(action)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"illegal action {action} was accepted")
        assert (state.snapshot() if full else fingerprint(state)) == before

    return check


NEAR_MISSES = [0, 57, *range(1, 40), *range(2**24, 2**24 + 56)]
"""Draw, pass, takes and discards: often legal, so the illegal ones are close calls."""


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


# --- the wire ---------------------------------------------------------------------------------


CONVERTED: set[int] = set()
"""Action ids whose wire form was checked; the wire caches it by id from then on."""


def _converts_to_an_act_request(state: PersianRummyState, policy: random.Random) -> None:
    """Every action id the first time it is legal; the whole request with the acting
    seat's observation at one step in ten, chosen at random, which keeps a thousand
    matches affordable."""
    if state.is_terminal():
        return
    legal = state.legal_actions()
    for action in legal:
        if action not in CONVERTED:
            message = wire.legal_action(state, action)
            assert message.id == action and message.text == state.action_text(action)
            assert message.persian_rummy.WhichOneof("kind") == state.action_payload(action)[0]
            CONVERTED.add(action)
    if policy.random() >= 0.1:
        return
    request = wire.act_request(state, match_id="p", decision_index=0, deadline_s=1.0, legal=legal)
    assert [a.id for a in request.legal_actions] == legal
    obs = request.persian_rummy
    view = state.observation(state.current_seat())
    assert obs.seat == view.seat and obs.phase != 0
    assert [c.code for c in obs.hand] == list(view.hand)
    assert [d.card.code for d in obs.discard_pile] == [d.card for d in view.discard_pile]
    assert [len(m.cards) for m in obs.melds] == [len(m.cards) for m in view.melds]
    assert obs.HasField("chosen_card") == (view.chosen_card is not None)


# --- the tests ----------------------------------------------------------------------------------


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_every_match_ends_after_two_deals_with_legal_lists_cards_and_state_sound_at_each_step(
    seed: int, policy_seed: int
) -> None:
    """Termination, canonical legal lists, 56 cards in place, illegal ids rejected."""
    full_checks = {random.Random(seed).randrange(1, 40)}
    state, _ = playout(
        seed,
        policy_seed,
        every_step(
            _legal_list_is_canonical,
            _every_card_is_in_one_place,
            illegal_actions_change_nothing(full_checks),
        ),
    )
    assert state.legal_actions() == []
    assert [e.kind for e in state.events].count("hand_end") == 2
    assert state.events[-1].kind == "game_end"


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_no_seat_ever_sees_hidden_cards_and_every_request_converts_to_the_wire(
    seed: int, policy_seed: int
) -> None:
    """Every seat's observation at every step, and the acting seat's request."""
    playout(seed, policy_seed, every_step(nothing_hidden_leaks(), _converts_to_an_act_request))


@settings(max_examples=1000, deadline=None)
@given(seed=SEEDS, policy_seed=SEEDS)
def test_a_match_replays_from_its_seed_and_actions_and_its_log_alone_gives_its_scores(
    seed: int, policy_seed: int
) -> None:
    """Determinism (same seed and actions, same events and state) and the scores."""
    state, actions = playout(seed, policy_seed)
    replay = GAME.new_state(seed)
    for action in actions:
        replay.apply(action)
    assert replay.events == state.events
    assert replay.snapshot() == state.snapshot()
    scores, winner = scores_from_log(state.events)
    assert state.scores() == scores
    assert state.winner() == winner
    assert state.events[-1].data == {"winner": winner, "scores": scores}
