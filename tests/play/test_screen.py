"""The turn screen and the reading of answers, without a terminal."""

from __future__ import annotations

from arena import wire
from arena.games import game_names, get_game
from arena.games.cards import pretty, pretty_text
from arena.play.screen import WIDTH, Seating, parse_choice, turn_screen
from arena.v1 import bot_pb2


def first_request(game: str, seed: int = 1) -> bot_pb2.ActRequest:
    state = get_game(game).new_state(seed)
    return wire.act_request(
        state, match_id="m", decision_index=0, deadline_s=60.0, legal=state.legal_actions()
    )


def seating(game: str) -> Seating:
    info = get_game(game).info
    team = info.seat_teams[first_request(game).seat]
    return Seating(info.title, team, (first_request(game).seat,), "house", info.seat_teams)


def test_every_game_screen_fits_80_columns_and_numbers_the_actions() -> None:
    for game in game_names():
        request = first_request(game)
        screen = turn_screen(request, seating(game), ["Seat 1 plays Q♥"])
        assert all(len(line) <= WIDTH for line in screen.splitlines()), screen
        for number, action in enumerate(request.legal_actions, start=1):
            assert f"{number}) {pretty_text(action.text)}" in screen
        assert "Your hand: " in screen
        assert "Since your last move:\n  Seat 1 plays Q♥" in screen


def test_observation_fields_are_shown_by_name_with_cards_as_people_write_them() -> None:
    request = first_request("bid-euchre")
    screen = turn_screen(request, seating("bid-euchre"), [])
    hand = " ".join(pretty(card.code) for card in request.bid_euchre.hand)
    assert f"Your hand: {hand}" in screen
    assert "  phase: bidding\n" in screen  # BID_EUCHRE_PHASE_BIDDING, prefix dropped
    assert f"  dealer: seat {request.bid_euchre.dealer} (opponent)\n" in screen
    assert "  tricks won: you and partner 0, opponents 0\n" in screen
    assert "  hand sizes: you 6, partner 6, seat 1 (opp) 6, seat 3 (opp) 6\n" in screen
    assert "trump:" not in screen  # unset fields are left out


def test_answers() -> None:
    legal = first_request("bid-euchre").legal_actions  # pass, call 3, call 4, ...
    assert parse_choice("2", legal).action_id == legal[1].id
    assert parse_choice("  CALL   3 ", legal).action_id == legal[1].id
    assert parse_choice("pass", legal).action_id == legal[0].id
    assert parse_choice("?", legal).command == "help"
    assert parse_choice("Q", legal).command == "quit"
    assert parse_choice("t", legal).command == "table"
    assert parse_choice("7", legal).error == "there is no action 7: choose 1 to 6"
    error = parse_choice("x" * 100, legal).error
    assert error is not None and "\n" not in error and len(error) < WIDTH


def test_a_card_is_typed_as_a_code_or_as_shown() -> None:
    legal = [
        bot_pb2.LegalAction(id=7, text="play TH"),
        bot_pb2.LegalAction(id=0, text="play QS"),
    ]
    assert parse_choice("play th", legal).action_id == 7
    assert parse_choice("play 10♥", legal).action_id == 7
    assert parse_choice("PLAY Q♠", legal).action_id == 0
    assert parse_choice("play Q♥", legal).error is not None
