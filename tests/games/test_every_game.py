"""What every registered engine must do, over random playouts of each game the registry
lists (``generic.games_to_test``): the checks are in ``tests/games/generic.py``, each
game's own rules in its ``test_<game>_*.py`` files.

The default run keeps the example counts modest; the tests marked ``slow`` (``pytest -m
slow``; the default run leaves them out) play a thousand matches of every game.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import get_game
from arena.games.api import IllegalActionError
from tests.games import generic
from tests.games.toy.game import (
    INFO,
    CarelessState,
    LeakyState,
    NondeterministicState,
    ToyGame,
    ToyState,
    UnsortedState,
    toy_game,
)

GAMES = generic.games_to_test()


def draw_case(data: st.DataObject, name: str, default_options: bool = False) -> generic.Case:
    case: generic.Case = data.draw(generic.cases(get_game(name), default_options), label="case")
    return case


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_match_ends_within_the_step_limit_with_canonical_legal_lists(
    name: str, data: st.DataObject
) -> None:
    generic.check_termination(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_a_match_with_the_default_options_ends_within_the_step_limit(
    name: str, data: st.DataObject
) -> None:
    generic.check_termination(get_game(name), draw_case(data, name, default_options=True))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_same_seed_and_actions_give_the_same_match(name: str, data: st.DataObject) -> None:
    generic.check_determinism(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_an_illegal_action_raises_and_changes_nothing(name: str, data: st.DataObject) -> None:
    generic.check_illegal_actions(get_game(name), draw_case(data, name), rate=0.25)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_no_seat_is_shown_a_card_it_may_not_see(name: str, data: st.DataObject) -> None:
    generic.check_hidden_cards(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_observations_and_legal_actions_convert_to_the_wire(name: str, data: st.DataObject) -> None:
    generic.check_wire(get_game(name), draw_case(data, name), rate=0.25)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_match_recorded_as_the_referee_records_it_verifies(
    name: str, data: st.DataObject
) -> None:
    generic.check_replay(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_the_deal_a_match_started_from_starts_it_again_from_another_seed(
    name: str, data: st.DataObject
) -> None:
    generic.check_chosen_deal(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_deal_with_the_match_so_far_starts_the_match_from_there(
    name: str, data: st.DataObject
) -> None:
    generic.check_match_so_far(get_game(name), draw_case(data, name))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_deal_that_does_not_fit_the_game_is_refused_with_a_reason(
    name: str, data: st.DataObject
) -> None:
    generic.check_bad_deals(get_game(name), draw_case(data, name))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=1000, deadline=None)
@given(data=st.data())
def test_a_thousand_matches_pass_every_per_step_check(name: str, data: st.DataObject) -> None:
    generic.check_per_step(get_game(name), draw_case(data, name))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=1000, deadline=None)
@given(data=st.data())
def test_a_thousand_matches_replay_from_their_seeds_and_verify(
    name: str, data: st.DataObject
) -> None:
    case = draw_case(data, name)
    generic.check_determinism(get_game(name), case)
    generic.check_replay(get_game(name), case)


# --- a sixth game ---------------------------------------------------------------------------

TOY_CASES = [generic.Case(seed, seed * 7 + 1, {"hands": 1 + seed % 3}) for seed in range(12)]


def test_a_registered_game_joins_the_suite_and_passes_its_checks() -> None:
    game = toy_game()
    with generic.registered(game):
        assert generic.games_to_test() == sorted([*GAMES, "toy-high-card"])
        for check in generic.MATCH_CHECKS.values():
            for case in TOY_CASES:
                check(game, case)
    assert generic.games_to_test() == GAMES


UNWIRED_INFO = replace(INFO, name="toy-unwired", title="Toy Unwired")


class UnwiredState(ToyState):
    game_info = UNWIRED_INFO


class UnwiredGame(ToyGame):
    """The toy under another name, its class outside the toy's folder: no messages part
    and no field of ``bot.proto``, so nothing it could be sent as."""

    info = UNWIRED_INFO
    state_class = UnwiredState


def test_the_wire_check_refuses_a_game_with_no_messages() -> None:
    with generic.registered(UnwiredGame()):
        for case in TOY_CASES[:2]:
            with pytest.raises(AssertionError, match="needs its proto messages"):
                generic.MATCH_CHECKS["wire"](get_game("toy-unwired"), case)
    assert generic.games_to_test() == GAMES


def test_the_registry_is_left_as_it_was_when_a_check_fails_inside() -> None:
    with pytest.raises(AssertionError), generic.registered(toy_game(LeakyState)):
        generic.check_hidden_cards(get_game("toy-high-card"), TOY_CASES[0])
    assert generic.games_to_test() == GAMES


@pytest.mark.parametrize(
    ("state_class", "check", "message"),
    [
        (LeakyState, generic.check_hidden_cards, "is shown"),
        (NondeterministicState, generic.check_determinism, "differ"),
        (CarelessState, generic.check_illegal_actions, "changed the state"),
        (UnsortedState, generic.check_legal_lists, "not ascending"),
        (UnsortedState, generic.check_termination, "not ascending"),
    ],
)
def test_a_broken_game_fails_the_check_for_what_it_breaks(
    state_class: type[ToyState], check: generic.MatchCheck, message: str
) -> None:
    game = toy_game(state_class)
    with generic.registered(game), pytest.raises(AssertionError, match=message):
        for case in TOY_CASES:
            check(game, case)


def test_the_sound_toy_game_refuses_moves_after_its_end() -> None:
    state = toy_game().new_state(1, {"hands": 1})
    policy = random.Random(1)
    while not state.is_terminal():
        state.apply(policy.choice(state.legal_actions()))
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(0)
