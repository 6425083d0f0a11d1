"""The rule-based Bridgette bot plays legally and is clearly stronger than random."""

from __future__ import annotations

import arena.games.bridgette.game  # noqa: F401  (registers the game)
from arena.bots.examples.random_bot import RandomBot
from arena.bots.local import play_in_process
from arena.games.bridgette.bot import BridgetteBasicBot

DEALS = 40


def test_rule_based_bridgette_bot_beats_random_over_duplicate_deals() -> None:
    """Each deal seed is played twice with the seats swapped; a pair is won on total margin."""
    basic, rand = BridgetteBasicBot(), RandomBot(seed=1)
    pairs_won = 0
    for seed in range(DEALS):
        as_dealt = play_in_process("bridgette", [basic, rand], seed, match_id=f"a{seed}")
        swapped = play_in_process("bridgette", [rand, basic], seed, match_id=f"b{seed}")
        a, b = as_dealt.scores(), swapped.scores()
        margin = (a[0] - a[1]) + (b[1] - b[0])
        pairs_won += margin > 0
    assert pairs_won >= 0.75 * DEALS


def test_the_bot_plays_whole_matches_against_itself() -> None:
    bot = BridgetteBasicBot()
    for seed in range(5):
        state = play_in_process("bridgette", [bot, bot], seed, match_id=f"self{seed}")
        assert state.is_terminal() and state.winner() in (0, 1)


def test_the_bot_names_its_game() -> None:
    assert BridgetteBasicBot.name == "bridgette-basic"
    assert BridgetteBasicBot.games == ("bridgette",)
