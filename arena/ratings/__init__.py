"""Rating math, with no I/O: maximum-likelihood Elo from a whole results table."""

from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import (
    Counts,
    Outcome,
    Rating,
    RatingTable,
    add_counts,
    count_outcomes,
    fit,
    fit_counts,
)

__all__ = [
    "Counts",
    "DuplicateResult",
    "Outcome",
    "Rating",
    "RatingTable",
    "add_counts",
    "count_outcomes",
    "fit",
    "fit_counts",
    "pair_outcomes",
]
