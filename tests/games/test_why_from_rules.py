"""Seep's and Persian Rummy's explanations of illegal moves come from the engine's own rule
functions (``arena.games.seep.legal``, ``arena.games.persian_rummy.rules``): with one rule
function patched to allow everything, the engine offers the move and the explanation of that
rule is gone, both at once. A ``why`` module that restated the rule would keep explaining."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest

from arena.games.persian_rummy import rules as rummy_rules
from arena.games.persian_rummy import why as rummy_why
from arena.games.persian_rummy.actions import CARD_INDEX as RUMMY_INDEX
from arena.games.persian_rummy.actions import DRAW_STOCK, MELD_CARDS, PASS
from arena.games.persian_rummy.game import PersianRummyGame
from arena.games.persian_rummy.legal import Meld, PersianRummyLegal
from arena.games.seep import legal as seep_rules
from arena.games.seep import why as seep_why
from arena.games.seep.actions import ALL_VALUES, CARD_INDEX, CARD_OFFSET, VALUE, decode, play_text
from arena.games.seep.plays import House, SeepPlays
from arena.play.why.words import show, shown
from arena.v1 import cards_pb2, persian_rummy_pb2, seep_pb2

# --- Seep ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeepTable:
    """Seat 0's situation, given once for both the engine and the explanation."""

    hand: tuple[str, ...]
    loose: tuple[str, ...] = ()
    houses: tuple[tuple[int, tuple[str, ...], tuple[int, ...]], ...] = ()
    """(value, cards, owners) of each house."""
    bid: int = 9
    play_number: int = 5

    def observation(self) -> seep_pb2.SeepObservation:
        def cards(codes: Sequence[str]) -> list[cards_pb2.Card]:
            return [cards_pb2.Card(code=code) for code in codes]

        houses = []
        for value, members, owners in self.houses:
            total = sum(VALUE[CARD_INDEX[c]] for c in members)
            houses.append(
                seep_pb2.SeepHouse(
                    value=value,
                    cards=cards(members),
                    cemented=total > value,
                    multiplicity=total // value,
                    owners=owners,
                )
            )
        return seep_pb2.SeepObservation(
            seat=0,
            phase=seep_pb2.SEEP_PHASE_PLAY,
            bid=self.bid,
            hand=cards(self.hand),
            loose=cards(sorted(self.loose, key=CARD_INDEX.__getitem__)),
            houses=houses,
            play_number=self.play_number,
            plays=[seep_pb2.SeepPlay()] * self.play_number,
        )

    def engine_texts(self) -> list[str]:
        """The engine's legal plays for seat 0 (``legal.Turn`` on the same table)."""
        houses = {}
        for value, members, owners in self.houses:
            indices = sorted(CARD_INDEX[c] for c in members)
            total = sum(VALUE[c] for c in indices)
            houses[value] = House(value, indices, total, sum(1 << s for s in owners))
        state = SimpleNamespace(
            current=0,
            hands=[sorted(CARD_INDEX[c] for c in self.hand), [], [], []],
            houses=houses,
            play_number=self.play_number,
            bid=self.bid,
            loose=sorted(CARD_INDEX[c] for c in self.loose),
        )
        turn = seep_rules.Turn(cast(SeepPlays, state))
        return [
            play_text(decode(play + CARD_OFFSET[CARD_INDEX[card]]))
            for card in self.hand
            for play in turn.plays_of(VALUE[CARD_INDEX[card]])
        ]

    def reason(self, typed: str, legal: Sequence[str]) -> str | None:
        """What Seep's ``why`` says of ``typed`` (a throw is asked of ``explain_card``)."""
        observation = self.observation()
        words = typed.split()
        if words[0] == "throw":
            return seep_why.explain_card(observation, words[1], "throw")
        return seep_why.explain_action(observation, typed, legal)


@dataclass(frozen=True)
class SeepCase:
    """A move the engine forbids by one rule function, and the words that say so."""

    rule: str
    table: SeepTable
    typed: str
    reason: str
    allow: Callable[..., Any] = field(repr=False)


