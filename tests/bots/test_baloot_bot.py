"""The rule-based Baloot bot plays legally from its ActRequest alone and is clearly
stronger than random over duplicate deals."""

from __future__ import annotations

import arena.games.baloot.game  # noqa: F401  (registers the game)
from arena.bots.examples.random_bot import RandomBot
from arena.bots.local import play_in_process
from arena.games.baloot.bot import BalootBasicBot

DEALS = 40


def test_rule_based_baloot_bot_beats_random_over_duplicate_deals() -> None:
    """Each deal is played twice with the teams swapped; a pair is won on total margin."""
    basic, rand = BalootBasicBot(), RandomBot(seed=1)
    pairs_won = 0
    for seed in range(DEALS):
        as_dealt = play_in_process("baloot", [basic, rand], seed, match_id=f"a{seed}")
        swapped = play_in_process("baloot", [rand, basic], seed, match_id=f"b{seed}")
        a, b = as_dealt.scores(), swapped.scores()
        margin = (a[0] - a[1]) + (b[1] - b[0])
        pairs_won += margin > 0
    assert pairs_won >= 0.75 * DEALS


def test_basic_bot_names_itself_and_its_game() -> None:
    assert BalootBasicBot.name == "baloot-basic"
    assert BalootBasicBot.games == ("baloot",)


def test_basic_bots_play_whole_matches_against_each_other() -> None:
    bot = BalootBasicBot()
    state = play_in_process("baloot", [bot, bot], seed=3, options={"max_rounds": 20})
    assert state.is_terminal()
    assert any(e.kind == "hand_end" for e in state.events)
