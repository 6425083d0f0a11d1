"""``arena replay verify`` holds a replay's ending to the referee's own fault policy
(``arena.match_rules.faults``): a forfeit one fault early or late, the wrong team forfeiting,
or a match played on past its limit does not verify, while every replay the referee
writes does. The matches are real, bots and referee in this process."""

from __future__ import annotations

import asyncio
import copy
import re
from pathlib import Path
from typing import Any

import pytest

from arena.bots import sdk
from arena.bots.examples import chaos
from arena.bots.examples.chaos import ChaosBot
from arena.bots.examples.random_bot import RandomBot
from arena.games import get_game
from arena.match_rules.faults import FaultPolicy
from arena.referee.feed import MatchFeed
from arena.referee.match import MatchRunner, MatchSpec
from arena.replay import ReplayStore
from arena.replay.verify import ReplayMismatch, verify_replay

Doc = dict[str, Any]
GAME = "bid-euchre"
CHAOS_TEAM = 1


async def _play(
    store: ReplayStore, match_id: str, bots: tuple[str, str], max_faults: int, **options: int
) -> Doc:
    game = get_game(GAME)
    spec = MatchSpec(
        match_id=match_id,
        game=game,
        seat_bots=bots * 2,
        seed=8,
        options=game.info.resolve_options(options),
        move_deadline_s=5.0,
        policy=FaultPolicy(max_faults),
    )
    await MatchRunner(spec, MatchFeed(match_id), store).run()
    return store.load(match_id)


async def _play_all(store: ReplayStore) -> dict[str, Doc]:
    servers = [
        await sdk.start(RandomBot(seed=1)),
        await chaos.start(ChaosBot("illegal", after=2)),
        await chaos.start(ChaosBot("garbage-hello")),
    ]
    good, illegal, absent = (f"127.0.0.1:{port}" for _, port in servers)
    try:
        return {
            "forfeit": await _play(store, "forfeit", (good, illegal), 3),
            "patient": await _play(store, "patient", (good, illegal), 1000, max_hands=2),
            "unreachable": await _play(store, "unreachable", (absent, good), 3),
            "nobody": await _play(store, "nobody", (absent, absent), 3),
        }
    finally:
        for server, _ in servers:
            await server.stop(None)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Doc]:
    store = ReplayStore(Path(tmp_path_factory.mktemp("verify-forfeits")))
    return asyncio.run(_play_all(store))


def refused(doc: Doc) -> str:
    with pytest.raises(ReplayMismatch) as caught:
        verify_replay(doc)
    return str(caught.value)


def faults_in_play(doc: Doc) -> list[Doc]:
    return [line["fault"] for hand in doc["hands"] for line in hand["log"] if "fault" in line]


def test_every_ending_the_referee_writes_verifies(replays: dict[str, Doc]) -> None:
    ends = {name: verify_replay(doc).end for name, doc in replays.items()}
    assert ends == {
        "forfeit": "forfeit",
        "patient": "completed",
        "unreachable": "forfeit",
        "nobody": "no_contest",
    }
    assert len(faults_in_play(replays["forfeit"])) == 3
    assert len(faults_in_play(replays["patient"])) > 3


def test_a_forfeit_one_fault_late_does_not_verify(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["forfeit"])
    doc["max_faults"] = 2  # the second fault forfeits, yet the replay plays its substitute
    second = faults_in_play(doc)[1]["decision"]
    assert re.fullmatch(
        rf"hand \d+, decision {second} \(seat [13]\): the fault before it is team 1's fault 2 "
        r"of the 2 allowed: team 1 forfeits there, but the replay plays on",
        refused(doc),
    )


def test_a_forfeit_one_fault_early_does_not_verify(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["forfeit"])
    doc["max_faults"] = 4  # the third fault leaves room for a fourth
    third = faults_in_play(doc)[2]["decision"]
    assert refused(doc) == (
        f"the log ends with a fault at decision {third} and no substitute, but that fault is "
        "team 1's fault 3 of the 4 allowed, which forfeits nothing: the match should have gone on"
    )


def test_a_match_played_on_past_the_limit_does_not_verify(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["patient"])
    doc["max_faults"] = 3
    assert re.search(r"team 1's fault 3 of the 3 allowed: team 1 forfeits there", refused(doc))


def test_the_other_team_forfeiting_does_not_verify(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["forfeit"])
    doc["result"].update(forfeit_team=0, winner_team=1)
    last = faults_in_play(doc)[-1]["decision"]
    assert refused(doc) == (
        f"after the fault at decision {last}, the fault policy ends the match 'forfeit', "
        "team 1 forfeiting; the replay says 'forfeit', team 0 forfeiting"
    )


def test_the_team_unreachable_before_play_is_the_one_that_forfeits(
    replays: dict[str, Doc],
) -> None:
    doc = copy.deepcopy(replays["unreachable"])
    assert doc["result"]["forfeit_team"] == 0 and doc["hands"] == []
    doc["result"].update(forfeit_team=1, winner_team=0)
    assert refused(doc) == (
        "with the bots of team 0 unreachable before play, the fault policy ends the match "
        "'forfeit', team 0 forfeiting; the replay says 'forfeit', team 1 forfeiting"
    )
    doc["result"].update(end="no_contest", forfeit_team=None, winner_team=None)
    assert refused(doc).endswith("the replay says 'no_contest'")


def test_a_match_no_team_could_start_is_no_contest(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["nobody"])
    doc["result"].update(end="forfeit", forfeit_team=0, winner_team=1)
    assert refused(doc) == (
        "with the bots of teams 0, 1 unreachable before play, the fault policy ends the match "
        "'no_contest'; the replay says 'forfeit', team 0 forfeiting"
    )


def test_a_fault_the_policy_does_not_know_does_not_verify(replays: dict[str, Doc]) -> None:
    doc = copy.deepcopy(replays["forfeit"])
    for fault in [*faults_in_play(doc)[:1], doc["faults"][0]]:
        fault["kind"] = "sulk"
    assert re.search(r"'sulk' is none of timeout, rpc_error, unreachable", refused(doc))
