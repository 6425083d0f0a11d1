"""One step of a tournament's scheduler as a pure function: what it reads goes in, what
it decides comes out, and ``workers.scheduler`` (the shell) reads Redis, calls ``step``
and applies the ``Actions``: it stores the matches handed out with the new state, queues
``arena.play_match`` for those to play now, refits the arena's ratings and finalises.

No Redis, no Celery and no clock of its own: the time is asked of the ``clock`` given,
and the two questions whose subject is known only midway through a step (which of a
ladder's suspended entries answered their Hello, which first halves of duplicate pairs
have ended) are asked of the ``Lookups`` given. The rules, each tested in
``tests/workers/test_schedule_step.py``:

- **Results once, in order.** Every stored result past the state's cursor is fed to the
  format once (``absorb``), in the batches the shell reads them in, and the cursor moves
  past it; a format that ``suspends`` counts each batch against its entries too.
- **Window room.** At most ``window`` matches handed out without a result.
- **Fair share.** Of those, each of the running tournaments may have queued or playing an
  equal part of ``per_process`` matches per live worker process, ``min_share`` at least.
  Held second halves are not queued and do not count, except for a format that
  ``decides_early`` (an SPRT), where they bound what a decision leaves to play for nothing.
- **Held second halves.** A duplicate pair's second half is queued only once its first
  half has ended (``arena.tournament.schedule.release``); until then it is kept in the
  state under ``HELD`` and queued by the first step that sees its first half ended.
- **Ladder refits.** A format that ``plays_forever`` has the arena's ratings refitted
  each time its result count crosses a multiple of ``ratings_every``.
- **Finish.** A decided format whose every match handed out has a result is finalised;
  so is a tournament scheduled whole at submission (no scheduler state) once every
  match has a result.
- **Write only what changed.** The state is written when matches were handed out, when
  it changed, or at the tournament's first step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from arena.ratings.leaderboard import duplicate_result
from arena.tournament import formats
from arena.tournament.formats import ladder_suspension
from arena.tournament.schedule import ScheduledMatch, release

if TYPE_CHECKING:
    from arena.store.results import MatchResult

PER_PROCESS = 2
"""Matches queued or playing per live worker process, every running tournament's
together: one playing, one waiting, so no process idles between results."""
MIN_SHARE = 2
"""What a tournament may have out however many share the workers (or before any worker
has announced itself)."""
HELD = "held"
"""The scheduler state's second halves held back: match id -> its first half's id."""

Clock = Callable[[], float]
"""Seconds since the epoch, as ``time.time``."""


def fair_share(
    running: int, processes: int, per_process: int = PER_PROCESS, min_share: int = MIN_SHARE
) -> int:
    """The matches one of ``running`` tournaments may have queued or playing: an equal part
    of ``per_process`` per live worker process (``processes``), ``min_share`` at least."""
    return max(min_share, math.ceil(per_process * processes / max(1, running)))


@dataclass(frozen=True)
class Tournament:
    """The tournament as the step reads it from its record."""

    tournament_id: str
    scheduler: formats.State | None
    """The scheduler's state as stored; None before the first step."""
    issued: int
    """Matches handed out so far."""
    done: int
    """Of those, the ones with a stored result."""


@dataclass(frozen=True)
class Capacity:
    """What the workers can take: the settings' window, and the fair share's inputs."""

    window: int
    """``ARENA_SCHEDULE_WINDOW``: matches handed out without a result, at most."""
    processes: int
    """Pool processes of the live workers (0: none has announced itself)."""
    running: int
    """Running tournaments sharing them."""
    per_process: int = PER_PROCESS
    min_share: int = MIN_SHARE

    @property
    def share(self) -> int:
        return fair_share(self.running, self.processes, self.per_process, self.min_share)


@dataclass(frozen=True)
class Ladder:
    """The settings of formats that play forever and suspend entries."""

    ratings_every: int
    """``ARENA_LADDER_RATINGS_EVERY``: results between refits of the arena's ratings."""
    suspension: ladder_suspension.Rules


class Lookups(Protocol):
    """What a step asks midway, when it knows what to ask about."""

    def answered(self, suspended: Mapping[str, int]) -> Collection[str]:
        """Of the ``suspended`` entries (entry -> its suspension count), those whose
        Hello answered the watchdog in that suspension."""
        ...

    def ended(self, firsts: set[str]) -> Collection[str]:
        """Of the first halves ``firsts``, those that have ended: a result is stored and
        no attempt holds a lease."""
        ...


