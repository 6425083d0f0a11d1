"""The attacker of the fair-play proof, checked on its own: it names cards only when it
really has seen the deal, and then names them right. Otherwise the proof in
``test_remembering_bot.py`` would prove nothing (an attacker that never finds anything)
or fail by chance (one that mistakes a random deal for a remembered one)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena import wire
from arena.bots.examples import RandomBot
from arena.games import all_games, game_names, get_game
from arena.tournament.fair_play import deal_seed
from tests.fair_play.memory import Memory, guessed_seeds

SEAT_TEAMS = {g.info.name: g.info.seat_teams for g in all_games()}


def play(memory: Memory, game: str, seed: int, team: int, token: str) -> Counter[str]:
    """One match with the attacker's memory holding ``team``'s seats and random moves
    everywhere; every claim it makes is checked against the real hands at once."""
    state = get_game(game).new_state(seed, None)
    mover = RandomBot(seed=seed % 1000)
    verdicts: Counter[str] = Counter()
    decision = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        seat = state.current_seat()
        if SEAT_TEAMS[game][seat] == team:
            request = wire.act_request(
                state, match_id=token, decision_index=decision, deadline_s=1.0, legal=legal
            )
            for other, card, route in memory.decide(request):
                held = card in state.observation(other).hand
                verdicts[f"{route} {'right' if held else 'wrong'}"] += 1
        state.apply(
            mover.act(
                wire.act_request(
                    state, match_id=token, decision_index=decision, deadline_s=1.0, legal=legal
                )
            )
        )
        decision += 1
    return verdicts


@pytest.mark.parametrize("game", sorted(game_names()))
def test_a_deal_never_seen_before_yields_no_claim(game: str) -> None:
    memory = Memory(SEAT_TEAMS)
    for seed in guessed_seeds(game, masters=1, pairings=1, deals=1):
        memory.learn_seed(game, seed, "seed")
    seen: Counter[str] = Counter()
    for n in range(12):
        seen += play(memory, game, 1_000_003 * n + 17, n % 2, f"m{n}")
    assert seen == Counter()


@pytest.mark.parametrize("game", ["bid-euchre", "bridgette", "seep"])
def test_the_second_half_of_a_duplicate_pair_is_recognised_from_memory(game: str) -> None:
    verdicts: Counter[str] = Counter()
    for seed in range(4242, 4246):  # some first hands show too few plays to be recognised
        memory = Memory(SEAT_TEAMS)
        assert play(memory, game, seed, 0, f"first-half-{seed}") == Counter()
        verdicts += play(memory, game, seed, 1, f"second-half-{seed}")
    assert verdicts["mirror right"] >= 20
    # Not all: a card may leave a hand unseen (an exchange, a draw, a discard).
    assert verdicts["mirror right"] >= 0.5 * verdicts.total(), verdicts  # chance: about 1/3


@pytest.mark.parametrize("game", ["baloot", "bid-euchre", "bridgette", "persian-rummy"])
def test_a_small_master_seed_is_guessed_and_every_opponent_card_named(game: str) -> None:
    memory = Memory(SEAT_TEAMS)
    for seed in guessed_seeds(game):
        memory.learn_seed(game, seed, "seed")
    verdicts = play(memory, game, deal_seed(1, f"{game}-0-0-a"), 0, "guessed")
    assert verdicts["seed right"] >= 10
    assert verdicts["seed right"] >= 0.6 * verdicts.total(), verdicts  # discards move cards
