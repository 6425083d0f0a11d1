"""Every chaos mode in every game, against one metered referee: each match ends as the
fault policy says, exactly the expected fault is in the result, the replay and the
metrics, all of it on the chaos team's seats, the house bot on the other team is never
penalised, a fault of time (a timeout, or a bot gone) comes only after its whole
deadline, and the referee keeps serving other matches while a bot hangs.

One referee and one house bot serve the whole module. A mode's five games are played
at once against one chaos process, except the modes whose process exits (``crash`` and
``die-before``): they get one process per game, so that every game meets a live bot.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from arena import wire
from arena.bots.examples.chaos import ABSORBED, EXIT_STATUS, MODES
from arena.games import game_names, get_game
from arena.match_rules.faults import DEFAULT_MAX_FAULTS, KIND_NAMES, FaultKind
from arena.processes import Service, arena_command, start_service
from arena.referee.bot_client import NOT_REACHED
from arena.v1 import bot_pb2, bot_pb2_grpc, referee_pb2, referee_pb2_grpc
from tests.support.metrics import samples, scrape
from tests.support.referee import start_metered_referee

DEADLINE_S = 0.5
AFTER = 2
"""Decisions of a match before a chaos bot misbehaves, so faults come mid-match."""
GAMES = tuple(game_names())
SENTINEL_FAULTS = 8
"""The hang match that must still be running while a good match is played: at least
``SENTINEL_FAULTS - 1`` deadlines (3.5 s) after its first fault."""
TIMEOUT = referee_pb2.FAULT_KIND_TIMEOUT
UNREACHABLE = referee_pb2.FAULT_KIND_UNREACHABLE


@dataclass(frozen=True)
class Case:
    """What one chaos mode must do to a match."""

    kind: FaultKind
    flags: tuple[str, ...] = ("--after", str(AFTER))
    at_start: bool = False
    """The bot fails its Hello: the team forfeits before any decision."""
    exits: bool = False
    """The process dies (status ``EXIT_STATUS``), so each game gets a process of its own."""
    detail: str = ""
    """Every fault's detail contains this."""
    waits: bool = False
    """Every fault took the whole deadline: the referee waited for an answer, or for the
    bot to come back, before it played a substitute."""


CASES = {
    "hang": Case(TIMEOUT, waits=True),
    "late": Case(TIMEOUT, waits=True),
    "slow": Case(
        TIMEOUT,
        flags=("--after", str(AFTER), "--delay-ms", f"{DEADLINE_S * 1000 + 300:.0f}"),
        waits=True,
    ),
    # A dead bot is waited for until the deadline, in case it comes back on its port:
    # each of its decisions is one fault after a whole deadline, not one per refused
    # connection at once; the first one's detail names the broken call (UNAVAILABLE).
    "crash": Case(UNREACHABLE, exits=True, detail=NOT_REACHED, waits=True),
    "illegal": Case(referee_pb2.FAULT_KIND_ILLEGAL_ACTION),
    "error": Case(referee_pb2.FAULT_KIND_RPC_ERROR, detail="INTERNAL"),
    "oversize": Case(referee_pb2.FAULT_KIND_RPC_ERROR, detail="RESOURCE_EXHAUSTED"),
    "wrong-match": Case(referee_pb2.FAULT_KIND_WRONG_MATCH),
    "garbage": Case(
        referee_pb2.FAULT_KIND_RPC_ERROR, detail="the answer is not an arena.v1.ActResponse"
    ),
    # --after 1: it answers the Hello that registering it sends, and dies on the next one.
    "die-before": Case(
        UNREACHABLE, flags=("--after", "1"), at_start=True, exits=True, detail="UNAVAILABLE"
    ),
    "mute": Case(UNREACHABLE, flags=(), at_start=True, detail="no answer to Hello"),
    "garbage-hello": Case(
        UNREACHABLE,
        flags=("--after", "0"),
        at_start=True,
        detail="the answer to Hello is not an arena.v1.HelloResponse",
    ),
}

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@dataclass
class Chaos:
    mode: str
    case: Case
    bots: dict[str, Service]
    """The chaos process each game plays against."""


@dataclass
class Played:
    game: str
    chaos_team: int
    result: referee_pb2.MatchResult
    ended: float
    """``time.monotonic()`` when PlayMatch returned."""


@pytest.fixture(scope="module")
def metered_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    service, port = start_metered_referee(tmp_path_factory.mktemp("chaos-replays"))
    yield service, f"http://127.0.0.1:{port}/metrics"
    service.stop()


