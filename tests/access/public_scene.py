"""The scene of the public load test and bench: the arena with the limits and tokens it
ships, on a dual-stack loopback, one tournament ended (replays to read) and one match
live; a greedy client (127.0.0.1) that takes all it may, and an honest one (::1)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.limits import MAX_REQUEST_BYTES
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.referee.service import DEFAULT_WATCHERS_PER_CLIENT
from arena.throttle import BURST
from arena.v1 import arena_pb2, arena_pb2_grpc, referee_pb2, referee_pb2_grpc
from arena.web.relay import PER_CLIENT
from tests.shipped import worker_env
from tests.support.database import next_database
from tests.support.grpc_metadata import trailers

GREEDY, HONEST = "127.0.0.1", "::1"
TOKENS = ("referee-token", "api-token", "read-token")


def port_of(service: Service) -> int:
    return int(service.address.rstrip("/").rpartition(":")[2])


def grpc_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass
class Stack:
    """The arena under load, and the addresses each client dials."""

    tokens: dict[str, str]
    services: list[Service] = field(default_factory=list)
    api_port: int = 0
    referee_port: int = 0
    site_port: int = 0

    def api(self, host: str) -> arena_pb2_grpc.ArenaStub:
        channel = grpc.insecure_channel(grpc_address(host, self.api_port))
        return arena_pb2_grpc.ArenaStub(channel)

    def operator(self) -> tuple[tuple[str, str], ...]:
        return (bearer(self.tokens["api-token"]),)

    def get(self, host: str, path: str) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(host, self.site_port, timeout=30)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def open_events(self, host: str, path: str) -> tuple[http.client.HTTPConnection, int, bytes]:
        """An SSE stream held open: its status and, when 200, its first bytes."""
        connection = http.client.HTTPConnection(host, self.site_port, timeout=30)
        connection.request("GET", path, headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        first = response.fp.readline() if response.status == 200 else response.read()
        return connection, response.status, first


@contextlib.contextmanager
def stack(local_redis: LocalRedis, directory: Path) -> Iterator[Stack]:
    tokens = {name: os.urandom(16).hex() for name in TOKENS}
    for name, token in tokens.items():
        (directory / name).write_text(token + "\n")
    url = local_redis.url(next_database())
    made = Stack(tokens)
    try:
        referee = start_service(
            arena_command(
                "referee", "serve", "--host", "[::]", "--port", "0",
                "--hosting-dir", str(directory / "hosting"),
                "--token-file", str(directory / "referee-token"),
                "--read-token-file", str(directory / "read-token"),
            ),
            env={"ARENA_REFEREE_TOKEN": "", "ARENA_READ_TOKEN": ""},
        )  # fmt: skip
        made.services.append(referee)
        made.referee_port = port_of(referee)
        api = start_service(
            arena_command(
                "api", "serve", "--host", "[::]", "--port", "0", "--redis", url,
                "--token-file", str(directory / "api-token"),
                "--read-token-file", str(directory / "read-token"),
            ),
            env={"ARENA_API_TOKEN": "", "ARENA_READ_TOKEN": "", "ARENA_REFEREES": ""},
        )  # fmt: skip
        made.services.append(api)
        made.api_port = port_of(api)
        worker = start_service(
            arena_command(
                "worker", "--redis", url, "--concurrency", "4",
                "--referee", f"127.0.0.1:{made.referee_port}",
                "--referee-token-file", str(directory / "referee-token"),
                "--name", "load@arena-test", "--loglevel", "WARNING",
            ),
            env=worker_env(),
        )  # fmt: skip
        made.services.append(worker)
        site = start_service(
            arena_command(
                "leaderboard", "serve", "--host", "::", "--port", "0",
                "--api", f"127.0.0.1:{made.api_port}",
                "--read-token-file", str(directory / "read-token"),
            ),
            env={"ARENA_READ_TOKEN": ""},
        )  # fmt: skip
        made.services.append(site)
        made.site_port = port_of(site)
        yield made
    finally:
        for service in reversed(made.services):
            service.stop()


def register(made: Stack, name: str, *flags: str) -> None:
    bot = start_service(arena_command("bot", "serve", *flags, "--port", "0"))
    made.services.append(bot)
    made.api(GREEDY).RegisterBot(
        arena_pb2.RegisterBotRequest(name=name, address=bot.address), metadata=made.operator()
    )


def play(made: Stack, entries: list[str], games: list[str]) -> str:
    tournament = made.api(GREEDY).SubmitTournament(
        arena_pb2.SubmitTournamentRequest(
            spec=arena_pb2.TournamentSpec(entries=entries, deals=1, games=games)
        ),
        metadata=made.operator(),
    )
    return str(tournament.id)


def until(condition: object, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


@dataclass
class Scene:
    """What the clients use: an ended tournament's replay, a live match's events."""

    made: Stack
    ended: str
    match_id: str
    live_id: str
    match: arena_pb2.LiveMatch

    @property
    def replay(self) -> str:
        """A costly read of the site: one frame's sent request."""
        return f"/api/replays/{self.ended}/{self.match_id}/frames/1/sent"

    @property
    def events(self) -> str:
        return f"/api/live/{self.live_id}/{self.match.match_id}/events"


