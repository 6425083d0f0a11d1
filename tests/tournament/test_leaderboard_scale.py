"""What a leaderboard shows beyond the default, from a real API process, the CLI and the
web's table: another scale (an anchor, the prior's sd and bootstrap intervals on
request, and what is refused), and a hosted bot's versions as one bot."""

from __future__ import annotations

import csv
import io
import random
from dataclasses import replace
from typing import Any

import grpc
import pytest

from arena.ratings.history import Point
from arena.ratings.leaderboard import scaled
from arena.ratings.scale import Scale
from arena.store import TournamentStore
from arena.store.history import RatingHistoryStore
from arena.store.packages import HostedVersion, PackageStore
from arena.store.results import MatchResult
from arena.v1 import arena_pb2
from arena.web.pages import leaderboard_table
from tests.records import spec
from tests.support.arena import Arena
from tests.support.cli import arena_cli
from tests.support.rating_history import stored
from tests.web.dom import Document

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


def test_a_bots_versions_share_one_row_and_one_history(arena: Arena) -> None:
    """Each version is rated on its own results; the board gives the bot one row, its
    newest version's, the older folded under it and out of the ranking; the bot's name
    asks for one history across its versions."""
    tournament, bots = "t-versions", ["ada@v1", "ada@v2", "bob", "cy"]
    store = TournamentStore(arena.redis)
    store.create(tournament, spec(bots, ["seep"]), ["seep"], [])
    strength = {"ada@v1": 2, "ada@v2": -1, "bob": 0, "cy": 0}
    rng = random.Random(5)
    for n in range(80):
        a, b = rng.sample(bots, 2)
        if a.startswith("ada") and b.startswith("ada"):
            continue  # one author's versions: never rated against each other
        margin = strength[a] - strength[b] + rng.choice([-2, -1, 0, 1, 2])
        for r in (stored(n, 0, "seep", [a, b], 10 + margin), stored(n, 1, "seep", [b, a], 10)):
            assert store.record_result(
                tournament, replace(r, match_id=f"{tournament}-{r.match_id}"), b""
            )
    packages = PackageStore(arena.redis)
    for label, when in (("v1", 100.0), ("v2", 200.0)):
        packages.add_version(
            HostedVersion("ada", label, "python3.11", "python3 bot.py", label[1] * 64, 10, "",
                          when, ("seep",), "ada", label)
        )  # fmt: skip

    def board(**asked: Any) -> arena_pb2.Leaderboard:
        request = arena_pb2.GetLeaderboardRequest(tournament_id=tournament, **asked)
        return arena.stub.GetLeaderboard(request)

    every = board(every_version=True)
    assert sorted(r.bot for r in every.rows if r.rank) == sorted(bots)
    assert not any(r.older_versions for r in every.rows)
    shown = board(bootstrap=20)
    assert [r.rank for r in shown.rows] == [1, 2, 3]
    assert {r.bot for r in shown.rows} == {"ada@v2", "bob", "cy"}
    (ada,) = [r for r in shown.rows if r.bot == "ada@v2"]
    (v1,) = ada.older_versions
    same = {r.bot: r for r in every.rows}["ada@v1"]
    assert (v1.rank, v1.elo, v1.elo_ci95, v1.pairs) == (0, same.elo, same.elo_ci95, same.pairs)
    assert v1.elo > ada.elo and v1.elo_low < v1.elo < v1.elo_high  # its own, bootstrapped too

    history = RatingHistoryStore(arena.redis)
    history.record("first", {"ada@v1": [Point(1000.0, "first", "", 10.0, 50.0, 5, "rated")]})
    history.record("second", {
        "ada@v1": [Point(2000.0, "second", "", 20.0, 40.0, 9, "rated")],
        "ada@v2": [Point(2000.0, "second", "", -30.0, 90.0, 3, "provisional")],
    })  # fmt: skip
    joined = arena.stub.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot="ada"))
    assert [(p.version, p.elo) for p in joined.series[0].points] == [("v1", 10), ("v2", -30)]
    own = arena.stub.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot="ada@v1"))
    assert [(p.version, p.elo) for p in own.series[0].points] == [("", 10), ("", 20)]

    api = arena.api.address
    printed = arena_cli(api, "leaderboard", "--tournament", tournament)
    assert printed.returncode == 0, printed.stderr
    lines = printed.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "ada@v2" in line)
    assert "↳ ada@v1" in lines[at + 1]
    assert "older versions of ada, rated on their own results and not ranked" in printed.stdout
    exported = arena_cli(api, "leaderboard", "--tournament", tournament, "--csv").stdout
    as_csv = {r["bot"]: r for r in csv.DictReader(io.StringIO(exported))}
    assert (as_csv["ada@v1"]["rank"], as_csv["ada@v1"]["folded_under"]) == ("0", "ada@v2")
    assert as_csv["bob"]["folded_under"] == ""
    ranked = arena_cli(api, "leaderboard", "--tournament", tournament, "--every-version")
    assert "↳" not in ranked.stdout and "ada@v1" in ranked.stdout
    printed = arena_cli(api, "leaderboard", "--history", "ada")
    assert printed.returncode == 0, printed.stderr
    cells = [line.split("│") for line in printed.stdout.splitlines() if "│ 1970-01-01" in line]
    assert [(c[2].strip(), c[3].strip()) for c in cells] == [("first", "v1"), ("second", "v2")]

    # The web's table: the same rows, the older version folded under the newest.
    web = Document(leaderboard_table(shown, "board"))
    assert [r.attrs["data-bot"] for r in web.tables["board"]] == [r.bot for r in shown.rows]
    folded = next(r for r in web.tables["board"] if r.attrs["data-bot"] == "ada@v2")
    assert folded.links == ["/bots/ada%40v2", "/bots/ada%40v1"]
    assert "1 older version" in folded.cells[1]