SEEP_CASES = [
    SeepCase(
        "throwing_values",
        SeepTable(hand=("5C", "9D"), loose=("2H", "3S")),
        "throw 5C",
        f"capturing is compulsory: {show('5C')} can take {shown(['2H', '3S'])}",
        lambda takers, standing, sums: takers,
    ),
    SeepCase(
        "opening_values",
        SeepTable(
            hand=("5C", "TC", "KD", "2S"), loose=("KH", "QS", "JD", "9C"), bid=10, play_number=0
        ),
        "throw 5C",
        "the opening play must use your bid of 10: throw or capture a card of value 10, "
        "or build with any card",
        lambda bid: ALL_VALUES,
    ),
    SeepCase(
        "retained_values",
        SeepTable(hand=("QS", "4H"), loose=("5H",), houses=((12, ("5C", "7D"), (0,)),)),
        "add QS 12",
        "you own the house of 12: you must keep a card of that value until the house is "
        "taken or broken",
        lambda own, held_twice: 0,
    ),
    SeepCase(
        "may_break",
        SeepTable(hand=("2C", "JS"), houses=((9, ("9C", "9D"), (1,)),)),
        "break 2C 9",
        "the house of 9 is cemented: it may not be broken",
        lambda cemented, mine: True,
    ),
    SeepCase(
        "add_values",
        SeepTable(hand=("3C", "5S"), loose=("7H",), houses=((10, ("4H", "6D"), (1,)),)),
        "add 3C 10 7H",
        "you may make a house of 10 only if you keep a card of value 10 in hand to capture it",
        lambda standing, fits, kept, ours: standing & fits,
    ),
    SeepCase(
        "house_sets",
        SeepTable(hand=("5C", "9S"), loose=("2H", "4D")),
        "build 5C 9 2H",
        f"{show('5C')} and the loose cards must make groups that each add up to 9",
        lambda floor, value, short, build: [1, 2, 3],
    ),
]


