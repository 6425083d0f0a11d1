"""What the leaderboard's front page costs to serve once the arena is big.

64 bots on the overall board (its LOS matrix of the top 20 included) and on each of the
five games' boards, 10,000 stored matches (the page shows the 20 newest), 40
tournaments (two still running). The data is built in memory by a ``Source`` that
answers at once, so what is measured is the site itself: the real Starlette
application under uvicorn on loopback, in a process of its own, rendering ``/``.
Baseline in the same run: a static file from the same server (``/static/site.css``),
the floor of any answer it sends. Requests alternate between the two in short rounds
on one kept-alive connection; the medians and their ratio are printed, and the time
to render the HTML alone (``pages.index_page``, in this process) for reference.

The ``SyntheticSource`` also feeds ``bench.web_screenshots``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import itertools
import multiprocessing
import random
import socket
import statistics
import time
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import uvicorn

from arena.games import game_names, get_game
from arena.ratings.compare import MATRIX_BOTS
from arena.replay.public_table import public_json
from arena.v1 import arena_pb2, referee_pb2
from arena.web import pages
from arena.web.app import INDEX_MATCHES, create_app
from arena.web.data import BotFacts, Match, Replay, ResultsPage
from arena.web.errors import HttpError
from arena.web.server import listen

BOTS = 64
MATCHES = 10_000
TOURNAMENTS = 40
STATIC = "/static/site.css"
HOUR_S = 3600
EPOCH_S = 1_765_000_000


def bot_names(count: int) -> list[str]:
    kinds = ["greedy", "mcts", "random", "rules", "counter", "expecti", "ismcts", "heur"]
    return [f"{kinds[i % len(kinds)]}-{i // len(kinds) + 1}" for i in range(count)]


class SyntheticSource:
    """A ``Source`` over made-up data of a given size, answering without waiting: the
    ratings of ``bots`` bots with fixed strengths, ``matches`` results among them,
    ``TOURNAMENTS`` tournaments, and (for screenshots) replays by match id."""

    def __init__(
        self,
        bots: int = BOTS,
        matches: int = MATCHES,
        seed: int = 1,
        replays: dict[str, dict[str, Any]] | None = None,
        live: tuple[str, int] | None = None,
    ) -> None:
        rng = random.Random(seed)
        self.bots = bot_names(bots)
        self.strength = {b: rng.gauss(0, 180) for b in self.bots}
        self._games = game_names()
        self.replays = replays or {}
        self.live = live
        """(replay, decisions): that replay's match shown as being played, stopped after
        so many decisions (``bench.web_screenshots``' live page)."""
        self._boards = {g: self._board(g, rng) for g in ["", *self._games]}
        self._tournaments = [self._tournament(i, rng) for i in range(TOURNAMENTS)]
        self._matches = [self._match(n, rng) for n in range(matches)]

    def _board(self, game: str, rng: random.Random) -> arena_pb2.Leaderboard:
        elo = {b: s + (rng.gauss(0, 60) if game else 0.0) for b, s in self.strength.items()}
        ranked = sorted(self.bots, key=lambda b: -elo[b])
        mean = statistics.fmean(elo.values())
        board = arena_pb2.Leaderboard(game=game, matches=MATCHES // (1 if not game else 5))
        for i, bot in enumerate(ranked):
            pairs = rng.randint(40, 400)
            wins = rng.randint(pairs // 2, 2 * pairs - pairs // 2)
            draws = rng.randint(0, (2 * pairs - wins) // 4)
            board.rows.add(
                rank=i + 1,
                bot=bot,
                elo=elo[bot] - mean,
                elo_ci95=900 / pairs**0.5,
                pairs=pairs,
                wins=wins,
                draws=draws,
                losses=2 * pairs - wins - draws,
                matches=2 * pairs,
                status=arena_pb2.RATING_STATUS_RATED,
                group=1,
            )
        if not game:
            for row in board.rows:
                row.game_elo.update({g: rng.gauss(row.elo, 60) for g in self._games})
            top = ranked[:MATRIX_BOTS]
            for a in top:
                board.los.add(bot=a, los=[_los(elo[a] - elo[b]) for b in top])
        return board

    def _tournament(self, i: int, rng: random.Random) -> arena_pb2.Tournament:
        entries = rng.sample(self.bots, 8)
        running = i < 2
        total = 8 * 7 * 10
        return arena_pb2.Tournament(
            id=f"t{TOURNAMENTS - i:03d}",
            spec=arena_pb2.TournamentSpec(
                name=f"weekly-{TOURNAMENTS - i}",
                entries=entries,
                games=self._games,
                deals=10,
                format=arena_pb2.FORMAT_ROUND_ROBIN,
            ),
            state=arena_pb2.TOURNAMENT_STATE_RUNNING
            if running
            else arena_pb2.TOURNAMENT_STATE_FINISHED,
            matches_total=total,
            matches_done=rng.randint(0, total) if running else total,
        )

    def _match(self, n: int, rng: random.Random) -> Match:
        t = self._tournaments[n % TOURNAMENTS]
        game = self._games[n % len(self._games)]
        a, b = rng.sample(self.bots, 2)
        scores = [rng.randint(0, 40), rng.randint(0, 40)]
        winner = None if scores[0] == scores[1] else int(scores[1] > scores[0])
        match_id = f"{t.id}-{game}-{n}"
        record = arena_pb2.MatchRecord(
            match_id=match_id,
            game=game,
            deal=n % 10,
            entries=[a, b],
            scores=scores,
            winner_team=winner,
            end=arena_pb2.RESULT_END_COMPLETED,
            replay_id=f"{match_id}-r" if t.state != arena_pb2.TOURNAMENT_STATE_RUNNING else "",
            referee="10.0.0.7:50051",
        )
        return Match(t.id, t.spec.name, record)

    def games(self) -> list[str]:
        return list(self._games)

    async def leaderboard(
        self,
        game: str = "",
        tournament_id: str = "",
        los: bool = False,
        scale: arena_pb2.GetLeaderboardRequest | None = None,
    ) -> arena_pb2.Leaderboard:
        if game and game not in self._boards:
            raise HttpError(404, f"unknown game {game!r}")
        found = arena_pb2.Leaderboard()
        found.CopyFrom(self._boards[game])
        if tournament_id:
            entries = set((await self.tournament(tournament_id)).spec.entries)
            kept = [r for r in found.rows if r.bot in entries]
            del found.rows[:]
            found.rows.extend(kept)
            for rank, row in enumerate(found.rows, 1):
                row.rank = rank
        if not los or tournament_id:
            del found.los[:]
        return found

    async def matches(self, limit: int, game: str = "") -> list[Match]:
        """The newest ``limit``, as the API lists them."""
        newest = (m for m in reversed(self._matches) if not game or m.record.game == game)
        return list(itertools.islice(newest, limit))

    async def tournaments(self) -> list[arena_pb2.Tournament]:
        return list(self._tournaments)

    async def tournament(self, tournament_id: str) -> arena_pb2.Tournament:
        for t in self._tournaments:
            if t.id == tournament_id:
                return t
        raise HttpError(404, f"no tournament {tournament_id!r}")

    async def rating_history(self, bot: str, game: str = "") -> arena_pb2.RatingHistory:
        """Each board's Elo after each finished tournament, closing in on its final value."""
        if bot not in self.strength:
            raise HttpError(404, f"no bot {bot!r}")
        rng = random.Random(bot)
        history = arena_pb2.RatingHistory(bot=bot)
        for name in [game] if game else ["", *self._games]:
            row = next(r for r in self._boards[name].rows if r.bot == bot)
            series = history.series.add(game=name)
            for k in range(1, 13):
                ci = row.elo_ci95 * (12 / k) ** 0.5
                point = series.points.add(
                    event=f"weekly-{k * 3}",
                    elo=row.elo + rng.gauss(0, ci / 4),
                    elo_ci95=ci,
                    pairs=row.pairs * k // 12,
                    status=arena_pb2.RATING_STATUS_RATED,
                )
                point.recorded_at.FromSeconds(EPOCH_S + k * 7 * 24 * HOUR_S)
        return history

    async def latest_results(self, tournament_id: str, before: str, count: int) -> ResultsPage:
        ordered = sorted(
            (m.record for m in self._matches if m.tournament_id == tournament_id),
            key=lambda r: r.match_id,
            reverse=True,
        )
        below = [r for r in ordered if not before or r.match_id < before]
        return ResultsPage(below[:count], len(below) > count)

    async def result(self, tournament_id: str, match_id: str) -> arena_pb2.MatchRecord | None:
        found = (m.record for m in self._matches if m.tournament_id == tournament_id)
        return next((r for r in found if r.match_id == match_id), None)

    async def bot(self, name: str) -> BotFacts:
        base = name.split("@", 1)[0]
        if base not in self.strength:
            raise HttpError(404, f"no bot {name!r}")
        registered = arena_pb2.RegisteredBot(
            name=base, address="10.0.0.9:50061", games=self._games, hello_name=base, version="1"
        )
        registered.registered_at.FromSeconds(EPOCH_S)
        return BotFacts(name, registered, [])

    async def live_matches(self, tournament_id: str = "") -> arena_pb2.ListLiveMatchesResponse:
        if self.live is None:
            return arena_pb2.ListLiveMatchesResponse()  # a snapshot: nothing is being played
        name = self.live[0]
        doc = self.replays[name]
        teams = max(s["team"] for s in doc["seats"]) + 1
        match = arena_pb2.LiveMatch(
            tournament_id=self._tournaments[0].id,
            tournament_name=self._tournaments[0].spec.name,
            match_id=name,
            game=doc["game"],
            entries=self.bots[:teams],
            referee="10.0.0.7:50051",
            watch_id=f"{name}-1",
        )
        match.started_at.FromSeconds(EPOCH_S)
        return arena_pb2.ListLiveMatchesResponse(matches=[match])

    def watch(
        self, referee: str, watch_id: str, starting: bool = False
    ) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
        if self.live is None or watch_id != f"{self.live[0]}-1":
            raise HttpError(404, f"no match {watch_id!r} is being played")
        return _playing(live_events(self.replays[self.live[0]], self.live[1]))

    async def replay(self, tournament_id: str, match_id: str) -> Replay:
        doc = self.replays.get(match_id)
        if doc is None:
            raise HttpError(404, f"tournament {tournament_id} has no result for match {match_id!r}")
        teams = max(s["team"] for s in doc["seats"]) + 1
        entries = self.bots[:teams]
        record = arena_pb2.MatchRecord(
            match_id=match_id,
            game=doc["game"],
            entries=entries,
            scores=doc["result"]["scores"],
            replay_id=f"{match_id}-r",
            referee="10.0.0.7:50051",
            seed=doc["seed"],
        )
        return Replay(tournament_id, record, "", doc)

    async def ready(self) -> str | None:
        return None

    async def competitions(self) -> arena_pb2.ListCompetitionsResponse:
        return arena_pb2.ListCompetitionsResponse()  # the synthetic arena runs none

    async def competition(self, name: str) -> arena_pb2.Competition:
        raise HttpError(404, f"no competition {name!r}")

    async def competition_board(
        self, name: str, game: str = ""
    ) -> arena_pb2.CompetitionLeaderboard:
        raise HttpError(404, f"no competition {name!r}")


def live_events(doc: dict[str, Any], decisions: int) -> list[referee_pb2.MatchEvent]:
    """A replay's first ``decisions`` decisions as a watcher of the match saw them: the
    public events, each with the public table the referee sends."""
    state = get_game(doc["game"]).new_state(doc["seed"], doc["options"])
    events = [referee_pb2.MatchEvent(kind=referee_pb2.MATCH_EVENT_KIND_STARTED, text="Started")]
    actions = [e["decision"]["action"] for h in doc["hands"] for e in h["log"] if "decision" in e]
    seen = 0
    for action in actions[:decisions]:
        state.apply(action)
        table = public_json(state)
        for event in state.events[seen:]:
            if event.public:
                events.append(
                    referee_pb2.MatchEvent(
                        kind=referee_pb2.MATCH_EVENT_KIND_GAME,
                        seat=event.seat,
                        game_kind=event.kind,
                        text=event.text,
                        scores=state.scores(),
                        table_json=table,
                    )
                )
        seen = len(state.events)
    for n, numbered in enumerate(events):
        numbered.match_id, numbered.sequence = doc["match_id"], n
    return events


async def _playing(
    events: list[referee_pb2.MatchEvent],
) -> AsyncGenerator[referee_pb2.MatchEvent, None]:
    """The events, then a match that goes on without another move."""
    for event in events:
        yield event
    await asyncio.Event().wait()


def _los(difference: float) -> float:
    return 1 / (1 + 10 ** (-difference / 400))


def _serve(sock: socket.socket, source: SyntheticSource) -> None:
    """The server process: the site over ``source``, until terminated."""
    app = create_app("api.example:50051", source)
    config = uvicorn.Config(app, log_level="warning", access_log=False, ws="none")
    uvicorn.Server(config).run(sockets=[sock])


@contextlib.contextmanager
def served(source: SyntheticSource) -> Iterator[tuple[str, int]]:
    """The site over ``source`` in a (forked) process of its own on a loopback port:
    (host, port)."""
    sock = listen("127.0.0.1", 0)
    host, port = sock.getsockname()[:2]
    process = multiprocessing.get_context("fork").Process(
        target=_serve, args=(sock, source), daemon=True
    )
    process.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection(host, port, timeout=5)
                connection.request("GET", "/livez")
                if connection.getresponse().status == 200:
                    connection.close()
                    break
            except OSError:
                if time.monotonic() > deadline or not process.is_alive():
                    raise
                time.sleep(0.05)
        yield host, port
    finally:
        process.terminate()
        process.join(10)
        sock.close()


def fetch(connection: http.client.HTTPConnection, path: str) -> tuple[float, int]:
    """One GET on a kept-alive connection: seconds and the body's length."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status} {body[:300]!r}")
    return elapsed, len(body)


def render_only_ms(source: SyntheticSource, rounds: int) -> float:
    """The median time to build the front page's HTML from data already fetched."""

    async def fetched() -> tuple[Any, ...]:
        return await asyncio.gather(
            source.leaderboard(los=True),
            asyncio.gather(*(source.leaderboard(g) for g in source.games())),
            source.matches(INDEX_MATCHES),
            source.tournaments(),
        )

    overall, per_game, matches, tournaments = asyncio.run(fetched())
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        pages.index_page(overall, per_game, matches, tournaments, source.games(), "note")
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def measure(
    bots: int = BOTS, matches: int = MATCHES, rounds: int = 15, per_round: int = 10
) -> dict[str, float]:
    """Medians in ms of GET / and of the static file, their ratio, the page's size in
    KB, and the HTML's render time alone."""
    page: list[float] = []
    static: list[float] = []
    size = 0
    source = SyntheticSource(bots, matches)
    with served(source) as (host, port):
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            fetch(connection, "/")  # warm: first-use imports and caches
            fetch(connection, STATIC)
            for _ in range(rounds):
                for _ in range(per_round):
                    elapsed, size = fetch(connection, "/")
                    page.append(elapsed)
                for _ in range(per_round):
                    static.append(fetch(connection, STATIC)[0])
        finally:
            connection.close()
    page_ms, static_ms = statistics.median(page) * 1000, statistics.median(static) * 1000
    return {
        "page_ms": page_ms,
        "static_ms": static_ms,
        "ratio": page_ms / static_ms,
        "page_kb": size / 1024,
        "render_ms": render_only_ms(source, max(3, rounds)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--matches", type=int, default=MATCHES)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--per-round", type=int, default=10)
    args = parser.parse_args()
    found = measure(args.bots, args.matches, args.rounds, args.per_round)
    print(
        f"leaderboard front page, {args.bots} bots, {args.matches} stored matches "
        f"({found['page_kb']:.0f} KB of HTML), {args.rounds * args.per_round} requests each:"
    )
    print(f"  GET /                {found['page_ms']:8.2f} ms (median)")
    print(f"  GET {STATIC}  {found['static_ms']:8.2f} ms (median, baseline)")
    print(f"  ratio                {found['ratio']:8.1f}x the static file")
    print(f"  HTML render alone    {found['render_ms']:8.2f} ms (pages.index_page)")


if __name__ == "__main__":
    main()