@pytest.fixture(scope="module")
def stub(metered_referee: tuple[Service, str]) -> Iterator[referee_pb2_grpc.RefereeStub]:
    with grpc.insecure_channel(metered_referee[0].address) as channel:
        yield referee_pb2_grpc.RefereeStub(channel)


@pytest.fixture(scope="module")
def house() -> Iterator[Service]:
    service = start_service(arena_command("bot", "serve", "house", "--port", "0"))
    yield service
    service.stop()


FAULT_MODES = [m for m in MODES if m not in ABSORBED]  # the rest: test_stream_answers.py


@pytest.fixture(params=FAULT_MODES)
def chaos(request: pytest.FixtureRequest) -> Iterator[Chaos]:
    mode: str = request.param
    case = CASES[mode]
    command = arena_command("bot", "serve", "chaos", "--port", "0", "--mode", mode, *case.flags)
    count = len(GAMES) if case.exits else 1
    started: list[Service] = []
    try:
        with ThreadPoolExecutor(count) as pool:
            for future in [pool.submit(start_service, command) for _ in range(count)]:
                started.append(future.result())
        yield Chaos(mode, case, {g: started[i % count] for i, g in enumerate(GAMES)})
    finally:
        for service in started:
            service.stop()


def test_the_matrix_covers_every_mode() -> None:
    assert set(CASES) == set(FAULT_MODES)


def play(
    stub: referee_pb2_grpc.RefereeStub,
    game: str,
    bots: Sequence[str],
    *,
    seed: int,
    max_faults: int = 0,
) -> tuple[referee_pb2.MatchResult, float]:
    result: referee_pb2.MatchResult = stub.PlayMatch(
        referee_pb2.PlayMatchRequest(
            game=game,
            bots=bots,
            seed=seed,
            move_deadline=wire.duration(DEADLINE_S),
            fault_policy=referee_pb2.FaultPolicy(max_faults=max_faults),
        ),
        timeout=60,
    )
    return result, time.monotonic()


def seat_bots(result: referee_pb2.MatchResult) -> dict[int, str]:
    return {s: b for t in result.teams for s, b in zip(t.seats, t.bots, strict=True)}


def fault_counts(played: Sequence[Played]) -> Counter[tuple[str, str]]:
    """Faults by (kind name, bot address), as the referee's metrics label them."""
    counts: Counter[tuple[str, str]] = Counter()
    for match in played:
        bots = seat_bots(match.result)
        counts.update((KIND_NAMES[f.kind], bots[f.seat]) for f in match.result.faults)
    return counts


def grew(before: Samples, after: Samples, name: str, labels: dict[str, str]) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def check_match(
    stub: referee_pb2_grpc.RefereeStub, chaos: Chaos, match: Played, faults: int
) -> None:
    result, case = match.result, chaos.case
    seat_teams = get_game(match.game).info.seat_teams
    chaos_seats = {s for s, t in enumerate(seat_teams) if t == match.chaos_team}
    house_team = 1 - match.chaos_team
    where = f"{chaos.mode} in {match.game}: {result}"
    # The match finished, and the chaos team forfeited it; the house team won it.
    assert result.end == referee_pb2.MATCH_END_FORFEIT, where
    assert result.forfeit_team == match.chaos_team, where
    assert result.HasField("winner_team") and result.winner_team == house_team, where
    # Exactly the expected faults, all on the chaos team's seats.
    assert len(result.faults) == faults, where
    assert {f.kind for f in result.faults} == {case.kind}, where
    assert {f.seat for f in result.faults} <= chaos_seats, where
    assert all(case.detail in f.detail for f in result.faults), where
    assert result.teams[house_team].faults == 0, where
    assert result.teams[match.chaos_team].faults == faults, where
    assert all(n == 0 for s, n in enumerate(result.seat_faults) if s not in chaos_seats), where
    if case.at_start:
        assert result.decisions == 0, where
        assert {f.seat for f in result.faults} == chaos_seats, where
    else:
        assert min(f.decision_index for f in result.faults) >= AFTER, where
    # The replay tells the same story.
    doc: dict[str, Any] = json.loads(
        stub.GetReplay(referee_pb2.GetReplayRequest(replay_id=result.replay_id), timeout=10).json
    )
    assert [(f["seat"], f["decision"], f["kind"]) for f in doc["faults"]] == [
        (f.seat, f.decision_index, KIND_NAMES[f.kind]) for f in result.faults
    ], where
    assert doc["result"]["end"] == "forfeit", where
    assert doc["result"]["forfeit_team"] == match.chaos_team, where
    decisions = [e["decision"] for h in doc["hands"] for e in h["log"] if "decision" in e]
    answered = [d for d in decisions if d["seat"] in chaos_seats and not d["substituted"]]
    before = [d for d in decisions if d["seat"] in chaos_seats and d["index"] < AFTER]
    assert answered == ([] if case.at_start else before), where
    assert not any(d["substituted"] for d in decisions if d["seat"] not in chaos_seats), where
    if case.waits:  # to within the replay's rounding of think_ms
        waited = [d["think_ms"] for d in decisions if d["substituted"]]
        assert waited and min(waited) >= DEADLINE_S * 1000 - 1, where


