"""SPRT: is the new version (the first entry) better than the old (the second)?

Fishtest's question, asked of two bots in one game: the format hands out units (deal
numbers, each in both seatings) while the test is undecided, and scores each unit for
the first entry as it completes, after which ``arena.ratings.sprt`` says whether the
results so far accept H1 (better by ``elo1``), H0 (better by at most ``elo0``), or
neither yet. It is sequential, so results are taken in the order they are absorbed; a
half of a duplicate pair waits in the state for its other half. Once a verdict is
reached nothing more is handed out; units already out still count in the final numbers,
but never change the verdict.

A duplicate pair is tested in its five outcomes (``levels``, the pentanomial LLR), and
the Elo shown is of its five-outcome score; its win, draw or loss by the total margin is
kept too (``counts``), as the standings show it. A test stored before pairs had five
outcomes has no ``levels`` and goes on as it began, in three.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from arena.ratings import sprt
from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.sprt_estimate import estimate_counts
from arena.ratings.sprt_overshoot import Ladder
from arena.tournament.formats.base import (
    Field,
    Format,
    InvalidFormat,
    Played,
    State,
    unit_matches,
)
from arena.tournament.progress import sprt_text
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2

DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "max_units": 100000}
MAX_UNITS = 100000
TRACE_POINTS = 1000
PENDING, H0, H1, INCONCLUSIVE = (
    f"SPRT_VERDICT_{v}" for v in ("PENDING", "H0", "H1", "INCONCLUSIVE")
)


def _number(params: Mapping[str, Any], key: str) -> float:
    value = params.get(key) or 0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidFormat(f"SPRT parameter {key} is a number; got {value!r}")
    return float(value)


class Sprt(Format):
    name = "sprt"
    proto = arena_pb2.FORMAT_SPRT
    title = "SPRT"
    params_field = "sprt"
    decides_early = True
    deals_as_needed = True
    shared_games = True
    shows_leaderboard = False

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        super().__init__(field, params)
        if len(field.entries) != 2:
            raise InvalidFormat(
                "an SPRT tests exactly 2 entries, the new version first and the one it is "
                f"tested against second; got {len(field.entries)}"
            )
        self.first, self.second = field.entries
        if len(field.games) != 1 or not field.common_games(self.first, self.second):
            raise InvalidFormat(
                "an SPRT plays exactly 1 game, which both entries play; got "
                + (", ".join(field.games) or "none")
            )
        self.game = field.games[0]
        elo0, elo1 = _number(params, "elo0"), _number(params, "elo1")
        if elo0 == elo1 == 0:
            elo0, elo1 = DEFAULTS["elo0"], DEFAULTS["elo1"]
        refused = sprt.check_bounds(elo0, elo1)
        if refused:
            raise InvalidFormat(refused.replace("elo0 < elo1", "elo0 < elo1 (both unset: 0 and 5)"))
        self.elo0, self.elo1 = elo0, elo1
        self.alpha = _number(params, "alpha") or DEFAULTS["alpha"]
        self.beta = _number(params, "beta") or DEFAULTS["beta"]
        for key, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise InvalidFormat(f"SPRT {key} is more than 0 and less than 0.5; got {value:g}")
        units = _number(params, "max_units") or DEFAULTS["max_units"]
        if units != int(units) or not 1 <= units <= MAX_UNITS:
            raise InvalidFormat(
                f"SPRT max_units is a whole number from 1 to {MAX_UNITS}; got {units:g}"
            )
        self.max_units = int(units)
        self.lower, self.upper = sprt.bounds(self.alpha, self.beta)

    def total(self) -> int | None:
        return None

    def start(self) -> State:
        return {
            "units_out": 0,
            "deals_out": 0,
            "halves": {},
            "counts": [0, 0, 0],
            **({"levels": [0] * 5} if self.field.paired else {}),
            "ladder": Ladder().to_list(),
            "void": 0,
            "verdict": PENDING,
            "trace": [],
            "stride": 1,
        }

    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        if self.decided(state):
            return state, []
        units_out, deal = state["units_out"], state["deals_out"]
        matches: list[ScheduledMatch] = []
        while units_out < self.max_units and room - len(matches) >= 2:
            unit = f"sprt-{self.game}-{deal}"
            pair = unit_matches(self.field, unit, self.game, self.first, self.second, deal)
            if not self.field.paired:
                # Each seating is a unit: an odd max_units ends on a lone seating.
                pair = pair[: self.max_units - units_out]
            matches += pair
            units_out += 1 if self.field.paired else len(pair)
            deal += 1
        return {**state, "units_out": units_out, "deals_out": deal}, matches

    def absorb(self, state: State, played: Sequence[Played]) -> State:
        state = {
            **state,
            "halves": dict(state["halves"]),
            "counts": list(state["counts"]),
            "trace": list(state["trace"]),
        }
        if "levels" in state:
            state["levels"] = list(state["levels"])
        if "ladder" not in state:  # stored before the overshoot correction: start it now
            now = self._llr(state)
            state["ladder"] = Ladder(low=now, high=now).to_list()
        prefix = f"{self.field.tournament_id}-"
        for p in played:
            if not p.match_id.startswith(prefix):
                raise ValueError(f"not a match of this SPRT: {p.match_id}")
            result = None if p.unit is None else asdict(p.unit)
            if not self.field.paired:
                self._score(state, [result])
                continue
            unit = p.match_id[len(prefix) : -2]
            if unit in state["halves"]:
                self._score(state, [state["halves"].pop(unit), result])
            else:
                state["halves"][unit] = result
        return state

    def _score(self, state: State, halves: list[dict[str, Any] | None]) -> None:
        """Count one complete unit (void if a half has no result) and test again."""
        if None in halves:
            state["void"] += 1
        else:
            paired = len(halves) == 2
            (outcome,) = pair_outcomes(
                (DuplicateResult(**{**h, "paired": paired}) for h in halves if h), five=True
            )
            mine = outcome.a == self.first
            score = outcome.score if mine else 1.0 - outcome.score
            state["counts"][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
            if "levels" in state and outcome.level is not None:
                state["levels"][outcome.level if mine else 4 - outcome.level] += 1
            llr = self._llr(state)
            _trace(state, sum(state["counts"]), llr)
            if state["verdict"] == PENDING:
                ladder = _ladder(state).step(llr)
                state["ladder"] = ladder.to_list()
                lower, upper = self._in_force(ladder)
                state["verdict"] = H1 if llr >= upper else H0 if llr <= lower else PENDING
        resolved = sum(state["counts"]) + state["void"]
        if state["verdict"] == PENDING and resolved >= self.max_units:
            state["verdict"] = INCONCLUSIVE

    def _llr(self, state: State) -> float:
        """The test's LLR: pentanomial on a pair's five outcomes, else trinomial."""
        if "levels" in state:
            return sprt.llr_levels(state["levels"], self.elo0, self.elo1)
        wins, draws, losses = state["counts"]
        return sprt.llr(wins, draws, losses, self.elo0, self.elo1)

    def _in_force(self, ladder: Ladder) -> tuple[float, float]:
        """The bounds the test stops at: Wald's, brought in by the expected overshoot."""
        o0, o1 = ladder.corrections()
        return self.lower + o0, self.upper - o1

    def decided(self, state: State) -> bool:
        return bool(state["verdict"] != PENDING or state["units_out"] >= self.max_units)

    def standings(self, state: State) -> dict[str, Any]:
        wins, draws, losses = state["counts"]
        units = wins + draws + losses
        llr = self._llr(state)
        stopped = {H1: 1, H0: -1}.get(state["verdict"], 0)
        outcomes = state.get("levels") or [losses, draws, wins]
        found = estimate_counts(outcomes, self.elo0, self.elo1, self.alpha, self.beta, stopped)
        lower, upper = self._in_force(_ladder(state))
        trace = [{"units": u, "llr": v} for u, v in state["trace"]]
        if units and (not trace or trace[-1]["units"] != units):
            trace.append({"units": units, "llr": llr})
        return {
            "sprt": {
                "llr": llr,
                "lower": self.lower,
                "upper": self.upper,
                "lower_in_force": lower,
                "upper_in_force": upper,
                "elo": found.elo,
                "elo_ci95": (found.high - found.low) / 2,
                "elo_low": found.low,
                "elo_high": found.high,
                "units": units,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "verdict": state["verdict"],
                "trace": trace,
                "params": {
                    "elo0": self.elo0,
                    "elo1": self.elo1,
                    "alpha": self.alpha,
                    "beta": self.beta,
                    "max_units": self.max_units,
                },
            }
        }

    @classmethod
    def author_limit(cls, fair_play: str) -> int | None:
        """None, even sealed: an author testing a version against their own is the usual case."""
        return None

    @classmethod
    def params_text(cls, t: arena_pb2.Tournament) -> str:
        p = params_in_force(t)
        return (
            f"{cls.title}: elo0 {p.elo0:g}, elo1 {p.elo1:g}, alpha {p.alpha:g}, beta {p.beta:g}, "
            f"at most {p.max_units} units"
        )

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        standings = t.standings
        return "sprt" + (f": {sprt_text(standings.sprt)}" if standings.HasField("sprt") else "")


