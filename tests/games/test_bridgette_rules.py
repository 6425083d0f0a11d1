"""Bridgette rules, one test per rule, plus the worked examples of the specification.

Positions are set up with ``arranged_deal`` (fixed hands and stock instead of the
shuffle) and then driven only through the public API, by canonical action text. Most
deals are played "as dealt": both seats discard exactly the cards they drew.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from arena import wire
from arena.games.api import Deal, DealError, IllegalActionError, OptionError
from arena.games.bridgette.game import (
    CARDS,
    DEALER_DRAWS,
    MATCHING_COLON,
    NUM_ACTIONS,
    BridgetteCall,
    BridgetteGame,
    BridgetteState,
    failed_points,
    made_points,
)
from arena.games.registry import get_game

GAME = BridgetteGame()

# --- helpers -------------------------------------------------------------------------------


def arranged_deal(
    hands: Sequence[str],
    dealer: int,
    stock_top: str = "",
    *,
    deal_number: int = 1,
    scores: tuple[int, int] = (0, 0),
    deals: int = 6,
) -> BridgetteState:
    """A fresh match whose first deal is dealt as given (``new_state(deal=...)``): one
    string of 13 codes per seat, then the stock from its top (``stock_top`` first, the
    up-card leading; the other cards follow in canonical order). ``deal_number`` and
    ``scores`` say how far the match has come, as the deal's progress."""
    used = " ".join(hands).split() + stock_top.split()
    rest = stock_top.split() + [c for c in CARDS if c not in used]
    deal = Deal.of(hands, dealer, " ".join(rest), scores=scores, deal_number=deal_number)
    return GAME.new_state(0, {"deals": deals}, deal=deal)


def action_id(state: BridgetteState, text: str) -> int:
    """The action id with this canonical text, legal or not."""
    for action in range(NUM_ACTIONS):
        if state.action_text(action) == text:
            return action
    raise KeyError(text)


def act(state: BridgetteState, *texts: str) -> None:
    for text in texts:
        state.apply(action_id(state, text))


def play(state: BridgetteState, *cards: str) -> None:
    """Play these cards in order, each by whichever seat is to act."""
    act(state, *(f"play {card}" for card in cards))


def legal_texts(state: BridgetteState) -> list[str]:
    return [state.action_text(a) for a in state.legal_actions()]


def last_event(state: BridgetteState, kind: str) -> dict[str, object]:
    return dict(next(e for e in reversed(state.events) if e.kind == kind).data)


def give_back_draws(state: BridgetteState) -> None:
    """Both seats discard exactly the cards they drew, so the deal is played as dealt."""
    for _ in range(2):
        seat = state.current_seat()
        for card in state.observation(seat).drawn:
            act(state, f"discard {card}")


def bid_as_dealt(
    hands: Sequence[str],
    dealer: int,
    *calls: str,
    deal_number: int = 1,
    scores: tuple[int, int] = (0, 0),
    deals: int = 6,
) -> BridgetteState:
    """An arranged deal played as dealt, with these calls made (the dealer's first)."""
    state = arranged_deal(hands, dealer, deal_number=deal_number, scores=scores, deals=deals)
    give_back_draws(state)
    act(state, *calls)
    return state


def ruff_after_losing(state: BridgetteState, losses: int) -> None:
    """Play out a deal of the trump scheme below: the opponent holds one plain suit and
    leads it; the declarer, void there, throws a club while it must still lose a
    trick, then trumps and keeps the lead to the end."""
    obs = state.observation(0)
    assert obs.contract is not None
    declarer, trump = obs.contract.declarer, obs.trump
    while state.observation(0).phase == "play":
        seat = state.current_seat()
        legal = [t.removeprefix("play ") for t in legal_texts(state)]
        if seat == declarer and state.observation(seat).trick:
            wanted = "C" if losses else trump
            if losses:
                losses -= 1
            play(state, next(c for c in legal if c[1] == wanted))
        else:
            play(state, legal[0])
    assert losses == 0


def deal_points(state: BridgetteState) -> list[int]:
    points = last_event(state, "hand_end")["points"]
    assert isinstance(points, list)
    return points


def spades(ranks: str) -> str:
    return " ".join(r + "S" for r in ranks.split())


# --- deals -----------------------------------------------------------------------------------
# The trump scheme: seat 0 deals and declares, holding trumps and low clubs; seat 1
# holds all 13 cards of one other suit. Seat 1 leads; the declarer loses a trick for
# every club it throws, then ruffs once and wins every later trick on lead.
ALL_HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
ALL_DIAMONDS = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
EIGHT_SPADES_FIVE_CLUBS = ("AS KS QS JS TS 9S 8S 7S 2C 3C 4C 5C 6C", ALL_HEARTS)
TWELVE_SPADES_ONE_CLUB = ("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2C", ALL_HEARTS)
SIX_HEARTS_SEVEN_CLUBS = ("AH KH QH JH TH 9H 2C 3C 4C 5C 6C 7C 8C", ALL_DIAMONDS)
SEVEN_HEARTS_SIX_CLUBS = ("AH KH QH JH TH 9H 8H 2C 3C 4C 5C 6C 7C", ALL_DIAMONDS)

