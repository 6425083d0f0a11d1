"""Seep rules, one test per rule, plus the worked examples E1-E5 of the specification.

Positions are set up through the public API only: a chosen pack order with
``new_state(deal=...)``, or a floor and hands in the middle of a deal with
``SeepGame.from_position``; they are then driven by canonical action text.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Mapping, Sequence

import pytest

from arena.games.api import Deal, DealError, IllegalActionError, OptionError
from arena.games.registry import get_game
from arena.games.seep.actions import VOID_BAZZI_SAME_DEALER
from arena.games.seep.game import (
    CARD_INDEX,
    CARDS,
    POINTS,
    VALUE,
    PlacedHouse,
    SeepAdd,
    SeepBreak,
    SeepBuild,
    SeepCapture,
    SeepGame,
    SeepPosition,
    SeepState,
)

GAME = SeepGame()
KINDS = ("bid", "capture", "build", "add", "break", "throw")

# --- helpers -------------------------------------------------------------------------------


def pack(dealer: int, first: str, floor: str, hands: Mapping[int, str]) -> list[int]:
    """A pack order that deals ``first`` to the bidder, ``floor`` face down, then the
    packets so that each seat ends with the cards named in ``hands`` (the bidder's after
    its first four); cards not named fill the hands in canonical order."""
    bidder = (dealer + 1) % 4
    named = first.split() + floor.split() + [c for h in hands.values() for c in h.split()]
    assert len(named) == len(set(named)), "a card is named twice"
    spare = [c for c in CARDS if c not in named]
    full: dict[int, list[str]] = {}
    for seat in range(4):
        given = hands.get(seat, "").split()
        if seat == bidder:
            given = first.split() + given
        need = 12 - len(given)
        full[seat], spare = given + spare[:need], spare[need:]
    deck = first.split() + floor.split()
    taken = {seat: 4 if seat == bidder else 0 for seat in range(4)}
    b = bidder
    for seat in (b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3):
        seat %= 4
        deck += full[seat][taken[seat] : taken[seat] + 4]
        taken[seat] += 4
    assert sorted(deck) == sorted(CARDS)
    return [CARD_INDEX[c] for c in deck]


def chosen(dealer: int, deck: Sequence[int]) -> Deal:
    """The ``Deal`` that deals this pack order: its first four cards to the bidder, the
    next four face down to the floor, the rest in packets."""
    hands = [CARDS[c] for c in deck[:4]]
    bidder = (dealer + 1) % 4
    return Deal(
        tuple(tuple(hands) if seat == bidder else () for seat in range(4)),
        dealer,
        tuple(CARDS[c] for c in deck[4:]),
    )


def arranged_deal(
    dealer: int,
    first: str,
    floor: str,
    hands: Mapping[int, str] | None = None,
    **options: object,
) -> SeepState:
    """A fresh match whose first deal comes from ``pack(...)``, through ``new_state(deal=...)``."""
    return GAME.new_state(0, options, deal=chosen(dealer, pack(dealer, first, floor, hands or {})))


def cards(text: str) -> list[int]:
    return sorted(CARD_INDEX[c] for c in text.split())


def position(
    *,
    to_move: int,
    hands: Mapping[int, str],
    loose: str = "",
    houses: Sequence[tuple[str, Sequence[int]]] = (),
    **options: object,
) -> SeepState:
    """A deal in progress, through ``SeepGame.from_position``: ``to_move`` is the bidder
    and holds exactly the cards named for him, so every seat has made as many plays and
    holds as many cards (the play number follows: play 49 - 4 x cards is his). Each house
    is (its cards, its owners); its value is the smallest of 9..13 dividing its total.
    The other seats hold the cards named for them, an owner a card of his house's value
    (the first unnamed one, unless named), and then unnamed cards in canonical order; the
    cards left over are the pile of the mover's opponents, who made the last capture, so
    the mover's team's pile shows what it captures from here and nothing else."""
    size = len(hands[to_move].split())
    named = [c for text in (*hands.values(), loose, *(h for h, _ in houses)) for c in text.split()]
    assert len(named) == len(set(named)), "a card is named twice"
    spare = [c for c in CARDS if c not in named]
    held = {seat: hands.get(seat, "").split() for seat in range(4)}
    placed = []
    for house_cards, owners in houses:
        members = house_cards.split()
        total = sum(VALUE[CARD_INDEX[c]] for c in members)
        value = next(v for v in range(9, 14) if total % v == 0)
        placed.append(PlacedHouse(value, tuple(members), tuple(owners)))
        for seat in owners:
            if not any(VALUE[CARD_INDEX[c]] == value for c in held[seat]):
                card = next(c for c in spare if VALUE[CARD_INDEX[c]] == value)
                spare.remove(card)
                held[seat].append(card)
    for seat in range(4):
        assert len(held[seat]) <= size, f"seat {seat} holds {size} cards here"
        while len(held[seat]) < size:
            held[seat].append(spare.pop(0))
    opponents = 1 - to_move % 2
    at = SeepPosition(
        dealer=(to_move - 1) % 4,
        bid=12,
        play_number=4 * (12 - size),
        hands=tuple(tuple(held[seat]) for seat in range(4)),
        loose=tuple(loose.split()),
        houses=tuple(placed),
        piles=(tuple(spare), ()) if opponents == 0 else ((), tuple(spare)),
        last_capture=opponents,
    )
    return GAME.from_position(at, options=options)


def encode(text: str) -> int:
    """The id of an action from its canonical text, by the encoding the engine documents
    (computed here from the definitions, not with the engine's code)."""
    words = text.split()
    kind = KINDS.index(words[0])
    if kind == 0:
        return (int(words[1]) - 9) << 52
    card = CARD_INDEX[words[1]]
    rest = words[2:]
    slot = 0
    if kind in (2, 3, 4):
        slot, rest = int(rest[0]) - 9, rest[1:]
    return (((kind * 52 + card) * 5 + slot) << 52) | lexicographic_rank(
        [CARD_INDEX[c] for c in rest]
    )


def lexicographic_rank(members: list[int]) -> int:
    """How many subsets of the 52 cards come before this one when subsets are listed as
    card sequences in canonical order, a prefix before its extensions."""
    rank, previous = 0, -1
    for card in sorted(members):
        rank += 1  # the prefix so far comes first
        rank += sum(2 ** (51 - e) for e in range(previous + 1, card))  # earlier branches
        previous = card
    return rank


def legal_texts(state: SeepState) -> list[str]:
    return [state.action_text(a) for a in state.legal_actions()]


def act(state: SeepState, *texts: str) -> None:
    for text in texts:
        state.apply(encode(text))


def is_legal(state: SeepState, text: str) -> bool:
    return encode(text) in state.legal_actions()


def plays_of(state: SeepState, kind: str, card: str) -> list[str]:
    return [t for t in legal_texts(state) if t.startswith(f"{kind} {card}")]


def last_event(state: SeepState, kind: str) -> dict[str, object]:
    return dict(next(e for e in reversed(state.events) if e.kind == kind).data)


def house_view(state: SeepState, value: int) -> tuple[tuple[str, ...], bool, tuple[int, ...]]:
    house = next(h for h in state.observation(0).houses if h.value == value)
    return house.cards, house.cemented, house.owners


def finish_deal(
    state: SeepState,
    *,
    piles: tuple[str, str],
    sweeps: tuple[Sequence[int], Sequence[int]],
    loose: str,
    last: str,
    dealer: int | None = None,
    difference: int | None = None,
    deals_in_bazzi: int | None = None,
    deal_number: int | None = None,
    former: frozenset[str] = frozenset(),
) -> SeepState:
    """The match of ``state`` with the deal it is at replaced, through
    ``SeepGame.from_position``, by one just before play 48: the dealer holds ``last``,
    the floor is ``loose``, the piles hold these cards (the cards named nowhere, which
    must be worth no points, go to team 0's) and sweep bonuses, and team 0 captured last.
    ``dealer``, ``difference``, ``deals_in_bazzi`` and ``deal_number`` replace the
    state's when given; ``former`` names former rules to play by. The dealer then makes
    his only play (a capture if possible); the match after it is returned."""
    now = state.position()
    now = dataclasses.replace(
        now,
        dealer=now.dealer if dealer is None else dealer,
        difference=now.difference if difference is None else difference,
        deals_in_bazzi=now.deals_in_bazzi if deals_in_bazzi is None else deals_in_bazzi,
        deal_number=now.deal_number if deal_number is None else deal_number,
    )
    named = [c for text in (*piles, loose, last) for c in text.split()]
    rest = tuple(c for c in CARDS if c not in named)
    assert not any(POINTS[CARD_INDEX[c]] for c in rest), "the unnamed cards carry points"
    at = dataclasses.replace(
        now,
        bid=12,
        play_number=47,
        hands=tuple(tuple(last.split()) if s == now.dealer else () for s in range(4)),
        loose=tuple(loose.split()),
        houses=(),
        piles=((*piles[0].split(), *rest), tuple(piles[1].split())),
        sweeps=(tuple(sweeps[0]), tuple(sweeps[1])),
        last_capture=0,
        stock=(),
    )
    view = state.observation(0)
    finished = GAME.from_position(at, options={"bazzis": view.bazzis, "max_deals": view.max_deals})
    finished.former = former
    legal = finished.legal_actions()
    assert len(legal) == 1
    finished.apply(legal[0])
    return finished


# --- worked examples -----------------------------------------------------------------------

E1_HANDS = {1: "", 2: "AD KS", 3: "KC"}


def test_e1_exactly_four_openings_then_a_break_and_a_sweep_on_play_3() -> None:
    state = arranged_deal(0, "3C 7D QH 2S", "9D 5S 4C KH", E1_HANDS)
    assert state.current_seat() == 1
    act(state, "bid 12")
    assert sorted(legal_texts(state)) == sorted(
        ["build 3C 12 9D", "build 3C 12 4C 5S", "build 7D 12 5S", "throw QH"]
    )
    act(state, "build 7D 12 5S")
    assert house_view(state, 12) == (("5S", "7D"), False, (1,))
    assert state.current_seat() == 2
    assert is_legal(state, "break AD 12 4C 9D KH")
    assert not is_legal(state, "break AD 12")  # the loose K must join
    act(state, "break AD 12 KH")
    assert [h.value for h in state.observation(0).houses] == [13]
    assert house_view(state, 13) == (("AD", "5S", "7D", "KH"), True, (2,))
    assert state.observation(0).houses[0].multiplicity == 2
    act(state, "capture KC 4C 9D")
    view = state.observation(0)
    assert view.loose == () and view.houses == ()
    pile = view.piles[1]
    assert pile.sweeps == 1 and pile.sweep_points == 50
    assert pile.points == 6  # 5S and AD
    assert pile.deal_score == 56
    assert view.plays[-1].sweep and view.plays[-1].bonus == 50


def test_e2_capture_must_be_maximal_and_a_capturing_card_cannot_be_thrown() -> None:
    state = position(to_move=2, hands={2: "JD 3H"}, loose="2H 3C 5D 6S")
    assert plays_of(state, "capture", "JD") == ["capture JD 2H 3C 6S", "capture JD 5D 6S"]
    assert not is_legal(state, "throw JD")
    assert not is_legal(state, "capture JD 2H 3C 5D 6S")
    assert not is_legal(state, "capture JD 6S")


def test_e3_add_to_opponents_house_needs_the_value_partner_adds_freely() -> None:
    state = position(
        to_move=2,
        hands={2: "QC 4S", 3: "TC 3D"},
        loose="8C 4H 2D",
        houses=[("7D 5S", [1])],
    )
    act(state, "add 4S 12 8C")
    assert house_view(state, 12) == (("4S", "5S", "7D", "8C"), True, (1, 2))
    assert state.current_seat() == 3
    assert is_legal(state, "add TC 12 2D")
    act(state, "add TC 12 2D")
    assert house_view(state, 12)[2] == (1, 2)
    assert state.observation(0).houses[0].multiplicity == 3


def test_e3_adding_to_an_opponents_house_without_the_value_is_illegal() -> None:
    state = position(to_move=2, hands={2: "4S 3C"}, loose="8C 4H 2D", houses=[("7D 5S", [1])])
    assert not is_legal(state, "add 4S 12 8C")


def test_e4_deal_scores_9_point_rule_bazzi_and_the_next_dealer() -> None:
    state = GAME.new_state(3, {"bazzis": 2})
    # Deal 1, dealer 0: A 58 + sweep 50 = 108, B 42 + opening sweep 25 = 67.
    state = finish_deal(
        state,
        dealer=0,
        piles=("9S TS JS QS KS AC AD AH", "AS 2S 3S 4S 5S 6S 7S 8S TD"),
        sweeps=([50], [25]),
        loose="2C",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [108, 67]
    assert end["difference"] == 41
    assert state.difference == 41
    assert state.dealer == 1  # the dealer's team leads: the deal passes on
    # Deal 2, dealer 1: A 30; B 70 + 50 + 50 = 170.
    state = finish_deal(
        state,
        piles=("KS QS 2S AC AD AH", "AS 3S 4S 5S 6S 7S 8S 9S TS JS TD"),
        sweeps=([], [50, 50]),
        loose="2C",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [30, 170]
    assert state.difference == -99 and not end["bazzi_over"]
    assert state.dealer == 2  # B leads and seat 1 dealt: the deal passes on
    # Deal 3, dealer 2: A 94 with a sweep on play 48 worth 0; B 6 loses the bazzi.
    state = finish_deal(
        state,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AC AD AH", "TD"),
        sweeps=([], []),
        loose="2C",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [94, 6]
    assert end["sweep_bonuses"] == [0, 0]
    assert state.observation(0).deal_history[-1].bazzi_winner == 0
    assert end["bazzi_over"] and end["bazzi_winner"] == 0 and end["reason"] == "under_9"
    assert state.scores() == [1, 0]
    assert state.difference == 0
    assert state.dealer == 1  # (2 + 3) mod 4: the dealer's team won the bazzi
    assert not state.is_terminal()


def test_e5_left_over_cards_go_to_the_last_capture_without_a_sweep_bonus() -> None:
    state = position(
        to_move=1,
        hands={1: "9C", 2: "3S", 3: "8H", 0: "AC"},
        loose="5D 4C",
    )
    before = state.observation(0)
    assert before.play_number == 44 and before.piles[1].points == 0
    act(state, "capture 9C 4C 5D")  # play 45, team B (a sweep: the floor is empty)
    act(state, "throw 3S", "throw 8H", "throw AC")
    left = last_event(state, "leftover")
    assert left == {"team": 1, "cards": ["AC", "3S", "8H"]}
    end = last_event(state, "hand_end")
    assert end["points"] == [before.piles[0].points, 4]  # team A's pile came with the position
    assert end["sweep_bonuses"] == [0, 50]  # the play-45 sweep only


# --- deal and bid ----------------------------------------------------------------------------


def test_first_dealer_comes_from_the_seed_and_the_bidder_sits_after_the_dealer() -> None:
    for seed in range(20):
        state = GAME.new_state(seed)
        dealer = random.Random(seed).randrange(4)
        assert state.dealer == dealer
        assert state.current_seat() == (dealer + 1) % 4
        deal = next(e for e in state.events if e.kind == "deal")
        assert deal.visible_to == () and deal.data["dealer"] == dealer


def test_the_bidder_alone_gets_four_cards_and_four_go_face_down() -> None:
    state = arranged_deal(2, "9C 2D 3H 4S", "5C 6D 7H 8S")
    view = state.observation(3)
    assert view.phase == "bid"
    assert view.hand == ("2D", "3H", "4S", "9C")
    assert view.hand_sizes == (0, 0, 0, 4)
    assert view.loose == () and view.face_down_floor == 4
    assert state.observation(0).hand == ()


def test_the_bidder_may_bid_only_house_values_he_holds() -> None:
    state = arranged_deal(0, "9C KD 3H 4S", "5C 6D 7H 8S")
    assert legal_texts(state) == ["bid 9", "bid 13"]
    with pytest.raises(IllegalActionError):
        act(state, "bid 12")


def _seed_with_redeal() -> int:
    return next(
        seed
        for seed in range(500)
        if any(e.kind == "throw_in" for e in GAME.new_state(seed).events)
    )


def test_a_bidder_with_no_card_above_8_shows_them_and_the_same_dealer_deals_again() -> None:
    state = GAME.new_state(_seed_with_redeal())
    shown = next(e for e in state.events if e.kind == "throw_in")
    assert shown.public
    assert shown.data["reason"] == "no_card_above_8"
    assert all(VALUE[CARD_INDEX[c]] <= 8 for c in shown.data["cards"])
    deals = [e for e in state.events if e.kind == "deal"]
    assert len(deals) >= 2
    assert {e.data["dealer"] for e in deals} == {state.dealer}
    view = state.observation(state.dealer)
    assert set(shown.data["cards"]) <= set(view.redeal_cards)
    assert view.deal_number == 1  # a redeal is not a new deal of the match
    assert any(VALUE[CARD_INDEX[c]] > 8 for c in state.observation(state.bidder).hand)


def test_the_bid_turns_the_floor_up_and_the_bidder_makes_play_1() -> None:
    state = arranged_deal(0, "9C KD 3H 4S", "5C 6D 7H 8S")
    act(state, "bid 13")
    view = state.observation(2)
    assert view.bid == 13
    assert view.loose == ("5C", "6D", "7H", "8S")
    assert view.face_down_floor == 0
    assert state.current_seat() == 1
    assert last_event(state, "floor") == {"cards": ["5C", "6D", "7H", "8S"]}


def test_after_play_1_the_rest_is_dealt_in_packets_from_the_bidder() -> None:
    deck = list(range(52))
    random.Random(4).shuffle(deck)
    while max(VALUE[c] for c in deck[:4]) <= 8:
        deck = deck[4:] + deck[:4]
    state = GAME.new_state(0, deal=chosen(3, deck))
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    b = 0
    expected: dict[int, list[int]] = {s: [] for s in range(4)} | {b: list(deck[:4])}
    order = (b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b + 1, b + 2, b + 3)
    for packet, seat in enumerate(order):
        expected[seat % 4] += deck[8 + 4 * packet : 12 + 4 * packet]
    sizes = state.observation(0).hand_sizes
    assert sizes == (11, 12, 12, 12)
    for seat in range(1, 4):
        assert state.observation(seat).hand == tuple(CARDS[c] for c in sorted(expected[seat]))
    received = [e for e in state.events if e.kind == "deal_rest"]
    assert [e.visible_to for e in received] == [(0,), (1,), (2,), (3,)]
    assert sorted(CARD_INDEX[c] for c in received[0].data["cards"]) == sorted(expected[0][4:])


def test_play_2_is_by_the_dealers_partner_and_the_dealer_makes_play_48() -> None:
    state = GAME.new_state(11)
    dealer = state.dealer
    state.apply(state.legal_actions()[0])
    rng = random.Random(1)
    seats = []
    while not any(e.kind == "hand_end" for e in state.events):
        seats.append(state.current_seat())
        state.apply(rng.choice(state.legal_actions()))
    assert len(seats) == 48
    assert seats[0] == (dealer + 1) % 4
    assert seats[1] == (dealer + 2) % 4
    assert seats[-1] == dealer
    assert all(b == (a + 1) % 4 for a, b in itertools.pairwise(seats))


# --- the opening play --------------------------------------------------------------------------


def test_the_opening_captures_or_throws_only_with_the_bid_value() -> None:
    state = arranged_deal(0, "9C KD 4H 2S", "5C 4D 7H 8S")
    act(state, "bid 13")
    texts = legal_texts(state)
    assert "capture KD 5C 8S" in texts
    assert not any(
        t.startswith(("capture 9C", "throw 9C", "capture 4H", "throw 2S")) for t in texts
    )


def test_the_opening_builds_only_the_bid_value_with_any_card() -> None:
    state = arranged_deal(0, "9C KD 4H 2S", "5C 4D 7H 8S")
    act(state, "bid 9")
    texts = legal_texts(state)
    assert "build 2S 9 7H" in texts and "build 4H 9 5C" in texts
    assert not any(t.startswith("build") and " 9 " not in t for t in texts)
    assert "capture 9C 4D 5C" in texts
    assert not any(t.startswith("build 9C") for t in texts)  # the only nine


def test_an_opening_sweep_scores_25() -> None:
    state = arranged_deal(0, "KC 2D 3H 4S", "5C 8D 6H 7S")
    act(state, "bid 13", "capture KC 5C 6H 7S 8D")
    pile = state.observation(0).piles[1]
    assert pile.sweeps == 1 and pile.sweep_points == 25
    assert state.observation(0).plays[0].bonus == 25


# --- THROW and CAPTURE -----------------------------------------------------------------------


def test_a_card_is_thrown_only_when_it_cannot_capture() -> None:
    state = position(to_move=1, hands={1: "5D 7C"}, loose="2H 3C")
    assert not is_legal(state, "throw 5D")
    assert is_legal(state, "capture 5D 2H 3C")
    assert is_legal(state, "throw 7C")
    act(state, "throw 7C")
    assert state.observation(0).loose == ("2H", "3C", "7C")


def test_a_card_of_a_houses_value_is_never_thrown_and_takes_the_house_alone() -> None:
    state = position(to_move=1, hands={1: "QH 4D"}, loose="5C", houses=[("9D 3C", [3])])
    assert plays_of(state, "capture", "QH") == ["capture QH"]
    assert not is_legal(state, "throw QH")
    act(state, "capture QH")
    assert state.observation(0).piles[1].cards == ("3C", "9D", "QH")


def test_a_capture_always_takes_the_house_of_the_cards_value() -> None:
    state = position(to_move=1, hands={1: "TH 2C"}, loose="6C 4D 9S", houses=[("8D 2S", [1])])
    assert plays_of(state, "capture", "TH") == ["capture TH 4D 6C"]
    act(state, "capture TH 4D 6C")
    assert state.observation(0).piles[1].cards == ("2S", "4D", "6C", "8D", "TH")
    assert state.observation(0).houses == ()


# --- BUILD -------------------------------------------------------------------------------------


def test_building_needs_another_card_of_the_house_value_in_hand() -> None:
    state = position(to_move=1, hands={1: "4D 2C"}, loose="8C")
    assert plays_of(state, "build", "4D") == []  # no queen: no building for partner
    state = position(to_move=1, hands={1: "4D QS"}, loose="8C")
    assert plays_of(state, "build", "4D") == ["build 4D 12 8C"]


def test_a_build_absorbs_every_loose_card_of_the_house_value_and_may_add_groups() -> None:
    state = position(to_move=1, hands={1: "4D QS"}, loose="3H 5C 7H 8C QD")
    assert plays_of(state, "build", "4D") == [
        "build 4D 12 3H 5C QD",
        "build 4D 12 5C 7H 8C QD",
        "build 4D 12 8C QD",
    ]
    act(state, "build 4D 12 8C QD")
    assert house_view(state, 12) == (("4D", "8C", "QD"), True, (1,))


def test_a_build_creates_a_house_of_value_9_to_13_only_with_loose_cards() -> None:
    state = position(to_move=1, hands={1: "3D 8S KH"}, loose="5C")
    texts = legal_texts(state)
    assert "build 3D 8 5C" not in texts  # 8 is no house value
    assert "build 8S 13 5C" in texts
    assert not any(t.startswith("build KH") for t in texts)  # no loose cards


def test_two_groupings_of_one_set_of_loose_cards_are_one_action() -> None:
    state = position(to_move=1, hands={1: "4D QS"}, loose="4S 8C 8H")
    assert plays_of(state, "build", "4D") == [
        "build 4D 12 4S 8C 8H",  # 4D+8C with 4S+8H, or 4D+8H with 4S+8C
        "build 4D 12 8C",
        "build 4D 12 8H",
    ]


def test_a_card_equal_to_the_value_builds_onto_loose_cards_if_another_is_kept() -> None:
    state = position(to_move=1, hands={1: "9C 9H"}, loose="9D 4C 5S")
    texts = plays_of(state, "build", "9C")
    assert texts == ["build 9C 9 4C 5S 9D", "build 9C 9 9D"]
    act(state, "build 9C 9 9D")
    assert house_view(state, 9) == (("9C", "9D"), True, (1,))
    state = position(to_move=1, hands={1: "9C 2H"}, loose="9D 4C 5S")
    assert plays_of(state, "build", "9C") == []


def test_a_second_house_of_a_value_cannot_be_built_the_cards_join_the_first() -> None:
    state = position(to_move=1, hands={1: "4D QS"}, loose="8C", houses=[("7D 5S", [3])])
    assert plays_of(state, "build", "4D") == []
    assert plays_of(state, "add", "4D") == ["add 4D 12 8C"]


# --- ADD ---------------------------------------------------------------------------------------


def test_an_owner_may_add_but_must_keep_a_card_of_the_value() -> None:
    houses = [("7D 5S", [1])]
    state = position(to_move=1, hands={1: "QC QS 2D"}, loose="3C", houses=houses)
    assert is_legal(state, "add QC 12")  # another queen stays in hand
    assert "add 2D 12" not in legal_texts(state)
    state = position(to_move=1, hands={1: "QC 2D"}, loose="TC", houses=houses)
    assert not is_legal(state, "add QC 12")  # his last queen
    assert is_legal(state, "add 2D 12 TC")


def test_adding_cements_a_house_which_then_can_no_longer_be_broken() -> None:
    state = position(to_move=1, hands={1: "QC QS", 2: "AH KC"}, loose="3C", houses=[("7D 5S", [1])])
    act(state, "add QC 12")
    assert house_view(state, 12)[1]
    assert state.current_seat() == 2
    assert plays_of(state, "break", "AH") == []


def test_adding_with_no_loose_card_needs_a_card_of_the_house_value() -> None:
    state = position(to_move=3, hands={3: "TC 2D"}, loose="5H", houses=[("7D 5S", [1])])
    assert plays_of(state, "add", "TC") == []  # 10 alone does not make 12
    assert "add 2D 12" not in legal_texts(state)


# --- BREAK -------------------------------------------------------------------------------------


def test_a_partners_ordinary_house_may_be_broken_and_the_breaker_takes_it_over() -> None:
    state = position(to_move=3, hands={3: "AD KS"}, loose="2C", houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "AD") == ["break AD 12"]
    act(state, "break AD 12")
    assert house_view(state, 13) == (("AD", "5S", "7D"), False, (3,))


def test_nobody_may_break_his_own_house() -> None:
    state = position(to_move=1, hands={1: "AD KS QC"}, houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "AD") == []


def test_a_cemented_house_cannot_be_broken() -> None:
    state = position(to_move=2, hands={2: "AD KS"}, houses=[("7D 5S QC", [1])])
    assert plays_of(state, "break", "AD") == []


def test_a_break_goes_no_higher_than_13_and_needs_the_new_value_in_hand() -> None:
    state = position(to_move=2, hands={2: "2D KS JH"}, houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "2D") == []  # 14
    state = position(to_move=2, hands={2: "AD 2S"}, houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "AD") == []  # no king
    state = position(to_move=2, hands={2: "AD KS"}, houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "AD") == ["break AD 12"]
    state = position(to_move=2, hands={2: "KD"}, houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "KD") == []  # 12 + 13 is no house value


def test_a_break_into_a_standing_house_merges_cements_and_adds_the_breaker() -> None:
    state = position(
        to_move=2,
        hands={2: "AD KS"},
        loose="6C",
        houses=[("7D 5S", [1]), ("9C 4H", [3])],
    )
    assert plays_of(state, "break", "AD") == ["break AD 12"]
    act(state, "break AD 12")
    view = state.observation(0)
    assert [h.value for h in view.houses] == [13]
    assert house_view(state, 13) == (("AD", "4H", "5S", "7D", "9C"), True, (2, 3))


def test_a_break_absorbs_every_loose_card_of_the_new_value() -> None:
    state = position(to_move=2, hands={2: "AD KS"}, loose="KH 4C 9D", houses=[("7D 5S", [1])])
    assert plays_of(state, "break", "AD") == ["break AD 12 4C 9D KH", "break AD 12 KH"]


# --- the retention check ---------------------------------------------------------------------


def test_no_play_may_leave_the_mover_owning_a_house_without_its_value() -> None:
    state = position(to_move=1, hands={1: "TC KH"}, loose="3D", houses=[("6D 4S", [1])])
    texts = legal_texts(state)
    assert "build TC 13 3D" not in texts  # his only ten would leave the 10-house
    assert "capture TC" in texts  # the ten takes its house
    state = position(to_move=1, hands={1: "TC TH KH"}, loose="3D", houses=[("6D 4S", [1])])
    assert "build TC 13 3D" in legal_texts(state)
    assert "add TC 10" in legal_texts(state)


def test_a_non_owner_may_play_his_last_card_of_a_house_value() -> None:
    state = position(to_move=1, hands={1: "TC KD"}, loose="3D", houses=[("6D 4S", [2])])
    assert is_legal(state, "build TC 13 3D")


# --- scores, bazzis, the match -----------------------------------------------------------------

SPADES_AND_ACES = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AC AD AH"


def test_a_sweep_on_the_last_play_counts_as_a_sweep_worth_nothing() -> None:
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 2}),
        dealer=0,
        piles=(SPADES_AND_ACES, "TD"),
        sweeps=([50], []),
        loose="2C",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["sweep_bonuses"] == [50, 0] and end["deal_scores"] == [144, 6]
    sweep = last_event(state, "capture")
    assert sweep["play"] == 48 and sweep["sweep"] and sweep["bonus"] == 0


def test_card_points_total_100() -> None:
    assert sum(POINTS) == 100
    assert POINTS[CARD_INDEX["KS"]] == 13 and POINTS[CARD_INDEX["TD"]] == 6
    assert POINTS[CARD_INDEX["AH"]] == 1 and POINTS[CARD_INDEX["KH"]] == 0


def test_a_lead_of_exactly_100_wins_the_bazzi() -> None:
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 2}),
        dealer=1,
        difference=40,
        deals_in_bazzi=2,  # a difference other than 0: not the bazzi's first deal
        deal_number=2,
        piles=("AS 2S 3S 4S 5S 6S 7S 9S TS JS KS AC AD AH TD", "QS 8S"),
        sweeps=([], []),
        loose="2C 5H",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [80, 20]
    assert end["difference"] == 0
    assert end["bazzi_over"] and end["bazzi_winner"] == 0
    assert state.scores() == [1, 0]
    assert state.dealer == 3  # seat 1 dealt and lost: d + 2


