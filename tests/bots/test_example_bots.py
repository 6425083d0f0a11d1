"""Example bots play legally, and the rule-based one is clearly stronger than random."""

from __future__ import annotations

from arena.bots.examples import BidEuchreBasicBot, RandomBot
from arena.bots.local import play_in_process

DEALS = 40


def test_rule_based_bid_euchre_bot_beats_random_over_duplicate_deals() -> None:
    """Each deal is played twice with the teams swapped; a pair is won on total margin."""
    basic, rand = BidEuchreBasicBot(), RandomBot(seed=1)
    pairs_won = 0
    for seed in range(DEALS):
        as_dealt = play_in_process("bid-euchre", [basic, rand], seed, match_id=f"a{seed}")
        swapped = play_in_process("bid-euchre", [rand, basic], seed, match_id=f"b{seed}")
        a, b = as_dealt.scores(), swapped.scores()
        margin = (a[0] - a[1]) + (b[1] - b[0])
        pairs_won += margin > 0
    assert pairs_won >= 0.8 * DEALS


def test_random_bot_is_reproducible_per_match_and_decision() -> None:
    first = play_in_process("bid-euchre", [RandomBot(3), RandomBot(4)], seed=8, match_id="m")
    second = play_in_process("bid-euchre", [RandomBot(3), RandomBot(4)], seed=8, match_id="m")
    other = play_in_process("bid-euchre", [RandomBot(3), RandomBot(4)], seed=8, match_id="n")
    assert [e.text for e in first.events] == [e.text for e in second.events]
    assert [e.text for e in first.events] != [e.text for e in other.events]
