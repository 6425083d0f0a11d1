"""Rating math, with no I/O: maximum-likelihood Elo from a whole results table."""

from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import Outcome, Rating, RatingTable, fit

__all__ = ["DuplicateResult", "Outcome", "Rating", "RatingTable", "fit", "pair_outcomes"]
