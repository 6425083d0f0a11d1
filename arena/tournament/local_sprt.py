"""A version test played on this machine: ``arena test NEW --vs OLD --local``.

The same SPRT as the arena's (the ``sprt`` format, ``arena.tournament.formats.sprt``,
with its seeds, unit ids and scoring), fed by ``play_in_process`` in a pool of worker
processes instead of referees and Celery workers. Its units are always duplicate pairs:
both bots are the tester's own, so nothing can remember a deal against anyone.

With ``games`` set it is a fixed-length match instead (``--games N``, as cutechess's
``-games``): exactly that many pairs, the same deals the SPRT would play first from the
same seed, scored the same way, whatever the LLR says on the way (``FixedLength``).

Determinism: a pair's deal comes from the master seed and its number only, every match
starts from freshly constructed bots (``arena.bots.named``), and pairs are fed to the
test in deal order, however the workers finish them; the test stops at the first pair
that decides it, and pairs played past it are dropped. So the verdict, the unit count and
every number printed depend on the seed and the bots, never on the worker count. (The
arena's own test also counts the units already handed out when it decides.)

Faults: a bot that raises or answers an action that is not legal stops the test with
``BotFault``, naming the side, the bot, the game, the match seed and the decision, at
the first such pair in deal order. A local test is for finding such bugs; the arena
would forfeit the match instead.
"""

from __future__ import annotations

import multiprocessing
import operator
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, NoReturn

from arena.bots.local import play_in_process
from arena.bots.named import bot_factory
from arena.bots.sdk import Bot
from arena.games import get_game
from arena.ratings.duplicate import DuplicateResult
from arena.tournament.formats.base import Field, InvalidFormat, Played, State
from arena.tournament.formats.sprt import MAX_UNITS, PENDING, Sprt
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import bot_pb2

TOURNAMENT_ID = "local"
NEW, OLD = "new", "old"
"""The entries' labels inside the format: the names given may be equal."""
PAIRS_PER_WORKER = 4
"""Pairs kept in flight per worker: enough to keep each busy, few to throw away."""


class BotFault(Exception):
    """A bot raised or answered an illegal action; the message says which, where, when."""


@dataclass(frozen=True)
class LocalTest:
    game: str
    new: str
    old: str
    """Bot names, as ``arena.bots.named.bot_factory`` takes them."""
    seed: int
    """The master seed: deal ``n``'s seed is the arena's ``deal_seed(seed, unit)``."""
    workers: int = 1
    params: Mapping[str, Any] = field(default_factory=dict)
    """``elo0``, ``elo1``, ``alpha``, ``beta``, ``max_units``: the sprt format's."""
    games: int | None = None
    """Play exactly this many pairs and stop (no verdict); None: until the SPRT decides."""
    options: Mapping[str, str] = field(default_factory=dict)
    """The game's options every match plays with (``arena test --option``)."""


@dataclass(frozen=True)
class Outcome:
    sprt: dict[str, Any]
    """The format's standings' ``sprt`` object (as ``arena.v1.SprtStatus`` JSON)."""
    pairs: int
    """Duplicate pairs scored (the units)."""
    seconds: float


class FixedLength(Sprt):
    """The SPRT's schedule and scoring without its stopping rule: it hands out units
    until ``max_units`` are out, whatever the verdict (which nobody reads)."""

    def decided(self, state: State) -> bool:
        return bool(state["units_out"] >= self.max_units)


def check(test: LocalTest) -> Sprt:
    """The test's format; raises BotLoadError or InvalidFormat before anything is played."""
    kind, params = Sprt, dict(test.params)
    if test.games is not None:
        if not 1 <= test.games <= MAX_UNITS:
            raise InvalidFormat(f"--games is 1 to {MAX_UNITS} pairs, got {test.games}")
        kind, params = FixedLength, {**params, "max_units": test.games}
    fmt = kind(
        Field(
            tournament_id=TOURNAMENT_ID,
            entries=(NEW, OLD),
            games=(test.game,),
            games_of={NEW: (test.game,), OLD: (test.game,)},
            deals=1,
            master_seed=test.seed,
            paired=True,
        ),
        params,
    )
    for name in (test.new, test.old):
        bot_factory(name)
    get_game(test.game).info.resolve_options(test.options)  # OptionError: what is allowed
    return fmt


