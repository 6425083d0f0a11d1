"""A fake of the web server's Source (the API it reads), and the site served from it."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass

from starlette.testclient import TestClient

from arena.v1 import arena_pb2, referee_pb2
from arena.web.app import create_app
from arena.web.data import (
    RESULTS_PAGE_MAX,
    BotFacts,
    Match,
    Replay,
    ResultsPage,
    Source,
    unknown_game,
)
from arena.web.errors import HttpError

HOSTILE = "<script>alert('x')</script>&\"bot\"<img src=x onerror=alert(1)>"


def board(*bots: str, game: str = "") -> arena_pb2.Leaderboard:
    return arena_pb2.Leaderboard(
        game=game,
        matches=4,
        rows=[
            arena_pb2.LeaderboardRow(
                rank=i + 1,
                bot=bot,
                elo=100.4 - 200.8 * i,
                elo_ci95=41.2,
                pairs=2,
                wins=2 - 2 * i,
                losses=2 * i,
                matches=4,
                game_elo={} if game else {"seep": 12.0},
            )
            for i, bot in enumerate(bots)
        ],
    )


def match(a: str, b: str, tournament_name: str = "") -> Match:
    record = arena_pb2.MatchRecord(
        match_id="t1-seep-0-0-a",
        game="seep",
        entries=[a, b],
        scores=[12, 7],
        winner_team=0,
        end=arena_pb2.RESULT_END_COMPLETED,
        replay_id="t1-seep-0-0-a-1234",
        referee="127.0.0.1:1",
    )
    record.finished_at.FromSeconds(1_700_000_000)
    return Match("t1", tournament_name, record)


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


class Site:
    """The application in process over Starlette's TestClient, with the answer's parts
    as these tests read them."""

    def __init__(self, source: Source, api: str) -> None:
        self.client = TestClient(create_app(api, source), raise_server_exceptions=False)

    def get(self, target: str) -> Answer:
        response = self.client.get(target)
        return Answer(response.status_code, response.headers["content-type"], response.content)


class FakeSource:
    """A Source with fixed answers, counting the matches asked for, the tournaments whose
    results were read (once a call) and the results those calls returned."""

    def __init__(self, bots: tuple[str, ...] = ("house", "rand")) -> None:
        self.bots = bots
        self.limits: list[int] = []
        self.listed: list[arena_pb2.Tournament] = []
        self.asked: list[str] = []
        self.boards_of: list[str] = []
        self.stored: dict[str, list[arena_pb2.MatchRecord]] = {}
        self.reads: list[str] = []
        self.results_read = 0
        self.registry: dict[str, BotFacts] = {}

    def games(self) -> list[str]:
        return ["seep"]

    async def leaderboard(
        self,
        game: str = "",
        tournament_id: str = "",
        los: bool = False,
        scale: arena_pb2.GetLeaderboardRequest | None = None,
    ) -> arena_pb2.Leaderboard:
        if game not in ("", "seep"):
            raise unknown_game(game)
        if tournament_id:
            self.boards_of.append((await self.tournament(tournament_id)).id)
        found = board(*self.bots, game=game)
        if los:
            a, b = self.bots
            found.los.add(bot=a, los=[0.5, 0.987])
            found.los.add(bot=b, los=[0.013, 0.5])
        return found

    async def matches(self, limit: int, game: str = "") -> list[Match]:
        self.limits.append(limit)
        return [match(*self.bots)]

    async def tournaments(self) -> list[arena_pb2.Tournament]:
        return list(self.listed)

    async def tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        self.asked.append(tournament_id)
        found = [t for t in self.listed if t.id == tournament_id]
        if not found:  # as the API's NOT_FOUND reads through ArenaData
            raise HttpError(404, f"no tournament {tournament_id!r}")
        return found[0]

    async def latest_results(self, tournament_id: str, before: str, count: int) -> ResultsPage:
        assert 1 <= count <= RESULTS_PAGE_MAX, count  # as the API allows
        self.reads.append(tournament_id)
        latest = sorted(self.stored.get(tournament_id, []), key=lambda r: r.match_id)[::-1]
        below = [r for r in latest if not before or r.match_id < before]
        self.results_read += len(below[:count])
        return ResultsPage(below[:count], len(below) > count)

    async def bot(self, name: str) -> BotFacts:
        base = name.split("@", 1)[0]
        if base not in self.bots:  # as ArenaData says it
            raise HttpError(404, f"no bot {name!r}")
        registered = arena_pb2.RegisteredBot(name=base, games=["seep"], version="1.0")
        return self.registry.get(base, BotFacts(name, registered, []))

    async def replay(self, tournament_id: str, match_id: str) -> Replay:
        raise HttpError(502, "replay unavailable: cannot reach the referee at 127.0.0.1:1")

    async def ready(self) -> str | None:
        return None

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        return arena_pb2.ListLiveMatchesResponse()  # nothing is being played

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        return None

    async def competitions(self) -> arena_pb2.ListCompetitionsResponse:
        return arena_pb2.ListCompetitionsResponse()  # none yet

    async def competition(self, name: str) -> arena_pb2.Competition:
        raise HttpError(404, f"no competition {name!r}")  # as the API's NOT_FOUND reads

    async def competition_board(
        self, name: str, game: str = ""
    ) -> arena_pb2.CompetitionLeaderboard:
        raise HttpError(404, f"no competition {name!r}")

    async def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        raise HttpError(404, f"no match {watch_id!r} is being played")
        yield  # unreachable: makes this an async generator, as Source.watch is

    async def rating_history(self, bot: str, game: str = "") -> arena_pb2.RatingHistory:
        """Two points overall and one in seep for the first bot; none for the second."""
        if bot not in self.bots:  # as the API's NOT_FOUND reads through ArenaData
            raise HttpError(404, f"no bot {bot!r}")
        found = arena_pb2.RatingHistory(bot=bot)
        if bot == self.bots[0]:
            overall = found.series.add(game="")
            for seconds, elo, event in (
                (1_700_000_000, -20.0, HOSTILE),
                (1_700_090_000, 35.5, "t2"),
            ):
                point = overall.points.add(event=event, elo=elo, elo_ci95=80.0, pairs=4)
                point.recorded_at.FromSeconds(seconds)
                point.status = arena_pb2.RATING_STATUS_RATED
            seep = found.series.add(game="seep")
            point = seep.points.add(
                event="t2", elo=200.0, elo_ci95=300.0, pairs=24, elo_bound=60.0,
                status=arena_pb2.RATING_STATUS_RATED, bound=arena_pb2.RATING_BOUND_AT_LEAST,
            )  # fmt: skip
            point.recorded_at.FromSeconds(1_700_090_000)
        if game:
            kept = [s for s in found.series if s.game == game] or [
                arena_pb2.RatingSeries(game=game)
            ]
            del found.series[:]
            found.series.extend(kept)
        return found
