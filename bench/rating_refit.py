"""What refitting the arena-wide ratings costs once the arena has a long history.

When a tournament finishes, ``workers.scheduler.finalize`` refits every board. It keeps
each finished tournament's tallies (its pairings' W/D/L counts by game:
``arena.ratings.leaderboard.tallies``) and their sum, and refits from the sum rather
than from the results, so the refit's cost follows the arena's pairings and not its
history. Measured here, at N stored results in finished tournaments of 2,000 results
each: what finishing one more tournament (one duplicate pair, so the ratings do change)
costs, decoding the kept sum, adding that tournament's tally, encoding the sum again
and refitting every board, on a table with draws and on one without (no pair ever
level, which puts the draw margin on its clamp); aim: flat, the 100k figure within 2x
of the 1k one.
Beside it, in the same run: the refit from every result, as before tallies were kept,
and JSON-decoding the N results, the floor of anything that reads them all (neither
refit figure includes reading them).

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
from arena.ratings.leaderboard import merged, ratings_by_game, tallies
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
    """Medians of (refit from tallies s, refit from every result s, JSON decoding s).
    The three alternate within each round, so a drift of the machine's speed hits all
    alike."""
    results = synthetic_results(count + 2, draws)
    stored = [json.dumps(r.to_json()) for r in results[:count]]
    history = [MatchResult.from_json(s) for s in stored]
    by_tournament: dict[str, list[MatchResult]] = {}
    for result in history:
        by_tournament.setdefault(result.tournament_id, []).append(result)
    kept = json.dumps(merged(tallies(t) for t in by_tournament.values()))
    new = results[count:]  # one more tournament: one pair, both halves
    counted, refits, decodes = [], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        total = merged([json.loads(kept), tallies(new)])
        json.dumps(total)
        ratings_by_game([], [total])
        from_tallies = time.perf_counter()
        [json.loads(s) for s in stored]
        decoded = time.perf_counter()
        ratings_by_game([*history, *new])
        refitted = time.perf_counter()
        counted.append(from_tallies - started)
        decodes.append(decoded - from_tallies)
        refits.append(refitted - decoded)
    return statistics.median(counted), statistics.median(refits), statistics.median(decodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"{BOTS} bots x {len(game_names())} games, duplicate pairs; medians of {args.rounds}")
    for draws in (True, False):
        table = "with draws" if draws else "no draws"
        first = None
        for count in args.results:
            counted, refit, decode = measure(count, draws, args.rounds)
            first = first or counted
            print(
                f"{count:>7,} results, {table:>10}: refit from tallies {counted * 1000:7.1f} ms "
                f"({counted / first:4.2f}x the smallest; aim <= 2), from every result "
                f"{refit * 1000:8.1f} ms, JSON decoding {decode * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    main()
