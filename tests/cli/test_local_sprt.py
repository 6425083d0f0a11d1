"""``arena test NEW --vs OLD --local``: the arena's SPRT played in process, as a real
command; its verdict and unit count do not depend on the worker count."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats  # type: ignore[import-untyped]  # with open_spiel

from arena.cli.sprt import Strength
from arena.tournament.local_sprt import BotFault, LocalTest, run
from tests.support.cli import arena

FAST = ("--game", "bid-euchre", "--elo0", "0", "--elo1", "50", "--seed", "3")
"""Bounds far apart, so that basic against random decides in a few pairs."""

BAD_BOT = """
from arena.bots import Bot


class Bad(Bot):
    name = "bad"

    def act(self, request):
        return 10**6 if request.decision_index == 2 else request.legal_actions[0].id
"""


COIN = """
import random

from arena.bots import Bot


class Coin(Bot):
    \"\"\"Random moves, seeded by the request: a deal plays the same however often.\"\"\"

    name = "coin"

    def act(self, request):
        draw = random.Random(f"{request.match_id}:{request.decision_index}")
        return draw.choice(request.legal_actions).id
"""


def test_the_stronger_bot_is_found_better_and_the_weaker_fails_with_exit_1() -> None:
    worse = arena("test", "random", "--vs", "bid-euchre-basic", "--local", *FAST, "--workers", "2")
    assert worse.returncode == 1, worse.stderr
    lines = worse.stdout.splitlines()
    assert lines[0] == (
        "local test: random vs bid-euchre-basic in bid-euchre, duplicate pairs, seed 3, 2 workers"
    )
    assert lines[-2].startswith("random vs bid-euchre-basic: H0 accepted, LLR -")
    assert lines[-1].startswith("failed: H0 accepted, random is not better than bid-euchre-basic")
    assert worse.stderr.endswith(
        "arena: error: random did not pass the test against bid-euchre-basic\n"
    )
    better = arena("test", "bid-euchre-basic", "--vs", "random", "--local", *FAST)
    assert better.returncode == 0, better.stderr
    assert better.stdout.splitlines()[-1].startswith("passed: H1 accepted, bid-euchre-basic is")


def test_the_same_seed_decides_alike_on_one_worker_and_two() -> None:
    params = {"elo0": 0.0, "elo1": 10.0, "max_units": 40}
    one, two = (
        run(LocalTest("bid-euchre", "house", "bid-euchre-basic", 11, workers, params))
        for workers in (1, 2)
    )
    assert one.sprt == two.sprt
    assert one.pairs == two.pairs == one.sprt["units"]


def test_max_units_stops_undecided() -> None:
    params = {"elo0": 0.0, "elo1": 5.0, "max_units": 3}
    done = run(LocalTest("seep", "random", "random", 1, 1, params))
    assert (done.pairs, done.sprt["verdict"]) == (3, "SPRT_VERDICT_INCONCLUSIVE")


def test_an_illegal_answer_stops_the_test_naming_the_bot_game_and_seed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(BAD_BOT)
    with pytest.raises(BotFault, match=r"^OLD .*bad.py answered 1000000, not a legal action id"):
        run(LocalTest("bid-euchre", "random", str(bad), 5, 2, {}))
    done = arena("test", "random", "--vs", f"{bad}:Bad", "--local", *FAST)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert "in bid-euchre, match seed " in done.stderr
    assert "decision 2; a local test stops at a bot's first fault" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nobody", "--vs", "random"), "unknown bot 'nobody': give an example bot ("),
        (("chaos", "--vs", "random"), "unknown bot 'chaos'"),
        (("missing.py", "--vs", "random"), "bot 'missing.py': no file 'missing.py'"),
        (("json:Bot", "--vs", "random"), "bot 'json:Bot': Bot in json: no such name"),
        (("no.such.module:X", "--vs", "random"), "cannot import bot module 'no.such.module'"),
        (("seep-basic", "--vs", "random"), "bot 'seep-basic' does not play bid-euchre (seep)"),
        (("random", "--vs", "house", "--api", "x:1"), "--api does not apply to --local tests"),
        (("random", "--vs", "house", "--fair-play", "open"), "--fair-play does not apply"),
        (("random", "--vs", "house", "--deadline-ms", "5"), "--deadline-ms does not apply"),
        (("random", "--vs", "house", "--workers", "0"), "--workers is 1 or more, got 0"),
        (("random", "--vs", "house", "--elo0", "9"), "an SPRT needs elo0 < elo1"),
        (("random", "--vs", "house", "--option", "hands=4"), "allowed options: ace_no_face,"),
        (("random", "--vs", "house", "--option", "max_hands=x"), "takes a whole number, not 'x'"),
        (("random", "--vs", "house", "--option", "max_hands"), "--option takes NAME=VALUE"),
    ],
)
def test_bad_local_inputs_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    done = arena("test", *args, "--local", "--game", "bid-euchre")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr


FIRST_HAND_ONLY = """
from arena.bots import Bot


