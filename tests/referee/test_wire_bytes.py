"""The referee's pre-serialized requests parse to exactly the messages ``wire`` builds:
for the five games, and for the generic suite's toy game, whose messages its folder
declares and travel packed in ``other``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NotRequired, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import wire, wire_bytes
from arena.games import Game, game_names, get_game
from arena.v1 import bot_pb2
from tests.games import generic
from tests.games.toy import messages
from tests.games.toy.game import INFO as TOY
from tests.games.toy.game import toy_game

GAMES = [*game_names(), TOY.name]


@contextmanager
def game_named(name: str) -> Iterator[Game]:
    """A built-in game, or the toy, registered for the block only."""
    if name != TOY.name:
        yield get_game(name)
        return
    with generic.registered(toy_game()) as game:
        yield game


class Asked(TypedDict):
    """The keyword arguments both encoders take besides the state and the legal actions."""

    match_id: str
    decision_index: int
    deadline_s: float
    time_bank_s: NotRequired[float]


@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    match_id=st.text(max_size=40),
    deadline=st.floats(0.001, 60),
    bank=st.one_of(st.just(0.0), st.floats(0.0001, 3600)),
)
def test_every_request_of_a_playout_serializes_identically(
    game_name: str, seed: int, match_id: str, deadline: float, bank: float
) -> None:
    with game_named(game_name) as game:
        state = game.new_state(seed)
        rng = random.Random(seed)
        index = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            args: Asked = {
                "match_id": match_id,
                "decision_index": index,
                "deadline_s": deadline,
                "time_bank_s": bank / (index + 1),
            }
            expected = wire.act_request(state, legal=legal, **args)
            assert bot_pb2.ActRequest.FromString(
                wire_bytes.act_request(state, legal=legal, **args)
            ) == (expected)
            state.apply(rng.choice(legal))
            index += rng.choice((1, 1, 1, 200, 70_000))  # multi-byte varints too


@pytest.mark.parametrize("game_name", GAMES)
def test_matches_played_at_once_do_not_mix_their_memoized_pieces(game_name: str) -> None:
    """A referee interleaves many matches; the encoders remember the last values they
    saw, so alternate between three playouts and check every request."""
    with game_named(game_name) as game:
        states = [game.new_state(seed) for seed in (1, 2, 1)]
        rng = random.Random(game_name)
        index = 0
        while any(not s.is_terminal() for s in states):
            for n, state in enumerate(states):
                if state.is_terminal():
                    continue
                legal = state.legal_actions()
                args: Asked = {"match_id": f"m{n}", "decision_index": index, "deadline_s": 1.0}
                expected = wire.act_request(state, legal=legal, **args)
                actual = wire_bytes.act_request(state, legal=legal, **args)
                assert bot_pb2.ActRequest.FromString(actual) == expected
                state.apply(rng.choice(legal))
            index += 1


def test_a_game_in_no_proto_file_travels_packed_in_other() -> None:
    """The toy's observation and payloads are ``Any`` messages of the types its folder
    declares, and read back typed; the five games never use ``other``."""
    with game_named(TOY.name) as game:
        state = game.new_state(5)
        legal = state.legal_actions()
        request = wire.act_request(
            state, match_id="m", decision_index=0, deadline_s=1.0, legal=legal
        )
        assert request.WhichOneof("observation") == wire.OTHER
        assert request.other.type_url.endswith("/arena.toy.v1.ToyObservation")
        observation = wire.observation_of(request)
        assert observation == wire.observation(TOY.name, state.observation(state.current_seat()))
        for action in request.legal_actions:
            assert action.WhichOneof("payload") == wire.OTHER
            payload = wire.payload_of(TOY.name, action)
            assert isinstance(payload, messages.ACTION)
            assert action.text == f"play {payload.play.code}"
    for name in game_names():
        assert not wire.packed(name)


@pytest.mark.parametrize("value", [1, 127, 128, 300, 16_383, 16_384, 2**32, -1, -(2**31)])
def test_varints_match_protobuf(value: int) -> None:
    if value >= 0:  # uint64 action_id, field 1
        expected = bot_pb2.ActResponse(action_id=value).SerializeToString()
    else:  # int32 seat, field 3: negative int32 takes ten bytes
        expected = bot_pb2.ActRequest(seat=value).SerializeToString()
    tag = expected[:1]
    assert expected == tag + wire_bytes.varint(value)
    assert wire_bytes.varint(value) == wire_bytes._varint(value)