def test_the_9_point_rule_counts_sweep_bonuses() -> None:
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 2}),
        dealer=0,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AC AD AH", "TD 2H"),
        sweeps=([], [50]),
        loose="2C",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [94, 56]  # 6 card points and a sweep: no bazzi lost
    assert not end["bazzi_over"] and state.difference == 38


def test_a_level_difference_keeps_the_deal_with_the_same_dealer() -> None:
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 2}),
        dealer=1,
        piles=("KS QS JS TS 4S", "AS 2S 3S 5S 6S 7S 8S 9S AC AD AH TD"),
        sweeps=([], []),
        loose="2C",
        last="2D",
    )
    assert last_event(state, "hand_end")["deal_scores"] == [50, 50]
    assert state.difference == 0
    assert state.dealer == 1


def test_the_difference_runs_across_deals_and_the_trailing_dealer_deals_again() -> None:
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 2}),
        dealer=2,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS AC AD AH", "QS KS TD"),
        sweeps=([], []),
        loose="2C 5H",
        last="2D",
    )
    assert last_event(state, "hand_end")["deal_scores"] == [69, 31]
    assert state.difference == 38
    assert state.dealer == 3  # the dealer's team leads
    state = finish_deal(
        state,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS AC AD AH", "QS KS TD"),
        sweeps=([], [50]),
        loose="2C 5H",
        last="2D",
    )
    assert last_event(state, "hand_end")["deal_scores"] == [69, 81]
    assert state.difference == 26
    assert state.dealer == 3  # seat 3's team trails: it deals again


