"""What refitting the arena-wide ratings costs once the arena has a long history.

When a tournament finishes, ``workers.tasks.finalize`` reads every stored result of
every tournament (JSON) and refits every board: ``ratings_by_game`` over everything.
Measured here, at N stored results: that refit once one more duplicate pair (its two
results) is stored, so the ratings do change, on a table with draws and on one
without (no pair ever level, which puts the draw margin on its clamp). Baseline in the
same run: JSON-decoding the same N results, the floor of anything that reads them all
(the refit's figure does not include it).

Results are synthetic but shaped like ``workers.tasks._outcome``'s: 20 bots with fixed
strengths in each of the five games, every deal played twice with the seats swapped.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from arena.games import game_names
from arena.ratings.leaderboard import ratings_by_game
from arena.store.results import VERSION, MatchResult

BOTS = 20
DRAW_ELO = 60.0
"""The draw margin of the table with draws (about one pair in seven is level)."""


def _expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def _result(n: int, seat: int, game: str, entries: list[str], margin: int) -> MatchResult:
    low, tournament = 40, f"t-{n // 1000:04d}"  # a tournament a thousand pairs
    return MatchResult.from_json(
        {
            "match_id": f"{tournament}-{game}-{n}-{'ab'[seat]}",
            "tournament_id": tournament,
            "game": game,
            "pair_key": f"{tournament}-{game}-{n}",
            "deal": n,
            "seed": n * 7919,
            "entries": entries,
            "scores": [low + max(margin, 0), low + max(-margin, 0)],
            "winner_team": None if margin == 0 else 0 if margin > 0 else 1,
            "end": "completed",
            "forfeit_team": None,
            "team_faults": [0, 0],
            "team_fault_kinds": [{}, {}],
            "decisions": 120,
            "duration_ms": 84.5,
            "replay_id": f"r-{n:07d}-{seat}",
            "referee": "referee-0:50051",
            "finished_at": 1.7e9 + n,
            "deal_key": f"d-{n:07d}",
            "paired": True,
            "deal_commitment": "c" * 64,
            "deal_salt": "s" * 32,
            "referee_match_id": f"{tournament}-{game}-{n}-{'ab'[seat]}-0000abcd",
            "fair_play": "sealed",
            "operator_seed": False,
            "record_version": VERSION,
        }
    )


def synthetic_results(count: int, draws: bool, seed: int = 1) -> list[MatchResult]:
    """``count`` results (``count // 2`` duplicate pairs); without ``draws`` no pair is
    level, so the draw margin's maximum-likelihood value is 0 (its lower clamp)."""
    rng = random.Random(seed)
    games = game_names()
    bots = [f"bot-{i:02d}" for i in range(BOTS)]
    strength = {(b, g): rng.gauss(0, 150) for b in bots for g in games}
    draw_elo = DRAW_ELO if draws else 0.0
    results = []
    for n in range(count // 2):
        a, b = rng.sample(bots, 2)
        game = games[n % len(games)]
        delta = strength[a, game] - strength[b, game]
        u = rng.random()
        p_win, p_loss = _expected(delta - draw_elo), _expected(-delta - draw_elo)
        total = rng.randint(1, 30) * (1 if u < p_win else -1 if u < p_win + p_loss else 0)
        first = rng.randint(-30, 30)  # a's margin in the first match; the pair sums to total
        results.append(_result(n, 0, game, [a, b], first))
        results.append(_result(n, 1, game, [b, a], first - total))
    return results


def measure(count: int, draws: bool, rounds: int) -> tuple[float, float, float]:
    """(refit s, JSON decoding s, median of the rounds' ratios). The two alternate
    within each round, so a drift of the machine's speed hits both alike."""
    results = synthetic_results(count + 2, draws)
    stored = [json.dumps(r.to_json()) for r in results[:count]]
    history = [MatchResult.from_json(s) for s in stored]
    refits, decodes, ratios = [], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        [json.loads(s) for s in stored]
        decoded = time.perf_counter()
        ratings_by_game([*history, *results[count:]])  # one more pair: both halves
        refitted = time.perf_counter()
        decodes.append(decoded - started)
        refits.append(refitted - decoded)
        ratios.append(refits[-1] / decodes[-1])
    return statistics.median(refits), statistics.median(decodes), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"{BOTS} bots x {len(game_names())} games, duplicate pairs; medians of {args.rounds}")
    for count in args.results:
        for draws in (True, False):
            refit, decode, ratio = measure(count, draws, args.rounds)
            table = "with draws" if draws else "no draws  "
            print(
                f"{count:>7,} results, {table}: refit {refit * 1000:8.1f} ms, "
                f"JSON decoding {decode * 1000:7.1f} ms, refit / decoding {ratio:5.2f}"
            )


if __name__ == "__main__":
    main()
