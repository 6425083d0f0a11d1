"""Example bots play legally, and the rule-based one is clearly stronger than random."""

from __future__ import annotations

from arena.bots.examples import RandomBot
from arena.bots.local import play_in_process
from arena.games.bid_euchre.bot import BidEuchreBasicBot

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


def test_random_bot_is_reproducible_from_what_it_is_shown_whatever_the_match_token() -> None:
    # Bots know a match only by a fresh token: the same deal, played the same way, must
    # still get the same moves, and another deal or another seed other moves.
    def texts(seed: int, bot_seed: int, token: str) -> list[str]:
        state = play_in_process(
            "bid-euchre", [RandomBot(bot_seed), RandomBot(4)], seed, None, token
        )
        return [e.text for e in state.events]

    assert texts(8, 3, "m") == texts(8, 3, "another-token")
    assert texts(8, 3, "m") != texts(9, 3, "m")
    assert texts(8, 3, "m") != texts(8, 5, "m")


def test_rule_based_bid_euchre_bot_plays_the_joker_variant_and_beats_random() -> None:
    """Option joker: the bot discards, treats the joker as the top trump, and still wins."""
    basic, rand = BidEuchreBasicBot(), RandomBot(seed=1)
    options = {"joker": True}
    pairs_won = 0
    for seed in range(DEALS // 2):
        as_dealt = play_in_process("bid-euchre", [basic, rand], seed, options, f"ja{seed}")
        swapped = play_in_process("bid-euchre", [rand, basic], seed, options, f"jb{seed}")
        assert any(e.kind == "discard" for e in as_dealt.events)
        a, b = as_dealt.scores(), swapped.scores()
        pairs_won += (a[0] - a[1]) + (b[1] - b[0]) > 0
    assert pairs_won >= 0.8 * (DEALS // 2)
