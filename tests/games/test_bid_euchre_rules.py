"""Bid Euchre rules, one test per rule, plus the worked examples of the specification.

Positions are set up with ``arranged_deal`` (a chosen deal, ``new_state(deal=...)``) and
then driven only through the public API, by canonical action text.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from arena.games.api import DealError, IllegalActionError, OptionError
from arena.games.bid_euchre.game import (
    CARDS,
    EFFECTIVE_SUIT,
    JOKER_CARDS,
    NUM_ACTIONS,
    STRENGTH,
    BidEuchreState,
)
from arena.games.registry import get_game
from tests.support.bid_euchre import (
    GAME,
    JOKER_DEAL,
    act,
    action_id,
    arranged_deal,
    joker_deal,
    play,
)

# --- helpers -------------------------------------------------------------------------------


def legal_texts(state: BidEuchreState) -> list[str]:
    return [state.action_text(a) for a in state.legal_actions()]


def last_event(state: BidEuchreState, kind: str) -> dict[str, object]:
    return dict(next(e for e in reversed(state.events) if e.kind == kind).data)


# --- deals ---------------------------------------------------------------------------------
# Seat 0 calls first (dealer 3) unless a test says otherwise. Teams: 0 & 2 against 1 & 3.

# Seat 0 holds the four top spades; the defenders can take two tricks at most.
FOUR_TOP_SPADES = (
    "JS JC AS KS 9H 9D",
    "AH KH QH TH AC KC",
    "AD KD QD TD QC TC",
    "QS TS 9S JH JD 9C",
)
BIDDERS_TAKE_4 = (  # spades trump; seat 0 takes 4, seat 1 the last 2
    ("JS", "TH", "TD", "9S"),
    ("JC", "QH", "QD", "TS"),
    ("AS", "KH", "KD", "QS"),
    ("KS", "KC", "TC", "9C"),
    ("9H", "AH", "AD", "JH"),
    ("AC", "QC", "JD", "9D"),
)
BIDDERS_TAKE_5 = (  # the same four, then seat 2's ace of diamonds; seat 1 the last
    *BIDDERS_TAKE_4[:4],
    ("9D", "AH", "AD", "JD"),
    ("QC", "JH", "9H", "AC"),
)

# As above but seat 3 holds the king of spades over seat 0's queen.
KING_OVER_QUEEN = (
    "JS JC AS QS 9H 9D",
    "AH KH QH TH AC KC",
    "AD KD QD TD QC TC",
    "KS TS 9S JH JD 9C",
)
BIDDERS_TAKE_3 = (
    ("JS", "TH", "TC", "9S"),
    ("JC", "QH", "TD", "TS"),
    ("QS", "KH", "QD", "KS"),
    ("9C", "AS", "KC", "QC"),
    ("9H", "AH", "KD", "JH"),
    ("AC", "AD", "JD", "9D"),
)

# Hearts trump for a lone hand: seat 2 holds the left bower and the ace of hearts.
ASK_DEAL = (
    "JH KH QH TH 9H 9C",
    "AS KS QS JS TS 9S",
    "JD AH AD KD QD TD",
    "AC KC QC JC TC 9D",
)
# After giving 9C and receiving JD, seat 0 holds the six top trumps it can lead.
ASK_ALL_SIX = (
    ("JH", "9S", "9D"),
    ("JD", "TS", "TC"),
    ("KH", "JS", "JC"),
    ("QH", "QS", "QC"),
    ("TH", "KS", "KC"),
    ("9H", "AS", "AC"),
)
# After giving 9H instead, seat 0's 9C falls to seat 3's ace of clubs.
ASK_LOSES_LAST = (*ASK_ALL_SIX[:5], ("9C", "AS", "AC"))

MOON_DEAL = (
    "JH JD AH KH QH 9C",
    "AS KS QS JS TS 9S",
    "TH 9H AD KD QD TD",
    "AC KC QC JC TC 9D",
)
MOON_SIX_TRUMPS = (
    "JH JD AH KH QH TH",
    "AS KS QS JS TS 9S",
    "9C 9H AD KD QD TD",
    "AC KC QC JC TC 9D",
)
MOON_TRICKS = (
    ("JH", "9S", "9D"),
    ("JD", "TS", "TC"),
    ("AH", "JS", "JC"),
    ("KH", "QS", "QC"),
    ("QH", "KS", "KC"),
)


def bid_and_play(
    hands: Sequence[str],
    call: str,
    trump: str,
    tricks: Sequence[Sequence[str]],
    *,
    exchange: tuple[str, str] | None = None,
    scores: tuple[int, int] = (0, 0),
    deal_number: int = 1,
    **options: object,
) -> BidEuchreState:
    """Seat 0 makes ``call`` (the others pass), names trump, exchanges for ASK, plays."""
    state = arranged_deal(hands, dealer=3, scores=scores, deal_number=deal_number, **options)
    act(state, call, "pass", "pass", "pass", f"trump {trump}")
    if exchange is not None:
        act(state, f"give {exchange[0]}", f"return {exchange[1]}")
    for trick in tricks:
        play(state, *trick)
    return state


def hand_points(state: BidEuchreState) -> list[int]:
    points = last_event(state, "hand_end")["points"]
    assert isinstance(points, list)
    return points


# --- worked examples -----------------------------------------------------------------------


def test_example_1_call_5_with_4_tricks_is_set_for_5_and_defenders_score_2() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 5", "S", BIDDERS_TAKE_4)
    assert hand_points(state) == [-5, 2]
    assert state.scores() == [-5, 2]


def test_example_2_call_3_with_5_tricks_scores_5_and_defenders_1() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_5)
    assert state.scores() == [5, 1]


def test_example_3_ask_returns_left_bower_over_ace_and_six_tricks_score_12() -> None:
    state = arranged_deal(ASK_DEAL, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give 9C")
    assert legal_texts(state) == ["return JD"]
    act(state, "return JD")
    for trick in ASK_ALL_SIX:
        play(state, *trick)
    assert state.scores() == [12, 0]


def test_example_4_moon_with_5_tricks_is_set_for_6_and_defenders_score_1() -> None:
    state = bid_and_play(MOON_DEAL, "call MOON", "H", [*MOON_TRICKS, ("9C", "AS", "AC")])
    assert last_event(state, "hand_end")["tricks"] == [5, 1]
    assert state.scores() == [-6, 1]


def test_example_5_equal_scores_past_32_play_another_hand() -> None:
    state = bid_and_play(KING_OVER_QUEEN, "call 3", "S", BIDDERS_TAKE_3, scores=(30, 30))
    assert state.scores() == [33, 33]
    assert not state.is_terminal()
    assert state.hand_number == 2
    assert state.events[-1].kind == "deal"


def test_example_5_unequal_scores_past_32_end_with_the_higher_winning() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, scores=(30, 30))
    assert state.scores() == [34, 32]
    assert state.is_terminal()
    assert state.winner() == 0
    assert state.current_seat() == -1
    assert state.legal_actions() == []


def test_example_6_stuck_dealer_may_only_call_after_three_passes() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "pass", "pass", "pass")
    assert state.current_seat() == 3
    assert legal_texts(state) == ["call 3", "call 4", "call 5", "call ASK", "call MOON"]


# --- deal and seats --------------------------------------------------------------------------


def test_first_dealer_and_deal_come_from_the_seed_one_card_at_a_time_from_dealers_left() -> None:
    for seed in range(20):
        state = GAME.new_state(seed)
        rng = random.Random(seed)
        dealer = rng.randrange(4)
        deck = list(CARDS)
        rng.shuffle(deck)
        expected: list[list[str]] = [[], [], [], []]
        for i, card in enumerate(deck):
            expected[(dealer + 1 + i) % 4].append(card)
        deal = state.events[0]
        assert deal.kind == "deal" and deal.visible_to == ()
        assert deal.data["dealer"] == dealer == state.dealer
        assert [sorted(h) for h in deal.data["hands"]] == [sorted(h) for h in expected]
        assert state.current_seat() == (dealer + 1) % 4


def test_hands_are_shown_in_canonical_order_clubs_to_spades_nine_to_ace() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    assert state.observation(0).hand == ("JC", "9D", "9H", "JS", "KS", "AS")


def test_the_deal_passes_left_after_every_hand() -> None:
    state = GAME.new_state(7, {"max_hands": 5})
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    dealers = [e.data["dealer"] for e in state.events if e.kind == "deal"]
    assert len(dealers) >= 5
    assert all(b == (a + 1) % 4 for a, b in itertools.pairwise(dealers))


# --- bidding -------------------------------------------------------------------------------


def test_each_call_must_beat_the_highest_so_far_and_pass_is_always_open() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    assert legal_texts(state) == [
        "pass",
        "call 3",
        "call 4",
        "call 5",
        "call ASK",
        "call MOON",
    ]
    act(state, "call 4")
    assert legal_texts(state) == ["pass", "call 5", "call ASK", "call MOON"]
    with pytest.raises(IllegalActionError):
        act(state, "call 3")


def test_partners_may_outbid_each_other_and_the_highest_caller_declares_and_leads() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call 3", "pass", "call 4", "pass")
    assert state.observation(1).declarer == 2
    assert state.observation(1).contract == "four"
    assert state.current_seat() == 2
    act(state, "trump D")
    assert state.current_seat() == 2
    assert state.observation(2).phase == "play"


def test_only_pass_remains_once_moon_is_called() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call MOON")
    for seat in (1, 2, 3):
        assert state.current_seat() == seat
        assert legal_texts(state) == ["pass"]
        act(state, "pass")
    assert state.observation(0).phase == "trump"


def test_declarer_and_contract_are_unknown_until_the_auction_ends() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call 3", "pass")
    seen = state.observation(2)
    assert seen.declarer is None and seen.contract is None
    assert [(c.seat, c.call) for c in seen.calls] == [(0, "three"), (1, "pass")]


def test_a_stuck_dealer_may_still_pass_when_someone_called() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "pass", "call 3", "pass")
    assert "pass" in legal_texts(state)


def test_without_stick_the_dealer_four_passes_throw_the_hand_in_and_the_deal_passes_left() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3, stick_the_dealer=False)
    act(state, "pass", "pass", "pass")
    assert "pass" in legal_texts(state)
    act(state, "pass")
    assert last_event(state, "throw_in")["reason"] == "all_pass"
    assert state.scores() == [0, 0]
    assert state.dealer == 0
    assert state.hand_number == 2
    assert state.current_seat() == 1
    assert state.observation(1).phase == "bidding"


def test_a_thrown_in_hand_does_not_count_towards_max_hands() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3, stick_the_dealer=False, max_hands=1)
    act(state, "pass", "pass", "pass", "pass")
    assert not state.is_terminal()


# --- ace no face ---------------------------------------------------------------------------

ACES_NO_FACES = (
    "KS QS JS KH QH JH",
    "AS TS 9S AH TH 9H",
    "KC QC JC KD QD JD",
    "AC TC 9C AD TD 9D",
)


def test_ace_no_face_asks_only_eligible_seats_in_bidding_order() -> None:
    state = arranged_deal(ACES_NO_FACES, dealer=0, ace_no_face=True)
    assert state.observation(1).phase == "ace_no_face"
    assert state.current_seat() == 1
    assert legal_texts(state) == ["keep hand", "throw in"]
    act(state, "keep hand")
    assert state.current_seat() == 3  # seat 2 holds faces and is never asked
    act(state, "keep hand")
    assert state.observation(0).phase == "bidding"
    assert state.current_seat() == 1


def test_ace_no_face_throw_in_ends_the_hand_and_passes_the_deal() -> None:
    state = arranged_deal(ACES_NO_FACES, dealer=2, ace_no_face=True)
    assert state.current_seat() == 3
    act(state, "throw in")
    thrown = next(e for e in reversed(state.events) if e.kind == "throw_in")
    assert thrown.seat == 3 and thrown.data["reason"] == "ace_no_face"
    assert thrown.public
    assert state.dealer == 3
    assert state.hand_number == 2
    assert state.scores() == [0, 0]


def test_ace_no_face_is_not_offered_when_the_option_is_off() -> None:
    state = arranged_deal(ACES_NO_FACES, dealer=0)
    assert state.observation(1).phase == "bidding"
    assert "throw in" not in legal_texts(state)


def test_ace_no_face_goes_straight_to_bidding_when_nobody_qualifies() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3, ace_no_face=True)
    assert state.observation(0).phase == "bidding"


# --- card ranking and following --------------------------------------------------------------


def test_hearts_trump_ranks_right_bower_left_bower_then_ace_down_to_nine() -> None:
    trumps = [c for c in CARDS if EFFECTIVE_SUIT["H"][c] == "H"]
    by_strength = sorted(trumps, key=STRENGTH["H"].__getitem__, reverse=True)
    assert by_strength == ["JH", "JD", "AH", "KH", "QH", "TH", "9H"]
    diamonds = [c for c in CARDS if EFFECTIVE_SUIT["H"][c] == "D"]
    assert sorted(diamonds, key=STRENGTH["H"].__getitem__, reverse=True) == [
        "AD",
        "KD",
        "QD",
        "TD",
        "9D",
    ]


BOWERS = (
    "AH 9S TS QS KS AS",
    "JD 9D TD QD KD AD",
    "9C TC JC QC KC AC",
    "JH 9H TH QH KH JS",
)


def test_left_bower_must_follow_when_trump_is_led() -> None:
    state = arranged_deal(BOWERS, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump H", "play AH")
    assert legal_texts(state) == ["play JD"]


def test_right_bower_beats_left_bower_and_ace_of_trump() -> None:
    state = arranged_deal(BOWERS, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "AH", "JD", "9C", "JH")
    assert last_event(state, "trick")["winner"] == 3


def test_left_bower_beats_the_ace_of_trump() -> None:
    state = arranged_deal(BOWERS, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "AH", "JD", "9C", "9H")
    assert last_event(state, "trick")["winner"] == 1


def test_a_led_left_bower_calls_for_trump_not_its_printed_suit() -> None:
    state = arranged_deal(BOWERS, dealer=0)
    act(state, "call 3", "pass", "pass", "pass", "trump H", "play JD")
    assert state.current_seat() == 2
    assert len(legal_texts(state)) == 6  # clubs only: void in trump
    play(state, "9C")
    assert legal_texts(state) == ["play 9H", "play TH", "play JH", "play QH", "play KH"]
    play(state, "9H")
    assert legal_texts(state) == ["play AH"]


LEFT_BOWER_WITH_CLUBS = (
    "JD 9C TC JC QC KC",
    "9D TD QD KD AD AC",
    "9S TS JS QS KS AS",
    "9H TH JH QH KH AH",
)


def test_left_bower_is_not_a_card_of_its_printed_suit() -> None:
    state = arranged_deal(LEFT_BOWER_WITH_CLUBS, dealer=0)
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "AD", "9S", "9H")
    assert state.current_seat() == 0
    assert len(legal_texts(state)) == 6  # holds no diamond: JD is a heart now
    play(state, "JD")
    assert last_event(state, "trick")["winner"] == 0


def test_a_player_holding_the_led_suit_must_follow_it() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump S", "play JS", "play TH", "play TD")
    assert legal_texts(state) == ["play 9S", "play TS", "play QS"]


def test_a_void_player_need_not_trump() -> None:
    state = arranged_deal(KING_OVER_QUEEN, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump S")
    for trick in BIDDERS_TAKE_3[:3]:
        play(state, *trick)
    play(state, "9C")
    assert state.current_seat() == 0
    assert legal_texts(state) == ["play 9D", "play 9H", "play AS"]


def test_the_declarer_leads_any_card_to_the_first_trick() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    assert state.current_seat() == 0
    assert len(legal_texts(state)) == 6


def test_the_trick_winner_leads_the_next_trick() -> None:
    state = arranged_deal(KING_OVER_QUEEN, dealer=3)
    act(state, "call 3", "pass", "pass", "pass", "trump S")
    for trick in BIDDERS_TAKE_3[:3]:
        play(state, *trick)
    assert state.current_seat() == 3


# --- the ASK exchange and lone hands -----------------------------------------------------------


def test_ask_declarer_gives_first_any_of_six_cards() -> None:
    state = arranged_deal(ASK_DEAL, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H")
    assert state.observation(0).phase == "ask_give"
    assert state.current_seat() == 0
    assert legal_texts(state) == [
        "give 9C",
        "give 9H",
        "give TH",
        "give JH",
        "give QH",
        "give KH",
    ]


NO_TRUMP_PARTNER = (
    "JH KH QH TH 9H 9C",
    "JD AH AD KD QD TD",
    "AS KS QS JS TS 9S",
    "AC KC QC JC TC 9D",
)


def test_ask_partner_without_trump_returns_any_card_of_their_own_six() -> None:
    state = arranged_deal(NO_TRUMP_PARTNER, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give 9C")
    assert state.current_seat() == 2
    assert legal_texts(state) == [f"return {r}S" for r in "9TJQKA"]


def test_ask_partner_cannot_send_back_the_card_just_received() -> None:
    state = arranged_deal(NO_TRUMP_PARTNER, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give JH")
    assert "return JH" not in legal_texts(state)
    with pytest.raises(IllegalActionError):
        act(state, "return JH")


LOW_TRUMP_PARTNER = (
    "JH AH KH QH TH 9C",
    "AS KS QS JS TS 9S",
    "9H AD KD QD TD AC",
    "JD KC QC JC TC 9D",
)


def test_ask_partner_returns_own_highest_trump_even_below_the_card_received() -> None:
    state = arranged_deal(LOW_TRUMP_PARTNER, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give AH")
    assert legal_texts(state) == ["return 9H"]


def test_ask_exchange_is_seen_only_by_declarer_and_partner() -> None:
    state = arranged_deal(ASK_DEAL, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give 9C", "return JD")
    for seat in (0, 2):
        seen = state.observation(seat)
        assert (seen.card_given, seen.card_returned) == ("9C", "JD")
    for seat in (1, 3):
        seen = state.observation(seat)
        assert (seen.card_given, seen.card_returned) == (None, None)
    exchange = [e for e in state.events if e.kind in ("give", "return")]
    assert [(e.kind, e.seat, e.visible_to) for e in exchange] == [
        ("give", 0, (0, 2)),
        ("return", 2, (0, 2)),
    ]
    assert state.observation(0).hand == ("JD", "9H", "TH", "JH", "QH", "KH")
    assert state.observation(1).hand_sizes == (6, 6, 6, 6)


def test_the_sitting_out_partner_is_skipped_and_tricks_have_three_cards() -> None:
    state = arranged_deal(ASK_DEAL, dealer=3)
    act(state, "call ASK", "pass", "pass", "pass", "trump H", "give 9C", "return JD")
    assert state.observation(1).sitting_out == 2
    seats = []
    for trick in ASK_ALL_SIX:
        for card in trick:
            seats.append(state.current_seat())
            play(state, card)
    assert 2 not in seats
    assert seats[:4] == [0, 1, 3, 0]
    assert all(len(t["cards"]) == 3 for t in (e.data for e in state.events if e.kind == "trick"))


def test_moon_partner_sits_out_at_once_and_the_dead_hand_is_never_shown() -> None:
    state = arranged_deal(MOON_DEAL, dealer=3)
    act(state, "call MOON", "pass", "pass", "pass", "trump H")
    assert state.observation(3).sitting_out == 2
    assert state.current_seat() == 0
    for seat in (0, 1, 3):
        assert "AD" not in repr(state.observation(seat))


# --- scoring --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "call", "trump", "tricks", "exchange", "points"),
    [
        (KING_OVER_QUEEN, "call 3", "S", BIDDERS_TAKE_3, None, [3, 3]),
        (FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_5, None, [5, 1]),
        (FOUR_TOP_SPADES, "call 4", "S", BIDDERS_TAKE_4, None, [4, 2]),
        (KING_OVER_QUEEN, "call 4", "S", BIDDERS_TAKE_3, None, [-4, 3]),
        (FOUR_TOP_SPADES, "call 5", "S", BIDDERS_TAKE_5, None, [5, 1]),
        (FOUR_TOP_SPADES, "call 5", "S", BIDDERS_TAKE_4, None, [-5, 2]),
        (ASK_DEAL, "call ASK", "H", ASK_ALL_SIX, ("9C", "JD"), [12, 0]),
        (ASK_DEAL, "call ASK", "H", ASK_LOSES_LAST, ("9H", "JD"), [-6, 1]),
        (MOON_SIX_TRUMPS, "call MOON", "H", [*MOON_TRICKS, ("TH", "AS", "AC")], None, [24, 0]),
        (MOON_DEAL, "call MOON", "H", [*MOON_TRICKS, ("9C", "AS", "AC")], None, [-6, 1]),
    ],
    ids=[
        "3 made exactly scores 3",
        "3 made with 5 scores the 5 tricks",
        "4 made scores 4",
        "4 set costs 4",
        "5 made scores 5",
        "5 set costs 5",
        "ASK made scores 12",
        "ASK set costs 6",
        "MOON made scores 24",
        "MOON set costs 6",
    ],
)
def test_scoring_table_row_and_defenders_always_score_their_tricks(
    hands: Sequence[str],
    call: str,
    trump: str,
    tricks: Sequence[Sequence[str]],
    exchange: tuple[str, str] | None,
    points: list[int],
) -> None:
    state = bid_and_play(hands, call, trump, tricks, exchange=exchange)
    assert hand_points(state) == points
    assert state.scores() == points


def test_a_team_past_32_still_loses_to_a_higher_score() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, scores=(28, 31))
    assert state.scores() == [32, 33]
    assert state.winner() == 1


def test_scores_may_go_negative() -> None:
    state = bid_and_play(MOON_DEAL, "call MOON", "H", [*MOON_TRICKS, ("9C", "AS", "AC")])
    assert state.scores()[0] == -6


def test_max_hands_ends_a_level_game_as_a_draw() -> None:
    state = bid_and_play(KING_OVER_QUEEN, "call 3", "S", BIDDERS_TAKE_3, max_hands=1)
    assert state.is_terminal()
    assert state.winner() is None
    assert last_event(state, "game_end")["winner"] is None
    assert state.observation(0).phase == "game_over"


def test_max_hands_ends_the_game_with_the_higher_score_winning() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, max_hands=1)
    assert state.is_terminal()
    assert state.winner() == 0


def test_a_deal_numbered_max_hands_is_the_last_hand() -> None:
    state = bid_and_play(
        FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, scores=(20, 25), deal_number=5, max_hands=5
    )
    assert state.is_terminal()
    assert state.scores() == [24, 27] and state.winner() == 1
    assert last_event(state, "hand_end")["hand_number"] == 5
    assert last_event(state, "game_end")["hands_scored"] == 5


def test_a_deal_starts_the_match_from_its_scores_and_hand_number() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3, scores=(-6, 31), deal_number=9)
    assert state.observation(2).scores == (-6, 31)
    deal = state.initial_deal()
    assert (deal.dealer, deal.scores, deal.deal_number) == (3, (-6, 31), 9)
    assert [sorted(hand) for hand in deal.hands] == [sorted(h.split()) for h in FOUR_TOP_SPADES]
    assert last_event(state, "deal")["dealer"] == 3


@pytest.mark.parametrize(
    ("scores", "deal_number", "message"),
    [
        ((32, 30), 1, r"scores \(32, 30\) would have ended the match: both must be below 32"),
        ((0, 0, 0), 1, "tuple of 2 whole numbers, one per team"),
        ((0, 0), 0, "deal_number is a whole number from 1"),
        ((0, 0), 4, r"deal_number must be 1..3 \(max_hands"),
    ],
)
def test_scores_and_hand_numbers_the_match_cannot_reach_are_refused(
    scores: tuple[int, ...], deal_number: int, message: str
) -> None:
    with pytest.raises(DealError, match=message):
        arranged_deal(
            FOUR_TOP_SPADES, dealer=3, scores=scores, deal_number=deal_number, max_hands=3
        )


def test_equal_scores_past_32_are_a_match_that_goes_on() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, scores=(33, 33))
    assert state.is_terminal() and state.scores() == [37, 35] and state.winner() == 0


def test_hand_end_event_carries_the_whole_result() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 5", "S", BIDDERS_TAKE_4, scores=(3, 4))
    assert last_event(state, "hand_end") == {
        "hand_number": 1,
        "declarer": 0,
        "contract": "five",
        "trump": "S",
        "made": False,
        "tricks": [4, 2],
        "points": [-5, 2],
        "scores": [-2, 6],
    }


# --- illegal actions, options, actions --------------------------------------------------------


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    state = arranged_deal(FOUR_TOP_SPADES, dealer=3)
    act(state, "call 4")
    before = state.snapshot()
    for bad in ("call 3", "play JS", "trump S", "give 9C", "throw in"):
        with pytest.raises(IllegalActionError):
            act(state, bad)
    for bad_id in (-1, NUM_ACTIONS, 10_000):
        with pytest.raises(IllegalActionError):
            state.apply(bad_id)
    assert state.snapshot() == before
    assert state.current_seat() == 1


def test_no_action_is_accepted_once_the_game_is_over() -> None:
    state = bid_and_play(FOUR_TOP_SPADES, "call 3", "S", BIDDERS_TAKE_4, max_hands=1)
    before = state.snapshot()
    with pytest.raises(IllegalActionError):
        state.apply(0)
    assert state.snapshot() == before


@pytest.mark.parametrize(
    "options",
    [
        {"max_hands": 0},
        {"max_hands": 10_001},
        {"max_hands": "lots"},
        {"stick_the_dealer": "maybe"},
        {"joker": "maybe"},
        {"double_deck": True},
    ],
)
def test_bad_options_are_rejected(options: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        GAME.new_state(0, options)


def test_options_accept_their_text_forms() -> None:
    state = GAME.new_state(0, {"stick_the_dealer": "false", "max_hands": "10000"})
    assert state.stick_the_dealer is False
    assert state.max_hands == 10_000


def test_the_game_is_registered_with_its_facts() -> None:
    game = get_game("bid-euchre")
    assert game.info.title == "Bid Euchre"
    assert game.info.seat_teams == (0, 1, 0, 1)
    assert {o.name: o.default for o in game.info.options} == {
        "stick_the_dealer": True,
        "ace_no_face": False,
        "joker": False,
        "max_hands": 100,
    }


def test_action_texts_are_unique_and_payloads_name_the_proto_oneof() -> None:
    state = GAME.new_state(0)
    texts = [state.action_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert state.action_payload(action_id(state, "throw in")) == ("ace_no_face", True)
    assert state.action_payload(action_id(state, "keep hand")) == ("ace_no_face", False)
    assert state.action_payload(action_id(state, "call ASK")) == ("call", "ask")
    assert state.action_payload(action_id(state, "pass")) == ("call", "pass")
    assert state.action_payload(action_id(state, "trump H")) == ("trump", "H")
    assert state.action_payload(action_id(state, "give 9C")) == ("give", "9C")
    assert state.action_payload(action_id(state, "return JD")) == ("return_card", "JD")
    assert state.action_payload(action_id(state, "play QH")) == ("play", "QH")


def test_action_ids_keep_their_meaning_across_states() -> None:
    first, second = GAME.new_state(1), GAME.new_state(2)
    for action in range(NUM_ACTIONS):
        assert first.action_text(action) == second.action_text(action)


def test_double_deck_is_refused_with_the_reason() -> None:
    for value in (True, False, "true"):
        with pytest.raises(OptionError, match="'double_deck' of bid-euchre is not offered") as e:
            GAME.new_state(0, {"double_deck": value})
        assert "ASK or MOON" in str(e.value) and "identical cards" in str(e.value)
    with pytest.raises(OptionError, match="not offered"):
        get_game("bid-euchre").info.resolve_options({"double_deck": "false"})


def test_the_ids_of_the_default_game_are_kept_and_the_joker_ids_come_after() -> None:
    state = GAME.new_state(0)
    assert [state.action_text(a) for a in (0, 2, 7, 8, 12, 36, 60, 75, 83)] == [
        "keep hand",
        "pass",
        "call MOON",
        "trump C",
        "give 9C",
        "return 9C",
        "play 9C",
        "play QH",
        "play AS",
    ]
    assert [state.action_text(a) for a in (84, 107, 108, 109, 110, 111)] == [
        "discard 9C",
        "discard AS",
        "discard X1",
        "give X1",
        "return X1",
        "play X1",
    ]
    assert state.action_payload(108) == ("discard", "X1")
    assert state.action_payload(110) == ("return_card", "X1")
    assert NUM_ACTIONS == 112


# --- the joker variant ---------------------------------------------------------------------
# Played from JOKER_DEAL and joker_deal (tests/support/bid_euchre.py).


def test_without_the_joker_option_there_is_no_discard_and_no_joker() -> None:
    for seed in range(10):
        state = GAME.new_state(seed)
        assert state.phase == "bidding" and all(len(hand) == 6 for hand in state.hands)
        assert not any(e.kind.startswith("discard") for e in state.events)
        view = state.observation(state.dealer)
        assert view.joker is False and view.discarded is None


def test_joker_deal_has_25_cards_and_the_dealer_gets_the_last_one_as_a_seventh() -> None:
    for seed in range(20):
        state = GAME.new_state(seed, {"joker": True})
        rng = random.Random(seed)
        dealer = rng.randrange(4)
        deck = list(JOKER_CARDS)
        rng.shuffle(deck)
        expected: list[list[str]] = [[], [], [], []]
        for i, card in enumerate(deck[:24]):
            expected[(dealer + 1 + i) % 4].append(card)
        expected[dealer].append(deck[24])
        deal = state.events[0]
        assert [sorted(h) for h in deal.data["hands"]] == [sorted(h) for h in expected]
        assert [len(h) for h in state.hands] == [7 if s == dealer else 6 for s in range(4)]
        assert sorted(c for h in state.hands for c in h) == sorted(JOKER_CARDS)
        # The discard comes first, by the dealer, and may be any of the seven cards.
        assert state.phase == "discard" and state.current_seat() == dealer
        assert legal_texts(state) == [f"discard {c}" for c in state.hands[dealer]]
        assert state.observation(dealer).hand_sizes == tuple(len(h) for h in state.hands)


def test_the_joker_sorts_last_in_a_hand() -> None:
    state = arranged_deal(JOKER_DEAL, dealer=3, joker=True)
    assert state.observation(1).hand == ("TS", "JS", "QS", "KS", "AS", "X1")
    assert legal_texts(state)[-1] == "discard TD"


def test_the_dealer_may_discard_the_joker_and_it_is_out_of_play() -> None:
    hands = (*JOKER_DEAL[:1], "TD AS KS QS JS TS", *JOKER_DEAL[2:3], "AC KC QC JC TC 9D X1")
    state = arranged_deal(hands, dealer=3, joker=True)
    assert "discard X1" in legal_texts(state)
    act(state, "discard X1")
    assert all("X1" not in hand for hand in state.hands)
    assert state.discarded == "X1" and state.phase == "bidding"


def test_the_discard_is_seen_by_the_dealer_alone_and_is_out_of_play() -> None:
    state = arranged_deal(JOKER_DEAL, dealer=3, joker=True)
    for seat in (0, 1, 2):
        assert state.observation(seat).phase == "discard"
    act(state, "discard TD")
    assert [len(h) for h in state.hands] == [6, 6, 6, 6]
    assert state.observation(3).discarded == "TD"
    assert "TD" not in state.observation(3).hand
    for seat in (0, 1, 2):
        view = state.observation(seat)
        assert view.discarded is None and view.joker is True
        assert view.hand_sizes == (6, 6, 6, 6)
    public, private = state.events[-2:]
    assert (public.kind, public.visible_to, dict(public.data)) == ("discard", None, {})
    assert public.text == "Seat 3 discards a card face down"
    assert (private.kind, private.visible_to, dict(private.data)) == (
        "discarded",
        (3,),
        {"card": "TD"},
    )
    # The calls start left of the dealer; the discarded card is never playable again.
    assert state.phase == "bidding" and state.current_seat() == 0
    act(state, "call 3", "pass", "pass", "pass", "trump D")
    while state.hand_number == 1:
        assert "play TD" not in legal_texts(state)
        state.apply(state.legal_actions()[0])
    tricks = [e.data["cards"] for e in state.events if e.kind == "trick"]
    played = [p["card"] for cards in tricks for p in cards]
    assert len(played) == 24 and "TD" not in played


def test_only_the_dealer_may_discard() -> None:
    state = arranged_deal(JOKER_DEAL, dealer=3, joker=True)
    before = state.snapshot()
    for bad in ("discard 9C", "discard X1", "pass", "call 3"):
        with pytest.raises(IllegalActionError):
            act(state, bad)
    assert state.snapshot() == before


def test_ace_no_face_is_asked_after_the_discard() -> None:
    state = arranged_deal(
        ("AH TH 9H 9S 9C TD", "X1 AS KS QS JS TS", "JD JH KH AD KD QD", "AC KC QC JC TC 9D QH"),
        dealer=3,
        joker=True,
        ace_no_face=True,
    )
    assert state.phase == "discard"
    act(state, "discard QH")
    assert state.phase == "ace_no_face" and state.current_seat() == 0


def test_the_joker_beats_the_right_bower_and_is_the_only_trump_that_must_follow() -> None:
    state = joker_deal()
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "JH")
    assert legal_texts(state) == ["play X1"]  # the joker is seat 1's only trump
    play(state, "X1")
    assert legal_texts(state) == ["play JD", "play 9H", "play TH"]
    play(state, "9H")
    assert len(legal_texts(state)) == 6  # seat 3 holds no trump: anything goes
    play(state, "9D")
    assert last_event(state, "trick")["winner"] == 1


def test_a_led_joker_calls_for_trump() -> None:
    state = joker_deal()
    act(state, "pass", "call 3", "pass", "pass", "trump H")
    assert state.current_seat() == 1
    play(state, "X1")
    assert legal_texts(state) == ["play JD", "play 9H", "play TH"]
    play(state, "JD")
    play(state, "9D")
    assert legal_texts(state) == ["play JH", "play QH", "play KH", "play AH"]
    play(state, "JH")
    assert last_event(state, "trick")["winner"] == 1


@pytest.mark.parametrize(
    ("trump", "seat_1_may_play"),
    [
        ("H", ["play TS", "play JS", "play QS", "play KS", "play AS"]),
        ("S", ["play TS", "play JS", "play QS", "play KS", "play AS", "play X1"]),
    ],
)
def test_the_joker_is_a_card_of_the_trump_suit_only(trump: str, seat_1_may_play: list[str]) -> None:
    state = joker_deal()
    act(state, "call 3", "pass", "pass", "pass", f"trump {trump}")
    play(state, "9S")
    assert legal_texts(state) == seat_1_may_play


def test_the_joker_may_be_played_by_a_seat_void_in_the_led_suit() -> None:
    state = joker_deal()
    act(state, "call 3", "pass", "pass", "pass", "trump D")
    play(state, "9C")
    assert "play X1" in legal_texts(state) and len(legal_texts(state)) == 6
    play(state, "X1")  # a trump on a club lead: it takes the trick
    play(state, "QD", "AC")
    assert last_event(state, "trick")["winner"] == 1


def test_ask_partner_holding_the_joker_must_return_it_over_the_right_bower() -> None:
    state = joker_deal()
    act(state, "pass", "pass", "pass", "call ASK", "trump S", "give 9D")
    assert state.current_seat() == 1
    assert legal_texts(state) == ["return X1"]
    act(state, "return X1")
    assert "X1" in state.hands[3]
    assert state.observation(3).card_returned == "X1"


def test_a_thrown_in_joker_hand_is_dealt_again_with_a_new_discard() -> None:
    state = GAME.new_state(4, {"joker": True, "stick_the_dealer": False})
    first_dealer = state.dealer
    act(state, state.action_text(state.legal_actions()[0]), "pass", "pass", "pass", "pass")
    assert state.dealer == (first_dealer + 1) % 4
    assert state.phase == "discard" and state.discarded is None
    assert sorted(c for h in state.hands for c in h) == sorted(JOKER_CARDS)
