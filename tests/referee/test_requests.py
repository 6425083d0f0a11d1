"""Bad PlayMatch requests get INVALID_ARGUMENT with a message saying what is allowed."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2

from arena.v1 import referee_pb2, referee_pb2_grpc

GOOD_BOTS = ["127.0.0.1:1", "127.0.0.1:2"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"game": "chess"}, "unknown game 'chess'; available games: "),
        (
            {"bots": ["127.0.0.1:1"]},
            "bid-euchre takes 2 or 4 bot addresses (one per seat or one per team), got 1",
        ),
        ({"bots": GOOD_BOTS * 3}, "got 6"),
        (
            {"options": {"jokers": "true"}},
            "unknown option 'jokers' for bid-euchre; allowed options: ace_no_face, joker, max_hands, stick_the_dealer",
        ),
        (
            {"options": {"double_deck": "true"}},
            "option 'double_deck' of bid-euchre is not offered: the rules name a 48-card double "
            "deck but give it no ASK or MOON targets or scores",
        ),
        (
            {"options": {"stick_the_dealer": "maybe"}},
            "option 'stick_the_dealer' takes true or false, not 'maybe'",
        ),
        ({"options": {"max_hands": "0"}}, "option 'max_hands' must be in 1..10000, not 0"),
        ({"options": {"max_hands": "many"}}, "option 'max_hands' takes a whole number, not 'many'"),
        (
            {"bots": ["localhost", "127.0.0.1:2"]},
            "malformed bot address 'localhost': use host:port",
        ),
        ({"bots": ["127.0.0.1:70000", "127.0.0.1:2"]}, "malformed bot address '127.0.0.1:70000'"),
        ({"bots": ["bad host:1", "127.0.0.1:2"]}, "malformed bot address 'bad host:1'"),
        ({"bots": ["[zz::1]:5", "127.0.0.1:2"]}, "malformed bot address '[zz::1]:5'"),
        (
            {"move_deadline": duration_pb2.Duration(seconds=0)},
            "move_deadline must be 1 ms to 60 s, got 0 s",
        ),
        (
            {"move_deadline": duration_pb2.Duration(seconds=-1)},
            "move_deadline must be 1 ms to 60 s, got -1 s",
        ),
        ({"move_deadline": duration_pb2.Duration(seconds=3600)}, "got 3600 s"),
        # Too short to answer, and 0 s once a worker rounds it: the API refuses it too.
        ({"move_deadline": duration_pb2.Duration(nanos=1)}, "must be 1 ms to 60 s, got 1e-09 s"),
        (
            {"fault_policy": referee_pb2.FaultPolicy(max_faults=-2)},
            "fault_policy.max_faults must be 1..1000 (0 for the default), got -2",
        ),
        ({"match_id": "a/b"}, "bad match_id 'a/b': use 1 to 64 letters, digits, '-' or '_'"),
        (
            {"bot_names": ["only-one"]},
            "bot_names has 1 names for 2 bot addresses: give one per address, or none",
        ),
        ({"bot_names": ["a", "b c"]}, "bad bot name 'b c': use 1 to 40 letters, digits"),
    ],
)
def test_bad_request_is_invalid_argument_with_a_helpful_message(
    referee_stub: referee_pb2_grpc.RefereeStub, fields: dict[str, Any], expected: str
) -> None:
    request = referee_pb2.PlayMatchRequest(game="bid-euchre", bots=GOOD_BOTS, seed=1)
    for name, value in fields.items():
        if name == "options":
            request.options.update(value)
        elif name in ("bots", "bot_names"):
            getattr(request, name)[:] = value
        elif isinstance(value, str):
            setattr(request, name, value)
        else:
            getattr(request, name).CopyFrom(value)
    with pytest.raises(grpc.RpcError) as caught:
        referee_stub.PlayMatch(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in (caught.value.details() or "")


def test_list_games_describes_seats_teams_and_options(
    referee_stub: referee_pb2_grpc.RefereeStub,
) -> None:
    games = {g.name: g for g in referee_stub.ListGames(referee_pb2.ListGamesRequest()).games}
    euchre = games["bid-euchre"]
    assert (euchre.seats, euchre.teams, list(euchre.seat_teams)) == (4, 2, [0, 1, 0, 1])
    options = {o.name: o for o in euchre.options}
    assert options["stick_the_dealer"].default_value == "true"
    assert options["stick_the_dealer"].type == referee_pb2.OPTION_TYPE_BOOL
    assert options["ace_no_face"].default_value == "false"
    assert options["max_hands"].type == referee_pb2.OPTION_TYPE_INT
    assert options["max_hands"].minimum == 1
