"""Baloot rules, one test per rule, plus the worked examples of the specification.

Positions are set up with ``arranged_round`` (a fixed deal instead of the shuffle) and
then driven only through the public API, by canonical action text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from arena.games.api import Deal, DealError, IllegalActionError, OptionError
from arena.games.baloot.game import (
    CARDS,
    NUM_ACTIONS,
    BalootGame,
    BalootState,
    hokum_points,
    round_points,
    sun_points,
)
from arena.games.registry import get_game

GAME = BalootGame()

# --- helpers -------------------------------------------------------------------------------


def arranged_round(
    dealer: int,
    up_card: str,
    buyer: int,
    hands: Mapping[int, str] | None = None,
    *,
    scores: tuple[int, ...] = (0, 0),
    deal_number: int = 1,
    **options: object,
) -> BalootState:
    """A fresh match whose first round is dealt so that each seat ends with the 8 cards
    given (seats left out get the unused cards in canonical order), provided ``buyer``
    buys. The buyer's hand holds the up-card; every seat's first five cards are the first
    five listed (the up-card aside), and the face-down cards are stacked so that the rest
    arrive as listed.
    The deal goes through ``new_state(deal=...)``; ``scores`` and ``deal_number`` are the
    running scores and the round number the match starts from.
    """
    given = {seat: text.split() for seat, text in (hands or {}).items()}
    used = {card for cards in given.values() for card in cards} | {up_card}
    spare = [card for card in CARDS if card not in used]
    final: list[list[str]] = []
    for seat in range(4):
        if seat in given:
            cards = given[seat]
        else:
            count = 7 if seat == buyer else 8
            cards, spare = spare[:count], spare[count:]
        if seat == buyer and up_card not in cards:
            cards = [up_card, *cards]
        final.append(cards)
    assert sorted(c for cards in final for c in cards) == sorted(CARDS), "deal all 32 once"
    assert all(len(cards) == 8 for cards in final)
    first, later = [], []
    for cards in final:
        own = [card for card in cards if card != up_card]
        first.append(own[:5])
        later.append(own[5:])
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    rest = [up_card, *(card for seat in order for card in later[seat])]
    deal = Deal.of(first, dealer, " ".join(rest), scores=scores, deal_number=deal_number)
    return GAME.new_state(0, options, deal=deal)


def action_id(text: str) -> int:
    """The action id with this canonical text, legal or not."""
    return ACTION_IDS[text]


ACTION_IDS = {GAME.new_state(0).action_text(a): a for a in range(NUM_ACTIONS)}


def act(state: BalootState, *texts: str) -> None:
    for text in texts:
        state.apply(action_id(text))


def legal_texts(state: BalootState) -> list[str]:
    return [state.action_text(a) for a in state.legal_actions()]


def last_event(state: BalootState, kind: str) -> dict[str, object]:
    return dict(next(e for e in reversed(state.events) if e.kind == kind).data)


def play_out(
    state: BalootState,
    plays: Mapping[int, Sequence[str]] | None = None,
    declarations: Mapping[int, str] | None = None,
    *,
    tricks: int = 8,
) -> None:
    """Play ``tricks`` more tricks: each seat plays its listed cards in order, then its
    first legal card; seats declare as listed, otherwise nothing."""
    queues = {seat: list(cards) for seat, cards in (plays or {}).items()}
    target = len(state.tricks) + tricks
    round_number = state.round_number
    while state.round_number == round_number and not state.is_terminal():
        if len(state.tricks) >= target:
            return
        seat = state.current_seat()
        if state.phase == "declaring":
            act(state, (declarations or {}).get(seat, "declare none"))
        elif queues.get(seat):
            act(state, f"play {queues[seat].pop(0)}")
        else:
            state.apply(state.legal_actions()[0])


def play(state: BalootState, *cards: str) -> None:
    """Play these cards in order, each by whichever seat is to act (declaring nothing)."""
    for card in cards:
        if state.phase == "declaring":
            act(state, "declare none")
        act(state, f"play {card}")


# --- deals ---------------------------------------------------------------------------------
# Dealer 3 unless a test says otherwise: seat 0 bids first (B1), then 1, 2 and 3 (B4).
# Teams: seats 0 & 2 (team 0) against 1 & 3 (team 1).

# Sun, up-card A♦: seat 0 holds A♦ and seven spades and takes every trick.
SUN_SWEEP = {0: "AD AS TS KS QS JS 9S 8S"}
SWEEP_LEADS = {0: ["AD", "AS", "TS", "KS", "QS", "JS", "9S", "8S"]}

# Hokum hearts, up-card 7♥: seat 0 buys a weak hand; seat 2 holds K♥ Q♥ (Baloot for the
# buyer's team); seats 1 and 3 take every trick but the fourth.
HOKUM_WEAK_BUYER = {
    0: "7C 8C 7D 8D 7H 8H 7S 8S",
    1: "AC TC KC QC JH 9H AH TH",
    2: "9C JC 9D JD 9S JS QH KH",
    3: "AD TD KD QD AS TS KS QS",
}
WEAK_BUYER_PLAYS = {  # team 1 takes 150 abnat; seat 2 ruffs trick 4 for 12
    0: ["7C", "7H", "8C", "7D", "8D", "8H", "7S", "8S"],
    1: ["AC", "JH", "TC", "KC", "9H", "AH", "TH", "QC"],
    2: ["9C", "QH", "JC", "KH", "9D", "JD", "9S", "JS"],
    3: ["QS", "QD", "KS", "KD", "TD", "AD", "TS", "AS"],
}

# Hokum spades, up-card J♠: seat 0 holds all eight trumps (K♠ Q♠ included: Baloot).
ALL_TRUMPS = {0: "JS 9S AS TS KS QS 8S 7S"}


def hokum_by_seat_0(hands: Mapping[int, str], up_card: str, **kwargs: object) -> BalootState:
    """Seat 0 calls Hokum, everyone passes, seat 0 keeps it."""
    state = arranged_round(3, up_card, 0, hands, **kwargs)  # type: ignore[arg-type]
    act(state, "hokum", "pass", "pass", "pass", f"choose hokum {up_card[1]}")
    return state


def sun_by_seat_0(hands: Mapping[int, str], up_card: str, **kwargs: object) -> BalootState:
    state = arranged_round(3, up_card, 0, hands, **kwargs)  # type: ignore[arg-type]
    act(state, "sun")
    return state


# --- the game's facts ------------------------------------------------------------------------


def test_importing_the_module_registers_baloot() -> None:
    assert get_game("baloot").info.num_seats == 4
    assert get_game("baloot").info.seat_teams == (0, 1, 0, 1)


def test_unknown_options_and_bad_values_are_refused() -> None:
    with pytest.raises(OptionError):
        GAME.new_state(1, {"target": 100})
    with pytest.raises(OptionError):
        GAME.new_state(1, {"max_rounds": 0})


def test_action_ids_have_one_text_each_for_the_whole_game() -> None:
    state = GAME.new_state(3)
    texts = [state.action_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert texts[:4] == ["pass", "hokum", "sun", "ashkal"]
    with pytest.raises(IllegalActionError):
        state.action_text(NUM_ACTIONS)


# --- direction and deal ----------------------------------------------------------------------


def test_bidding_runs_counter_clockwise_from_the_dealers_right() -> None:
    state = arranged_round(1, "7H", 2)
    seats = []
    for _ in range(4):
        seats.append(state.current_seat())
        act(state, "pass")
    assert seats == [2, 3, 0, 1]


def test_play_moves_to_the_right_and_the_deal_passes_right() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD")
    seats: list[int] = []
    while len(seats) < 4:
        if state.phase == "playing":
            seats.append(state.current_seat())
        state.apply(state.legal_actions()[0])
    assert seats == [0, 1, 2, 3]
    play_out(state)
    assert state.dealer == 0 and state.round_number == 2


def test_five_cards_each_then_the_up_card_face_up() -> None:
    state = GAME.new_state(11)
    deal = state.events[0]
    assert deal.kind == "deal" and deal.visible_to == ()
    assert [len(hand) for hand in deal.data["hands"]] == [5, 5, 5, 5]
    up = state.events[1]
    assert up.kind == "up_card" and up.public
    for seat in range(4):
        view = state.observation(seat)
        assert view.up_card == up.data["card"]
        assert len(view.hand) == 5 and view.hand_sizes == (5, 5, 5, 5)
        assert view.up_card not in view.hand


def test_the_buyer_takes_the_up_card_and_two_others_take_three() -> None:
    state = arranged_round(3, "AD", 0, SUN_SWEEP)
    act(state, "sun")
    assert state.observation(0).hand_sizes == (8, 8, 8, 8)
    draws = {e.seat: e for e in state.events if e.kind == "draw"}
    assert draws[0].data["cards"][0] == "AD" and len(draws[0].data["cards"]) == 3
    assert all(len(draws[s].data["cards"]) == 3 for s in (1, 2, 3))
    assert all(draws[s].visible_to == (s,) for s in range(4))
    assert "AD" in state.observation(0).hand


# --- bidding, round 1 --------------------------------------------------------------------------


def test_ashkal_is_offered_only_to_the_third_and_fourth_bidders() -> None:
    state = arranged_round(3, "7H", 0)
    offered = []
    for _ in range(4):
        offered.append("ashkal" in legal_texts(state))
        act(state, "pass")
    assert offered == [False, False, True, True]


def test_only_one_hokum_may_stand_in_round_one() -> None:
    state = arranged_round(3, "7H", 0)
    assert legal_texts(state) == ["pass", "hokum", "sun"]
    act(state, "pass", "hokum")
    assert legal_texts(state) == ["pass", "sun", "ashkal"]


def test_a_sun_opens_a_claim_window_for_earlier_bidders_only() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "pass", "pass", "sun")  # seat 2 (B3) calls Sun
    assert state.phase == "claim_window"
    assert (state.current_seat(), legal_texts(state)) == (0, ["pass", "sun"])
    act(state, "pass")
    assert state.current_seat() == 1
    act(state, "sun")  # seat 1 claims: seat 3 never acts
    assert (state.contract, state.buyer) == ("sun", 1)
    assert [b.seat for b in state.bids] == [0, 1, 2, 0, 1]


def test_the_first_claim_takes_the_contract() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "pass", "pass", "pass", "sun", "sun")  # seat 3 calls, seat 0 claims at once
    assert (state.contract, state.buyer) == ("sun", 0)
    assert state.phase != "claim_window"


def test_if_nobody_claims_the_sun_caller_buys() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "sun", "pass")
    assert (state.contract, state.trump, state.buyer) == ("sun", None, 1)


def test_a_first_bidders_sun_ends_the_bidding_at_once() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "sun")
    assert (state.contract, state.buyer) == ("sun", 0)
    assert len(state.bids) == 1


def test_ashkal_makes_the_callers_partner_the_buyer_and_leader() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "pass", "pass", "ashkal", "pass", "pass", "pass")  # dealer's Ashkal
    assert (state.contract, state.buyer) == ("sun", 1)
    assert "7H" in state.observation(1).hand
    assert state.phase in ("playing", "declaring") and state.current_seat() == 1


def test_an_ashkal_may_be_claimed_as_sun_by_an_earlier_bidder() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "pass", "pass", "ashkal", "sun")  # seat 2 Ashkal, seat 0 claims
    assert (state.contract, state.buyer) == ("sun", 0)


def test_ashkal_is_allowed_on_an_ace_up_card() -> None:
    state = arranged_round(3, "AH", 0)
    act(state, "pass", "pass")
    assert "ashkal" in legal_texts(state)


def test_after_a_hokum_the_earlier_bidders_get_a_second_turn() -> None:
    state = arranged_round(3, "7H", 2)
    act(state, "pass", "pass", "hokum", "pass")  # seat 2 (B3) Hokum, seat 3 passes
    assert state.phase == "second_turn"
    assert (state.current_seat(), legal_texts(state)) == (0, ["pass", "sun"])
    act(state, "pass")
    assert (state.current_seat(), legal_texts(state)) == (1, ["pass", "sun"])
    act(state, "pass")
    assert state.phase == "contract_choice" and state.current_seat() == 2
    assert legal_texts(state) == ["choose sun", "choose hokum H"]
    act(state, "choose hokum H")
    assert (state.contract, state.trump, state.buyer) == ("hokum", "H", 2)


def test_the_third_bidder_may_call_ashkal_in_the_second_turn() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "pass", "pass", "pass", "hokum")  # the dealer (B4) calls Hokum
    act(state, "pass", "pass")
    assert (state.current_seat(), legal_texts(state)) == (2, ["pass", "sun", "ashkal"])
    act(state, "ashkal", "pass", "pass")
    assert (state.contract, state.buyer) == ("sun", 0)


def test_a_sun_in_the_second_turn_opens_a_claim_window() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "pass", "hokum", "pass", "pass", "sun")  # seat 1 calls Sun
    assert state.phase == "claim_window" and state.current_seat() == 0
    act(state, "pass")
    assert (state.contract, state.buyer) == ("sun", 1)


def test_the_hokum_caller_may_switch_to_sun_without_a_claim_window() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "hokum", "pass", "pass", "pass")  # B1: nobody before, no second turn
    assert state.phase == "contract_choice"
    act(state, "choose sun")
    assert (state.contract, state.trump, state.buyer) == ("sun", None, 0)


def test_a_later_sun_over_a_hokum_takes_the_contract() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "hokum", "sun", "pass")  # seat 0 may claim back as Sun, passes
    assert (state.contract, state.buyer) == ("sun", 1)


# --- bidding, round 2 and the redeal -----------------------------------------------------------


def test_four_passes_open_round_two_without_ashkal() -> None:
    state = arranged_round(3, "7H", 0)
    act(state, "pass", "pass", "pass", "pass")
    assert state.bidding_round == 2
    offered = []
    for _ in range(3):
        offered.append((state.current_seat(), legal_texts(state)))
        act(state, "pass")
    offered.append((state.current_seat(), legal_texts(state)))
    assert offered == [(seat, ["pass", "hokum", "sun"]) for seat in (0, 1, 2, 3)]


def test_a_round_two_sun_ends_the_bidding_at_once() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "pass", "pass", "pass", "pass", "sun")
    assert (state.contract, state.buyer) == ("sun", 1)
    assert state.phase in ("playing", "declaring")


def test_round_two_hokum_trump_must_differ_from_the_up_cards_suit() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "pass", "pass", "pass", "pass", "hokum")
    assert legal_texts(state) == ["pass", "sun"]  # only the players after seat 1
    act(state, "pass", "pass")
    assert state.phase == "contract_choice" and state.current_seat() == 1
    assert legal_texts(state) == [
        "choose sun",
        "choose hokum C",
        "choose hokum D",
        "choose hokum S",
    ]
    act(state, "choose hokum S")
    assert (state.contract, state.trump, state.buyer) == ("hokum", "S", 1)


def test_a_later_round_two_sun_beats_a_hokum() -> None:
    state = arranged_round(3, "7H", 2)
    act(state, "pass", "pass", "pass", "pass", "pass", "hokum", "sun")
    assert (state.contract, state.buyer) == ("sun", 2)


def test_two_all_pass_rounds_throw_the_deal_in_and_it_passes_right() -> None:
    state = arranged_round(3, "7H", 0, scores=(30, 40))
    act(state, *["pass"] * 8)
    throw_in = next(e for e in state.events if e.kind == "throw_in")
    assert throw_in.data["scores"] == [30, 40]
    assert state.scores() == [30, 40]
    assert state.dealer == 0 and state.round_number == 2
    assert state.current_seat() == 1 and state.bidding_round == 1


def test_the_max_rounds_safeguard_counts_thrown_in_rounds() -> None:
    state = arranged_round(3, "7H", 0, max_rounds=1)
    act(state, *["pass"] * 8)
    assert state.is_terminal() and state.winner() is None
    assert state.events[-1].kind == "game_end"


# --- doubling ----------------------------------------------------------------------------------


def test_doubling_starts_after_the_full_deal_with_the_defender_on_the_buyers_right() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    assert state.phase == "doubling"
    assert state.observation(0).hand_sizes == (8, 8, 8, 8)
    assert (state.current_seat(), legal_texts(state)) == (1, ["decline", "double"])
    act(state, "decline")
    assert (state.current_seat(), legal_texts(state)) == (3, ["decline", "double"])
    act(state, "decline")
    assert state.multiplier == 1 and state.current_seat() == 0


def test_the_doubling_chain_is_double_triple_four_gahwa() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "double")  # seat 3 doubles
    assert (state.current_seat(), legal_texts(state), state.multiplier) == (
        0,
        ["decline", "triple"],
        2,
    )
    act(state, "triple")
    assert (state.current_seat(), legal_texts(state), state.multiplier) == (
        3,
        ["decline", "four"],
        3,
    )
    act(state, "four")
    assert (state.current_seat(), legal_texts(state), state.multiplier) == (
        0,
        ["decline", "gahwa"],
        4,
    )
    act(state, "gahwa")
    view = state.observation(1)
    assert (view.multiplier, view.gahwa, view.locked) == (4, True, False)
    assert [d.doubling for d in view.doublings] == ["decline", "double", "triple", "four", "gahwa"]


@pytest.mark.parametrize(
    ("steps", "level"),
    [
        (("double", "decline"), 2),
        (("double", "triple", "decline"), 3),
        (("double", "triple", "four", "decline"), 4),
    ],
)
def test_a_decline_after_a_double_ends_the_chain_at_the_level_reached(
    steps: tuple[str, ...], level: int
) -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, *steps)
    assert state.multiplier == level and not state.gahwa
    assert state.phase == "playing" and state.current_seat() == 0


@pytest.mark.parametrize(
    ("scores", "allowed"),
    [((101, 99), True), ((100, 50), False), ((150, 100), False), ((0, 0), False)],
)
def test_sun_may_be_doubled_only_when_the_buyers_are_above_100_and_defenders_below(
    scores: tuple[int, int], allowed: bool
) -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD", scores=scores)
    assert state.observation(0).doubling_allowed is allowed
    assert (state.phase == "doubling") is allowed


def test_the_whole_chain_is_open_in_a_sun_that_may_be_doubled() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD", scores=(120, 30))
    act(state, "double", "triple", "four", "gahwa")
    assert (state.multiplier, state.gahwa, state.locked) == (4, True, False)


def test_hokum_may_always_be_doubled() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H", scores=(0, 140))
    assert state.phase == "doubling" and state.observation(2).doubling_allowed


# --- locked leads and play -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("steps", "locked"),
    [
        (("double", "decline"), True),
        (("double", "triple", "decline"), False),
        (("double", "triple", "four", "decline"), True),
        (("double", "triple", "four", "gahwa"), False),
        (("decline", "decline"), False),
    ],
)
def test_a_hokum_doubled_to_two_or_four_forbids_leading_trump_with_other_cards(
    steps: tuple[str, ...], locked: bool
) -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, *steps)
    assert state.locked is locked
    trumps_led = {"play 7H", "play 8H"} & set(legal_texts(state))
    assert bool(trumps_led) is not locked


def test_a_locked_leader_holding_only_trumps_may_lead_them() -> None:
    state = hokum_by_seat_0(ALL_TRUMPS, "JS")
    act(state, "double", "decline", "declare none")
    assert state.locked
    assert legal_texts(state) == [
        f"play {c}" for c in ("7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS")
    ]


def test_locked_restricts_only_leads_not_following() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "double", "decline")
    play(state, "7C", "AC", "9C", "QS", "KC", "JC", "KS", "8C")
    assert "play JH" not in legal_texts(state)  # seat 1 leads: no trump while it has clubs
    play(state, "TC")
    assert {"play KH", "play QH"} <= set(legal_texts(state))  # seat 2 is void: may trump


def test_players_must_follow_suit_but_need_not_trump() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "decline")
    play(state, "7C", "AC")
    assert legal_texts(state) == ["play 9C", "play JC"]  # seat 2 follows clubs
    play(state, "9C")
    act(state, "declare none")
    assert len(legal_texts(state)) == 8  # seat 3 is void in clubs and in trumps: anything


def test_the_buyer_leads_the_first_trick() -> None:
    state = arranged_round(3, "7H", 1)
    act(state, "pass", "sun", "pass")
    assert state.current_seat() == 1


def test_hokum_trump_ranks_jack_nine_ace_ten_and_beats_any_plain_card() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "decline")
    play_out(state, WEAK_BUYER_PLAYS, tricks=5)
    winners = [t.winner for t in state.tricks]
    assert winners == [1, 1, 1, 2, 1]  # 2: J♥ over Q♥; 4: K♥ ruffs K♣; 5: 9♥ ruffs 10♦


def test_sun_ranks_ten_above_king_and_queen() -> None:
    hands = {
        0: "AD 7C 8H 9H TH JH QH KH",
        1: "KC 7D 8D 9D TD JD QD KD",
        2: "TC 7S 8S 9S TS JS QS KS",
        3: "QC AC JC 9C 8C AH AS 7H",
    }
    state = sun_by_seat_0(hands, "AD")
    play(state, "7C", "KC", "TC", "QC")
    assert state.tricks[0].winner == 2


# --- projects ------------------------------------------------------------------------------------


def trick_one(state: BalootState, declarations: Mapping[int, str]) -> None:
    play_out(state, declarations=declarations, tricks=1)


def test_projects_are_declared_in_trick_one_before_playing_and_never_later() -> None:
    hands = {0: "AD AS KS QS 7C 8C 7H 8H", 1: "AH KH QH JH 7D 8D 9D TD"}
    state = sun_by_seat_0(hands, "AD")
    assert state.phase == "declaring" and state.current_seat() == 0
    assert legal_texts(state) == ["declare none", "declare sira AS KS QS"]
    act(state, "declare sira AS KS QS")
    assert state.phase == "playing" and state.current_seat() == 0
    play_out(state, tricks=1)
    while state.round_number == 1:
        assert state.phase == "playing"
        state.apply(state.legal_actions()[0])


def test_a_seat_without_projects_is_not_asked_and_four_nines_are_no_project() -> None:
    hands = {0: "AD 9C 9D 9H 9S 7C 8H JS", 1: "AC QC 7D QD 7H QH 7S QS"}
    state = sun_by_seat_0(hands, "AD")
    assert state.phase == "playing"


def test_declaration_choices_cover_every_valid_set_of_up_to_two_disjoint_projects() -> None:
    hands = {0: "AD AS KS QS JS TS 7C 7H"}
    state = sun_by_seat_0(hands, "AD")
    assert legal_texts(state) == [
        "declare none",
        "declare sira AS KS QS",
        "declare 50 AS KS QS JS",
        "declare 100 AS KS QS JS TS",
        "declare sira KS QS JS",
        "declare 50 KS QS JS TS",
        "declare sira QS JS TS",
    ]


def test_a_long_run_may_be_split_into_two_projects() -> None:
    state = hokum_by_seat_0(ALL_TRUMPS, "JS")
    act(state, "decline", "decline")
    texts = legal_texts(state)
    assert "declare 100 AS KS QS JS TS 9S 8S 7S" in texts
    assert "declare 100 AS KS QS JS TS + sira 9S 8S 7S" in texts
    assert "declare 50 AS KS QS JS + 50 TS 9S 8S 7S" in texts
    assert not any(t.count("+") > 1 for t in texts)


def test_declarations_are_private_until_trick_one_is_over() -> None:
    hands = {0: "AD AS KS QS 7C 8C 7H 8H", 1: "AH KH QH JH 7D 8D 9D TD"}
    state = sun_by_seat_0(hands, "AD")
    act(state, "declare sira AS KS QS", "play AD")
    assert state.events[-2].kind == "declare" and state.events[-2].visible_to == (0,)
    assert [p.cards for p in state.observation(0).own_projects] == [("AS", "KS", "QS")]
    assert state.observation(1).projects == () and state.observation(1).own_projects == ()
    play_out(state, declarations={1: "declare 50 AH KH QH JH"}, tricks=1)
    for seat in range(4):
        view = state.observation(seat)
        assert [(p.seat, p.kind, p.points) for p in view.projects] == [
            (0, "sira", 4),
            (1, "fifty", 10),
        ]
        assert view.project_team == 1
    assert last_event(state, "projects")["team"] == 1


@pytest.mark.parametrize(
    ("hands", "declarations", "team"),
    [
        # Value first: a 50 beats a Sira, whatever the top cards.
        (
            {0: "AD AS KS QS 7C 8C 7H TC", 1: "JH TH 9H 8H 7D 9D TD JD"},
            {0: "declare sira AS KS QS", 1: "declare 50 JH TH 9H 8H"},
            1,
        ),
        # Equal value: the higher top card in sequence order.
        (
            {0: "AD KS QS JS 7C 8C 7H 8H", 1: "AH KH QH 8D 7D 9D 9C JD"},
            {0: "declare sira KS QS JS", 1: "declare sira AH KH QH"},
            1,
        ),
        # Equal value and top card: the earlier turn in trick 1 (seat 0 leads).
        (
            {0: "AD AS KS QS 7C 8C 7H 8H", 1: "AH KH QH 8D 7D 9D 9C JD"},
            {0: "declare sira AS KS QS", 1: "declare sira AH KH QH"},
            0,
        ),
        (
            {
                0: "AD 7S 9S 7C 8C 7H 8H JC",
                1: "AC KC QC 8D 7D 9D 9H JD",
                2: "AH KH QH 8S TC TH JH TS",
            },
            {1: "declare sira AC KC QC", 2: "declare sira AH KH QH"},
            1,
        ),
        # A four-of-a-kind's top card is its rank: four kings beat a queen-high run.
        (
            {0: "AD KC KD KH KS 7C 8C 7S", 1: "QH JH TH 9H 8H 7D 8D 9D"},
            {0: "declare 100 KC KD KH KS", 1: "declare 100 QH JH TH 9H 8H"},
            0,
        ),
        # ... and four jacks beat four tens.
        (
            {0: "AD TC TD TH TS 7C 8C 7S", 1: "JC JD JH JS 7D 8D 9D 7H"},
            {0: "declare 100 TC TD TH TS", 1: "declare 100 JC JD JH JS"},
            1,
        ),
        # A team that declared nothing loses.
        (
            {0: "AD 7S 9S 7C 8C 7H 8H JC", 1: "JH TH 9H 8D 7D 9D TD QD"},
            {1: "declare sira JH TH 9H"},
            1,
        ),
    ],
)
def test_the_best_project_decides_which_team_scores(
    hands: dict[int, str], declarations: dict[int, str], team: int
) -> None:
    state = sun_by_seat_0(hands, "AD")
    trick_one(state, declarations)
    assert state.observation(2).project_team == team


def test_the_winning_team_scores_all_its_projects_the_other_none() -> None:
    hands = {
        0: "AD AS KS QS 7C 8C TC 7H",
        1: "JD TD 9D 7D 9H 8H 9C JS",
        2: "KC QC JC 9S 8S 7S 8D JH",
        3: "AH KH QH AC QD KD TH TS",
    }
    state = sun_by_seat_0(hands, "AD")
    play_out(
        state,
        declarations={
            0: "declare sira AS KS QS",
            1: "declare sira JD TD 9D",
            2: "declare sira KC QC JC + sira 9S 8S 7S",
            3: "declare sira AH KH QH",
        },
    )
    end = last_event(state, "hand_end")
    assert end["projects"] == [12, 0]  # three Siras of team 0 (A high, earliest turn)


def test_four_aces_are_a_400_in_sun_and_a_100_in_hokum() -> None:
    sun = sun_by_seat_0({0: "AD AC AH AS 7C 8C 7H 8H"}, "AD")
    trick_one(sun, {0: "declare aces AC AD AH AS"})
    assert [(p.kind, p.points) for p in sun.observation(0).projects] == [("four_aces", 40)]
    hokum = hokum_by_seat_0({0: "AD AC AH AS 7C 8C 7H 8H"}, "AD")
    act(hokum, "decline", "decline")
    trick_one(hokum, {0: "declare aces AC AD AH AS"})
    assert [(p.kind, p.points) for p in hokum.observation(0).projects] == [("four_aces", 10)]


def test_baloot_counts_for_the_holders_team_and_is_never_multiplied() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "double", "triple", "decline")  # x3, the buyer fails
    play_out(state, WEAK_BUYER_PLAYS)
    end = last_event(state, "hand_end")
    assert end["baloot"] == [2, 0] and end["baloot_seat"] == 2
    assert end["points"] == [2, 16 * 3]


def test_baloot_is_automatic_and_its_cards_may_sit_in_a_declared_run() -> None:
    state = hokum_by_seat_0(ALL_TRUMPS, "JS")
    act(state, "decline", "decline", "declare 100 AS KS QS JS TS 9S 8S 7S")
    play_out(state)
    end = last_event(state, "hand_end")
    assert end["baloot"] == [2, 0] and end["projects"] == [10, 0]
    assert end["points"] == [44 + 10 + 2, 0]


def test_there_is_no_baloot_in_sun() -> None:
    state = sun_by_seat_0({0: "AD KS QS 7C 8C 7H 8H 9D"}, "AD")
    play_out(state)
    assert last_event(state, "hand_end")["baloot"] == [0, 0]


# --- abnat and rounding ----------------------------------------------------------------------------


def test_abnat_counts_card_values_and_ten_for_the_last_trick() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "decline")
    play_out(state, WEAK_BUYER_PLAYS)
    assert last_event(state, "hand_end")["abnat"] == [12, 150]
    assert [t["abnat"] for t in (e.data for e in state.events if e.kind == "trick")] == [
        14,
        26,
        16,
        12,
        24,
        24,
        20,
        26,
    ]


@pytest.mark.parametrize(
    ("abnat", "points"), [(67, 14), (63, 12), (25, 5), (65, 13), (130, 26), (0, 0), (4, 0), (6, 2)]
)
def test_sun_rounds_to_ten_then_doubles_but_a_five_is_taken_exactly(
    abnat: int, points: int
) -> None:
    assert sun_points(abnat) == points


@pytest.mark.parametrize(
    ("abnat", "points"), [(75, 7), (76, 8), (85, 8), (86, 9), (74, 7), (162, 16), (5, 0), (6, 1)]
)
def test_hokum_divides_by_ten_rounding_halves_down(abnat: int, points: int) -> None:
    assert hokum_points(abnat) == points


def test_hokum_rounding_is_per_team_so_two_sixes_give_seventeen() -> None:
    assert hokum_points(86) + hokum_points(76) == 17


# --- round scoring: the worked examples and the rules behind them ----------------------------------


def test_example_1_sun_success_each_team_scores_its_own() -> None:
    assert round_points("sun", 0, [67, 63], [0, 0], [0, 0], 1, None, False) == ([14, 12], 0)


def test_example_2_a_tie_fails_and_the_defenders_take_26() -> None:
    assert round_points("sun", 0, [65, 65], [0, 0], [0, 0], 1, None, False) == ([0, 26], 1)


def test_example_3_hokum_projects_count_towards_success() -> None:
    assert round_points("hokum", 0, [85, 77], [2, 0], [0, 0], 1, None, False) == ([10, 8], 0)


def test_example_4_a_doubled_round_is_winner_take_all() -> None:
    assert round_points("hokum", 0, [94, 68], [0, 0], [0, 0], 2, None, False) == ([32, 0], 0)


def test_example_5_the_defenders_50_beats_the_sira_and_baloot_stays_with_the_bidders() -> None:
    # Only the defenders' 50 scores (the comparison); the bidders keep their Baloot.
    assert round_points("hokum", 0, [70, 92], [0, 5], [2, 0], 1, None, False) == ([2, 21], 1)
    # The same comparison at the table: the buyer's Sira and Baloot against a 50.
    hands = {0: "7H KH QH AS KS QS 7C 8C", 1: "JD TD 9D 8D 7S 8S 9C TC"}
    state = hokum_by_seat_0(hands, "7H")
    act(state, "decline", "decline")
    play_out(state, declarations={0: "declare sira AS KS QS", 1: "declare 50 JD TD 9D 8D"})
    end = last_event(state, "hand_end")
    assert (end["projects"], end["baloot"]) == ([0, 5], [2, 0])


def test_example_6_sun_kaboot_on_an_ace_up_card_is_88() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD")
    play_out(state, SWEEP_LEADS)
    end = last_event(state, "hand_end")
    assert end["kaboot"] == 0 and end["points"] == [88, 0]
    assert state.scores() == [88, 0]


def test_kaboot_is_44_when_the_up_card_is_not_an_ace() -> None:
    state = sun_by_seat_0({0: "8S AS TS KS QS JS 9S AD"}, "8S")
    play_out(state, {0: ["AD", "AS", "TS", "KS", "QS", "JS", "9S", "8S"]})
    assert last_event(state, "hand_end")["points"] == [44, 0]


def test_kaboot_by_the_defenders_takes_everything_even_their_rivals_projects() -> None:
    hands = {
        0: "7C 8C 7D 8D 7H 8H 7S 8S",
        1: "AC TC KC QC AD TD KD QD",
        2: "JC 9C JD 9D JH 9H JS 9S",
        3: "AH TH KH QH AS TS KS QS",
    }
    state = sun_by_seat_0(hands, "7C")
    play_out(
        state,
        {0: ["7C"], 1: ["AC", "TC", "KC", "QC", "AD", "TD", "KD", "QD"]},
        {2: "declare 100 JC JD JH JS", 1: "declare sira AC KC QC"},
    )
    end = last_event(state, "hand_end")
    assert end["projects"] == [20, 0]
    assert end["kaboot"] == 1 and end["points"] == [0, 44]


def test_kaboot_adds_its_scored_projects_then_multiplies_but_not_baloot() -> None:
    state = hokum_by_seat_0(ALL_TRUMPS, "JS")
    act(state, "double", "decline", "declare 100 AS KS QS JS TS 9S 8S 7S")
    play_out(state)
    assert last_event(state, "hand_end")["points"] == [(44 + 10) * 2 + 2, 0]


def test_a_failed_round_gives_the_defenders_16_and_the_bidders_only_their_baloot() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H")
    act(state, "decline", "decline")
    play_out(state, WEAK_BUYER_PLAYS)
    end = last_event(state, "hand_end")
    assert end["round_winner"] == 1 and end["points"] == [2, 16]


def test_failure_hands_the_bidders_scored_projects_to_the_defenders() -> None:
    # 18 against 8 + 10: a tie fails, and the defenders take the bidders' 10 as well.
    assert round_points("sun", 1, [90, 40], [0, 10], [0, 0], 1, None, False) == ([36, 0], 0)


def test_a_doubled_round_won_by_the_defenders_pays_them_times_the_multiplier() -> None:
    assert round_points("sun", 0, [50, 80], [4, 0], [0, 0], 3, None, False) == ([0, 90], 1)


# --- end of the game -----------------------------------------------------------------------------


def test_gahwa_ends_the_game_for_the_round_winner_whatever_the_scores() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H", scores=(100, 0))
    act(state, "double", "triple", "four", "gahwa")
    play_out(state, WEAK_BUYER_PLAYS)
    assert state.is_terminal()
    assert state.scores() == [102, 64]  # x4 for the defenders, Baloot 2 for the bidders
    assert state.winner() == 1
    assert state.events[-1].data["reason"] == "Gahwa"


def test_reaching_152_wins() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD", scores=(65, 151))
    play_out(state, SWEEP_LEADS)
    assert state.scores() == [153, 151] and state.is_terminal() and state.winner() == 0


def test_equal_totals_past_152_play_another_round() -> None:
    state = hokum_by_seat_0(HOKUM_WEAK_BUYER, "7H", scores=(150, 136))
    act(state, "decline", "decline")
    play_out(state, WEAK_BUYER_PLAYS)  # 2 for the bidders' Baloot, 16 for the defenders
    assert state.scores() == [152, 152]
    assert not state.is_terminal() and state.observation(0).round_number == 2


def test_a_deal_starts_the_match_from_its_scores_and_round_number() -> None:
    state = arranged_round(3, "7H", 0, scores=(140, 151), deal_number=7)
    view = state.observation(0)
    assert (view.scores, view.round_number) == ((140, 151), 7)
    assert state.initial_deal().scores == (140, 151)
    assert state.initial_deal().deal_number == 7


@pytest.mark.parametrize(
    ("scores", "deal_number", "message"),
    [
        ((65, 152), 1, r"scores \(65, 152\) would have ended the match: both must be below 152"),
        ((-1, 0), 1, "never negative"),
        ((0, 0, 0), 1, "tuple of 2 whole numbers, one per team"),
        ((0, 0), 0, "deal_number is a whole number from 1"),
        ((0, 0), 4, r"deal_number must be 1..3 \(max_rounds\), not 4"),
    ],
)
def test_scores_and_round_numbers_the_match_cannot_reach_are_refused(
    scores: tuple[int, ...], deal_number: int, message: str
) -> None:
    with pytest.raises(DealError, match=message):
        arranged_round(3, "7H", 0, scores=scores, deal_number=deal_number, max_rounds=3)


def test_equal_scores_past_152_are_a_match_that_goes_on() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD", scores=(160, 160))
    play_out(state, SWEEP_LEADS)
    assert state.scores() == [248, 160] and state.winner() == 0


def test_the_max_rounds_safeguard_gives_the_game_to_the_higher_score() -> None:
    state = sun_by_seat_0(SUN_SWEEP, "AD", max_rounds=1)
    play_out(state, SWEEP_LEADS)
    assert state.is_terminal() and state.winner() == 0


# --- illegal actions -------------------------------------------------------------------------------


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    state = arranged_round(3, "7H", 0)
    before = state.snapshot()
    for text in ("ashkal", "double", "play 7H", "choose sun"):
        with pytest.raises(IllegalActionError):
            act(state, text)
    for action in (-1, NUM_ACTIONS):
        with pytest.raises(IllegalActionError):
            state.apply(action)
    assert state.snapshot() == before and state.current_seat() == 0