@dataclass(frozen=True)
class Actions:
    """What the shell does, in this order: refit, store, queue, finalise."""

    refit: str | None = None
    """Refit the arena's ratings, the history's point marked with this event."""
    state: formats.State | None = None
    """The scheduler state to store with ``new`` (None: store nothing)."""
    new: tuple[ScheduledMatch, ...] = ()
    """The matches handed out by this step, to store in the schedule."""
    queue: tuple[str, ...] = ()
    """The match ids to queue ``arena.play_match`` for, in this order."""
    finish: bool = False
    """Rate the tournament and mark it finished."""
    suspended: tuple[tuple[str, str], ...] = ()
    """Entries this step suspended, with why (for the log)."""
    resumed: tuple[str, ...] = ()
    """Entries paired again because their Hello answered (for the log)."""


def step(
    tournament: Tournament,
    fmt: formats.Format | None,
    results: Iterable[Sequence[MatchResult]],
    capacity: Capacity,
    ladder: Ladder,
    clock: Clock,
    lookups: Lookups,
) -> Actions:
    """One scheduler step of ``tournament`` run by ``fmt`` (None only for a tournament
    scheduled whole at submission, before formats), given the ``results`` stored since
    the state's cursor, in batches in the order stored."""
    if tournament.scheduler is None and tournament.issued:
        # Scheduled whole at submission, before formats: nothing more to hand out.
        return Actions(finish=tournament.done >= tournament.issued)
    if fmt is None:
        raise ValueError(f"tournament {tournament.tournament_id} needs its format to step")
    state = tournament.scheduler or {"cursor": 0, "format": fmt.start()}
    cursor, format_state = state["cursor"], state["format"]
    suspended: list[tuple[str, str]] = []
    for batch in results:
        played = [formats.Played(r.match_id, duplicate_result(r)) for r in batch]
        format_state = fmt.absorb(format_state, played)
        if fmt.suspends:
            before = set(ladder_suspension.suspended(format_state))
            format_state = fmt.suspend(format_state, batch, ladder.suspension, clock())
            for entry, why in ladder_suspension.suspended(format_state).items():
                if entry not in before:
                    suspended.append((entry, str(why["reason"])))
        cursor += len(batch)
    resumed: Collection[str] = ()
    if fmt.suspends:
        format_state, resumed = _resume(fmt, format_state, lookups)
    every = ladder.ratings_every
    refit = None
    if fmt.plays_forever and cursor // every > state["cursor"] // every:
        # A ladder never finishes; its results count as they come.
        refit = f"{fmt.name} {tournament.tournament_id} at {cursor} results"
    held: dict[str, str] = state.get(HELD, {})
    out = tournament.issued - tournament.done
    # Held second halves are not queued; a format that decides early counts them, so a
    # decision leaves at most its share to play for nothing.
    in_flight = out if fmt.decides_early else out - len(held)
    room = min(capacity.window - out, capacity.share - in_flight)
    new: list[ScheduledMatch] = []
    if room > 0:
        format_state, new = fmt.next(format_state, room)
    # Only a pair's two halves wait for each other: the first halves of every pair in
    # the window are queued at once, so many pairs still keep every worker busy.
    firsts = set(held.values()) | {m.first_half for m in new if m.first_half is not None}
    ended = lookups.ended(firsts) if firsts else set()
    queue, held = release(held, new, ended)
    updated: formats.State = {"cursor": cursor, "format": format_state}
    if held:
        updated[HELD] = held
    write = bool(new) or updated != state or tournament.scheduler is None
    issued = tournament.issued + len(new)
    return Actions(
        refit=refit,
        state=updated if write else None,
        new=tuple(new),
        queue=tuple(queue),
        finish=fmt.decided(format_state) and tournament.done >= issued,
        suspended=tuple(suspended),
        resumed=tuple(sorted(resumed)),
    )


def _resume(
    fmt: formats.Format, state: formats.State, lookups: Lookups
) -> tuple[formats.State, Collection[str]]:
    """The ladder's state without the suspensions of entries that left it, and with those
    whose Hello answered the watchdog resumed; and those."""
    present = set(fmt.field.entries)
    held = {e: h for e, h in ladder_suspension.suspended(state).items() if e in present}
    current = {entry: int(h["times"]) for entry, h in held.items()}
    answered = set(lookups.answered(current)) if held else set()
    return fmt.resume(state, answered), answered
