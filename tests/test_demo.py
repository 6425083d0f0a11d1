"""``make demo``'s program: a whole local arena, a tournament over every game between
remote and hosted bots, and nothing left running afterwards."""

from __future__ import annotations

import re
import subprocess
import sys

from arena.games import game_names


def test_demo_plays_every_game_prints_the_leaderboard_and_stops_everything() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.demo", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    output = done.stderr + done.stdout
    total = 6 * len(game_names()) * 2  # 6 pairings of 4 bots, 1 deal, 2 seatings
    assert f"{total}/{total} matches, 0 forfeits" in output
    assert "Leaderboard, all games" in output
    # A cell of a board: an estimate with its interval, or a clean sweep's bound; 6 pairs
    # a game make every one provisional, marked "?".
    estimate = r"(?:[+-]\d+\? ± \d+|[≥≤] [+-]\d+\?)"
    ranks = []
    for bot in ("house", "random", "house-hosted@1", "node-hosted@1"):  # two are hosted
        # Ranked overall, its Elo shown (its interval in the next column, or a bound).
        row = re.search(rf"^│\s+(\d) │ {re.escape(bot)}\s+│\s+(?:[≥≤] )?[+-]\d+\? │", output, re.M)
        assert row, bot
        ranks.append(row.group(1))
        # Ranked in every game, with its interval (or bound), in the last table.
        cells = re.search(
            rf"^│ {re.escape(bot)}\s+│(.*)│$", output.split("Each game's board")[1], re.M
        )
        assert cells, bot
        shown = [c.strip() for c in cells.group(1).split("│")]
        assert len(shown) == len(game_names()), shown
        assert all(re.fullmatch(rf"#[1-4] {estimate}", c) for c in shown), shown
    assert sorted(ranks) == ["1", "2", "3", "4"]
    assert "Ranked by Elo: established ratings (20 pairs or more" in output
    assert "perfect" not in output
    # A fixed master seed: the same cards, so the same results, on every run. Its status
    # line stays one line in a log (no wrapping at 80 columns when not on a terminal).
    announced = re.search(r"^tournament \S+: \d+ matches over .*; fair play .*$", output, re.M)
    assert announced is not None and "operator's seed" in announced.group(0), output[:3000]
    for game in game_names():
        assert game in output
    replay_dir = re.search(r"replays in (\S+)", output)
    redis_url = re.search(r"Redis redis://(127\.0\.0\.1:\d+)/", output)
    assert replay_dir is not None and redis_url is not None
    # The referee's command line names the replay directory; Redis's, the API's and the
    # workers' name the Redis address.
    for pattern in (replay_dir.group(1), redis_url.group(1)):
        leftovers = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
        assert leftovers.stdout == "", f"the demo left processes running: {pattern}"
    assert "everything the demo started has stopped" in output