def set_up(made: Stack) -> Scene:
    """Bots, a tournament played to its end, and one with a match being played slowly."""
    register(made, "quick-a", "random", "--seed", "1")
    register(made, "quick-b", "random", "--seed", "2")
    register(made, "slow-a", "paced", "--delay-ms", "400", "--seed", "3")
    register(made, "slow-b", "paced", "--delay-ms", "400", "--seed", "4")
    api = made.api(GREEDY)
    ended = play(made, ["quick-a", "quick-b"], ["seep"])
    finished = arena_pb2.TOURNAMENT_STATE_FINISHED
    until(
        lambda: api.GetTournament(arena_pb2.GetTournamentRequest(id=ended)).state == finished,
        "the first tournament ends",
    )
    (record,) = api.ListResults(
        arena_pb2.ListResultsRequest(tournament_id=ended), metadata=made.operator()
    ).results[:1]
    live_id = play(made, ["slow-a", "slow-b"], ["seep"])
    live: list[arena_pb2.LiveMatch] = []

    def playing() -> bool:
        live[:] = api.ListLiveMatches(arena_pb2.ListLiveMatchesRequest()).matches
        return any(m.tournament_id == live_id for m in live)

    until(playing, "a match of the second tournament is live")
    match = next(m for m in live if m.tournament_id == live_id)
    return Scene(made, ended, record.match_id, live_id, match)


def release(held: list[object]) -> None:
    """Close what the greedy client holds."""
    for thing in held:
        close = getattr(thing, "close", None) or getattr(thing, "cancel", None)
        if close is not None:
            close()


def take_everything(scene: Scene, held: list[object]) -> dict[str, str]:
    """The greedy client takes its whole share of everything, and holds in ``held`` what
    it can hold; what it was refused next, by surface."""
    made, match, events, replay = scene.made, scene.match, scene.events, scene.replay
    api = made.api(GREEDY)
    referee = referee_pb2_grpc.RefereeStub(
        grpc.insecure_channel(grpc_address(GREEDY, made.referee_port))
    )
    refused: dict[str, str] = {}
    # The referee: its share of WatchMatch streams, held open, then RESOURCE_EXHAUSTED.
    request = referee_pb2.WatchMatchRequest(match_id=match.watch_id)
    for _ in range(DEFAULT_WATCHERS_PER_CLIENT):
        stream = referee.WatchMatch(request)
        held.append(stream)
        next(iter(stream))
    with pytest.raises(grpc.RpcError) as watched:
        next(iter(referee.WatchMatch(request)))
    assert watched.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    refused["referee streams"] = "RESOURCE_EXHAUSTED"
    # The API: costly reads, a burst and then RESOURCE_EXHAUSTED with retry-after.
    # (The budget refills while the client reads: it reads on until refused.)
    ask = arena_pb2.GetLeaderboardRequest(openskill=True)
    served = 0
    with pytest.raises(grpc.RpcError) as exhausted:
        while served < 20 * BURST:
            api.GetLeaderboard(ask)
            served += 1
    assert served >= BURST and exhausted.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    wait = trailers(exhausted.value)["retry-after"]
    refused["API costly reads"] = f"RESOURCE_EXHAUSTED after {served}, retry after {wait} s"
    # The API: a message past the limit, and a package without a token.
    with pytest.raises(grpc.RpcError) as oversized:
        api.GetTournament(arena_pb2.GetTournamentRequest(id="x" * (MAX_REQUEST_BYTES + 1)))
    assert oversized.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(grpc.RpcError) as anonymous:
        api.SubmitBot(iter([arena_pb2.SubmitBotRequest(name="hog", package=os.urandom(1 << 19))]))
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    refused["API package"] = "UNAUTHENTICATED"
    # The site: its share of live viewers, then 429. The site opens its one stream of
    # the match now, from the greedy client's address, whose referee share is spent.
    for _ in range(PER_CLIENT):
        connection, status, _ = made.open_events(GREEDY, events)
        held.append(connection)
        assert status == 200
    connection, status, _ = made.open_events(GREEDY, events)
    connection.close()
    assert status == 429
    refused["site viewers"] = str(status)
    # The site: replay reads, a burst and then 429 with Retry-After.
    served = 0
    while (answer := made.get(GREEDY, replay))[0] == 200 and served < 20 * BURST:
        served += 1
    status, headers, _ = answer
    assert served >= BURST and status == 429 and int(headers["retry-after"]) >= 1
    refused["site replay reads"] = (
        f"{status} after {served}, retry after {headers['retry-after']} s"
    )
    return refused


def serve_honestly(scene: Scene) -> int:
    """The honest client, from another address, while the greedy one holds its share:
    every request answered. Returns how many it made."""
    made, events, replay, match = scene.made, scene.events, scene.replay, scene.match
    ended, match_id = scene.ended, scene.match_id
    answered = 0
    # The site: the live match, relayed from the one referee stream the site holds (its
    # read token keeps it out of 127.0.0.1's share there), and a replay.
    connection, status, first = made.open_events(HONEST, events)
    connection.close()
    assert status == 200 and first, first
    answered += 1
    for path in ("/", f"/tournaments/{ended}", replay, f"/api/replays/{ended}/{match_id}"):
        status, _, body = made.get(HONEST, path)
        assert status == 200, (path, body[:200])
        answered += 1
    frames = json.loads(made.get(HONEST, f"/api/replays/{ended}/{match_id}/frames")[2])
    assert frames
    answered += 1
    # The API, direct: a costly read and a replay.
    api = made.api(HONEST)
    assert api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(openskill=True)).rows
    replayed = api.GetMatchReplay(
        arena_pb2.GetMatchReplayRequest(tournament_id=ended, match_id=match_id)
    )
    assert json.loads(replayed.json)["match_id"]
    answered += 2
    # The referee, direct: the live match's events.
    referee = referee_pb2_grpc.RefereeStub(
        grpc.insecure_channel(grpc_address(HONEST, made.referee_port))
    )
    stream = referee.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match.watch_id))
    assert next(iter(stream)).kind == referee_pb2.MATCH_EVENT_KIND_STARTED
    stream.cancel()  # type: ignore[no-untyped-call]
    answered += 1
    return answered
