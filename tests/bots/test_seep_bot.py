"""The rule-based Seep bot plays legally and is clearly stronger than random."""

from __future__ import annotations

import arena.games.seep.game  # noqa: F401  (registers the game)
from arena.bots.examples.random_bot import RandomBot
from arena.bots.local import play_in_process
from arena.games.seep.bot import SeepBasicBot

DEALS = 40


def test_rule_based_seep_bot_beats_random_over_duplicate_deals() -> None:
    """Each deal seed is played twice with the teams swapped; a pair is won on the total
    margin of bazzis (the match score)."""
    basic, rand = SeepBasicBot(), RandomBot(seed=1)
    pairs_won = 0
    for seed in range(DEALS):
        as_dealt = play_in_process("seep", [basic, rand], seed, match_id=f"a{seed}")
        swapped = play_in_process("seep", [rand, basic], seed, match_id=f"b{seed}")
        a, b = as_dealt.scores(), swapped.scores()
        pairs_won += (a[0] - a[1]) + (b[1] - b[0]) > 0
    assert pairs_won >= 0.8 * DEALS


def test_the_bot_bids_a_value_it_holds_and_plays_to_the_end() -> None:
    state = play_in_process("seep", [SeepBasicBot(), SeepBasicBot()], seed=5, match_id="self")
    assert state.is_terminal()
    bids = [e for e in state.events if e.kind == "bid"]
    assert bids and all(9 <= e.data["value"] <= 13 for e in bids)