def params_in_force(t: arena_pb2.Tournament) -> arena_pb2.SprtParams:
    """An SPRT's parameters in force: its standings' (defaults filled in) once there are
    any, else the spec's with the defaults."""
    if t.standings.HasField("sprt") and t.standings.sprt.HasField("params"):
        return t.standings.sprt.params
    given = t.spec.sprt
    both_unset = given.elo0 == 0 and given.elo1 == 0
    return arena_pb2.SprtParams(
        elo0=DEFAULTS["elo0"] if both_unset else given.elo0,
        elo1=DEFAULTS["elo1"] if both_unset else given.elo1,
        alpha=given.alpha or DEFAULTS["alpha"],
        beta=given.beta or DEFAULTS["beta"],
        max_units=int(given.max_units or DEFAULTS["max_units"]),
    )


def _ladder(state: State) -> Ladder:
    """The state's overshoot ladder (none yet in a state stored before there was one)."""
    return Ladder.from_list(state.get("ladder") or Ladder().to_list())


def _trace(state: State, units: int, llr: float) -> None:
    """Keep the point of every ``stride``-th unit, at most TRACE_POINTS - 1 of them (the
    standings add the latest): when full, every other point goes and the stride doubles."""
    if units % state["stride"]:
        return
    state["trace"].append([units, llr])
    if len(state["trace"]) >= TRACE_POINTS:
        state["stride"] *= 2
        state["trace"] = [p for p in state["trace"] if p[0] % state["stride"] == 0]
