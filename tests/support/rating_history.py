"""Results to rate: paired matches with a margin, and a history with every kind of result."""

from __future__ import annotations

import random
from typing import Any

from arena.store.results import MatchResult
from arena.tournament.fair_play import TRUSTED
from tests.records import result

GAMES = ["baloot", "bid-euchre", "seep"]


def stored(
    n: int, half: int, game: str, entries: list[str], margin: int, **extra: Any
) -> MatchResult:
    return result(
        **{
            "match_id": f"m{n}-{half}",
            "game": game,
            "pair_key": f"t-{game}-{n}",
            "entries": entries,
            "scores": [50 + max(margin, 0), 50 + max(-margin, 0)],
            "end": "completed",
            "forfeit_team": None,
            "paired": True,
            **extra,
        }
    )


def history(rng: random.Random) -> list[MatchResult]:
    """Pairs (some level), a forfeit, a no contest, a half waiting for its twin, a match
    rated alone, a trusted result, and a bot that plays a single game."""
    bots = ["ace", "bee", "cat", "dog", "eel"]
    results = []
    for n in range(300):
        game = GAMES[n % len(GAMES)]
        a, b = rng.sample(bots[:4], 2)
        first, total = rng.randint(-20, 20), rng.choice([-7, -3, 0, 0, 2, 5, 9])
        results += [stored(n, 0, game, [a, b], first), stored(n, 1, game, [b, a], first - total)]
    results += [
        stored(900, 0, "seep", ["eel", "ace"], 4),
        stored(900, 1, "seep", ["ace", "eel"], -9),
        stored(901, 0, "seep", ["eel", "bee"], 30),
        stored(901, 1, "seep", ["bee", "eel"], 1, forfeit_team=1),
        stored(902, 0, "baloot", ["ace", "cat"], 0, end="no_contest"),
        stored(903, 0, "bid-euchre", ["dog", "bee"], 12),
        stored(904, 0, "baloot", ["cat", "dog"], 3, paired=False, pair_key="m904-0"),
        stored(905, 0, "seep", ["ace", "bee"], -1, fair_play=TRUSTED),
        stored(905, 1, "seep", ["bee", "ace"], 2, fair_play=TRUSTED),
    ]
    rng.shuffle(results)
    return results
