"""Persian Rummy rules, one test per rule, plus the worked examples of the specification.

Positions are set up through the public API, with ``arranged`` (a deal in progress,
``PersianRummyGame.from_position``) or ``reached`` (a chosen deal and public play), and
then driven by canonical action text. Action
ids are computed here from the encoding documented in the engine's docstring, so the
tests also pin that encoding down.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from arena import wire
from arena.games.api import Deal, DealError, GameError, IllegalActionError
from arena.games.persian_rummy.game import (
    CARDS,
    VALUE,
    PersianRummyDiscard,
    PersianRummyGame,
    PersianRummyLayoffCards,
    PersianRummyMeldCards,
    PersianRummyPosition,
    PersianRummyState,
    PersianRummyTableMeld,
)
from arena.games.registry import get_game
from arena.games.tricks import PlayedCard
from arena.v1 import persian_rummy_pb2

GAME = PersianRummyGame()
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"
JOKERS = ("X1", "X2", "X3", "X4")
PACK = [r + s for r in RANK_CHARS for s in SUIT_CHARS] + list(JOKERS)
SET_SUITS = ((0, 1, 2), (0, 1, 2, 3), (0, 1, 3), (0, 2, 3), (1, 2, 3))

# --- helpers -------------------------------------------------------------------------------


def index(code: str) -> int:
    """Canonical card index: 4 * rank + suit, jokers 52..55."""
    if code[0] == "X":
        return 51 + int(code[1])
    return 4 * RANK_CHARS.index(code[0]) + SUIT_CHARS.index(code[1])


def action_id(text: str) -> int:
    """The id of an action from its canonical text, by the documented encoding."""
    word, *rest = text.split()
    if word == "draw":
        return 0
    if word == "take":
        return 1 + int(rest[0])
    if word == "pass":
        return 57
    if word == "discard":
        return 2**24 + index(rest[0])
    if word == "meld":
        cards = sorted(index(c) for c in rest)
        if cards[0] // 4 == cards[1] // 4:
            shape = SET_SUITS.index(tuple(c % 4 for c in cards))
        else:
            shape = 16 + len(cards)
        return 64 + 32 * cards[0] + shape
    assert word == "layoff"
    meld, cards = int(rest[0]), sorted(index(c) for c in rest[1:])
    ranks = 0 if cards[0] >= 52 else sum(1 << (c // 4) for c in cards)
    return 2048 + 8192 * (56 * meld + cards[0]) + ranks


def arranged_position(
    hands: Sequence[str],
    *,
    pile: str,
    stock: str | None = None,
    table: Sequence[tuple[int, str]] = (),
    dealer: int = 3,
    to_act: int | None = None,
    deal_number: int = 1,
    scores: tuple[int, int] = (0, 0),
) -> PersianRummyPosition:
    """A deal in progress at the start of a turn, as a ``PersianRummyPosition``.

    ``hands`` has one string of codes per seat; ``pile`` lists the discard pile from the
    bottom (turned up, then discarded by the seats before ``to_act``, the top one by the
    seat just before); ``stock`` lists the stock from the top (default: every card named
    nowhere else, in canonical order; when given, cards named nowhere are out of play).
    ``table`` holds earlier plays of this deal, ``(seat, "meld ..." or "layoff m ...")``,
    in order; a meld of a set of four is doubled. The turn starts at its draw for
    ``to_act`` (default: the dealer's left).
    """
    melds: list[PersianRummyTableMeld] = []
    for seat, play in table:
        word, *rest = play.split()
        if word == "meld":
            cards = sorted(rest, key=index)
            kind = "set" if index(cards[0]) // 4 == index(cards[1]) // 4 else "run"
            placed = tuple(PlayedCard(seat, card) for card in cards)
            doubled = kind == "set" and len(cards) == 4
            melds.append(PersianRummyTableMeld(len(melds), kind, placed, doubled, seat))
        else:
            assert word == "layoff"
            meld = melds[int(rest[0])]
            added = [*meld.cards, *(PlayedCard(seat, card) for card in rest[1:])]
            added.sort(key=lambda played: index(played.card))
            melds[meld.id] = dataclasses.replace(meld, cards=tuple(added))
    placed_cards = [played.card for meld in melds for played in meld.cards]
    named = [card for hand in hands for card in hand.split()] + pile.split() + placed_cards
    assert len(named) == len(set(named)), "a card is named twice"
    stock_cards = [c for c in PACK if c not in named] if stock is None else stock.split()
    assert not set(stock_cards) & set(named)
    seat = (dealer + 1) % 4 if to_act is None else to_act
    pile_cards = pile.split()
    discards = tuple(
        PersianRummyDiscard(card, None if i == 0 else (seat - len(pile_cards) + i) % 4)
        for i, card in enumerate(pile_cards)
    )
    return PersianRummyPosition(
        hands=tuple(tuple(hand.split()) for hand in hands),
        to_act=seat,
        dealer=dealer,
        stock=tuple(stock_cards),
        pile=discards,
        melds=tuple(melds),
        deal_number=deal_number,
        scores=scores,
        out_of_play=tuple(c for c in PACK if c not in named and c not in stock_cards),
    )


def arranged(
    hands: Sequence[str],
    *,
    pile: str,
    stock: str | None = None,
    table: Sequence[tuple[int, str]] = (),
    dealer: int = 3,
    to_act: int | None = None,
    deal_number: int = 1,
    scores: tuple[int, int] = (0, 0),
) -> PersianRummyState:
    """A match going on from ``arranged_position(...)``, through ``from_position``."""
    position = arranged_position(
        hands,
        pile=pile,
        stock=stock,
        table=table,
        dealer=dealer,
        to_act=to_act,
        deal_number=deal_number,
        scores=scores,
    )
    return GAME.from_position(position)


def act(state: PersianRummyState, *texts: str) -> None:
    for text in texts:
        state.apply(action_id(text))


def legal_texts(state: PersianRummyState) -> list[str]:
    return [state.action_text(a) for a in state.legal_actions()]


def hand(state: PersianRummyState, seat: int) -> list[str]:
    return list(state.observation(seat).hand)


def last_event(state: PersianRummyState, kind: str) -> dict[str, object]:
    return dict(next(e for e in reversed(state.events) if e.kind == kind).data)


def meld_cards(state: PersianRummyState, meld: int) -> list[tuple[int, str]]:
    return [(p.seat, p.card) for p in state.observation(0).melds[meld].cards]


OTHERS = ("4D 7D TD", "3S 4S 6S 7S", "KD KS AS")
"""Hands for seats 1-3 when a test is only about seat 0."""

# --- worked examples -----------------------------------------------------------------------

P1_HAND = "JC JH 5D 6D 8S TS 3H"
P1_PILE = "4C JD 9S 2H KC"


def reached(hand_0: str, pile: str, stock_top: str = "") -> PersianRummyState:
    """Seat 0 starting its turn with seven cards ``hand_0`` and the discard pile ``pile``
    (bottom first), reached by public play from a chosen deal: the dealer is the seat
    that makes seat 0 act after ``len(pile) - 1`` turns; the bottom card is turned up and
    each of those turns draws the next pile card and discards it. Seats 1-3 hold
    ``OTHERS`` filled up to seven in canonical order; the stock's top cards are then
    ``stock_top``."""
    cards = pile.split()
    dealer = -len(cards) % 4
    named = {*hand_0.split(), *cards, *" ".join(OTHERS).split(), *stock_top.split()}
    spare = [c for c in PACK if c not in named]
    hands = [hand_0.split()]
    for other in OTHERS:
        need = 7 - len(other.split())
        hands.append(other.split() + spare[:need])
        spare = spare[need:]
    rest = [*cards, *stock_top.split(), *spare]
    state = GAME.new_state(0, deal=Deal.of(hands, dealer, " ".join(rest)))
    for card in cards[1:]:
        act(state, "draw", f"discard {card}")
    assert state.current_seat() == 0
    assert hand(state, 0) == sorted(hand_0.split(), key=index)
    assert [d.card for d in state.observation(0).discard_pile] == cards
    return state


def p1_position(stock_top: str = "") -> PersianRummyState:
    """Example P1, reached by public play (``reached``)."""
    return reached(P1_HAND, P1_PILE, stock_top)


def test_p1_taking_jack_at_index_1_takes_all_above_and_must_meld_it_first() -> None:
    state = p1_position()
    assert state.current_seat() == 0
    assert legal_texts(state) == ["draw", "take 1", "take 2"]
    act(state, "take 1")
    assert hand(state, 0) == ["2H", "3H", "5D", "6D", "8S", "9S", "TS", "JC", "JD", "JH", "KC"]
    assert state.observation(0).discard_pile[-1].card == "4C"
    assert state.observation(0).chosen_card == "JD"
    assert legal_texts(state) == ["meld JC JD JH"]
    act(state, "meld JC JD JH")
    assert "meld 8S 9S TS" in legal_texts(state)
    act(state, "meld 8S 9S TS", "discard KC")
    assert state.current_seat() == 1
    assert [d.card for d in state.observation(1).discard_pile] == ["4C", "KC"]


def test_p1_take_0_and_take_4_are_illegal_and_change_nothing() -> None:
    state = p1_position()
    before = state.snapshot()
    for text in ("take 0", "take 4", "take 3", "pass"):
        with pytest.raises(IllegalActionError):
            act(state, text)
    assert state.snapshot() == before


P2_TABLE = (
    (1, "meld KC KD KH"),
    (0, "meld 7C 7D 7H 7S"),
    (2, "meld 9H TH JH"),
    (3, "meld X1 X2 X3"),
    (1, "meld 2C 3C 4C"),
    (3, "layoff 4 5C"),
)
P2_HANDS = ("KS", "X4 QD", "AS 4D", "6S 8D")


def test_p2_deal_score_a_111_b_60() -> None:
    state = arranged(P2_HANDS, pile="3D QH", table=P2_TABLE)
    act(state, "take 1", "layoff 2 QH", "layoff 0 KS")
    end = last_event(state, "hand_end")
    assert end["went_out"] == 0
    assert end["table"] == [56 + 29 + 10 + 10, 30 + 60 + 9 + 5]
    assert end["in_hand"] == [19, 30 + 14]
    assert end["bonus"] == [25, 0]
    assert end["points"] == [111, 60]
    assert state.scores() == [111, 60]
    layoff = next(e for e in reversed(state.events) if e.kind == "layoff")
    assert layoff.seat == 0 and layoff.data == {"meld": 0, "cards": ["KS"], "points": 10}


def test_p3_equal_game_totals_are_a_draw() -> None:
    state = arranged(
        ("AS 6D", "3D", "", "6C"),
        pile="2D",
        stock="",
        table=((0, "meld 2S 3S 4S"), (1, "meld KC KD KH"), (3, "meld 3H 4H 5H 6H")),
        dealer=0,
        deal_number=2,
        scores=(111, 60),
    )
    for seat in (1, 2, 3, 0):
        assert state.current_seat() == seat
        assert legal_texts(state) == ["pass"]
        act(state, "pass")
    assert last_event(state, "hand_end")["points"] == [-12, 39]
    assert state.scores() == [99, 99]
    assert state.is_terminal()
    assert state.winner() is None
    assert last_event(state, "game_end") == {"winner": None, "scores": [99, 99]}


def test_p4_empty_stock_take_lay_off_discard_last_card_then_four_passes_end_the_deal() -> None:
    state = arranged(
        ("9C", "2H", "2C", "6C"),
        pile="3C 9H 4H TC JC 8D",
        stock="",
        table=(
            (0, "meld 2S 3S 4S"),
            (1, "meld KC KD KH"),
            (3, "meld QS KS AS"),
            (0, "meld 5D 6D 7D"),
        ),
        dealer=0,
    )
    act(state, "pass")
    assert state.current_seat() == 2
    act(state, "take 5", "layoff 3 8D", "discard 2C")
    assert state.observation(2).hand == ()
    assert not state.is_terminal() and state.current_seat() == 3
    act(state, "pass", "pass", "pass")
    assert state.observation(2).passes == 3
    assert legal_texts(state) == ["pass"]
    assert state.observation(0).deal_number == 1
    act(state, "pass")
    end = last_event(state, "hand_end")
    assert end["went_out"] is None
    assert end["bonus"] == [0, 0]
    assert end["points"] == [9 + 18 + 8 - 9, 30 + 35 - 2 - 6]
    assert state.observation(0).deal_number == 2


# --- the pack, the draw for dealer, the deal ------------------------------------------------


def test_the_pack_is_52_cards_and_four_jokers_in_canonical_order() -> None:
    assert list(CARDS) == PACK
    assert len(set(CARDS)) == 56
    assert CARDS[-4:] == JOKERS


def test_card_values_joker_20_ace_15_faces_and_ten_10_others_pips() -> None:
    values = dict(zip(CARDS, VALUE, strict=True))
    assert [values[c] for c in ("X3", "AS", "KH", "QD", "JC", "TS", "9H", "2C")] == [
        20,
        15,
        10,
        10,
        10,
        10,
        9,
        2,
    ]


def expected_draw_and_deal(seed: int) -> tuple[list[list[tuple[int, str]]], int, list[str]]:
    """The draw for the first dealer and the first deal's order, from the seed alone."""
    rng = random.Random(seed)
    draw_rank = {c: 14 if c[0] == "X" else 1 if c[0] == "A" else index(c) // 4 + 2 for c in PACK}
    candidates = [0, 1, 2, 3]
    rounds = []
    while True:
        deck = list(PACK)
        rng.shuffle(deck)
        drawn = list(zip(candidates, deck, strict=False))
        rounds.append(drawn)
        low = min(draw_rank[c] for _, c in drawn)
        candidates = [s for s, c in drawn if draw_rank[c] == low]
        if len(candidates) == 1:
            break
    deck = list(PACK)
    rng.shuffle(deck)
    return rounds, candidates[0], deck


def test_first_dealer_is_the_lowest_of_a_draw_with_aces_low_and_jokers_high() -> None:
    for seed in range(30):
        state = GAME.new_state(seed)
        rounds, dealer, _ = expected_draw_and_deal(seed)
        assert state.observation(0).dealer == dealer
        draw = last_event(state, "dealer_draw")
        assert draw["dealer"] == dealer
        assert draw["draws"] == [[{"seat": s, "card": c} for s, c in one] for one in rounds]


def test_players_tied_for_lowest_draw_again_until_one_is_lowest() -> None:
    seed = next(s for s in range(1000) if len(expected_draw_and_deal(s)[0]) > 1)
    state = GAME.new_state(seed)
    draws = last_event(state, "dealer_draw")["draws"]
    assert isinstance(draws, list) and len(draws) > 1
    first = draws[0]
    rank = {c: 14 if c[0] == "X" else 1 if c[0] == "A" else index(c) // 4 + 2 for c in PACK}
    low = min(rank[d["card"]] for d in first)
    assert [d["seat"] for d in draws[1]] == [d["seat"] for d in first if rank[d["card"]] == low]


def test_seven_cards_each_one_at_a_time_from_dealers_left_stock_top_turned_up() -> None:
    for seed in range(20):
        state = GAME.new_state(seed)
        _, dealer, deck = expected_draw_and_deal(seed)
        hands: list[list[str]] = [[], [], [], []]
        for k, card in enumerate(deck[:28]):
            hands[(dealer + 1 + k) % 4].append(card)
        deal = state.events[0]
        assert deal.kind == "deal" and deal.visible_to == ()
        assert [sorted(h) for h in deal.data["hands"]] == [sorted(h) for h in hands]
        assert deal.data["stock"] == deck[28:]
        view = state.observation(0)
        assert (view.seat, view.dealer, view.deal_number, view.phase) == (0, dealer, 1, "draw")
        assert (view.scores, view.table_points, view.passes) == ((0, 0), (0, 0), 0)
        assert view.chosen_card is None and view.melds == ()
        assert [d.card for d in view.discard_pile] == [deck[28]]
        assert view.discard_pile[0].seat is None
        assert view.stock_size == 27
        assert view.hand_sizes == (7, 7, 7, 7)
        assert state.current_seat() == (dealer + 1) % 4
        assert legal_texts(state)[0] == "draw"


def test_teams_are_seats_0_and_2_against_1_and_3() -> None:
    info = get_game("persian-rummy").info
    assert info.seat_teams == (0, 1, 0, 1)
    assert info.num_seats == 4


# --- drawing -------------------------------------------------------------------------------


def test_draw_takes_the_top_stock_card_privately() -> None:
    state = p1_position("AH 2C 3C")
    size = state.observation(0).stock_size
    act(state, "draw")
    assert "AH" in hand(state, 0)
    assert state.observation(0).stock_size == size - 1
    assert state.observation(0).phase == "meld"
    draw, card = state.events[-2:]
    assert draw.kind == "draw" and draw.public and draw.seat == 0 and "card" not in draw.data
    assert card.visible_to == (0,) and card.data["card"] == "AH"


def test_the_turn_that_draws_the_last_stock_card_goes_on_normally() -> None:
    state = arranged([P1_HAND, *OTHERS], pile=P1_PILE, stock="9D")
    act(state, "draw")
    assert state.observation(0).stock_size == 0
    assert "discard 9D" in legal_texts(state)
    act(state, "discard 9D")
    assert "pass" in legal_texts(state)
    assert "draw" not in legal_texts(state)


def test_pass_is_legal_only_on_an_empty_stock_and_is_the_whole_turn() -> None:
    state = p1_position()
    assert "pass" not in legal_texts(state)
    state = arranged([P1_HAND, *OTHERS], pile=P1_PILE, stock="")
    assert legal_texts(state) == ["take 1", "take 2", "pass"]
    act(state, "pass")
    assert state.current_seat() == 1
    assert state.observation(1).phase == "draw"
    assert sorted(hand(state, 0)) == sorted(P1_HAND.split())


def test_the_discard_pile_never_becomes_a_new_stock() -> None:
    state = arranged([P1_HAND, *OTHERS], pile=P1_PILE, stock="")
    for _ in range(3):
        act(state, "pass")
    assert state.observation(3).stock_size == 0
    assert len(state.observation(3).discard_pile) == 5
    assert "draw" not in legal_texts(state)


# --- taking from the pile ------------------------------------------------------------------


def test_taking_the_top_card_alone_also_requires_melding_it() -> None:
    state = reached("QC KC 2D 3D 4H 9S 9H", "4C JD AC")
    assert legal_texts(state) == ["draw", "take 2"]
    act(state, "take 2")
    assert state.observation(0).phase == "use_chosen"
    assert legal_texts(state) == ["meld QC KC AC"]
    assert state.observation(1).chosen_card == "AC"


def test_a_take_is_legal_through_laying_the_chosen_card_off_on_an_opponents_meld() -> None:
    state = arranged(
        ["2H 9S", "3C 4C", "TD 2C", "4S 5S"],
        pile="JC 5H KD",
        table=((1, "meld 6H 7H 8H"),),
        dealer=3,
    )
    assert legal_texts(state) == ["draw", "take 1"]
    act(state, "take 1")
    assert legal_texts(state) == ["layoff 0 5H"]
    act(state, "layoff 0 5H")
    assert meld_cards(state, 0)[0] == (0, "5H")
    assert state.observation(0).table_points == (5, 21)


def test_after_a_take_only_melds_and_layoffs_using_the_chosen_card_are_offered() -> None:
    state = reached("6C 7C 8C 9C 5S 5H QD", "2C 5C")
    assert legal_texts(state) == ["draw", "take 1"]
    act(state, "take 1")
    assert legal_texts(state) == [
        "meld 5C 5H 5S",
        "meld 5C 6C 7C",
        "meld 5C 6C 7C 8C",
        "meld 5C 6C 7C 8C 9C",
    ]
    act(state, "meld 5C 6C 7C")
    texts = legal_texts(state)
    assert texts[:3] == ["layoff 0 8C", "layoff 0 8C 9C", "discard 5H"]


def test_cards_taken_with_the_chosen_one_may_be_discarded_in_the_same_turn() -> None:
    state = p1_position()
    act(state, "take 1", "meld JC JD JH", "discard 2H")
    assert state.observation(1).discard_pile[-1].card == "2H"
    assert state.observation(1).discard_pile[-1].seat == 0


def test_cards_taken_from_the_pile_are_public_while_held() -> None:
    state = p1_position()
    act(state, "take 1", "meld JC JD JH", "discard 2H")
    for seat in range(4):
        known = state.observation(seat).known_cards
        assert [k.seat for k in known] == [0, 1, 2, 3]
        assert known[0].cards == ("9S", "KC")
        assert all(k.cards == () for k in known[1:])


# --- melds ---------------------------------------------------------------------------------


def test_four_of_a_rank_offer_the_five_sets_in_card_order() -> None:
    state = arranged(["8C 8D 8H 8S 3C", *OTHERS], pile="2H")
    act(state, "draw")
    melds = [t for t in legal_texts(state) if t.startswith("meld")]
    assert melds == [
        "meld 8C 8D 8H",
        "meld 8C 8D 8H 8S",
        "meld 8C 8D 8S",
        "meld 8C 8H 8S",
        "meld 8D 8H 8S",
    ]


def test_runs_are_three_or_more_of_a_suit_with_aces_high_only() -> None:
    state = arranged(["QH KH AH 2H 3H 5H", *OTHERS], pile="2C", stock="9C")
    act(state, "draw")
    melds = [t for t in legal_texts(state) if t.startswith("meld")]
    assert melds == ["meld QH KH AH"]


def test_a_set_and_a_run_from_the_same_lowest_card_list_the_set_first() -> None:
    state = arranged(["5C 5D 5H 6C 7C JS", *OTHERS], pile="2H", stock="9H")
    act(state, "draw")
    assert legal_texts(state)[:3] == ["meld 5C 5D 5H", "meld 5C 6C 7C", "discard 5C"]
    assert state.legal_actions() == sorted(state.legal_actions())


def test_jokers_are_not_wild_and_only_make_all_joker_sets() -> None:
    state = arranged(["X1 X2 X3 X4 QH KH", *OTHERS], pile="2C", stock="JC")
    act(state, "draw")
    melds = [t for t in legal_texts(state) if t.startswith(("meld", "layoff"))]
    assert melds == [
        "meld X1 X2 X3",
        "meld X1 X2 X3 X4",
        "meld X1 X2 X4",
        "meld X1 X3 X4",
        "meld X2 X3 X4",
    ]


def test_a_joker_cannot_be_taken_to_fill_a_run_or_a_set() -> None:
    state = arranged(["QH KH 9C 9D X1 2S", *OTHERS], pile="X2")
    assert legal_texts(state) == ["draw"]
    state = arranged(["QH KH X3 9D X1 2S", *OTHERS], pile="X2")
    assert legal_texts(state) == ["draw", "take 0"]


def test_the_fourth_joker_can_be_laid_off_on_three_jokers() -> None:
    state = arranged(["X3 2C", "TH", "5C", "7D"], pile="AD", table=((1, "meld X1 X2 X4"),))
    act(state, "draw")
    assert legal_texts(state)[0] == "layoff 0 X3"
    act(state, "layoff 0 X3")
    assert meld_cards(state, 0) == [(1, "X1"), (1, "X2"), (0, "X3"), (1, "X4")]


def test_no_minimum_first_meld() -> None:
    state = arranged(["2C 3C 4C 9H", *OTHERS[:1], "KS", "QS"], pile="AD", stock="8H")
    act(state, "draw", "meld 2C 3C 4C")
    assert state.observation(1).table_points == (9, 0)


# --- lay-offs ------------------------------------------------------------------------------


def test_several_cards_may_be_laid_off_at_once_at_either_or_both_ends_of_a_run() -> None:
    state = arranged(["3H 4H 8H 9H JC", "QD", "KS", "2S"], pile="AD", table=((2, "meld 5H 6H 7H"),))
    act(state, "draw")
    layoffs = [t for t in legal_texts(state) if t.startswith("layoff")]
    assert layoffs == [
        "layoff 0 3H 4H",
        "layoff 0 3H 4H 8H",
        "layoff 0 3H 4H 8H 9H",
        "layoff 0 4H",
        "layoff 0 4H 8H",
        "layoff 0 4H 8H 9H",
        "layoff 0 8H",
        "layoff 0 8H 9H",
    ]
    act(state, "layoff 0 8H 9H")
    assert [c for _, c in meld_cards(state, 0)] == ["5H", "6H", "7H", "8H", "9H"]
    assert state.observation(0).table_points == (18 + 17, 0)


def test_a_layoff_completes_a_set_of_three_and_a_set_of_four_takes_nothing() -> None:
    state = arranged(
        ["QS 4D 2C", "TH", "5C", "7D"],
        pile="AD",
        table=((1, "meld QC QD QH"), (3, "meld 4C 4H 4S")),
    )
    act(state, "draw")
    layoffs = [t for t in legal_texts(state) if t.startswith("layoff")]
    assert layoffs == ["layoff 0 QS", "layoff 1 4D"]
    act(state, "layoff 1 4D")
    assert [t for t in legal_texts(state) if t.startswith("layoff")] == ["layoff 0 QS"]


def test_lay_offs_go_on_any_meld_even_before_owning_one_and_score_for_the_layer() -> None:
    state = arranged(["JH 2C", "TH", "5C", "7D"], pile="AD", table=((1, "meld QH KH AH"),))
    act(state, "draw", "layoff 0 JH")
    assert meld_cards(state, 0)[0] == (0, "JH")
    assert state.observation(3).table_points == (10, 35)


# --- discarding and going out --------------------------------------------------------------


def test_discard_ends_the_turn_and_the_next_seat_draws() -> None:
    state = p1_position()
    act(state, "draw", "discard 3H")
    assert state.current_seat() == 1
    assert state.observation(1).phase == "draw"
    assert state.observation(1).discard_pile[-1].card == "3H"


def test_discarding_the_last_card_does_not_end_the_deal_and_the_empty_hand_still_draws() -> None:
    state = arranged(["9C TC 2D", "2H 3S", "2C 4S", "6C 8S"], pile="AD", stock="JC KD QS JS 5H")
    act(state, "draw", "meld 9C TC JC", "discard 2D")
    assert state.observation(0).hand_sizes[0] == 0
    assert not state.is_terminal() and state.observation(0).deal_number == 1
    assert last_event(state, "discard") == {"card": "2D"}
    act(state, "draw", "discard KD", "draw", "discard QS", "draw", "discard JS")
    assert state.current_seat() == 0
    assert legal_texts(state)[0] == "draw"
    act(state, "draw")
    assert hand(state, 0) == ["5H"]


def test_going_out_by_melding_the_last_cards_ends_the_deal_with_25() -> None:
    state = arranged(["9C TC", "2H 3S", "2C 4S", "6C 8S"], pile="AD", stock="JC 5H")
    act(state, "draw", "meld 9C TC JC")
    end = last_event(state, "hand_end")
    assert end["went_out"] == 0
    assert end["points"] == [29 + 25 - 6, -(5 + 14)]
    kinds = [e.kind for e in state.events]
    assert kinds[kinds.index("hand_end") - 2 : kinds.index("hand_end") + 2] == [
        "meld",
        "go_out",
        "hand_end",
        "deal",
    ]
    assert state.observation(0).deal_number == 2


def test_a_player_may_go_out_on_the_turn_of_a_take() -> None:
    state = arranged(["TH", "2D", "3D", "4D"], pile="AD JH", table=((2, "meld 7H 8H 9H"),))
    assert legal_texts(state) == ["draw", "take 1"]
    act(state, "take 1")
    assert legal_texts(state) == ["layoff 0 TH JH"]
    act(state, "layoff 0 TH JH")
    end = last_event(state, "hand_end")
    assert end["went_out"] == 0
    assert end["bonus"] == [25, 0]


def test_an_empty_hand_may_take_when_the_taken_cards_meld() -> None:
    state = arranged(["", "2D", "3D", "4D"], pile="5C 6C 7C", stock="")
    assert legal_texts(state) == ["take 0", "pass"]
    act(state, "take 0", "meld 5C 6C 7C")
    assert last_event(state, "hand_end")["went_out"] == 0


# --- the end of the stock ------------------------------------------------------------------


def test_four_passes_in_a_row_end_the_deal_without_a_going_out_bonus() -> None:
    state = arranged(["9C", "2H", "2C", "JD QD"], pile="5S KD", stock="")
    act(state, "pass", "pass", "pass")
    assert state.observation(0).passes == 3
    act(state, "pass")
    end = last_event(state, "hand_end")
    assert end["went_out"] is None and end["bonus"] == [0, 0]
    assert end["points"] == [-(9 + 2), -(2 + 10 + 10)]


def test_a_take_resets_the_passes_and_four_more_are_needed() -> None:
    state = arranged(["9C", "2H", "2C", "JD QD AS"], pile="5S KD", stock="")
    act(state, "pass", "pass", "pass")
    assert state.current_seat() == 3
    act(state, "take 1", "meld JD QD KD", "discard AS")
    assert state.observation(0).passes == 0
    act(state, "pass", "pass", "pass")
    assert state.observation(0).deal_number == 1
    act(state, "pass")
    assert last_event(state, "hand_end")["went_out"] is None
    assert state.observation(0).deal_number == 2


# --- scoring -------------------------------------------------------------------------------


def test_four_of_a_kind_melded_at_once_scores_double() -> None:
    state = arranged(["JC JD JH JS 2C", "TH", "5C", "7D"], pile="AD", stock="4H")
    act(state, "draw", "meld JC JD JH JS")
    assert state.observation(1).table_points == (80, 0)
    assert state.observation(1).melds[0].doubled


def test_three_jacks_then_the_fourth_laid_off_score_single() -> None:
    state = arranged(["JC JD JH JS 2C", "TH", "5C", "7D"], pile="AD", stock="4H")
    act(state, "draw", "meld JC JD JH", "layoff 0 JS")
    assert state.observation(1).table_points == (40, 0)
    assert not state.observation(1).melds[0].doubled


def test_four_jokers_at_once_score_160() -> None:
    state = arranged(["X1 X2 X3 X4 2C", "TH", "5C", "7D"], pile="AD", stock="4H")
    act(state, "draw", "meld X1 X2 X3 X4")
    assert state.observation(1).table_points == (160, 0)


def test_a_four_set_melded_right_after_a_take_doubles_for_the_melders_team() -> None:
    state = arranged(["2C", "9C 9D 9H 3S", "5C", "7D"], pile="AD 9S", to_act=1)
    act(state, "take 1", "meld 9C 9D 9H 9S")
    assert state.observation(0).table_points == (0, 72)


def test_runs_never_score_double() -> None:
    state = arranged(["2C 3C 4C 5C 9H", "TH", "5D", "7D"], pile="AD", stock="4H")
    act(state, "draw", "meld 2C 3C 4C 5C")
    assert state.observation(1).table_points == (14, 0)


def test_deal_score_is_table_minus_both_partners_hands_plus_25_for_going_out() -> None:
    state = arranged(["9C TC", "AH KS", "X1 3D", "QD"], pile="AD", stock="JC")
    act(state, "draw", "meld 9C TC JC")
    end = last_event(state, "hand_end")
    assert end["in_hand"] == [23, 25 + 10]
    assert end["points"] == [29 - 23 + 25, -35]


# --- two deals -----------------------------------------------------------------------------


def play_randomly_until(state: PersianRummyState, deal: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    while state.observation(0).deal_number < deal and not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))


def test_deal_2_is_dealt_by_the_first_dealers_left_and_starts_at_his_left() -> None:
    for seed in range(10):
        state = GAME.new_state(seed)
        first = state.observation(0).dealer
        play_randomly_until(state, 2, seed)
        deals = [e for e in state.events if e.kind == "deal"]
        assert [d.data["dealer"] for d in deals] == [first, (first + 1) % 4]
        assert state.current_seat() == (first + 2) % 4
        assert state.observation(0).hand_sizes == (7, 7, 7, 7)
        assert state.observation(0).stock_size == 27
        assert state.observation(0).melds == ()


def test_the_game_is_two_deals_and_the_higher_total_wins() -> None:
    for seed in range(10):
        state = GAME.new_state(seed)
        play_randomly_until(state, 3, seed)
        assert state.is_terminal()
        ends = [e.data["points"] for e in state.events if e.kind == "hand_end"]
        assert len(ends) == 2
        totals = [ends[0][t] + ends[1][t] for t in (0, 1)]
        assert state.scores() == totals
        a, b = totals
        assert state.winner() == (None if a == b else 0 if a > b else 1)
        assert state.current_seat() == -1 and state.legal_actions() == []


# --- what a seat sees ----------------------------------------------------------------------


def test_a_seat_sees_its_hand_and_the_table_but_not_other_hands_or_the_stock() -> None:
    state = arranged(P2_HANDS, pile="3D QH", table=P2_TABLE, stock="2H 5H 6H")
    view = state.observation(2)
    assert view.hand == ("4D", "AS")
    assert view.hand_sizes == (1, 2, 2, 2)
    assert view.stock_size == 3
    assert [d.card for d in view.discard_pile] == ["3D", "QH"]
    assert [m.kind for m in view.melds] == ["set", "set", "run", "set", "run"]
    assert [m.melded_by for m in view.melds] == [1, 0, 2, 3, 1]
    assert view.melds[4].cards[-1].seat == 3
    assert view.scores == (0, 0)
    seen = wire.observation("persian-rummy", view)
    assert isinstance(seen, persian_rummy_pb2.PersianRummyObservation)
    codes = {c.code for c in seen.hand}
    codes |= {d.card.code for d in seen.discard_pile}
    codes |= {p.card.code for m in seen.melds for p in m.cards}
    assert not codes & {"KS", "X4", "QD", "6S", "8D", "2H", "5H", "6H"}


# --- action ids ----------------------------------------------------------------------------


def test_action_ids_follow_the_documented_encoding_and_stay_small() -> None:
    rng = random.Random(3)
    for seed in range(15):
        state = GAME.new_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == sorted(legal)
            for action in legal:
                assert action_id(state.action_text(action)) == action < 2**63
            state.apply(rng.choice(legal))


def test_action_text_and_payload_depend_on_the_id_alone() -> None:
    fresh = GAME.new_state(99)
    assert fresh.action_text(action_id("layoff 3 8D")) == "layoff 3 8D"
    assert fresh.action_payload(action_id("layoff 3 4H 8H 9H")) == (
        "layoff",
        PersianRummyLayoffCards(3, ("4H", "8H", "9H")),
    )
    assert fresh.action_payload(action_id("meld X1 X2 X4")) == (
        "meld",
        PersianRummyMeldCards(("X1", "X2", "X4")),
    )
    assert fresh.action_payload(action_id("take 4")) == ("take", 4)
    assert fresh.action_payload(action_id("draw")) == ("draw_stock", True)
    assert fresh.action_payload(action_id("pass")) == ("pass_turn", True)
    assert fresh.action_payload(action_id("discard TS")) == ("discard", "TS")


@pytest.mark.parametrize("action", [-1, 58, 63, 64 + 32 * 52 + 20, 2047, 2048, 2**24 + 56, 2**40])
def test_ids_that_name_no_action_are_rejected(action: int) -> None:
    state = GAME.new_state(1)
    with pytest.raises(IllegalActionError):
        state.action_text(action)
    with pytest.raises(IllegalActionError):
        state.apply(action)


# --- the match so far, through a chosen deal -------------------------------------------------


def test_a_deal_numbered_2_is_the_last_and_starts_from_its_scores() -> None:
    deal = GAME.new_state(5).initial_deal()
    later = dataclasses.replace(deal, scores=(-20, 40), deal_number=2)
    state = GAME.new_state(1, deal=later)
    view = state.observation(0)
    assert (view.deal_number, view.dealer, view.scores) == (2, deal.dealer, (-20, 40))
    assert state.initial_deal() == later
    assert "dealer_draw" not in [e.kind for e in state.events]
    play_randomly_until(state, 3, seed=1)
    ends = [e.data for e in state.events if e.kind == "hand_end"]
    assert [end["deal_number"] for end in ends] == [2]
    points = ends[0]["points"]
    assert isinstance(points, list)
    assert state.is_terminal() and state.scores() == [-20 + points[0], 40 + points[1]]


def test_deal_2_without_a_chosen_dealer_goes_to_the_left_of_the_seeds_first_dealer() -> None:
    deal = dataclasses.replace(GAME.new_state(5).initial_deal(), dealer=None, deal_number=2)
    for seed in range(5):
        first = GAME.new_state(seed).observation(0).dealer
        state = GAME.new_state(seed, deal=deal)
        assert state.observation(0).dealer == (first + 1) % 4
        assert state.current_seat() == (first + 2) % 4


def test_deal_1_then_deal_2_by_the_first_dealers_left_from_a_chosen_deal() -> None:
    deal = dataclasses.replace(GAME.new_state(5).initial_deal(), dealer=2, scores=(7, -3))
    state = GAME.new_state(3, deal=deal)
    play_randomly_until(state, 2, seed=3)
    assert [e.data["dealer"] for e in state.events if e.kind == "deal"] == [2, 3]
    first = last_event(state, "hand_end")["points"]
    assert isinstance(first, list)
    assert state.observation(0).scores == (7 + first[0], -3 + first[1])


@pytest.mark.parametrize(
    ("scores", "deal_number", "message"),
    [
        ((0, 0), 3, r"deal_number must be 1..2 \(a game is 2 deals\), not 3"),
        ((0, 0), 0, "deal_number is a whole number from 1"),
        ((0, 0, 0), 1, "tuple of 2 whole numbers, one per team"),
    ],
)
def test_scores_and_deal_numbers_the_match_cannot_reach_are_refused(
    scores: tuple[int, ...], deal_number: int, message: str
) -> None:
    deal = GAME.new_state(5).initial_deal()
    with pytest.raises(DealError, match=message):
        GAME.new_state(1, deal=dataclasses.replace(deal, scores=scores, deal_number=deal_number))


# --- positions -------------------------------------------------------------------------------


def same_match(a: PersianRummyState, b: PersianRummyState) -> None:
    assert a.current_seat() == b.current_seat()
    assert a.legal_actions() == b.legal_actions()
    assert a.scores() == b.scores() and a.is_terminal() == b.is_terminal()
    for seat in range(4):
        assert a.observation(seat) == b.observation(seat)


def test_a_position_read_back_and_rebuilt_plays_on_as_the_match_does() -> None:
    checked = 0
    for seed in range(16):
        rng = random.Random(seed)
        state = GAME.new_state(seed)
        steps = rng.randrange(1, 160)
        for _ in range(steps):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        position = state.position()
        rebuilt = GAME.from_position(position, seed=seed + 100)
        assert rebuilt.position() == position
        same_match(state, rebuilt)
        deal = state.observation(0).deal_number
        ended = len([e for e in state.events if e.kind == "hand_end"])
        while not state.is_terminal() and state.observation(0).deal_number == deal:
            action = rng.choice(state.legal_actions())
            state.apply(action)
            rebuilt.apply(action)
            if state.observation(0).deal_number == deal and not state.is_terminal():
                same_match(state, rebuilt)
                assert rebuilt.position() == state.position()
                same_match(state, GAME.from_position(state.position(), seed=seed))
        assert last_event(rebuilt, "hand_end") == last_event(state, "hand_end")
        assert len([e for e in state.events if e.kind == "hand_end"]) == ended + 1
        assert rebuilt.scores() == state.scores() and rebuilt.is_terminal() == state.is_terminal()
        if state.is_terminal():
            assert last_event(rebuilt, "game_end") == last_event(state, "game_end")
        checked += 1
    assert checked >= 10


def test_the_seed_of_a_position_deals_the_next_deal() -> None:
    position = arranged_position(["9C TC", "2H 3S", "2C 4S", "6C 8S"], pile="AD", stock="JC 5H")
    states = [GAME.from_position(position, seed=seed) for seed in (4, 4, 5)]
    for state in states:
        act(state, "draw", "meld 9C TC JC")
        assert state.observation(0).deal_number == 2
        assert last_event(state, "deal")["dealer"] == 0
    assert states[0].observation(1) == states[1].observation(1)
    assert states[0].observation(1).hand != states[2].observation(1).hand


def test_a_position_mid_turn_after_a_take_and_after_a_draw() -> None:
    base = arranged_position(["TC JC QC 2H", "2D", "3D", "4D"], pile="AD", stock="")
    taken = dataclasses.replace(base, phase="use_chosen", chosen="QC", known=(("QC",), (), (), ()))
    state = GAME.from_position(taken)
    assert legal_texts(state) == ["meld TC JC QC"]
    assert state.observation(1).chosen_card == "QC"
    assert state.observation(1).known_cards[0].cards == ("QC",)
    act(state, "meld TC JC QC")
    assert legal_texts(state) == ["discard 2H"]
    melding = GAME.from_position(dataclasses.replace(base, phase="meld"))
    assert legal_texts(melding) == [
        "meld TC JC QC",
        "discard 2H",
        "discard TC",
        "discard JC",
        "discard QC",
    ]


def test_the_table_points_follow_from_the_melds_and_who_placed_each_card() -> None:
    state = arranged(P2_HANDS, pile="3D QH", table=P2_TABLE)
    assert state.observation(0).table_points == (56 + 29, 30 + 60 + 9 + 5)
    position = state.position()
    assert position.melds[1].doubled and not position.melds[4].doubled
    assert [p.seat for p in position.melds[4].cards] == [1, 1, 1, 3]
    assert position.out_of_play == ()


def test_a_finished_match_has_no_position_and_a_position_no_initial_deal() -> None:
    state = arranged(["9C TC", "2H 3S", "2C 4S", "6C 8S"], pile="AD", stock="JC 5H", deal_number=2)
    with pytest.raises(GameError, match="started from a position"):
        state.initial_deal()
    act(state, "draw", "meld 9C TC JC")
    assert state.is_terminal()
    with pytest.raises(GameError, match="the match is over"):
        state.position()


P2 = arranged_position(P2_HANDS, pile="3D QH", table=P2_TABLE)
SMALL = arranged_position(["9C 2H", "2D", "3D", "4D"], pile="AD", stock="")


def meld_replaced(
    position: PersianRummyPosition, i: int, **changes: object
) -> PersianRummyPosition:
    melds = list(position.melds)
    melds[i] = dataclasses.replace(melds[i], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(position, melds=tuple(melds))


def stock_without(position: PersianRummyPosition, card: str) -> tuple[str, ...]:
    return tuple(c for c in position.stock if c != card)


BAD_POSITIONS: dict[str, PersianRummyPosition] = {
    "dealer must be a seat 0..3, not 4": dataclasses.replace(P2, dealer=4),
    "to_act must be a seat 0..3, not -1": dataclasses.replace(P2, to_act=-1),
    r"phase must be one of draw, use_chosen, meld \(a finished match is no position\), "
    "not 'game_over'": dataclasses.replace(P2, phase="game_over"),
    r"deal_number must be 1..2 \(a game is 2 deals\), not 3": dataclasses.replace(
        P2, deal_number=3
    ),
    "scores are None .* or a tuple of 2 whole numbers": dataclasses.replace(P2, scores=(1,)),
    "hands has one tuple of cards per seat, 4, not 3": dataclasses.replace(P2, hands=P2.hands[:3]),
    "known has one tuple of cards per seat, 4, not 5": dataclasses.replace(P2, known=((),) * 5),
    "'ZZ' is not a card of the pack": dataclasses.replace(P2, hands=(("KS", "ZZ"), *P2.hands[1:])),
    "2H is in two places, seat 0's hand and the stock": dataclasses.replace(
        P2, hands=(("KS", "2H"), *P2.hands[1:])
    ),
    "the 56 cards must each be somewhere; 2H is in no hand, stock, pile or meld .*out_of_play": (
        dataclasses.replace(P2, stock=stock_without(P2, "2H"))
    ),
    "pile card 1 must be a PersianRummyDiscard": dataclasses.replace(
        P2,
        pile=(P2.pile[0], "QH"),  # type: ignore[arg-type]
    ),
    "meld 2 must be a PersianRummyTableMeld": dataclasses.replace(
        P2,
        melds=(*P2.melds[:2], "9H TH JH", *P2.melds[3:]),  # type: ignore[arg-type]
    ),
    r"pile card 1 \(QH\) was discarded by a seat 0..3, not None; only the bottom card": (
        dataclasses.replace(P2, pile=(P2.pile[0], PersianRummyDiscard("QH", None)))
    ),
    r"meld 0 has id 5: melds are numbered 0, 1, 2... in order": meld_replaced(P2, 0, id=5),
    "meld 0: melded_by must be a seat 0..3, not 4": meld_replaced(P2, 0, melded_by=4),
    r"meld 2 \(9H TH\) is no meld: a set is 3 or 4 cards of one rank": dataclasses.replace(
        meld_replaced(P2, 2, cards=P2.melds[2].cards[:2]), out_of_play=("JH",)
    ),
    r"meld 2 \(9H TH JH\) is a run, not a 'set'": meld_replaced(P2, 2, kind="set"),
    r"meld 4 \(2C 3C 4C 5C\): seat 1 laid it down, so it placed at least three of its cards "
    "in a row": meld_replaced(
        P2,
        4,
        cards=(PlayedCard(1, "2C"), PlayedCard(3, "3C"), PlayedCard(1, "4C"), PlayedCard(1, "5C")),
    ),
    r"meld 0 \(KC KD KH\): doubled is True only for a set of four": meld_replaced(
        P2, 0, doubled=True
    ),
    r"seat 1's known cards QD must all be in its hand": dataclasses.replace(
        P2,
        known=((), ("QD",), (), ()),
        hands=(P2.hands[0], ("X4",), *P2.hands[2:]),
        out_of_play=("QD",),
    ),
    "passes must be 0..3, not 4": dataclasses.replace(SMALL, passes=4),
    "passes in a row happen only on an empty stock": dataclasses.replace(P2, passes=1),
    "in the use_chosen phase the chosen card is one that seat 0 took": dataclasses.replace(
        SMALL, phase="use_chosen", chosen="9C"
    ),
    "chosen is None outside the use_chosen phase, not '9C' in draw": dataclasses.replace(
        SMALL, chosen="9C"
    ),
    "in the meld phase seat 0 holds a card": dataclasses.replace(
        SMALL,
        hands=((), *SMALL.hands[1:]),
        phase="meld",
        out_of_play=(*SMALL.out_of_play, "9C", "2H"),
    ),
    "the chosen card 2H can be neither melded nor laid off by seat 0": dataclasses.replace(
        SMALL, phase="use_chosen", chosen="2H", known=(("2H",), (), (), ())
    ),
}


@pytest.mark.parametrize("message", list(BAD_POSITIONS))
def test_a_position_the_rules_cannot_hold_is_refused_saying_why(message: str) -> None:
    with pytest.raises(DealError, match=f"^persian-rummy: {message}"):
        GAME.from_position(BAD_POSITIONS[message])
