"""Rating history points from boards: one per row of every board, in the order a reader
sees them, and back from their compact JSON unchanged."""

from __future__ import annotations

from arena.ratings.history import Point, history_points, series
from arena.ratings.leaderboard import Leaderboard, Row


def row(bot: str, elo: float, **more: object) -> Row:
    return Row(1, bot, elo, 40.0, 3, 2, 0, 1, 6, **more)  # type: ignore[arg-type]


BOARDS = {
    "seep": Leaderboard("seep", (row("a", 30.0), row("b", -30.0)), 0.0, 6),
    "": Leaderboard("", (row("a", 20.0), row("b", -20.0), row("c", 0.0)), 0.0, 9),
    "baloot": Leaderboard(
        "baloot",
        (row("c", 400.0, status="provisional", bound="at least", elo_bound=150.0),),
        0.0,
        3,
    ),
}


def test_every_row_of_every_board_is_a_point_overall_first() -> None:
    points = history_points(BOARDS, 1000.5, "tournament t1 finished")
    assert {bot: [p.game for p in found] for bot, found in points.items()} == {
        "a": ["", "seep"],
        "b": ["", "seep"],
        "c": ["", "baloot"],
    }
    (c_overall, c_baloot) = points["c"]
    assert c_overall == Point(1000.5, "tournament t1 finished", "", 0.0, 40.0, 3, "rated")
    assert (c_baloot.status, c_baloot.bound, c_baloot.elo_bound) == (
        "provisional",
        "at least",
        150.0,
    )
    assert points["a"][1].elo == 30.0


def test_points_survive_their_compact_json() -> None:
    for found in history_points(BOARDS, 1733234567.125, "ladder t2 at 400 results").values():
        for point in found:
            assert Point.from_json(point.to_json()) == point
    plain = Point(1.0, "e", "", 1.0, 2.0, 3, "rated").to_json()
    assert "b" not in plain and "eb" not in plain  # no bound: not stored


def test_series_are_by_board_in_time_order_and_one_board_when_asked() -> None:
    later = history_points(BOARDS, 2000.0, "late")["a"]
    earlier = history_points(BOARDS, 1000.0, "early")["a"]
    by_game = series(later + earlier)  # written out of order: a slow refit wrote last
    assert list(by_game) == ["", "seep"]
    assert [p.event for p in by_game[""]] == ["early", "late"]
    assert list(series(later, "seep")) == ["seep"]
    assert series(later, "baloot") == {"baloot": []}  # asked for: there, empty
    assert series([]) == {}