class FirstHandOnly(Bot):
    name = "first-hand-only"

    def act(self, request):
        assert request.bid_euchre.hand_number == 1, "a second hand"
        return request.legal_actions[0].id
"""


def test_options_are_played_and_named(tmp_path: Path) -> None:
    bot = tmp_path / "first_hand_only.py"
    bot.write_text(FIRST_HAND_ONLY)
    flags = ("--local", "--game", "bid-euchre", "--games", "2", "--seed", "3")
    one = arena("test", str(bot), "--vs", "random", *flags, "--option", "max_hands=1")
    assert one.returncode == 0, one.stderr
    assert f"local test: {bot} vs random in bid-euchre (max_hands=1), 2 duplicate" in one.stdout
    whole = arena("test", str(bot), "--vs", "random", *flags)
    assert whole.returncode == 1 and "raised AssertionError: a second hand" in whole.stderr


def test_local_flags_need_local() -> None:
    done = arena("test", "a", "--vs", "b", "--game", "seep", "--workers", "2")
    assert (done.returncode, done.stderr) == (
        2,
        "arena: error: --workers is for --local tests only\n",
    )


# --- a fixed number of games (--games N) ----------------------------------------------

REPORT = re.compile(
    r"^(?P<new>\S+) vs (?P<old>\S+), (?P<n>\d+) (?P<unit>duplicate pairs?|match(?:es)?): "
    r"won (?P<w>\d+), drawn (?P<d>\d+), lost (?P<l>\d+); score (?P<score>[\d.]+)%\n"
    r"Elo difference (?P<elo>[+-][\d.]+) ± (?P<ci>[\d.]+) \(95%\), LOS (?P<los>[\d.]+)%, "
    r"draw ratio (?P<draws>[\d.]+)%$",
    re.M,
)


def independent(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo, its 95% half-width and LOS computed apart from the project's code: the units'
    scores as a weighted sample (an outcome never seen weighs half a unit, as the SPRT's
    estimate counts it), scipy's normal quantiles and logit (a perfect score is kept
    0.1% short of 1, as the project's ``elo_of`` keeps it finite), and cutechess's LOS."""
    weights = np.array([wins or 0.5, draws or 0.5, losses or 0.5])
    scores = np.array([1.0, 0.5, 0.0])
    mean = float(np.average(scores, weights=weights))
    sd = math.sqrt(float(np.average((scores - mean) ** 2, weights=weights)) / weights.sum())
    z = stats.norm.ppf(0.975)
    elo = 400 / math.log(10)  # Elo per natural logit unit

    def to_elo(score: float) -> float:  # a score past 0.1% of either end counts as there
        return float(elo * special.logit(min(max(score, 1e-3), 1 - 1e-3)))

    half = (to_elo(mean + z * sd) - to_elo(mean - z * sd)) / 2
    los = float(stats.norm.cdf((wins - losses) / math.sqrt(wins + losses)))
    return to_elo(mean), half, los


@pytest.mark.parametrize(
    "counts", [(9, 45, 46), (60, 25, 15), (1, 1, 1), (30, 0, 12), (3, 40, 0), (12, 0, 0)]
)
def test_the_strength_numbers_are_those_computed_apart(counts: tuple[int, int, int]) -> None:
    found = Strength(*counts)
    elo, ci95 = found.elo
    expected = independent(*counts)
    assert elo == pytest.approx(expected[0], abs=1e-6)
    assert ci95 == pytest.approx(expected[1], abs=1e-6)
    assert found.los == pytest.approx(expected[2], abs=1e-9)
    wins, draws, _ = counts
    assert found.score == pytest.approx((wins + draws / 2) / sum(counts))