# 3NT by seat 0: seat 1 leads the LC and loses it to the 5C; seat 0 then leads and wins
# eleven tricks and gives the last away by leading the RC into seat 1's KH.
NT_TWELVE = (
    "AH AS AD AC RC 5C KS QS JS KD QD JD KC",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH LC",
)
NT_TWELVE_PLAY = (
    ("LC", "5C"),
    ("AH", "2H"),
    ("AS", "3H"),
    ("AD", "4H"),
    ("AC", "5H"),
    ("KS", "6H"),
    ("QS", "7H"),
    ("JS", "8H"),
    ("KD", "9H"),
    ("QD", "TH"),
    ("JD", "JH"),
    ("KC", "QH"),
    ("RC", "KH"),
)

# Holdings for the auction: seat 0 has 4 spades, 3 hearts, 2 diamonds, 1 club and all
# three colons; seat 1 has 6 clubs, 3 diamonds, 4 hearts and no spade.
BIDDING = (
    "AS KS QS JS AH KH QH AD KD AC GC RC LC",
    "KC QC JC TC 9C 8C QD JD TD JH TH 9H 8H",
)
# Seat 1 with three clubs only.
THREE_CLUBS = (
    "AS KS QS JS AH KH QH AD KD AC GC RC LC",
    "KC QC JC QD JD TD 9D JH TH 9H 8H 7H 6H",
)

# 0NT by seat 0. Seat 1 leads 3S to seat 0's AS; seat 0 then leads 5C into seat 1's
# clubs and LC (rules example 7).
COLON_DEAL = (
    "3C 5C 6C 7C AS KS 2S AH KH 2H AD KD 2D",
    "8C 9C TC LC RC QS JS QH JH QD JD 3S 3H",
)
# 1C by seat 0, who holds twelve clubs and the AS (and with LIFT_BLOCKED a colon).
LIFT_DEAL = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AS", spades("2 3 4 5 6 7 8 9 T J Q K") + " LC")
LIFT_BLOCKED = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC AS GC", spades("2 3 4 5 6 7 8 9 T J Q K") + " LC")
# 1S by seat 0; seat 1 holds the GC and RC and eleven clubs and leads.
COLON_LEAD = (
    "AH KH 2S 3S LC 2D 3D 4D 5D 6D 7D 8D 9D",
    "GC RC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
)
# 1S by seat 0; seat 1 leads eleven hearts and seat 0 throws eleven clubs, so seat 1 is
# left with the GC and LC against the AS and KS.
ONLY_OTHER_COLONS = (
    "AS KS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH GC LC",
)


# --- worked examples -----------------------------------------------------------------------


