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
    for bot in ("house", "random", "house-hosted@1", "node-hosted@1"):  # two are hosted
        # 3 pairs a game: listed, but too few for a rating to be shown
        assert re.search(rf"│\s+│ {bot}\s+│\s+provisional │", output), bot
    assert "A rating is shown from 20 pairs" in output
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