def test_games_plays_exactly_n_pairs_and_reports_their_strength(tmp_path: Path) -> None:
    (tmp_path / "coin.py").write_text(COIN)
    done = arena(
        "test", "coin.py", "--vs", "random", "--local", "--game", "seep", "--games", "24",
        "--seed", "5", "--workers", "2", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # a report, not a verdict
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "local test: coin.py vs random in seep, 24 duplicate pairs, seed 5, 2 workers"
    )
    assert lines[1].startswith("24 duplicate pairs in ")
    report = REPORT.search(done.stdout)
    assert report is not None, done.stdout
    assert (report["new"], report["old"], report["n"], report["unit"]) == (
        "coin.py",
        "random",
        "24",
        "duplicate pairs",
    )
    wins, draws, losses = (int(report[k]) for k in "wdl")
    assert wins + draws + losses == 24
    assert wins and draws and losses, "two random bots: every outcome, in 24 pairs of Seep"
    elo, ci95, los = independent(wins, draws, losses)
    assert float(report["elo"]) == pytest.approx(elo, abs=0.051)
    assert float(report["ci"]) == pytest.approx(ci95, abs=0.051)
    assert float(report["los"]) == pytest.approx(100 * los, abs=0.051)
    assert float(report["score"]) == pytest.approx(100 * (wins + draws / 2) / 24, abs=0.051)
    assert float(report["draws"]) == pytest.approx(100 * draws / 24, abs=0.051)


def test_games_plays_the_sprts_first_deals_whatever_the_workers() -> None:
    """N pairs are the first N the SPRT of the same seed deals, scored alike: an SPRT
    that cannot decide in N (bounds 0 and 1 Elo) ends with the same counts."""
    fixed = [run(LocalTest("seep", "house", "random", 7, workers, games=6)) for workers in (1, 2)]
    sprt = run(LocalTest("seep", "house", "random", 7, 1, {"elo1": 1.0, "max_units": 6}))
    assert sprt.sprt["verdict"] == "SPRT_VERDICT_INCONCLUSIVE"
    counts = [(o.pairs, o.sprt["wins"], o.sprt["draws"], o.sprt["losses"]) for o in fixed]
    assert counts[0] == counts[1] == (6, sprt.sprt["wins"], sprt.sprt["draws"], sprt.sprt["losses"])


def test_games_plays_on_past_a_verdict() -> None:
    """House beats random by hundreds of Elo: the SPRT at 0/50 stops within a few dozen
    pairs (22 straight wins at least), --games plays every one."""
    sprt = run(LocalTest("bid-euchre", "house", "random", 3, 1, {"elo1": 50.0}))
    assert sprt.sprt["verdict"] == "SPRT_VERDICT_H1" and sprt.pairs < 40
    fixed = run(LocalTest("bid-euchre", "house", "random", 3, 2, {"elo1": 50.0}, games=20))
    assert fixed.pairs == 20 == fixed.sprt["wins"] + fixed.sprt["draws"] + fixed.sprt["losses"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--local", "--games", "0"), "--games is 1 or more, got 0"),
        (("--local", "--games", "5", "--elo1", "10"), "--elo1 is for the SPRT; --games plays"),
        (("--games", "5", "--max-units", "9"), "--max-units is for the SPRT; --games plays"),
        (
            ("--games", "3"),  # no arena needed: refused before it is called
            "--games counts matches in open play, each deal played in both seatings: give an "
            "even number (got 3), or --fair-play trusted for duplicate pairs",
        ),
        (("--games", "2002"), "--games is at most 2000 matches in the arena, got 2002"),
        (
            ("--games", "1001", "--fair-play", "trusted"),
            "--games is at most 1000 duplicate pairs in the arena, got 1001",
        ),
    ],
)
def test_bad_games_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    done = arena("test", "random", "--vs", "house", "--game", "seep", *args)
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (2, "", 1), done.stderr
    assert done.stderr.startswith(f"arena: error: {message}")