def test_example_1_two_spades_doubled_made_exactly_scores_1800() -> None:
    state = bid_as_dealt(EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass")
    ruff_after_losing(state, 5)
    assert last_event(state, "hand_end")["tricks"] == [8, 5]
    assert deal_points(state) == [1800, 0]
    assert state.scores() == [1800, 0]


def test_example_2_three_no_trump_with_three_overtricks_scores_1100() -> None:
    state = bid_as_dealt(NT_TWELVE, 0, "bid 3NT", "pass")
    for trick in NT_TWELVE_PLAY:
        play(state, *trick)
    assert last_event(state, "hand_end")["tricks"] == [12, 1]
    assert deal_points(state) == [1100, 0]


def test_example_3_one_heart_with_two_overtricks_scores_150_and_no_bonus() -> None:
    state = bid_as_dealt(SIX_HEARTS_SEVEN_CLUBS, 0, "bid 1H", "pass")
    ruff_after_losing(state, 4)
    assert last_event(state, "hand_end")["tricks"] == [9, 4]
    assert deal_points(state) == [150, 0]


def test_example_4_six_spades_redoubled_made_exactly_scores_10400() -> None:
    state = bid_as_dealt(TWELVE_SPADES_ONE_CLUB, 0, "bid 6S", "double", "redouble", "pass")
    ruff_after_losing(state, 1)
    assert deal_points(state) == [10400, 0]


def test_example_5_four_hearts_doubled_down_3_gives_the_opponent_800() -> None:
    state = bid_as_dealt(SEVEN_HEARTS_SIX_CLUBS, 0, "bid 4H", "double", "pass")
    ruff_after_losing(state, 6)
    assert last_event(state, "hand_end")["tricks"] == [7, 6]
    assert deal_points(state) == [0, 800]


def test_example_6_up_card_queen_non_dealer_takes_it_and_one_more_dealer_draws_8() -> None:
    hands = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", ALL_HEARTS)
    state = arranged_deal(hands, 0, "QD 2S 3S 4S 5S 6S 7S 8S 9S TS")
    non_dealer = state.observation(1)
    assert non_dealer.up_card == "QD" and non_dealer.drawn == ("QD", "2S")
    assert non_dealer.to_discard == 2 and len(non_dealer.hand) == 15
    assert state.current_seat() == 1
    act(state, "discard AH", "discard QD")
    dealer = state.observation(0)
    assert state.current_seat() == 0
    assert dealer.dealer_draws == 8 and dealer.to_discard == 8
    assert dealer.drawn == tuple(spades("3 4 5 6 7 8 9 T").split())
    assert len(dealer.hand) == 21
    for card in dealer.drawn:
        assert state.current_seat() == 0
        act(state, f"discard {card}")
    assert state.observation(0).phase == "auction"
    assert state.observation(0).hand_sizes == (13, 13)
    assert state.observation(0).stock_size == 29 - 10


def test_example_7_matching_colon_bars_the_winner_from_leading_clubs_next() -> None:
    state = bid_as_dealt(COLON_DEAL, 0, "bid 0NT", "pass")
    play(state, "3S", "AS", "5C")
    assert legal_texts(state) == ["play 8C", "play 9C", "play TC", "play LC"]
    play(state, "LC")
    trick = last_event(state, "trick")
    assert trick["winner"] == 0 and trick["barred"] == "C"
    assert state.current_seat() == 0
    assert state.observation(0).barred_suit == "C"
    assert not any(t.endswith("C") for t in legal_texts(state))
    assert legal_texts(state) == [
        "play 2D",
        "play KD",
        "play AD",
        "play 2H",
        "play KH",
        "play AH",
        "play 2S",
        "play KS",
    ]
    with pytest.raises(IllegalActionError):
        play(state, "6C")


# --- deck and deal ---------------------------------------------------------------------------


def test_the_deck_is_55_cards_the_52_standard_and_the_three_colons() -> None:
    assert len(CARDS) == len(set(CARDS)) == 55
    assert {c for c in CARDS if c in ("GC", "RC", "LC")} == {"GC", "RC", "LC"}
    assert CARDS[-3:] == ("LC", "RC", "GC")


def test_aces_belong_to_the_grand_colon_faces_to_the_royal_numbers_to_the_little() -> None:
    assert {MATCHING_COLON["A" + s] for s in "CDHS"} == {"GC"}
    assert {MATCHING_COLON[r + s] for r in "KQJ" for s in "CDHS"} == {"RC"}
    assert {MATCHING_COLON[r + s] for r in "23456789T" for s in "CDHS"} == {"LC"}


def test_first_dealer_and_deal_come_from_the_seed_one_card_at_a_time_from_the_non_dealer() -> None:
    for seed in range(20):
        state = GAME.new_state(seed)
        rng = random.Random(seed)
        dealer = rng.randrange(2)
        deck = list(CARDS)
        rng.shuffle(deck)
        deal = state.events[0]
        assert deal.kind == "deal" and deal.visible_to == ()
        assert deal.data["dealer"] == dealer == state.dealer
        assert sorted(deal.data["hands"][1 - dealer]) == sorted(deck[0:26:2])
        assert sorted(deal.data["hands"][dealer]) == sorted(deck[1:26:2])
        assert deal.data["stock"] == deck[26:]
        assert state.observation(dealer).up_card == deck[26]
        assert state.current_seat() == 1 - dealer


def test_the_up_card_is_public_and_the_stock_and_other_hand_are_not() -> None:
    state = arranged_deal(BIDDING, 0, "5D 2S 3S 4S 5S 6S")
    up = next(e for e in state.events if e.kind == "up_card")
    assert up.public and up.data["card"] == "5D"
    dealer = state.observation(0)
    assert dealer.up_card == "5D"
    assert dealer.drawn == () and "2S" not in repr(dealer) and "KC" not in repr(dealer)


# --- exchange --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("up_card", "draws"),
    [
        *((rank + "C", 4) for rank in "23456789T"),
        ("LC", 4),
        *((rank + "H", 8) for rank in "JQK"),
        ("RC", 8),
        ("AS", 12),
        ("GC", 12),
    ],
)
def test_the_dealer_draws_4_8_or_12_by_the_up_card(up_card: str, draws: int) -> None:
    hands = (ALL_DIAMONDS, spades("2 3 4 5 6 7 8 9 T J Q K") + " 2H")
    state = arranged_deal(hands, 1, up_card)
    assert DEALER_DRAWS[up_card] == draws
    assert state.observation(0).drawn[0] == up_card
    act(state, *(f"discard {c}" for c in state.observation(0).drawn))
    assert state.current_seat() == 1
    assert len(state.observation(1).drawn) == draws
    assert state.observation(1).to_discard == draws


def test_the_dealer_draw_for_every_rank_and_colon() -> None:
    assert {card: DEALER_DRAWS[card] for card in ("2S", "TS", "LC", "JS", "QS", "KS", "RC")} == {
        "2S": 4,
        "TS": 4,
        "LC": 4,
        "JS": 8,
        "QS": 8,
        "KS": 8,
        "RC": 8,
    }
    assert DEALER_DRAWS["AD"] == DEALER_DRAWS["GC"] == 12


def test_discards_are_single_card_actions_of_any_held_card_colons_included() -> None:
    state = arranged_deal(BIDDING, 1, "2S 3S")
    assert state.current_seat() == 0
    assert state.observation(0).phase == "discard"
    assert legal_texts(state) == [f"discard {c}" for c in CARDS if c in state.observation(0).hand]
    assert "discard GC" in legal_texts(state)
    act(state, "discard GC")
    assert state.current_seat() == 0 and state.observation(0).to_discard == 1
    act(state, "discard AC")
    assert state.observation(0).discards == ("GC", "AC")
    assert state.observation(0).hand_sizes == (13, 17)


