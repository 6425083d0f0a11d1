"""The rule-based Persian Rummy bot plays legally and is clearly stronger than random."""

from __future__ import annotations

import arena.games.persian_rummy.game  # noqa: F401  (registers the game)
from arena.bots.examples.random_bot import RandomBot
from arena.bots.local import play_in_process
from arena.games.persian_rummy.bot import PersianRummyBasicBot

DEALS = 40


def test_rule_based_persian_rummy_bot_beats_random_over_duplicate_deals() -> None:
    """Each seed is played twice with the teams swapped; a pair is won on total margin."""
    basic, rand = PersianRummyBasicBot(), RandomBot(seed=1)
    pairs_won = 0
    for seed in range(DEALS):
        as_dealt = play_in_process("persian-rummy", [basic, rand], seed, match_id=f"a{seed}")
        swapped = play_in_process("persian-rummy", [rand, basic], seed, match_id=f"b{seed}")
        a, b = as_dealt.scores(), swapped.scores()
        margin = (a[0] - a[1]) + (b[1] - b[0])
        pairs_won += margin > 0
    assert pairs_won >= 0.8 * DEALS


def test_the_bot_serves_only_persian_rummy() -> None:
    bot = PersianRummyBasicBot()
    assert bot.name == "persian-rummy-basic"
    assert bot.games == ("persian-rummy",)


def test_basic_bots_on_both_teams_finish_a_match() -> None:
    basic = PersianRummyBasicBot()
    state = play_in_process("persian-rummy", [basic, basic], seed=3, match_id="mirror")
    assert state.is_terminal()
    assert [e.kind for e in state.events].count("hand_end") == 2
