"""A tournament's game options (``TournamentSpec.game_options``): checked as it is
submitted, stored with its spec, carried by every scheduled match of that game in every
format and by no other game's, played by the referee, kept in each match's record, and
checked by ``arena tournament verify``, which names a match played with other options."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import grpc
import pytest

from arena.cli.common import UsageError
from arena.cli.tournament import game_options, summary, with_logs
from arena.processes import arena_command
from arena.records import RecordError
from arena.replay.match_log import decode, encode
from arena.store import TournamentStore
from arena.store import keys as redis_keys
from arena.tournament import formats
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import InvalidSpec, TournamentPlan, plan
from arena.tournament.verify import TournamentMismatch, verify_tournament
from arena.v1 import arena_pb2, referee_pb2
from tests.records import spec
from tests.support.arena import Arena
from tests.tournament.formats.drive import drive, random_results
from tests.tournament.lineup import registry

SHARED = True

SEEP = {"bazzis": "2"}
GAMES = ("seep", "bridgette")


def options(**games: dict[str, str]) -> dict[str, arena_pb2.GameOptions]:
    return {game: arena_pb2.GameOptions(options=given) for game, given in games.items()}


def _matches(planned: TournamentPlan) -> list[ScheduledMatch]:
    """Every match the plan's format hands out, run to its end (a ladder, which never
    ends: its first window)."""
    if formats.get(planned.format).open_lineup:
        lineup = {e: planned.games for e in ("e1", "e2", "e3")}
        fmt = formats.build("t1", planned, lineup)
        return fmt.next(fmt.start(), 100)[1]
    return drive(formats.build("t1", planned), random_results(7)).matches


@pytest.mark.parametrize(
    ("format_name", "params", "games"),
    [
        ("round-robin", {}, GAMES),
        ("gauntlet", {"challengers": ["e1"]}, GAMES),
        ("swiss", {"rounds": 2}, GAMES),
        ("knockout", {}, GAMES),
        ("sprt", {"max_units": 3}, ("seep",)),
        ("ladder", {}, GAMES),
    ],
)
def test_a_games_options_reach_every_match_of_that_game_and_no_other(
    format_name: str, params: dict[str, Any], games: tuple[str, ...]
) -> None:
    entries = ("e1", "e2") if format_name == "sprt" else ("e1", "e2", "e3", "e4")
    planned = spec(
        entries, games, format=format_name, format_params=params, game_options={"seep": SEEP}
    )
    matches = _matches(planned)
    assert {m.game for m in matches} == set(games)
    for match in matches:
        assert match.options == (SEEP if match.game == "seep" else {}), match
        # As the scheduler stores it and a worker reads it back.
        assert ScheduledMatch.from_json(json.loads(json.dumps(match.to_json()))) == match
    # Without options, nothing changes: no match carries any, nor stores the key.
    plain = _matches(spec(entries, games, format=format_name, format_params=params))
    assert [m.match_id for m in plain] == [m.match_id for m in matches]
    assert all(m.options == {} and "options" not in m.to_json() for m in plain)


def test_the_options_are_checked_saying_what_is_allowed_and_stored_with_the_spec() -> None:
    bots = registry("ab")

    def planned(**given: dict[str, str]) -> TournamentPlan:
        return plan(
            arena_pb2.TournamentSpec(
                entries=["a", "b"], games=list(GAMES), deals=1, game_options=options(**given)
            ),
            *bots,
        )

    for given, said in (
        (
            {"seep": {"bazzi": "2"}},
            "unknown option 'bazzi' for seep; allowed options: bazzis, max_deals",
        ),
        ({"seep": {"bazzis": "two"}}, "option 'bazzis' takes a whole number, not 'two'"),
        ({"seep": {"bazzis": "0"}}, "option 'bazzis' must be in 1..99, not 0"),
        (
            {"baloot": {"max_rounds": "5"}},
            "game_options names 'baloot', which this tournament does not play; give options "
            "for its games: seep, bridgette",
        ),
    ):
        with pytest.raises(InvalidSpec, match=re.escape(said)):
            planned(**given)

    checked = planned(seep=SEEP, bridgette={})  # a game given no options plays its defaults
    assert checked.game_options == {"seep": SEEP}
    stored = checked.to_json("t1")
    assert stored["game_options"] == {"seep": SEEP}
    read = TournamentPlan.from_json(stored)
    assert read.game_options == {"seep": SEEP} and read.to_json("t1") == stored
    # A spec stored without them (every spec stored before they existed) plays defaults.
    plain = planned().to_json("t1")
    assert "game_options" not in plain and TournamentPlan.from_json(plain).game_options == {}
    with pytest.raises(RecordError, match="field 'game_options': expected options of the spec"):
        TournamentPlan.from_json({**stored, "game_options": {"baloot": {"max_rounds": "5"}}})


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


def test_a_tournament_plays_its_options_and_verify_names_a_match_played_with_others(
    arena: Arena,
) -> None:
    arena.start_worker("w", concurrency=2)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    api = ("--api", arena.api.address)

    # Refused through the API, saying what is allowed, and nothing is stored.
    for given, said in (
        (options(bridgette={"deal": "1"}), "unknown option 'deal' for bridgette; allowed"),
        (options(seep=SEEP), "game_options names 'seep', which this tournament does not play"),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            arena.submit(["a", "b"], games=["bridgette"], game_options=given)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert said in (refused.value.details() or "")
    assert not arena.stub.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments
    assert game_options(["Seep:bazzis=2", "seep:max_deals=9", "bridgette:deals=1"]) == {
        "seep": {"bazzis": "2", "max_deals": "9"},
        "bridgette": {"deals": "1"},
    }
    for flag, said in (("deals=1", "--option takes GAME:NAME=VALUE"), ("sep:a=1", "sep")):
        with pytest.raises(UsageError, match=said):
            game_options([flag])

    # Bridgette's rules deal 6 deals a game; this tournament plays one.
    ran = arena_cli(
        "tournament", "run", "--entry", "a", "--entry", "b", "--game", "Bridgette",
        "--option", "bridgette:deals=1", "--deals", "1", "-q", *api,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    t = arena.wait_until(ran.stdout.strip())
    assert dict(t.spec.game_options["bridgette"].options) == {"deals": "1"}
    assert "games bridgette (deals=1)" in summary(t)  # as `arena tournament status` says
    schedule = TournamentStore(arena.redis).schedule(t.id)
    assert len(schedule) == 2 and all(m.options == {"deals": "1"} for m in schedule)

    logs_key = redis_keys.match_logs(t.id)
    logs: dict[bytes, bytes] = arena.redis.hgetall(logs_key)  # type: ignore[assignment]
    assert len(logs) == 2
    for match_id, stored in logs.items():
        assert decode(stored).options_json == '{"deals": 1}'
        replay = arena.stub.GetMatchReplay(
            arena_pb2.GetMatchReplayRequest(tournament_id=t.id, match_id=match_id.decode())
        )
        document = json.loads(replay.json)
        assert document["options"] == {"deals": 1}
        assert 1 <= len(document["hands"]) <= 2  # one deal, and a decider if level

    ok = arena_cli("tournament", "verify", t.id, *api)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "2 match records re-run to their results" in ok.stdout
    assert "played with the tournament's game options (bridgette: deals=1)" in ok.stdout

    # A match whose record says it was played with other options (the defaults here) is
    # not one of this tournament's, whatever it re-runs to: named, with the options.
    victim = min(logs)
    kept = logs[victim]

    def played_with(options_json: str) -> None:
        other = referee_pb2.MatchLog()
        other.CopyFrom(decode(kept))
        other.options_json = options_json
        arena.redis.hset(logs_key, victim, encode(other))

    played_with("")  # the defaults
    bad = arena_cli("tournament", "verify", t.id, *api)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1, bad.stderr
    assert (
        f"tournament {t.id} does not verify: {victim.decode()}: played with bridgette options "
        "deals=6, but the tournament plays bridgette with deals=1"
    ) in bad.stderr
    played_with('{"deals": 3}')
    with pytest.raises(TournamentMismatch, match="played with bridgette options deals=3, but"):
        verify_tournament(arena.get(t.id), with_logs(arena.stub, t.id))
    played_with('{"deals": 1}')  # the tournament's, as the referee wrote them: it verifies
    assert "2 match records re-run" in verify_tournament(
        arena.get(t.id), with_logs(arena.stub, t.id)
    )