def test_the_non_dealer_completes_draw_and_discard_before_the_dealer_draws() -> None:
    state = arranged_deal(BIDDING, 0, "2S 3S 4S 5S 6S 7S")
    assert state.observation(0).hand_sizes == (13, 15)
    assert state.observation(0).stock_size == 27
    act(state, "discard 2S")
    assert state.current_seat() == 1 and state.observation(0).hand_sizes == (13, 14)
    act(state, "discard 3S")
    assert state.current_seat() == 0 and state.observation(0).hand_sizes == (17, 13)


def test_discards_are_seen_only_by_their_maker() -> None:
    state = arranged_deal(BIDDING, 0, "2S 3S 4S 5S 6S 7S")
    act(state, "discard KC", "discard 2S")
    assert state.observation(1).discards == ("KC", "2S")
    assert state.observation(0).discards == ()
    assert "KC" not in repr(state.observation(0))
    discards = [e for e in state.events if e.kind == "discard"]
    assert [(e.seat, e.visible_to) for e in discards] == [(1, (1,)), (1, (1,))]
    drawn = [e for e in state.events if e.kind == "drawn"]
    assert [(e.seat, e.visible_to) for e in drawn] == [(1, (1,)), (0, (0,))]


# --- auction -----------------------------------------------------------------------------------


def test_the_dealer_calls_first_after_the_exchange() -> None:
    for dealer in (0, 1):
        state = arranged_deal(BIDDING, dealer)
        give_back_draws(state)
        assert state.observation(0).phase == "auction"
        assert state.current_seat() == dealer


def test_holding_rules_two_cards_for_a_suit_four_for_a_jump_one_of_each_for_no_trump() -> None:
    state = bid_as_dealt(BIDDING, 0)
    # 1 club: no club bid; 2 diamonds and 3 hearts: no jump; 4 spades: every level.
    assert legal_texts(state) == [
        "pass",
        "bid 0NT",
        "bid 1D",
        "bid 1H",
        "bid 1S",
        "bid 1NT",
        *(b for level in range(2, 8) for b in (f"bid {level}S", f"bid {level}NT")),
    ]


def test_colons_count_towards_no_holding_rule() -> None:
    # Seat 0 holds one club and three colons: still no club bid.
    state = bid_as_dealt(BIDDING, 0)
    assert "bid 1C" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        act(state, "bid 1C")


def test_a_jump_is_measured_from_the_standing_bid_and_needs_four_cards() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H")
    # Seat 1: six clubs, three diamonds, four hearts, no spade (so no no-trump).
    assert legal_texts(state) == [
        "pass",
        "double",
        "bid 2C",
        "bid 2D",
        "bid 2H",
        "bid 3C",
        "bid 3H",
        "bid 4C",
        "bid 4H",
        "bid 5C",
        "bid 5H",
        "bid 6C",
        "bid 6H",
        "bid 7C",
        "bid 7H",
    ]


def test_a_no_trump_jump_needs_only_a_card_of_every_suit() -> None:
    state = bid_as_dealt(BIDDING, 1, "bid 1C")
    assert "bid 7NT" in legal_texts(state)  # seat 0: one club, three colons
    act(state, "bid 7NT")
    assert state.observation(0).high_bid is not None


def test_a_bid_must_outrank_the_standing_bid() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1S")
    assert not {"bid 1C", "bid 1D", "bid 1H", "bid 1S", "bid 0NT"} & set(legal_texts(state))
    with pytest.raises(IllegalActionError):
        act(state, "bid 1H")
    act(state, "bid 2C")
    assert "bid 1NT" not in legal_texts(state)
    assert "bid 2S" in legal_texts(state)  # a player may outbid after a higher bid


def test_zero_no_trump_is_the_lowest_bid_and_seven_no_trump_the_highest() -> None:
    state = bid_as_dealt(BIDDING, 0)
    bids = [t for t in legal_texts(state) if t.startswith("bid")]
    assert bids[0] == "bid 0NT" and bids[-1] == "bid 7NT"
    act(state, "bid 7NT")
    assert legal_texts(state) == ["pass", "double"]


def test_double_only_the_opponents_undoubled_bid_and_redouble_only_your_own_doubled_bid() -> None:
    state = bid_as_dealt(BIDDING, 0)
    assert "double" not in legal_texts(state) and "redouble" not in legal_texts(state)
    act(state, "bid 1H")
    assert "double" in legal_texts(state) and "redouble" not in legal_texts(state)
    act(state, "double")
    assert "redouble" in legal_texts(state) and "double" not in legal_texts(state)
    act(state, "redouble")
    assert "double" not in legal_texts(state) and "redouble" not in legal_texts(state)
    high = state.observation(1).high_bid
    assert high is not None and high.doubling == "redoubled" and high.declarer == 0


def test_a_new_bid_wipes_out_a_double() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H", "double", "bid 1S")
    high = state.observation(1).high_bid
    assert high is not None and (high.level, high.strain, high.doubling) == (
        1,
        "spades",
        "undoubled",
    )
    assert "double" in legal_texts(state)


def test_a_new_bid_wipes_out_a_redouble() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H", "double", "redouble", "bid 2C", "pass")
    contract = state.observation(0).contract
    assert contract is not None
    assert (contract.declarer, contract.level, contract.strain) == (1, 2, "clubs")
    assert contract.doubling == "undoubled"