def run(test: LocalTest, progress: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
    """Play until the test decides (or ``test.games`` pairs are scored); ``progress``
    gets the standings after every pair. Raises BotFault (a bot misbehaved),
    BotLoadError, or InvalidFormat (the params)."""
    fmt = check(test)

    def playing(state: State, pairs: int) -> bool:
        if test.games is not None:
            return pairs < test.games
        return bool(state["verdict"] == PENDING)

    started = time.perf_counter()
    state = fmt.start()
    window = PAIRS_PER_WORKER * test.workers
    running: dict[Future[PairResult], int] = {}
    done: dict[int, PairResult] = {}
    pairs, next_deal = 0, 0
    pool = _executor(test)
    try:
        while playing(state, pairs):
            room = window - len(running) - len(done)  # done: out of order, kept till due
            state, matches = fmt.next(state, 2 * room) if room > 0 else (state, [])
            for first, second in zip(matches[::2], matches[1::2], strict=True):
                job = (test.game, test.options, first, second)
                running[pool.submit(_play_pair, job)] = first.deal
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                done[running.pop(future)] = future.result()
            while next_deal in done and playing(state, pairs):
                result = done.pop(next_deal)
                if isinstance(result, str):
                    raise BotFault(result)
                state = fmt.absorb(state, result)
                pairs, next_deal = pairs + 1, next_deal + 1
                if progress is not None:
                    progress(fmt.standings(state)["sprt"])
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    standings: dict[str, Any] = fmt.standings(state)["sprt"]
    return Outcome(standings, pairs, time.perf_counter() - started)


PairResult = list[Played] | str
"""Both halves of a pair, or what went wrong."""

_names: dict[str, str] = {}


def _play_pair(
    job: tuple[str, Mapping[str, str], ScheduledMatch, ScheduledMatch],
) -> PairResult:
    game, options, *halves = job
    played = []
    for match in halves:
        bots = [_Side(entry, _names[entry], match) for entry in match.entries]
        try:
            state = play_in_process(game, bots, match.seed, options, match_id=match.match_id)
        except _Fault as fault:
            return str(fault)
        a, b = match.entries
        scores = state.scores()
        margin = scores[0] - scores[1]
        unit = DuplicateResult(pair_key=match.pair_key, a=a, b=b, margin=margin)
        played.append(Played(match.match_id, unit))
    return played


class _Fault(Exception):
    pass


class _Side(Bot):
    """A fresh bot of one side, which blames that side for what goes wrong."""

    def __init__(self, entry: str, name: str, match: ScheduledMatch) -> None:
        self.entry, self.match = entry, match
        self.bot = bot_factory(name)()
        self.name = f"{entry.upper()} {name}"

    def act(self, request: bot_pb2.ActRequest) -> int:
        try:
            action = self.bot.act(request)
        except Exception as error:  # any failure of the bot is its fault
            said = " ".join(str(error).split())
            self._blame(request, f"raised {type(error).__name__}" + (f": {said}" if said else ""))
        try:
            action_id = operator.index(action)  # an int, or a numpy integer
        except TypeError:
            action_id = -1
        if action_id not in {a.id for a in request.legal_actions}:
            self._blame(request, f"answered {action!r}, not a legal action id")
        return action_id

    def _blame(self, request: bot_pb2.ActRequest, what: str) -> NoReturn:
        team = self.match.entries.index(self.entry)
        raise _Fault(
            f"{self.name} {what} in {self.match.game}, match seed {self.match.seed} "
            f"({self.entry.upper()} as team {team}), decision {request.decision_index}; "
            "a local test stops at a bot's first fault"
        )


def _start_worker(names: Sequence[tuple[str, str]]) -> None:
    _names.update(names)


class _Inline(Executor):
    """One worker: play in this process, at once."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def _executor(test: LocalTest) -> Executor:
    names = [(NEW, test.new), (OLD, test.old)]
    if test.workers == 1:
        _start_worker(names)
        return _Inline()
    methods = multiprocessing.get_all_start_methods()
    # fork: workers start with the engines and the bots already loaded.
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ProcessPoolExecutor(
        test.workers, mp_context=context, initializer=_start_worker, initargs=(names,)
    )