def wait_for_fault(url: str, kind: str, bot: str, timeout_s: float = 30.0) -> None:
    key = ("arena_referee_faults_total", (("bot", bot), ("kind", kind)))
    deadline = time.monotonic() + timeout_s
    while samples(scrape(url)).get(key, 0.0) < 1:
        assert time.monotonic() < deadline, f"no {kind} fault from {bot} within {timeout_s:g} s"
        time.sleep(0.05)


def register(address: str) -> None:
    """What ``arena bot register`` asks of a bot: its Hello."""
    with grpc.insecure_channel(address) as channel:
        hello = bot_pb2_grpc.BotStub(channel).Hello(bot_pb2.HelloRequest(), timeout=10)
    assert hello.name == "chaos"


def test_every_chaos_mode_in_every_game(
    chaos: Chaos,
    stub: referee_pb2_grpc.RefereeStub,
    metered_referee: tuple[Service, str],
    house: Service,
    random_bot: Service,
) -> None:
    url = metered_referee[1]
    case = chaos.case
    if chaos.mode == "die-before":
        for bot in chaos.bots.values():
            register(bot.address)
    before = samples(scrape(url))
    chaos_teams = {game: i % 2 for i, game in enumerate(GAMES)}  # both sides of the table
    played: list[Played] = []
    others: list[Played] = []  # the hang mode's long match, and the good one
    with ThreadPoolExecutor(len(GAMES) + 1) as pool:
        matches: dict[str, Future[tuple[referee_pb2.MatchResult, float]]] = {}
        for i, game in enumerate(GAMES):
            bots = [house.address, chaos.bots[game].address]
            if chaos_teams[game] == 0:
                bots.reverse()
            matches[game] = pool.submit(play, stub, game, bots, seed=100 + i)
        if chaos.mode == "hang":
            # The referee keeps serving: while a match waits on a hanging bot, another
            # match between good bots is played from start to finish.
            hanging = chaos.bots[GAMES[0]].address
            sentinel = pool.submit(
                play,
                stub,
                "bid-euchre",
                [house.address, hanging],
                seed=7,
                max_faults=SENTINEL_FAULTS,
            )
            wait_for_fault(url, "timeout", hanging)
            good, good_ended = play(stub, "bid-euchre", [house.address, random_bot.address], seed=8)
            assert good.end == referee_pb2.MATCH_END_COMPLETED, good
            assert not good.faults, good
            long_match = Played("bid-euchre", 1, *sentinel.result())
            assert good_ended < long_match.ended, "the good match waited for the hanging one"
            check_match(stub, chaos, long_match, SENTINEL_FAULTS)
            others += [long_match, Played("bid-euchre", -1, good, good_ended)]
        for game, future in matches.items():
            played.append(Played(game, chaos_teams[game], *future.result()))
    after = samples(scrape(url))

    for match in played:
        chaos_seats = sum(1 for t in get_game(match.game).info.seat_teams if t == match.chaos_team)
        check_match(stub, chaos, match, chaos_seats if case.at_start else DEFAULT_MAX_FAULTS)

    # /metrics counted exactly these faults, by kind and bot; decisions likewise.
    expected = fault_counts(played + others)
    addresses = {house.address, random_bot.address} | {b.address for b in chaos.bots.values()}
    for kind in KIND_NAMES.values():
        for address in addresses:
            labels = {"kind": kind, "bot": address}
            counted = grew(before, after, "arena_referee_faults_total", labels)
            assert counted == expected[(kind, address)], (chaos.mode, labels)
    asked: Counter[tuple[str, str]] = Counter()
    for match in played + others:
        if not case.at_start:
            asked.update((match.game, KIND_NAMES[f.kind]) for f in match.result.faults)
    for game in GAMES:
        for kind in KIND_NAMES.values():
            labels = {"game": game, "outcome": kind}
            counted = grew(before, after, "arena_referee_decisions_total", labels)
            assert counted == asked[(game, kind)], (chaos.mode, labels)

    if case.exits:
        for service in chaos.bots.values():
            assert service.process.wait(10) == EXIT_STATUS
