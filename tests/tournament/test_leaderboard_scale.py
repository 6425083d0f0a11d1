"""A leaderboard on another scale, from a real API process and the CLI: an anchor, the
prior's sd and bootstrap intervals on request, and what is refused."""

from __future__ import annotations

import csv
import io
import random
from dataclasses import replace
from typing import Any

import grpc
import pytest

from arena.ratings.leaderboard import scaled
from arena.ratings.scale import Scale
from arena.store import TournamentStore
from arena.store.results import MatchResult
from arena.v1 import arena_pb2
from tests.records import spec
from tests.support.arena import Arena
from tests.support.cli import arena_cli
from tests.support.rating_history import stored

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)

TOURNAMENT = "t-scale"
BOTS = ["ace", "bee", "cat"]
GAMES = ["bid-euchre", "baloot"]


def results() -> list[MatchResult]:
    """Duplicate pairs in two games; ``ace`` usually wins, ``cat`` usually loses."""
    rng = random.Random(3)
    out = []
    for n in range(40):
        game = GAMES[n % 2]
        a, b = rng.sample(BOTS, 2)
        margin = (a == "ace") - (b == "ace") + (b == "cat") - (a == "cat") + rng.choice([-1, 0, 1])
        for r in (stored(n, 0, game, [a, b], 10 + margin), stored(n, 1, game, [b, a], -10)):
            out.append(replace(r, match_id=f"{TOURNAMENT}-{r.match_id}"))
    return out


@pytest.fixture
def table(arena: Arena) -> list[MatchResult]:
    store = TournamentStore(arena.redis)
    store.create(TOURNAMENT, spec(BOTS, GAMES), GAMES, [])
    found = results()
    for result in found:
        assert store.record_result(TOURNAMENT, result, b"")
    return found


def ask(arena: Arena, **scale: Any) -> arena_pb2.Leaderboard:
    request = arena_pb2.GetLeaderboardRequest(tournament_id=TOURNAMENT, **scale)
    return arena.stub.GetLeaderboard(request)


def spread(board: arena_pb2.Leaderboard) -> float:
    elo = [r.elo for r in board.rows]
    return max(elo) - min(elo)


def test_an_anchored_board_with_bootstrap_intervals(arena: Arena, table: list[MatchResult]) -> None:
    plain = ask(arena)
    assert (plain.anchor, plain.prior_sd, plain.bootstrap) == ("", 1000, 0)
    assert all(r.elo_low == r.elo_high == 0 for r in plain.rows)
    pinned = ask(arena, anchor="bee", anchor_elo=1500, bootstrap=30, bootstrap_seed=4)
    assert (pinned.anchor, pinned.anchor_elo, pinned.bootstrap) == ("bee", 1500, 30)
    rows, before = {r.bot: r for r in pinned.rows}, {r.bot: r for r in plain.rows}
    assert rows["bee"].elo == pytest.approx(1500) and rows["bee"].elo_ci95 == 0
    expected, intervals = scaled(
        table, "", Scale(anchor="bee", anchor_elo=1500, bootstrap=30, seed=4)
    )
    for row in expected.rows:
        assert rows[row.bot].elo == pytest.approx(row.elo)
        assert rows[row.bot].elo - 1500 == pytest.approx(before[row.bot].elo - before["bee"].elo)
        assert (rows[row.bot].elo_low, rows[row.bot].elo_high) == pytest.approx(intervals[row.bot])
    assert any(c.startswith("anchored: bee is fixed at +1500 Elo") for c in pinned.caveats)
    tight = ask(arena, game="baloot", prior_sd=50.0)
    assert tight.prior_sd == 50
    assert spread(tight) < spread(ask(arena, game="baloot")) - 20  # a tight prior pulls them in

    api = arena.api.address
    shown = arena_cli(
        api, "leaderboard", "--tournament", TOURNAMENT, "--anchor", "bee", "--anchor-elo",
        "1500", "--bootstrap", "30", "--seed", "4",
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "bootstrap 95%" in shown.stdout and "+1500" in shown.stdout
    ace = rows["ace"]
    assert f"[{ace.elo_low:+.0f}, {ace.elo_high:+.0f}]" in shown.stdout
    exported = arena_cli(
        api, "leaderboard", "--tournament", TOURNAMENT, "--anchor", "bee", "--bootstrap", "30",
        "--seed", "4", "--csv",
    )  # fmt: skip
    as_csv = {r["bot"]: r for r in csv.DictReader(io.StringIO(exported.stdout))}
    assert float(as_csv["bee"]["elo"]) == 0 and as_csv["bee"]["elo_low"] == "0.0"


@pytest.mark.parametrize(
    ("scale", "refusal"),
    [
        ({"anchor": "zed"}, "anchor 'zed' has no rating on the overall board (rated in every "
         "game); the anchor must be a ranked bot there: ace, bee, cat"),
        ({"anchor": "zed", "game": "baloot"}, "no rating on the baloot board"),
        ({"prior_sd": -1.0}, "prior_sd is the prior's standard deviation in Elo, above 0"),
        ({"prior_sd": 0.0}, "got 0"),
        ({"bootstrap": 5000}, "from 0 (none) to 1000; got 5000"),
    ],
)  # fmt: skip
def test_a_scale_that_cannot_be_given_is_invalid_argument_saying_what_is_allowed(
    arena: Arena, table: list[MatchResult], scale: dict[str, Any], refusal: str
) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        ask(arena, **scale)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal in (refused.value.details() or "")
    if scale == {"anchor": "zed"}:
        shown = arena_cli(
            arena.api.address, "leaderboard", "--tournament", TOURNAMENT, "--anchor", "zed"
        )
        assert shown.returncode != 0 and "ace, bee, cat" in shown.stderr
