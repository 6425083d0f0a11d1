"""Leagues end to end: real API, Redis, referee, Celery workers and hosted bots in
sandboxes (about a minute). Wood's boss is the random bot, which loses every duplicate pair to the house
bot an author submits, so the author moves up to bronze; bronze's boss is the house bot
itself, whose pairs against it are all draws (the same deterministic bot on both sides
of every deal), so nobody moves up to legend. The board shows it, top league first."""

from __future__ import annotations

from pathlib import Path

from arena.local_redis import LocalRedis
from arena.store import TournamentStore
from arena.tournament.leagues import record_against
from arena.v1 import arena_pb2
from tests.competition.helpers import Api, competition, season, spec, submit
from tests.support.hosted_tournaments import HOUSE, package
from tests.support.waiting import wait_until

RANDOM = """
    from arena.bots.examples.random_bot import RandomBot
    from arena.bots.sdk import serve
    serve(RandomBot())
"""
NAME = "league-season"


def _operator_submits(api: Api, name: str, blob: bytes) -> None:
    api.stub.SubmitBot(
        iter([arena_pb2.SubmitBotRequest(
            name=name, version="v1", runtime="python3.11", command="python3 bot.py",
            package=blob,
        )]),
        metadata=api.operator(),
    )  # fmt: skip


def _board(api: Api) -> arena_pb2.CompetitionLeaderboard:
    found: arena_pb2.CompetitionLeaderboard = api.stub.GetCompetitionLeaderboard(
        arena_pb2.GetCompetitionLeaderboardRequest(name=NAME)
    )
    return found


def test_a_version_beats_the_wood_boss_and_not_the_bronze_one(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    # One match at a time: with more, the units handed out as ada moves up a league are
    # played for nothing.
    with season(local_redis, tmp_path, "leagues", 1, 1) as api:
        house = package(tmp_path / "house", HOUSE)
        _operator_submits(api, "wood-boss", package(tmp_path / "random", RANDOM))
        _operator_submits(api, "bronze-boss", house)
        rules = arena_pb2.CompetitionRules(
            fair_play=arena_pb2.FAIR_PLAY_SEALED,
            leagues=[
                arena_pb2.CompetitionLeague(name="wood", boss="wood-boss@v1"),
                arena_pb2.CompetitionLeague(name="bronze", boss="bronze-boss@v1"),
                arena_pb2.CompetitionLeague(name="legend"),
            ],
            promotion_pairs=2,  # two straight wins: LOS 0.921
            promotion_los=0.9,
        )
        games = [arena_pb2.CompetitionGame(game="bid-euchre")]
        api.create(spec(NAME, opens_in=2, open_for=600, games=games, rules=rules))
        [code] = api.invites(NAME)
        submit(api, api.join(code, "ada").author.token, "ada-bot", "v1", house)

        store = TournamentStore(api.redis)

        def against(boss: str) -> tuple[int, int, int]:
            ladder = competition(api, NAME).ladder_tournament_id
            record = store.get(ladder) if ladder else None
            counts = (
                ((record.scheduler or {}).get("format") or {}).get("counts", {}) if record else {}
            )
            return record_against(counts, "ada-bot@v1", boss)

        # Promotion to legend is judged once ada has two pairs against bronze's boss.
        wait_until(lambda: sum(against("bronze-boss@v1")) >= 2, 300, "two pairs in bronze")
        wins, draws, losses = against("wood-boss@v1")
        assert wins >= 2 and draws == losses == 0  # units in flight as it moved up count
        wins, draws, losses = against("bronze-boss@v1")
        assert wins == losses == 0 and draws >= 2

        def shown() -> bool:
            rows = _board(api).rows
            return {r.version for r in rows} == {"ada-bot@v1", "wood-boss@v1", "bronze-boss@v1"}

        wait_until(shown, 30, "the board's rows")
        rows = _board(api).rows
        assert [r.league for r in rows] == ["bronze", "bronze", "wood"]  # top league first
        by_version = {r.version: r for r in rows}
        ada = by_version["ada-bot@v1"]
        assert (ada.author, ada.league, ada.rank, ada.boss) == ("ada", "bronze", 1, False)
        for boss, league in (("bronze-boss@v1", "bronze"), ("wood-boss@v1", "wood")):
            row = by_version[boss]
            assert (row.author, row.league, row.rank, row.boss) == ("", league, 0, True)
