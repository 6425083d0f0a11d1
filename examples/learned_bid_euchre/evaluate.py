"""Duplicate play in process: a model against the teacher, each deal twice, seats swapped.

The arena's own measurement is ``bench.duplicate_strength`` (bots as processes through a
referee); this is the same count without the processes, fast enough to use during
training. Both build the bots' requests with ``arena.wire``, so on the same deals they
give the same margins (the README shows both on a sample). A pair is won by its total
margin (``arena.ratings.duplicate``); draws are left out of the likelihood of superiority.

    python -m examples.learned_bid_euchre.evaluate --model examples/learned_bid_euchre/model.npz \
        --pairs 1000 --workers 2
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from arena.bots.local import play_in_process
from arena.bots.sdk import Bot
from arena.games.bid_euchre.bot import BidEuchreBasicBot
from examples.learned_bid_euchre import features
from examples.learned_bid_euchre.bot import MODEL, LearnedBidEuchreBot


@dataclass(frozen=True)
class Summary:
    margins: list[int]
    """Each pair's total margin for the model, deal seeds 0, 1, 2, ... in order."""

    @property
    def won(self) -> int:
        return sum(m > 0 for m in self.margins)

    @property
    def drawn(self) -> int:
        return sum(m == 0 for m in self.margins)

    @property
    def lost(self) -> int:
        return sum(m < 0 for m in self.margins)

    @property
    def los(self) -> float:
        """Likelihood of superiority: Phi((W - L) / sqrt(W + L))."""
        decided = self.won + self.lost
        if not decided:
            return 0.5
        return 0.5 * (1 + math.erf((self.won - self.lost) / math.sqrt(decided) / math.sqrt(2)))

    @property
    def elo(self) -> float:
        """The Elo difference that gives this pair score (draws count half)."""
        score = (self.won + 0.5 * self.drawn) / len(self.margins)
        score = min(max(score, 1e-3), 1 - 1e-3)
        return -400 * math.log10(1 / score - 1)

    def line(self) -> str:
        mean = sum(self.margins) / len(self.margins)
        return (
            f"{len(self.margins)} pairs: won / drawn / lost {self.won} / {self.drawn} / "
            f"{self.lost}; mean margin {mean:+.2f} points a pair; LOS {self.los:.1%}; "
            f"Elo {self.elo:+.0f}"
        )


def pair_margins(model: Path, seeds: list[int]) -> list[int]:
    """The model's total margin over each deal seed played twice, teams swapped."""
    learned: Bot = LearnedBidEuchreBot(model)
    teacher: Bot = BidEuchreBasicBot()
    margins = []
    for seed in seeds:
        a = play_in_process(features.GAME, [learned, teacher], seed, match_id=f"a{seed}").scores()
        b = play_in_process(features.GAME, [teacher, learned], seed, match_id=f"b{seed}").scores()
        margins.append((a[0] - a[1]) + (b[1] - b[0]))
    return margins


def duplicate(model: Path, pairs: int, workers: int = 1, first: int = 0) -> Summary:
    """Deal seeds ``first`` .. ``first + pairs - 1``, as ``bench.duplicate_strength`` uses
    0 .. pairs - 1; training draws its seeds from elsewhere (``train.EVAL_SEEDS``)."""
    seeds = list(range(first, first + pairs))
    size = max(1, math.ceil(pairs / (4 * workers)))
    chunks = [seeds[i : i + size] for i in range(0, pairs, size)]
    if workers <= 1:
        parts = [pair_margins(model, chunk) for chunk in chunks]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(pair_margins, [model] * len(chunks), chunks))
    return Summary([m for part in parts for m in part])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--pairs", type=int, default=200, help="deal seeds, each played twice")
    parser.add_argument("--first", type=int, default=0, help="the first deal seed")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    summary = duplicate(args.model, args.pairs, args.workers, args.first)
    print(f"{args.model} vs bid-euchre-basic, {summary.line()}")


if __name__ == "__main__":
    main()
