"""Seep's public start at any decision: ``SeepGame.from_position`` checks a ``SeepPosition``
against what real play allows (each refusal a ``DealError`` saying what is wrong), and a
position read back from a match with ``SeepState.position()`` and rebuilt plays on exactly
as the match it came from.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import Deal, DealError, GameError, OptionError
from arena.games.seep.game import (
    CARDS,
    PlacedHouse,
    SeepGame,
    SeepObservation,
    SeepPosition,
    SeepState,
)

GAME = SeepGame()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

# After 40 plays every seat has made 10 and holds 2 cards; seat 1 (the bidder) is to act.
# Cards in canonical order (value, then suit), as position() reads them back.
HANDS = (("2C", "KC"), ("3C", "QC"), ("4C", "9C"), ("5C", "KD"))
HOUSE = PlacedHouse(12, ("5S", "7D"), (1,))
LOOSE = ("AH", "8H")
REST = tuple(c for c in CARDS if c not in {*sum(HANDS, ()), *HOUSE.cards, *LOOSE})
MIDDLE = SeepPosition(
    dealer=0,
    bid=12,
    play_number=40,
    hands=HANDS,
    loose=LOOSE,
    houses=(HOUSE,),
    piles=(REST[:20], REST[20:]),
    sweeps=((50,), ()),
    last_capture=1,
)

# Rule E1's opening: dealer 0, seat 1 bid 12 and is to make play 1.
BIDDER = ("2S", "3C", "7D", "QH")
FLOOR = ("4C", "5S", "9D", "KH")
STOCK = tuple(c for c in CARDS if c not in {*BIDDER, *FLOOR})
OPENING = SeepPosition(
    dealer=0, bid=12, play_number=0, hands=((), BIDDER, (), ()), loose=FLOOR, stock=STOCK
)


def without(cards: tuple[str, ...], *gone: str) -> tuple[str, ...]:
    return tuple(c for c in cards if c not in gone)


def test_the_example_positions_are_accepted_and_say_who_acts() -> None:
    state = GAME.from_position(MIDDLE)
    assert MIDDLE.bidder == 1 and MIDDLE.to_move == 1 and state.current_seat() == 1
    view = state.observation(1)
    assert view.hand == ("3C", "QC") and view.loose == LOOSE and view.play_number == 40
    assert view.houses[0].owners == (1,) and view.hand_sizes == (2, 2, 2, 2)
    assert view.piles[0].sweeps == 1 and view.last_capture_team == 1
    assert state.position() == MIDDLE
    opening = GAME.from_position(OPENING)
    assert sorted(opening.action_text(a) for a in opening.legal_actions()) == [
        "build 3C 12 4C 5S",
        "build 3C 12 9D",
        "build 7D 12 5S",
        "throw QH",
    ]
    before_bid = dataclasses.replace(OPENING, bid=None)
    bidding = GAME.from_position(before_bid)
    assert [bidding.action_text(a) for a in bidding.legal_actions()] == ["bid 12"]
    assert bidding.observation(1).face_down_floor == 4 and bidding.observation(1).loose == ()
    assert bidding.position() == before_bid


def test_the_opening_position_plays_as_the_same_chosen_deal() -> None:
    """The stock is dealt after play 1 in the order ``Deal.rest[4:]`` gives."""
    dealt = GAME.new_state(0, deal=Deal(((), BIDDER, (), ()), 0, FLOOR + STOCK))
    dealt.apply(dealt.legal_actions()[0])  # bid 12
    started = GAME.from_position(OPENING)
    assert started.position() == dealt.position()
    for state in (dealt, started):
        state.apply(state.legal_actions()[-1])  # throw QH
    assert [started.observation(s).hand for s in range(4)] == [
        dealt.observation(s).hand for s in range(4)
    ]


def _first_play_made() -> SeepPosition:
    state = GAME.new_state(0, deal=Deal(((), BIDDER, (), ()), 0, FLOOR + STOCK))
    state.apply(state.legal_actions()[0])  # bid 12
    state.apply(state.legal_actions()[-1])  # throw QH
    return state.position()


AFTER_1 = _first_play_made()
M = MIDDLE
P0, P1 = MIDDLE.piles

REFUSED: list[tuple[str, SeepPosition, dict[str, Any], str]] = [
    ("dealer", M, {"dealer": 4}, r"the dealer must be a seat 0\.\.3, not 4"),
    ("bid", M, {"bid": 8}, r"the bid must be a house value 9\.\.13 \(or None before the bid\)"),
    ("play number", M, {"play_number": 48}, r"play_number counts the plays made, 0\.\.47"),
    ("bid None", M, {"bid": None}, r"no play comes before the bid.*must be 0, not 40"),
    ("three hands", M, {"hands": HANDS[:3]}, r"hands must hold one tuple of cards per seat"),
    (
        "hand as text",
        M,
        {"hands": ("2C KC", *HANDS[1:])},
        r"seat 0's hand must be a tuple of card codes such as \('QH', 'TD'\), not '2C KC'",
    ),
    (
        "not a card",
        M,
        {"loose": ("AH", "8H", "1H")},
        r"'1H' in the loose cards is not a Seep card: a rank of A 2 3 4 5 6 7 8 9 T J Q K",
    ),
    (
        "twice",
        M,
        {"loose": ("AH", "8H", "KC")},
        r"KC is placed twice, in seat 0's hand and in the loose cards",
    ),
    (
        "missing",
        M,
        {"loose": ("AH",)},
        r"every card of the pack must be placed once \(a hand, the floor, a pile or the "
        r"stock\); missing: 8H",
    ),
    (
        "hand size",
        M,
        {"hands": (("KC",), *HANDS[1:]), "loose": ("2C", "AH", "8H")},
        r"seat 0 must hold 2 cards here, not 1 \(after 40 plays seat s holds 12 cards less "
        r"the plays it made \(\[10, 10, 10, 10\] by seat\)\)",
    ),
    (
        "stock after play 1",
        M,
        {"loose": ("AH",), "stock": ("8H",)},
        r"the stock is dealt after play 1: with 40 plays made it must be empty, not 1 cards",
    ),
    (
        "stock before play 1",
        OPENING,
        {"stock": STOCK[1:], "piles": ((STOCK[0],), ())},
        r"before play 1 the stock holds the 44 cards dealt after it, not 43",
    ),
    (
        "opening without the bid value",
        OPENING,
        {"bid": 13},
        r"for play 1 the bidder \(seat 1\) must hold a card of the bid value 13",
    ),
    (
        "bidder without a card above 8",
        OPENING,
        {
            "bid": None,
            "hands": ((), ("3C", "7D", "2D", "2S"), (), ()),
            "stock": (*without(STOCK, "2D"), "QH"),
        },
        r"the bidder \(seat 1\) must hold a card above 8 to bid; with none the deal is thrown in",
    ),
    (
        "opening floor",
        OPENING,
        {"loose": FLOOR[:3], "piles": ((FLOOR[3],), ()), "last_capture": 0},
        r"before play 1 the floor is the four cards dealt to it, not 3",
    ),
    (
        "opening sweep",
        OPENING,
        {"sweeps": ((50,), ())},
        r"before play 1 there are no houses, captured cards, sweeps or last capture",
    ),
    (
        "loose repeats",
        M,
        {
            "loose": ("AH", "8H", "AC", "AD", "AS", "8C"),
            "piles": (without(P0, "AC", "AD", "AS", "8C"), without(P1, "AC", "AD", "AS", "8C")),
        },
        r"loose cards come from the four dealt to the floor and from throws, and no card is "
        r"thrown beside a loose card of its value: at most 3 loose cards may share a value "
        r"with another, here 4",
    ),
    (
        "house value",
        M,
        {"houses": (PlacedHouse(14, HOUSE.cards, (1,)),)},
        r"a house's value must be 9\.\.13, not 14",
    ),
    (
        "two houses of a value",
        M,
        {
            "houses": (HOUSE, PlacedHouse(12, ("TD", "2D"), (1,))),
            "piles": (without(P0, "TD", "2D"), without(P1, "TD", "2D")),
        },
        r"two houses of value 12: there is one house per value at most",
    ),
    (
        "house total",
        M,
        {"houses": (PlacedHouse(11, HOUSE.cards, (1,)),)},
        r"the 11-house must be two or more cards whose values add up to a multiple of 11, "
        r"not 5S 7D \(total 12\)",
    ),
    (
        "owner not a seat",
        M,
        {"houses": (PlacedHouse(12, HOUSE.cards, (4,)),)},
        r"the 12-house's owners must be one or more different seats 0\.\.3, not \(4,\)",
    ),
    (
        "no owner",
        M,
        {"houses": (PlacedHouse(12, HOUSE.cards, ()),)},
        r"the 12-house's owners must be one or more different seats 0\.\.3, not \(\)",
    ),
    (
        "ordinary house of two",
        M,
        {"houses": (PlacedHouse(12, HOUSE.cards, (1, 3)),)},
        r"the 12-house is ordinary \(its cards add up to 12 once\), and an ordinary house has "
        r"one owner, not 2",
    ),
    (
        "owner without the value",
        M,
        {"houses": (PlacedHouse(12, HOUSE.cards, (3,)),)},
        r"seat 3 owns the 12-house but holds no card of value 12: an owner keeps one",
    ),
    (
        "loose card of a house's value",
        M,
        {"loose": ("AH", "QH"), "piles": ((*without(P0, "QH"), "8H"), without(P1, "QH"))},
        r"a loose card of value 12 cannot lie beside the 12-house",
    ),
    (
        "sweep bonus",
        M,
        {"sweeps": ((30,), ())},
        r"team 0's sweeps must be bonuses 25 \(play 1\) or 50 \(plays 2 to 47\), not \(30,\)",
    ),
    (
        "opening sweep of the wrong team",
        M,
        {"sweeps": ((25,), ())},
        r"a sweep of 25 is the bidder's on play 1: only the first of the bidder's team's "
        r"\(team 1\) sweeps, not team 0's \(25,\)",
    ),
    (
        "more sweeps than plays",
        M,
        {"sweeps": ((50,) * 21, ())},
        r"team 0 made 20 plays, too few for 21 sweeps",
    ),
    (
        "a pile before its team played",
        AFTER_1,
        {"loose": without(AFTER_1.loose, "9D"), "piles": (("9D",), ()), "last_capture": 0},
        r"team 0 has made no play yet, so its pile must be empty",
    ),
    (
        "sweeps of one card",
        M,
        {"sweeps": ((), (50,) * 11)},
        r"a sweep takes two cards or more, so team 1's pile cannot hold 20 card\(s\) with 11 "
        r"sweep\(s\)",
    ),
    (
        "no last capture",
        M,
        {"last_capture": None},
        r"some cards were captured, so last_capture must name the team that captured last",
    ),
    (
        "last capture not a team",
        M,
        {"last_capture": 2},
        r"last_capture is a team, 0 or 1, or None, not 2",
    ),
    (
        "last capture without a pile",
        M,
        {"piles": ((), P0 + P1), "sweeps": ((), ()), "last_capture": 0},
        r"team 0 made the last capture but its pile is empty",
    ),
    (
        "piles not a pair",
        M,
        {"piles": (P0 + P1,)},
        r"piles must be a pair, the cards team 0 and team 1 captured",
    ),
    (
        "house not a triple",
        M,
        {"houses": ((12, HOUSE.cards),)},
        r"a house is PlacedHouse\(value, cards, owners\)",
    ),
    (
        "negative score",
        M,
        {"scores": (-1, 0)},
        r"scores and void_bazzis count bazzis, whole numbers 0 or more, not \(-1, 0\) and 0",
    ),
    (
        "match over",
        M,
        {"scores": (2, 0), "deal_number": 3},
        r"the match lasts 2 bazzi\(s\) and 2 are over: a position needs one still open",
    ),
    (
        "difference",
        M,
        {"difference": 100, "deals_in_bazzi": 2, "deal_number": 2},
        r"the difference must be -99\.\.99 \(100 decides the bazzi\), not 100",
    ),
    (
        "deals in the bazzi",
        M,
        {"deals_in_bazzi": 51, "deal_number": 51},
        r"deals_in_bazzi counts this deal too: 1\.\.50 \(the option max_deals\), not 51",
    ),
    (
        "difference in a bazzi's first deal",
        M,
        {"difference": 10},
        r"the difference is 0 at the start of a bazzi, so in its first deal, not 10",
    ),
    (
        "deal number",
        M,
        {"deals_in_bazzi": 3, "difference": 5, "void_bazzis": 1},
        r"deal_number must be at least 4: 3 deal\(s\) of this bazzi and one or more for each "
        r"of the 1 over, not 1",
    ),
]


@pytest.mark.parametrize(
    ("base", "changes", "message"),
    [pytest.param(base, changes, message, id=name) for name, base, changes, message in REFUSED],
)
def test_a_position_real_play_cannot_reach_is_refused_with_what_is_wrong(
    base: SeepPosition, changes: dict[str, Any], message: str
) -> None:
    GAME.from_position(base, options={"bazzis": 2})  # the base is fine
    with pytest.raises(DealError, match="^seep: " + message):
        GAME.from_position(dataclasses.replace(base, **changes), options={"bazzis": 2})


def test_the_match_so_far_is_checked_against_the_options() -> None:
    with pytest.raises(DealError, match=r"the match lasts 1 bazzi\(s\) and 1 are over"):
        GAME.from_position(dataclasses.replace(MIDDLE, void_bazzis=1))
    later = dataclasses.replace(MIDDLE, scores=(0, 1), void_bazzis=1, deal_number=3)
    assert GAME.from_position(later, options={"bazzis": 3}).observation(0).bazzi_number == 3
    with pytest.raises(DealError, match=r"1\.\.2 \(the option max_deals\), not 3"):
        GAME.from_position(
            dataclasses.replace(MIDDLE, deals_in_bazzi=3, deal_number=3, difference=4),
            options={"max_deals": 2},
        )
    with pytest.raises(OptionError):
        GAME.from_position(MIDDLE, options={"bazzis": 0})


def test_a_match_over_has_no_position_and_a_match_from_a_position_no_first_deal() -> None:
    state = GAME.from_position(MIDDLE)
    with pytest.raises(GameError, match="started from a position"):
        state.initial_deal()
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    with pytest.raises(GameError, match="the match is over"):
        state.position()


def test_the_seed_deals_what_follows_the_position() -> None:
    def next_deal(seed: int) -> SeepPosition:
        state = GAME.from_position(MIDDLE, seed=seed, options={"bazzis": 2})
        while state.observation(0).deal_number == 1:
            state.apply(state.legal_actions()[0])
        return state.position()

    assert next_deal(5) == next_deal(5)
    assert next_deal(5).hands != next_deal(6).hands


# --- the same position, rebuilt, plays on as the match it came from ----------------------------


def _table(view: SeepObservation) -> SeepObservation:
    """An observation without the record of what came before the position."""
    return dataclasses.replace(view, plays=(), deal_history=(), redeal_cards=())


def _same_from_here(played: SeepState, rebuilt: SeepState, events_before: int) -> None:
    assert rebuilt.position() == played.position()
    assert rebuilt.legal_actions() == played.legal_actions()
    assert rebuilt.current_seat() == played.current_seat()
    assert rebuilt.public_table() == played.public_table()
    assert rebuilt.events == played.events[events_before:]
    for seat in range(4):
        mine, theirs = rebuilt.observation(seat), played.observation(seat)
        assert _table(mine) == _table(theirs)
        assert mine.plays == theirs.plays[len(theirs.plays) - len(mine.plays) :]


@settings(max_examples=40, deadline=None)
@given(
    seed=SEEDS,
    policy_seed=SEEDS,
    steps=st.integers(min_value=0, max_value=140),
    bazzis=st.sampled_from((1, 2)),
)
def test_a_position_read_back_and_rebuilt_plays_on_as_the_match_it_came_from(
    seed: int, policy_seed: int, steps: int, bazzis: int
) -> None:
    options = {"bazzis": bazzis, "max_deals": 3}
    played = GAME.new_state(seed, options)
    rng = random.Random(policy_seed)
    for _ in range(steps):
        if played.is_terminal():
            return
        played.apply(rng.choice(played.legal_actions()))
    if played.is_terminal():
        return
    at = played.position()
    rebuilt = GAME.from_position(at, seed=seed + 1, options=options)
    events_before = len(played.events)
    deal = at.deal_number
    while True:
        _same_from_here(played, rebuilt, events_before)
        action = rng.choice(played.legal_actions())
        for state in (played, rebuilt):
            state.apply(action)
        if rebuilt.is_terminal() or rebuilt.observation(0).deal_number != deal:
            break
    # the deal ended alike; only the next deal, from each one's seed, may differ
    assert rebuilt.scores() == played.scores() and rebuilt.winner() == played.winner()
    kinds = [e.kind for e in rebuilt.events]
    assert kinds.count("hand_end") == 1
    settled = kinds.index("deal") if "deal" in kinds else len(kinds)
    assert rebuilt.events[:settled] == played.events[events_before : events_before + settled]
    assert rebuilt.events[kinds.index("hand_end")].data["deal_number"] == deal
    if not rebuilt.is_terminal():
        assert rebuilt.observation(0).deal_history == played.observation(0).deal_history[-1:]