def test_the_auction_ends_at_the_first_pass_while_a_bid_stands() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H", "bid 2C", "bid 2S")
    assert state.observation(0).phase == "auction"
    act(state, "pass")
    obs = state.observation(0)
    assert obs.phase == "play"
    assert obs.contract is not None
    assert (obs.contract.declarer, obs.contract.level, obs.contract.strain) == (0, 2, "spades")
    assert obs.contract.tricks_needed == 8
    assert obs.trump == "S"
    assert last_event(state, "contract") == {
        "declarer": 0,
        "level": 2,
        "strain": "S",
        "doubling": "undoubled",
    }


def test_the_maker_of_a_doubled_bid_who_passes_declares_doubled() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H", "double", "pass")
    contract = state.observation(1).contract
    assert contract is not None
    assert (contract.declarer, contract.strain, contract.doubling) == (0, "hearts", "doubled")


def test_a_pass_after_a_redouble_leaves_the_contract_redoubled() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H", "double", "redouble", "pass")
    contract = state.observation(1).contract
    assert contract is not None and contract.doubling == "redoubled"


def test_after_the_dealer_passes_first_the_non_dealer_must_bid_and_that_bid_stands() -> None:
    state = bid_as_dealt(BIDDING, 0, "pass")
    assert state.current_seat() == 1
    texts = legal_texts(state)
    assert "pass" not in texts and "double" not in texts
    assert texts == [
        "bid 1C",
        "bid 1D",
        "bid 1H",
        "bid 2C",
        "bid 2H",
        "bid 3C",
        "bid 3H",
        "bid 4C",
        "bid 4H",
        "bid 5C",
        "bid 5H",
        "bid 6C",
        "bid 6H",
        "bid 7C",
        "bid 7H",
    ]
    act(state, "bid 1H")
    obs = state.observation(0)
    assert obs.phase == "play"
    assert obs.contract is not None
    assert (obs.contract.declarer, obs.contract.doubling) == (1, "undoubled")
    assert state.current_seat() == 0  # the declarer's opponent leads


def test_the_forced_bid_measures_jumps_from_no_bid_so_two_clubs_needs_four_clubs() -> None:
    state = bid_as_dealt(THREE_CLUBS, 0, "pass")
    assert "bid 1C" in legal_texts(state)
    assert "bid 2C" not in legal_texts(state)


def test_calls_are_public_in_order_with_their_makers() -> None:
    state = bid_as_dealt(BIDDING, 1, "bid 1C", "bid 1S", "double")
    calls = state.observation(0).calls
    assert [(c.seat, c.call) for c in calls] == [
        (1, BridgetteCall("bid", 1, "clubs")),
        (0, BridgetteCall("bid", 1, "spades")),
        (1, BridgetteCall("double")),
    ]
    assert calls == state.observation(1).calls


# --- play ----------------------------------------------------------------------------------------


def test_the_declarers_opponent_leads_to_the_first_trick_and_may_lead_any_card() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass")
    assert state.current_seat() == 1
    assert len(legal_texts(state)) == 13
    assert "play GC" in legal_texts(state)


def test_the_higher_card_of_the_led_suit_wins_and_the_winner_leads_next() -> None:
    state = bid_as_dealt(COLON_DEAL, 0, "bid 0NT", "pass")
    play(state, "3S", "AS")
    assert last_event(state, "trick")["winner"] == 0
    assert state.current_seat() == 0
    play(state, "2H", "QH")
    assert last_event(state, "trick")["winner"] == 1
    assert state.current_seat() == 1


def test_a_player_holding_the_led_suit_must_follow_it_or_play_the_matching_colon() -> None:
    state = bid_as_dealt(COLON_DEAL, 0, "bid 0NT", "pass", "play 3S", "play AS", "play KH")
    # Seat 1 holds QH JH 3H, the RC (matching K) and the LC (not matching).
    assert legal_texts(state) == ["play 3H", "play JH", "play QH", "play RC"]


def test_a_void_player_may_play_any_suit_card_or_the_matching_colon_but_no_other_colon() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play 2C")
    # Seat 0 holds no club; its LC matches the 2C.
    assert legal_texts(state) == [
        *(f"play {r}D" for r in "23456789"),
        "play KH",
        "play AH",
        "play 2S",
        "play 3S",
        "play LC",
    ]
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play QC")
    assert "play LC" not in legal_texts(state)  # a queen's colon is the RC


def test_a_trump_on_a_plain_lead_wins() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play QC", "play 2S")
    assert last_event(state, "trick")["winner"] == 0


def test_a_plain_card_of_another_suit_loses() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play 2C", "play AH")
    assert last_event(state, "trick")["winner"] == 1


def test_a_colon_of_another_group_may_follow_only_when_nothing_else_may_and_then_loses() -> None:
    state = bid_as_dealt(ONLY_OTHER_COLONS, 0, "bid 1S", "pass")
    clubs = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC"]
    for heart, club in zip(ALL_HEARTS.split()[:11], clubs, strict=True):
        play(state, heart, club)
    assert state.current_seat() == 1 and state.observation(1).hand == ("LC", "GC")
    play(state, "GC", "AS")  # a trump takes a led colon
    play(state, "KS")  # seat 1 holds only colons of other groups than the K's RC
    assert legal_texts(state) == ["play LC"]
    play(state, "LC")
    trick = last_event(state, "trick")
    assert trick["winner"] == 0 and trick["barred"] is None


