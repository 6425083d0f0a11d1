"""``arena test NEW --vs OLD --local``: the arena's SPRT played in process, as a real
command; its verdict and unit count do not depend on the worker count."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.local_sprt import BotFault, LocalTest, run
from tests.cli.test_cli import arena

FAST = ("--game", "bid-euchre", "--elo0", "0", "--elo1", "50", "--seed", "3")
"""Bounds far apart, so that basic against random decides in a few pairs."""

BAD_BOT = """
from arena.bots import Bot


class Bad(Bot):
    name = "bad"

    def act(self, request):
        return 10**6 if request.decision_index == 2 else request.legal_actions[0].id
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
    ],
)
def test_bad_local_inputs_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    done = arena("test", *args, "--local", "--game", "bid-euchre")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert message in done.stderr


def test_local_flags_need_local() -> None:
    done = arena("test", "a", "--vs", "b", "--game", "seep", "--workers", "2")
    assert (done.returncode, done.stderr) == (
        2,
        "arena: error: --workers is for --local tests only\n",
    )