@pytest.mark.parametrize("case", SEEP_CASES, ids=[case.rule for case in SEEP_CASES])
def test_a_seep_explanation_is_the_engines_rule(
    case: SeepCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    legal = case.table.engine_texts()
    assert case.typed not in legal
    assert case.table.reason(case.typed, legal) == case.reason
    monkeypatch.setattr(seep_rules, case.rule, case.allow)
    assert case.typed in case.table.engine_texts(), "the engine asks this rule"
    assert case.table.reason(case.typed, legal) is None, "why asks the same rule"


def test_a_maximal_capture_is_the_floor_analysis_of_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``FloorSums.captures`` (every group of the card's value is met) for both."""
    table = SeepTable(hand=("7C", "KD"), loose=("3H", "4S", "2D", "5C"))
    typed = "capture 7C 3H 4S"
    legal = table.engine_texts()
    assert typed not in legal
    assert table.reason(typed, legal) == (
        f"a capture must be maximal: {shown(['2D', '5C'])} also add up to 7 and must go too"
    )
    monkeypatch.setattr(seep_rules.FloorSums, "captures", lambda self, value: self.packable(value))
    assert typed in table.engine_texts()
    assert table.reason(typed, legal) is None


def test_the_seep_explanations_state_no_card_values_or_sums() -> None:
    """The rank order, the card order and the subset sums are the engine's."""
    source = inspect.getsource(seep_why)
    assert "A23456789TJQK" not in source and "itertools" not in source
    for name in ("SEEP_VALUES", "SEEP_ORDER", "_sums_to", "_packs"):
        assert not hasattr(seep_why, name), name


# --- Persian Rummy ---------------------------------------------------------------------------


def rummy_observation(
    hand: Sequence[str],
    melds: Sequence[tuple[str, Sequence[str]]] = (),
    phase: persian_rummy_pb2.PersianRummyPhase.ValueType = (
        persian_rummy_pb2.PERSIAN_RUMMY_PHASE_MELD
    ),
    stock_size: int = 20,
) -> persian_rummy_pb2.PersianRummyObservation:
    kinds = {
        "set": persian_rummy_pb2.PERSIAN_RUMMY_MELD_KIND_SET,
        "run": persian_rummy_pb2.PERSIAN_RUMMY_MELD_KIND_RUN,
    }
    return persian_rummy_pb2.PersianRummyObservation(
        seat=0,
        phase=phase,
        hand=[cards_pb2.Card(code=code) for code in hand],
        melds=[
            persian_rummy_pb2.PersianRummyTableMeld(
                id=i,
                kind=kinds[kind],
                cards=[cards_pb2.PlayedCard(seat=1, card=cards_pb2.Card(code=c)) for c in cards],
                melded_by=1,
            )
            for i, (kind, cards) in enumerate(melds)
        ],
        stock_size=stock_size,
        discard_pile=[persian_rummy_pb2.PersianRummyDiscard(card=cards_pb2.Card(code="2S"))],
    )


def test_a_meld_is_what_meld_fault_accepts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's table of melds is every set of three or four cards ``meld_fault``
    accepts, and the explanation of a meld that is none is its fault."""
    accepted = {
        cards
        for size in (3, 4)
        for cards in itertools.combinations(range(56), size)
        if rummy_rules.meld_fault(cards) is None
    }
    table = set(MELD_CARDS.values())
    assert {cards for cards in table if len(cards) <= 4} == accepted
    assert all(rummy_rules.meld_fault(cards) is None for cards in table)
    observation = rummy_observation(["2C", "3D", "4H", "5H", "7H", "X1"])
    assert rummy_why.explain_action(observation, "meld 2C 3D 4H", []) == (
        "a meld must be a set (three or four cards of one rank) or a run (three or more "
        "consecutive ranks of one suit)"
    )
    assert rummy_why.explain_action(observation, "meld 4H 5H 7H", []) == (
        "a run must be consecutive ranks of one suit, aces high only (Q-K-A is a run, A-2-3 is not)"
    )
    assert rummy_why.explain_action(observation, "meld 4H 5H X1", []) == (
        "jokers are not wild: they may only meld with other jokers, as a set"
    )
    monkeypatch.setattr(rummy_rules, "meld_fault", lambda cards: None)
    for typed in ("meld 2C 3D 4H", "meld 4H 5H 7H", "meld 4H 5H X1"):
        assert rummy_why.explain_action(observation, typed, []) is None


def test_a_set_takes_the_card_set_completion_names(monkeypatch: pytest.MonkeyPatch) -> None:
    set_of_sevens = ("7C", "7D", "7H")
    observation = rummy_observation(["5H", "7S"], melds=[("set", set_of_sevens)])
    assert Meld(0, tuple(RUMMY_INDEX[c] for c in set_of_sevens), 1).missing == RUMMY_INDEX["7S"]
    assert rummy_why.explain_action(observation, "layoff 0 7S", []) is None
    assert rummy_why.explain_action(observation, "layoff 0 5H", []) == (
        "only the fourth 7 may be laid off on the set meld 0"
    )
    monkeypatch.setattr(rummy_rules, "set_completion", lambda cards: RUMMY_INDEX["5H"])
    assert Meld(0, tuple(RUMMY_INDEX[c] for c in set_of_sevens), 1).missing == RUMMY_INDEX["5H"]
    assert rummy_why.explain_action(observation, "layoff 0 5H", []) is None


def test_a_run_takes_what_run_reach_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's lay-offs on a run and the explanation of a gap both ask ``run_reach``."""
    run = ("5H", "6H", "7H")
    observation = rummy_observation(["9H", "8H"], melds=[("run", run)])
    gap = (
        f"a lay-off on the run meld 0 must extend it without a gap, below {show('5H')} or "
        f"above {show('7H')} (aces high only)"
    )
    assert rummy_why.explain_action(observation, "layoff 0 9H", []) == gap
    assert rummy_why.explain_action(observation, "layoff 0 8H 9H", []) is None
    asked: list[tuple[int, int, int]] = []
    reach = rummy_rules.run_reach

    def spy(low: int, high: int, ranks: int) -> tuple[int, int]:
        asked.append((low, high, ranks))
        return reach(low, high, ranks)

    monkeypatch.setattr(rummy_rules, "run_reach", spy)
    meld = Meld(0, tuple(RUMMY_INDEX[c] for c in run), 1)
    hearts = 2
    held = (1 << 6 | 1 << 7) << (16 * hearts)  # 8H 9H, suit-major
    PersianRummyLegal._run_layoffs(meld, held, -1, [])
    assert asked == [(3, 5, 1 << 6 | 1 << 7)], "the engine asks run_reach"
    monkeypatch.setattr(rummy_rules, "run_reach", lambda low, high, ranks: (0, ranks.bit_count()))
    assert rummy_why.explain_action(observation, "layoff 0 9H", []) is None


def test_the_stock_rule_is_draws_from_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    state = PersianRummyGame().new_state(1)
    seat = state.current_seat()
    assert state.legal_actions()[0] == DRAW_STOCK and PASS not in state.legal_actions()
    observation = rummy_observation(
        ["5H"], phase=persian_rummy_pb2.PERSIAN_RUMMY_PHASE_DRAW, stock_size=20
    )
    assert rummy_why.explain_action(observation, "pass", []) == (
        "you may pass only when the stock is empty (20 left): draw or take"
    )
    monkeypatch.setattr(rummy_rules, "draws_from_stock", lambda stock_size: False)
    options = cast(Any, state)._draw_options(seat)
    assert DRAW_STOCK not in options and options[-1] == PASS
    assert rummy_why.explain_action(observation, "pass", []) is None


def test_the_rummy_explanations_state_no_card_order() -> None:
    source = inspect.getsource(rummy_why)
    assert "23456789TJQKA" not in source
    for name in ("RUMMY_RANKS", "RUMMY_ORDER", "_is_joker", "_rummy_rank"):
        assert not hasattr(rummy_why, name), name