def test_the_matching_colon_loses_the_trick_to_the_leader() -> None:
    state = bid_as_dealt(COLON_DEAL, 0, "bid 0NT", "pass", "play 3S", "play AS", "play KH")
    play(state, "RC")
    assert last_event(state, "trick")["winner"] == 0


def test_on_a_led_colon_a_suit_card_of_its_group_wins_in_any_suit() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play GC")
    assert len(legal_texts(state)) == 13  # anything may follow a colon
    play(state, "AH")
    trick = last_event(state, "trick")
    assert trick["winner"] == 0 and trick["barred"] is None
    assert state.observation(0).barred_suit is None


def test_on_a_led_colon_a_card_of_another_group_loses() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play GC", "play KH")
    assert last_event(state, "trick")["winner"] == 1


def test_on_a_led_colon_a_trump_wins() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play RC", "play 2S")
    assert last_event(state, "trick")["winner"] == 0


def test_on_a_led_colon_another_colon_loses() -> None:
    state = bid_as_dealt(COLON_LEAD, 0, "bid 1S", "pass", "play RC", "play LC")
    assert last_event(state, "trick")["winner"] == 1


def test_in_no_trump_a_led_colon_is_won_only_by_its_group() -> None:
    state = bid_as_dealt(NT_TWELVE, 0, "bid 3NT", "pass", "play LC", "play KC")
    assert last_event(state, "trick")["winner"] == 1
    state = bid_as_dealt(NT_TWELVE, 0, "bid 3NT", "pass", "play LC", "play 5C")
    assert last_event(state, "trick")["winner"] == 0


def test_the_bar_lasts_one_lead_only() -> None:
    state = bid_as_dealt(COLON_DEAL, 0, "bid 0NT", "pass", "play 3S", "play AS")
    play(state, "5C", "LC", "AH", "3H")
    assert state.current_seat() == 0
    assert state.observation(0).barred_suit is None
    assert "play 6C" in legal_texts(state)


def test_the_bar_lifts_when_the_leader_holds_only_the_barred_suit() -> None:
    state = bid_as_dealt(LIFT_DEAL, 0, "bid 1C", "pass", "play 2S", "play AS", "play 5C")
    assert legal_texts(state)[-1] == "play LC"  # void in clubs: any spade or the LC
    play(state, "LC")
    assert state.observation(0).barred_suit == "C"
    assert legal_texts(state) == [f"play {r}C" for r in "2346789TJQK"]


def test_a_held_colon_keeps_the_bar_on() -> None:
    state = bid_as_dealt(LIFT_BLOCKED, 0, "bid 1C", "pass", "play 2S", "play AS")
    play(state, "5C", "LC")
    assert legal_texts(state) == ["play GC"]


# --- scoring -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("losses", "points"),
    [
        (6, [400, 0]),  # 7 tricks: exactly 1H, exact bonus 250
        (5, [150, 0]),  # 8: one over, no bonus
        (4, [150, 0]),  # 9: two over
        (3, [500, 0]),  # 10: exactly three over, bonus 350
        (2, [150, 0]),  # 11: four over, no bonus
        (0, [150, 0]),  # 13
        (7, [0, 100]),  # 6: one down
    ],
)
def test_one_heart_pays_the_exact_and_over_three_bonuses_and_nothing_else(
    losses: int, points: list[int]
) -> None:
    state = bid_as_dealt(SIX_HEARTS_SEVEN_CLUBS, 0, "bid 1H", "pass")
    ruff_after_losing(state, losses)
    assert deal_points(state) == points


def test_seven_undertricks_pay_as_six_or_more() -> None:
    state = bid_as_dealt(SIX_HEARTS_SEVEN_CLUBS, 0, "bid 7H", "pass")
    ruff_after_losing(state, 7)
    assert deal_points(state) == [0, 1000]


@pytest.mark.parametrize(
    ("bid", "points"),
    [
        ("0NT", 150),
        ("1C", 150),
        ("1S", 150),
        ("1NT", 250),
        ("2D", 250),
        ("2NT", 250),
        ("3H", 250),
        ("3NT", 750),
        ("4C", 250),
        ("4D", 250),
        ("4H", 750),
        ("4S", 750),
        ("4NT", 750),
        ("5C", 750),
        ("5NT", 1500),
        ("6H", 1500),
        ("6NT", 2200),
        ("7S", 2200),
        ("7NT", 2500),
    ],
)
def test_contract_points_follow_the_table_by_contract(bid: str, points: int) -> None:
    level = int(bid[0])
    strains = ("C", "D", "H", "S", "NT")
    index = 0 if level == 0 else 1 + 5 * (level - 1) + strains.index(bid[1:])
    # One over (exactly 13 at level 7): no exact or over-3 bonus.
    assert made_points(index, 0, min(7 + level, 13)) == points