def test_the_match_lasts_the_bazzis_option_and_equal_bazzis_draw() -> None:
    assert GAME.info.resolve_options({})["bazzis"] == 1
    for bazzis in (1, 2):
        state = finish_deal(
            GAME.new_state(0, {"bazzis": bazzis}),
            dealer=0,
            piles=(SPADES_AND_ACES, "TD"),
            sweeps=([], []),
            loose="",
            last="2D",
        )
        if bazzis == 1:
            assert state.is_terminal() and state.winner() == 0 and state.scores() == [1, 0]
    assert not state.is_terminal()
    assert state.dealer == 3
    state = finish_deal(state, piles=("TD", SPADES_AND_ACES), sweeps=([], []), loose="", last="2D")
    assert state.is_terminal()
    assert state.scores() == [1, 1] and state.winner() is None
    assert last_event(state, "game_end") == {"winner": None, "scores": [1, 1]}


def test_a_deal_starts_the_match_from_its_bazzis_won_and_deal_number() -> None:
    deal = chosen(0, pack(0, "9C KD 3H 4S", "5C 6D 7H 8S", {}))
    later = dataclasses.replace(deal, scores=(1, 2), deal_number=9)
    state = GAME.new_state(0, {"bazzis": 5}, deal=later)
    assert state.scores() == [1, 2]
    back = state.initial_deal()
    assert (back.scores, back.deal_number, back.rest) == ((1, 2), 9, later.rest)
    view = state.observation(1)
    assert (view.deal_number, view.bazzi_number, view.deals_in_bazzi) == (9, 4, 1)
    refused = {
        (3, 2): r"scores are bazzis won, at least 0 and fewer than 5 \(the bazzis option\)",
        (-1, 0): "at least 0",
        (0, 0, 0): "tuple of 2 whole numbers, one per team",
    }
    for scores, message in refused.items():
        with pytest.raises(DealError, match=message):
            GAME.new_state(0, {"bazzis": 5}, deal=dataclasses.replace(deal, scores=scores))
    with pytest.raises(DealError, match="deal_number must be at least 4, one more than"):
        GAME.new_state(0, {"bazzis": 5}, deal=dataclasses.replace(later, deal_number=3))


