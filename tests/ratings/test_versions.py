"""A bot's versions on one board and in its history: each rated on its own, shown as one
bot, its newest version first with the older ones folded under it."""

from __future__ import annotations

from dataclasses import replace

from arena.ratings.history import Point
from arena.ratings.leaderboard import scaled_counts
from arena.ratings.versions import across_versions, folded, newest_first

# ada@v1 beats everyone; ada@v2 (submitted later) is weaker; bob and cy in between.
COUNTS = {
    ("ada@v1", "bob"): (18, 2, 2),
    ("ada@v1", "cy"): (18, 2, 2),
    ("ada@v2", "bob"): (4, 4, 14),
    ("ada@v2", "cy"): (10, 4, 8),
    ("bob", "cy"): (12, 4, 6),
}
SUBMITTED = {"ada@v1": 100.0, "ada@v2": 200.0}


def test_the_newest_version_holds_the_bots_place_and_the_older_fold_under_it() -> None:
    board, _ = scaled_counts({"seep": COUNTS}, "seep")
    assert [r.bot for r in board.rows] == ["ada@v1", "bob", "cy", "ada@v2"]
    fold = folded(board, SUBMITTED)
    assert [(r.rank, r.bot) for r in fold.board.rows] == [(1, "bob"), (2, "cy"), (3, "ada@v2")]
    (v1,) = fold.older["ada@v2"]
    assert v1.rank == 0
    # Nothing is refitted: every version keeps the rating of its own results.
    before = {r.bot: (r.elo, r.elo_ci95, r.pairs) for r in board.rows}
    after = {r.bot: (r.elo, r.elo_ci95, r.pairs) for r in [*fold.board.rows, v1]}
    assert after == before
    assert fold.board.covariance == board.covariance


def test_a_board_without_two_versions_of_a_bot_is_left_as_it_is() -> None:
    board, _ = scaled_counts({"seep": {k: v for k, v in COUNTS.items() if "v2" not in k[0]}}, "")
    assert folded(board, SUBMITTED).board is board
    assert folded(board, SUBMITTED).older == {}


def test_a_version_whose_time_is_not_kept_counts_as_the_oldest() -> None:
    assert newest_first(["ada@v9", "ada@v2", "ada@v1"], SUBMITTED) == [
        "ada@v2",
        "ada@v1",
        "ada@v9",  # removed: its submission time went with it
    ]
    board, _ = scaled_counts({"seep": COUNTS}, "seep")
    assert list(folded(board, {"ada@v1": 100.0}).older) == ["ada@v1"]


def point(time: float, game: str, elo: float) -> Point:
    return Point(time, f"refit at {time:g}", game, elo, 50.0, 10, "rated")


def test_a_history_across_versions_follows_the_newest_version_rated_at_each_refit() -> None:
    points = {
        "ada@v1": [point(1, "", 10), point(2, "", 20), point(3, "", 30), point(3, "seep", 35)],
        "ada@v2": [point(2, "", -5), point(3, "", -6)],
    }
    joined = across_versions(points, SUBMITTED)
    overall = sorted((p.time, p.elo, p.version) for p in joined if p.game == "")
    assert overall == [(1, 10, "v1"), (2, -5, "v2"), (3, -6, "v2")]
    # On a board the new version has not reached yet, the old one's line goes on.
    assert [(p.time, p.version) for p in joined if p.game == "seep"] == [(3, "v1")]
    # The version is not part of a point's value, nor of what is stored.
    first = next(p for p in joined if p.version == "v1")
    assert first == replace(first, version="") and Point.from_json(first.to_json()).version == ""