@pytest.mark.parametrize(
    ("bid", "bonus"),
    [(0, 250), (25, 250), (26, 100), (30, 100), (31, 0), (35, 0)],
    ids=["0NT", "5NT", "6C", "6NT", "7C", "7NT"],
)
def test_exact_bonus_is_250_up_to_5nt_100_at_level_6_and_none_at_7(bid: int, bonus: int) -> None:
    level = 0 if bid == 0 else 1 + (bid - 1) // 5
    exact, over_by_one = made_points(bid, 0, 6 + level), made_points(bid, 0, min(7 + level, 13))
    if level < 7:
        assert exact - over_by_one == bonus
    else:
        assert exact == (2200 if bid == 31 else 2500)


def test_over_three_bonus_is_350_for_exactly_three_over() -> None:
    three_nt = 1 + 5 * 2 + 4
    assert made_points(three_nt, 0, 12) == 750 + 350
    assert made_points(three_nt, 0, 13) == 750
    one_club = 1
    assert made_points(one_club, 0, 10) == 150 + 350
    assert made_points(one_club, 0, 11) == 150


def test_doubling_adds_400_or_1000_and_multiplies_the_whole_sum() -> None:
    two_spades = 1 + 5 + 3
    assert made_points(two_spades, 0, 8) == 500
    assert made_points(two_spades, 1, 8) == (250 + 250 + 400) * 2
    assert made_points(two_spades, 2, 8) == (250 + 250 + 1000) * 4
    assert made_points(two_spades, 1, 9) == (250 + 400) * 2
    assert made_points(two_spades, 2, 11) == (250 + 350 + 1000) * 4


@pytest.mark.parametrize(
    ("undertricks", "row"),
    [
        (1, (100, 200, 300)),
        (2, (200, 500, 700)),
        (3, (300, 800, 1100)),
        (4, (400, 1100, 1500)),
        (5, (700, 2000, 2700)),
        (6, (1000, 3000, 4000)),
        (7, (1000, 3000, 4000)),
        (13, (1000, 3000, 4000)),
    ],
)
def test_undertricks_pay_the_opponent_by_the_table(
    undertricks: int, row: tuple[int, int, int]
) -> None:
    assert tuple(failed_points(undertricks, d) for d in range(3)) == row


def test_exactly_one_player_scores_per_deal() -> None:
    for seed in range(30):
        state = GAME.new_state(seed, {"deals": 2})
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        for event in state.events:
            if event.kind == "hand_end":
                points = event.data["points"]
                assert min(points) == 0 and max(points) > 0