def test_a_bazzi_open_after_50_deals_goes_to_the_team_ahead_or_is_void() -> None:
    assert GAME.info.resolve_options({})["max_deals"] == 50
    state = finish_deal(
        GAME.new_state(0, {"bazzis": 3}),
        dealer=0,
        deals_in_bazzi=49,
        deal_number=49,
        difference=-30,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S AC AD AH", "9S TS JS QS KS TD"),
        sweeps=([], []),
        loose="",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [39, 61]
    assert not end["bazzi_over"]  # deal 49 of the bazzi
    assert state.difference == -52
    assert state.deals_in_bazzi == 50
    state = finish_deal(
        state,
        piles=("AS 2S 3S 4S 5S 6S 7S 8S AC AD AH", "9S TS JS QS KS TD"),
        sweeps=([], []),
        loose="",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["bazzi_over"] and end["reason"] == "max_deals" and end["bazzi_winner"] == 1
    assert state.scores() == [0, 1] and state.difference == 0 and state.deals_in_bazzi == 1
    dealer = state.dealer
    before_void = state
    state = finish_deal(
        state,
        deals_in_bazzi=50,
        piles=("KS QS JS TS 4S", "AS 2S 3S 5S 6S 7S 8S 9S AC AD AH TD"),
        sweeps=([], []),
        loose="",
        last="2D",
    )
    end = last_event(state, "hand_end")
    assert end["deal_scores"] == [50, 50]
    assert end["bazzi_over"] and end["bazzi_winner"] is None  # void
    assert last_event(state, "bazzi_end")["winner"] is None
    assert state.scores() == [0, 1]
    # Rules §8: a void bazzi is decided; the undecided rule picks the dealer (D = 0), and
    # the dealer's partner deals next.
    assert state.dealer == end["next_dealer"] == (dealer + 2) % 4
    assert not state.is_terminal()
    # The former rule, for matches stored before: the same dealer dealt again.
    former = finish_deal(
        before_void,
        deals_in_bazzi=50,
        piles=("KS QS JS TS 4S", "AS 2S 3S 5S 6S 7S 8S 9S AC AD AH TD"),
        sweeps=([], []),
        loose="",
        last="2D",
        former=frozenset({VOID_BAZZI_SAME_DEALER}),
    )
    assert former.dealer == dealer


@pytest.mark.parametrize("seed", [17, 160])
def test_after_a_void_bazzi_the_dealers_partner_deals(seed: int) -> None:
    """Random play of one-deal bazzis (a deal that leaves the difference at 0 ends its
    bazzi void) where the first bazzi is void: §8 names d+2, and d+2 deals the next."""
    state = GAME.new_state(seed, {"bazzis": 2, "max_deals": 1})
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    kinds = [e.kind for e in state.events]
    first_end = kinds.index("hand_end")
    end = state.events[first_end].data
    dealt = [e.data["dealer"] for e in state.events[:first_end] if e.kind == "deal"][-1]
    after = next(e.data["dealer"] for e in state.events[first_end:] if e.kind == "deal")
    assert end["bazzi_over"] and end["bazzi_winner"] is None  # void
    assert end["next_dealer"] == after == (dealt + 2) % 4


def test_options_are_validated() -> None:
    with pytest.raises(OptionError):
        GAME.new_state(0, {"bazzis": 0})
    with pytest.raises(OptionError):
        GAME.new_state(0, {"max_deals": 0})
    with pytest.raises(OptionError):
        GAME.new_state(0, {"points": 100})
    assert get_game("seep").info.name == "seep"


# --- actions ------------------------------------------------------------------------------------

SECTION_9_TEXTS = (
    "bid 12",
    "throw QH",
    "capture JD 2H 3C 6S",
    "build 7D 12 5S",
    "add 4S 12 8C",
    "break AD 12 KH",
    "capture QH",
    "add QC 12",
    "break AD 12",
)


def test_section_9_texts_round_trip_through_their_ids() -> None:
    state = GAME.new_state(0)
    for text in SECTION_9_TEXTS:
        action = encode(text)
        assert 0 <= action < 2**63
        assert state.action_text(action) == text


def test_ascending_ids_are_the_canonical_order_of_section_9() -> None:
    rng = random.Random(7)

    def key(text: str) -> tuple[int, int, int, list[int]]:
        words = text.split()
        kind = KINDS.index(words[0])
        if kind == 0:
            return (0, 0, int(words[1]), [])
        rest = words[2:]
        value = int(rest.pop(0)) if kind in (2, 3, 4) else 0
        return (kind, CARD_INDEX[words[1]], value, [CARD_INDEX[c] for c in rest])

    texts = [f"bid {v}" for v in range(9, 14)]
    for _ in range(3000):
        kind = rng.choice(KINDS[1:])
        card = rng.choice(CARDS)
        others = [c for c in CARDS if c != card]
        loose = sorted(
            rng.sample(others, rng.choice((0, 1, 1, 2, 3, 5))), key=CARD_INDEX.__getitem__
        )
        if kind == "throw":
            texts.append(f"throw {card}")
        elif kind == "capture":
            texts.append(" ".join(["capture", card, *loose]))
        elif kind == "break":
            if VALUE[CARD_INDEX[card]] <= 4:
                texts.append(" ".join(["break", card, str(rng.randint(9, 13 - 1)), *loose]))
        elif loose:
            value = rng.randint(max(9, VALUE[CARD_INDEX[card]]), 13)
            texts.append(" ".join([kind, card, str(value), *loose]))
    texts = [t for t in set(texts) if not t.startswith("break") or _break_fits(t)]
    by_id = sorted(texts, key=encode)
    assert by_id == sorted(texts, key=key)
    state = GAME.new_state(0)
    assert all(state.action_text(encode(t)) == t for t in texts)


def _break_fits(text: str) -> bool:
    words = text.split()
    return int(words[2]) + VALUE[CARD_INDEX[words[1]]] <= 13


def test_a_prefix_comes_before_its_extensions_and_ids_stay_below_2_63() -> None:
    assert encode("capture KS") < encode("capture KS AC") < encode("capture KS AC KH")
    assert encode("capture KS AC KH") < encode("capture KS AD")
    assert encode("capture AC KS") < encode("build AC 9 2C")
    assert encode("break KC 9") < encode("throw AC")
    assert encode("throw KS") < 2**63


def test_action_payloads_carry_the_typed_action() -> None:
    state = GAME.new_state(0)
    assert state.action_payload(encode("bid 12")) == ("bid", 12)
    assert state.action_payload(encode("throw QH")) == ("throw", "QH")
    assert state.action_payload(encode("capture JD 2H 3C 6S")) == (
        "capture",
        SeepCapture("JD", ("2H", "3C", "6S")),
    )
    assert state.action_payload(encode("build 7D 12 5S")) == (
        "build",
        SeepBuild("7D", 12, ("5S",)),
    )
    assert state.action_payload(encode("add QC 12")) == ("add", SeepAdd("QC", 12, ()))
    assert state.action_payload(encode("break AD 12 KH")) == (
        "break_house",
        SeepBreak("AD", 12, 13, ("KH",)),
    )


def test_ids_that_are_no_seep_action_are_rejected() -> None:
    state = GAME.new_state(0)
    not_actions = (
        -1,
        2**63,
        1560 << 52,
        (((1 * 52 + 51) * 5) << 52) | lexicographic_rank([51]),  # KS captures itself
        ((0 * 52 + 3) * 5) << 52,  # a bid with a card
        ((4 * 52 + 0) * 5 + 4) << 52,  # break a 13-house
        ((2 * 52 + 0) * 5) << 52,  # build without loose cards
        ((3 * 52 + 0) * 5) << 52,  # add an ace alone to a 9-house
    )
    for bad in not_actions:
        with pytest.raises(IllegalActionError):
            state.action_text(bad)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    state = position(to_move=2, hands={2: "JD 3H"}, loose="2H 3C 5D 6S")
    before = state.snapshot()
    for text in ("throw JD", "capture JD 6S", "bid 12", "throw 3C"):
        with pytest.raises(IllegalActionError):
            act(state, text)
    assert state.snapshot() == before


# --- observation --------------------------------------------------------------------------------


def test_the_observation_shows_own_hand_the_floor_and_the_public_record() -> None:
    state = arranged_deal(0, "3C 7D QH 2S", "9D 5S 4C KH", E1_HANDS)
    act(state, "bid 12", "build 7D 12 5S", "break AD 12 KH")
    view = state.observation(3)
    assert view.seat == 3 and view.dealer == 0 and view.bidder == 1 and view.bid == 12
    assert "KC" in view.hand and len(view.hand) == 12
    assert view.loose == ("4C", "9D")
    assert view.houses[0].owners == (2,) and view.houses[0].cemented
    assert view.hand_sizes == (12, 11, 11, 12)
    assert view.play_number == 2
    assert [(p.seat, p.kind, p.card, p.value) for p in view.plays] == [
        (1, "build", "7D", 12),
        (2, "break", "AD", 13),
    ]
    assert view.plays[1].broken_value == 12 and view.plays[1].loose == ("KH",)
    assert view.captured_counts == (0, 0) and view.last_capture_team is None
    assert view.scores == (0, 0) and view.difference == 0
    assert view.bazzi_number == 1 and view.bazzis == 1 and view.max_deals == 50
    assert view.deal_number == 1 and view.deals_in_bazzi == 1
    assert "AD" not in state.observation(1).hand


def test_the_public_table_shows_exactly_the_floor_after_every_play() -> None:
    import random as _random

    from arena.games.seep.game import PRETTY, SeepGame

    state = SeepGame().new_state(12, {"bazzis": 1})
    rng = _random.Random(3)
    names = set(PRETTY)
    plays = 0
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        is_play = not state.action_text(action).startswith("bid")
        state.apply(action)
        if not is_play or state.is_terminal():
            continue
        plays += 1
        table = state.public_table()
        assert table.startswith("Floor: ")
        words = table.translate(str.maketrans("[];", "   ")).split()
        shown = {w for w in words if w in names}
        floor = state.observation(0)
        on_floor = {*floor.loose, *(c for h in floor.houses for c in h.cards)}
        assert shown == {PRETTY[CARD_INDEX[c]] for c in on_floor}
    assert plays > 0


def test_a_chosen_deal_whose_bidder_has_no_card_above_8_is_thrown_in_and_redealt() -> None:
    deck = [CARD_INDEX[c] for c in ["2C", "3D", "7H", "8S"]]
    deck += [c for c in range(52) if c not in deck]
    state = GAME.new_state(5, deal=chosen(2, deck))
    thrown = last_event(state, "throw_in")
    assert thrown["cards"] == ["2C", "3D", "7H", "8S"] and thrown["dealer"] == 2
    assert state.observation(0).redeal_cards == ("2C", "3D", "7H", "8S")
    assert [e.kind for e in state.events].count("deal") >= 2
    assert state.current_seat() == 3 and state.observation(3).phase == "bid"
    assert state.initial_deal().dealer == 2
    assert state.initial_deal().hands[3] != ("2C", "3D", "7H", "8S")


def test_a_deal_must_give_the_bidder_four_cards_and_the_others_none() -> None:
    deck = list(range(52))
    deal = chosen(0, deck)
    wrong = Deal((deal.hands[1], (), (), ()), 0, deal.rest)
    with pytest.raises(DealError, match="seat 0 must be dealt 0 cards"):
        GAME.new_state(0, deal=wrong)
