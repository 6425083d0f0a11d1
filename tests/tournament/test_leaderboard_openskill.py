"""OpenSkill beside the Elo, on request, from a real API process and the CLI: the numbers
are ``arena.ratings.skill``'s from the stored results, and nothing else on the board
changes."""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import replace

import pytest

from arena.ratings.skill import skill_table
from arena.store import TournamentStore
from arena.store.results import MatchResult
from arena.v1 import arena_pb2
from tests.records import spec
from tests.support.arena import Arena
from tests.support.cli import arena_cli
from tests.support.rating_history import stored

TOURNAMENT = "t-skill"


def results() -> list[MatchResult]:
    """Duplicate pairs in two games; ``ace`` usually wins, ``cat`` usually loses."""
    rng = random.Random(2)
    out = []
    for n in range(30):
        game = ("bid-euchre", "baloot")[n % 2]
        a, b = rng.sample(["ace", "bee", "cat"], 2)
        margin = (a == "ace") - (b == "ace") + (b == "cat") - (a == "cat") + rng.choice([-1, 0, 1])
        for r in (stored(n, 0, game, [a, b], 10 + margin), stored(n, 1, game, [b, a], -10)):
            out.append(replace(r, match_id=f"{TOURNAMENT}-{r.match_id}"))
    return out


def board(arena: Arena, openskill: bool, game: str = "") -> arena_pb2.Leaderboard:
    request = arena_pb2.GetLeaderboardRequest(tournament_id=TOURNAMENT, game=game)
    request.openskill = openskill
    return arena.stub.GetLeaderboard(request)


def test_the_api_and_the_cli_show_openskill_beside_the_elo_when_asked(arena: Arena) -> None:
    store = TournamentStore(arena.redis)
    games = ["bid-euchre", "baloot"]
    store.create(TOURNAMENT, spec(["ace", "bee", "cat"], games), games, [])
    table = results()
    for result in table[:-2]:
        assert store.record_result(TOURNAMENT, result, b"")

    plain, asked = board(arena, False), board(arena, True)
    assert all(r.openskill_mu == r.openskill_sigma == r.openskill_ordinal == 0 for r in plain.rows)
    for row in asked.rows:
        row.ClearField("openskill_mu")
        row.ClearField("openskill_sigma")
        row.ClearField("openskill_ordinal")
    assert asked == plain  # the Elo board itself, ranks included, is unchanged

    for game in ("", "baloot"):
        expected = skill_table(table[:-2], game).by_player()
        rows = board(arena, True, game).rows
        assert {r.bot for r in rows} == set(expected) == {"ace", "bee", "cat"}
        for row in rows:
            found = expected[row.bot]
            assert row.openskill_mu == pytest.approx(found.mu)
            assert row.openskill_sigma == pytest.approx(found.sigma)
            assert row.openskill_ordinal == pytest.approx(found.mu - 3 * found.sigma)

    # A new result is rated: the OpenSkill table is cached per results version, as the board.
    for result in table[-2:]:
        assert store.record_result(TOURNAMENT, result, b"")
    fresh = {r.bot: r.openskill_mu for r in board(arena, True).rows}
    assert fresh == pytest.approx({p.player: p.mu for p in skill_table(table).ratings})

    api = arena.api.address
    shown = arena_cli(api, "leaderboard", "--tournament", TOURNAMENT, "--openskill")
    assert shown.returncode == 0, shown.stderr
    assert "OS mu" in shown.stdout and "OS ordinal" in shown.stdout
    ace = next(line for line in shown.stdout.splitlines() if " ace " in line)
    assert f"{fresh['ace']:.2f}" in ace
    assert "OS mu" not in arena_cli(api, "leaderboard", "--tournament", TOURNAMENT).stdout

    as_json = json.loads(
        arena_cli(api, "leaderboard", "--tournament", TOURNAMENT, "--openskill", "--json").stdout
    )
    assert {r["bot"]: r["openskill_mu"] for r in as_json["rows"]} == pytest.approx(fresh)
    assert all(r["openskill_sigma"] > 0 for r in as_json["rows"])
    exported = arena_cli(api, "leaderboard", "--tournament", TOURNAMENT, "--openskill", "--csv")
    as_csv = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert {r["bot"]: float(r["openskill_mu"]) for r in as_csv} == pytest.approx(fresh, abs=1e-3)