def test_hand_end_event_carries_the_whole_result() -> None:
    state = bid_as_dealt(EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", scores=(3, 4))
    ruff_after_losing(state, 5)
    assert last_event(state, "hand_end") == {
        "deal_number": 1,
        "declarer": 0,
        "level": 2,
        "strain": "S",
        "doubling": "doubled",
        "made": True,
        "tricks": [8, 5],
        "points": [1800, 0],
        "scores": [1803, 4],
    }


# --- end of game ---------------------------------------------------------------------------------


def test_a_game_is_six_deals_with_the_deal_alternating() -> None:
    for seed in range(10):
        state = GAME.new_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        dealers = [e.data["dealer"] for e in state.events if e.kind == "deal"]
        after_six = [e.data["scores"] for e in state.events if e.kind == "hand_end"][5]
        assert len(dealers) == (7 if after_six[0] == after_six[1] else 6)
        assert all(d == (dealers[0] + i) % 2 for i, d in enumerate(dealers))
        a, b = state.scores()
        assert state.winner() == (0 if a > b else 1)
        assert last_event(state, "game_end")["winner"] == state.winner()


def test_after_six_deals_the_higher_total_wins() -> None:
    state = bid_as_dealt(
        EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", deal_number=6, scores=(0, 1000)
    )
    ruff_after_losing(state, 5)
    assert state.is_terminal()
    assert state.scores() == [1800, 1000]
    assert state.winner() == 0
    assert state.current_seat() == -1 and state.legal_actions() == []
    assert state.observation(1).phase == "game_over"


def test_equal_totals_after_six_deals_play_a_seventh_with_the_deal_alternating() -> None:
    state = bid_as_dealt(
        EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", deal_number=6, scores=(0, 1800)
    )
    ruff_after_losing(state, 5)
    assert state.scores() == [1800, 1800]
    assert not state.is_terminal()
    assert state.winner() is None
    assert state.observation(0).deal_number == 7
    assert state.events[-1].kind == "drawn"
    assert last_event(state, "deal")["dealer"] == 1
    assert state.current_seat() == 0  # the new non-dealer draws and discards first


def test_the_tie_deal_decides_the_game() -> None:
    state = bid_as_dealt(
        EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", deal_number=7, scores=(900, 900)
    )
    ruff_after_losing(state, 5)
    assert state.is_terminal() and state.winner() == 0
    assert last_event(state, "game_end") == {"winner": 0, "scores": [2700, 900], "deals": 7}


def test_the_deals_option_shortens_the_game() -> None:
    state = bid_as_dealt(EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", deals=1)
    ruff_after_losing(state, 5)
    assert state.is_terminal() and state.winner() == 0


def test_a_match_from_a_deal_numbered_3_of_4_ends_after_deal_4() -> None:
    state = bid_as_dealt(
        EIGHT_SPADES_FIVE_CLUBS, 0, "bid 2S", "double", "pass", deal_number=3, deals=4
    )
    assert state.observation(0).deal_number == 3
    ruff_after_losing(state, 5)
    assert not state.is_terminal() and state.observation(0).deal_number == 4
    rng = random.Random(4)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert last_event(state, "game_end")["deals"] == 4
    assert [e.data["deal_number"] for e in state.events if e.kind == "hand_end"] == [3, 4]


@pytest.mark.parametrize(
    ("scores", "deal_number", "message"),
    [
        ((-10, 0), 1, r"scores are never negative in bridgette, not \(-10, 0\)"),
        ((0, 0, 0), 1, "tuple of 2 whole numbers, one per team"),
        ((0, 0), 0, "deal_number is a whole number from 1"),
        ((0, 100), 5, r"deal_number must be 1..4 \(the deals option\), or 5 for the tie deal"),
        ((100, 100), 6, r"deal_number must be 1..4 \(the deals option\), or 5 for the tie deal"),
    ],
)
def test_scores_and_deal_numbers_the_match_cannot_reach_are_refused(
    scores: tuple[int, int], deal_number: int, message: str
) -> None:
    with pytest.raises(DealError, match=message):
        arranged_deal(EIGHT_SPADES_FIVE_CLUBS, 0, scores=scores, deal_number=deal_number, deals=4)


# --- events, observation, illegal actions, options, actions -------------------------------------


def test_the_first_event_of_every_action_is_the_actors_own() -> None:
    state = GAME.new_state(3)
    rng = random.Random(3)
    while not state.is_terminal():
        seat = state.current_seat()
        before = len(state.events)
        state.apply(rng.choice(state.legal_actions()))
        assert state.events[before].seat == seat
        assert state.events[before].kind in ("discard", "call", "play")


def test_observation_fields_convert_to_the_proto_message() -> None:
    state = bid_as_dealt(
        COLON_DEAL, 0, "bid 0NT", "pass", "play 3S", "play AS", "play 5C", "play LC"
    )
    request = wire.act_request(
        state, match_id="m", decision_index=0, deadline_s=1.0, legal=state.legal_actions()
    )
    obs = request.bridgette
    assert obs.barred_suit == 1  # SUIT_CLUBS
    assert obs.contract.level == 0 and obs.contract.strain == 5  # NO_TRUMP
    assert obs.HasField("high_bid")
    assert [t.winner for t in obs.tricks] == [0, 0]
    assert obs.up_card.code == state.observation(0).up_card
    assert list(obs.tricks_won) == [2, 0]
    assert list(obs.hand_sizes) == [11, 11]
    assert obs.calls[0].call.level == 0 and obs.calls[0].call.HasField("level")
    assert not obs.calls[1].call.HasField("level")


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    state = bid_as_dealt(BIDDING, 0, "bid 1H")
    before = state.snapshot()
    for bad in ("bid 1C", "redouble", "play KC", "discard KC", "bid 1S"):
        with pytest.raises(IllegalActionError):
            act(state, bad)
    for bad_id in (-1, NUM_ACTIONS, 10_000):
        with pytest.raises(IllegalActionError):
            state.apply(bad_id)
    assert state.snapshot() == before
    assert state.current_seat() == 1


@pytest.mark.parametrize(
    "options", [{"deals": 0}, {"deals": 61}, {"deals": "six"}, {"max_hands": 3}]
)
def test_bad_options_are_rejected(options: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        GAME.new_state(0, options)


def test_the_game_is_registered_with_its_facts() -> None:
    game = get_game("bridgette")
    assert game.info.title == "Bridgette"
    assert game.info.num_seats == 2 and game.info.seat_teams == (0, 1)
    assert {o.name: o.default for o in game.info.options} == {"deals": 6}


def test_action_texts_are_unique_and_payloads_name_the_proto_oneof() -> None:
    state = GAME.new_state(0)
    texts = [state.action_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert texts[:2] == ["discard 2C", "discard 3C"]
    assert texts[52:58] == ["discard LC", "discard RC", "discard GC", "pass", "double", "redouble"]
    assert texts[58:61] == ["bid 0NT", "bid 1C", "bid 1D"]
    assert texts[93] == "bid 7NT"
    assert texts[94] == "play 2C" and texts[-1] == "play GC"
    assert state.action_payload(action_id(state, "discard GC")) == ("discard", "GC")
    assert state.action_payload(action_id(state, "pass")) == ("call", BridgetteCall("pass"))
    assert state.action_payload(action_id(state, "redouble")) == (
        "call",
        BridgetteCall("redouble"),
    )
    assert state.action_payload(action_id(state, "bid 3NT")) == (
        "call",
        BridgetteCall("bid", 3, "no_trump"),
    )
    assert state.action_payload(action_id(state, "play QH")) == ("play", "QH")


def test_action_ids_keep_their_meaning_across_states() -> None:
    first, second = GAME.new_state(1), GAME.new_state(2)
    for action in range(NUM_ACTIONS):
        assert first.action_text(action) == second.action_text(action)
        assert first.action_payload(action) == second.action_payload(action)
