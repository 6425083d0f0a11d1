"""A ladder's suspensions: it stops pairing an entry that only forfeits or faults, and
pairs it again once the entry answers Hello.

A ladder never ends, so an entry that is down (its address dead, its process failing
every call) would otherwise be paired for as long as it stays registered, each of its
matches a forfeit that tells nothing and costs its opponent a match. The rules:

- **Suspended**: an entry whose last ``suspend_after`` matches in the ladder (default
  5, counted in the order their results were stored) were all *failed by it*: it
  forfeited the match, or its team made at least one fault (timeout, error,
  unreachable, illegal or wrong-match answer). One clean match resets the count. Its
  matches already handed out are still played; no new one is handed out to it.
- **Probed**: from ``probe_from`` on, the watchdog says Hello to it (a remote bot at its
  address; a hosted version started once on a referee, as SubmitBot's check does), then
  again every ``probe_every`` (default 60 s) while it does not answer. ``probe_from`` is
  ``first_hold`` (default 60 s) after the suspension, doubled at each suspension of the
  same entry in the ladder, at most ``max_hold`` (one hour): a bot that answers Hello
  but fails its matches plays about ``suspend_after`` matches an hour at worst (and
  those out when it was suspended).
- **Resumed**: the first step of the scheduler after its Hello answered pairs it again.
  Only matches handed out after that count towards its next suspension, so the failed
  matches still out when it was suspended do not suspend it again at once.
- An entry that leaves the ladder (its bot removed, a hosted bot's newer version taking
  its place) leaves its suspension with it.

Everything here is a pure function of the ladder's state (a JSON object under
``KEY`` in the format's state), the results and the time the caller says it is: the
scheduler (``workers.scheduler``) feeds it, under the tournament's scheduling lock, and
the API shows it (``standings``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from google.protobuf import duration_pb2, timestamp_pb2

from arena.tournament.formats.base import State

if TYPE_CHECKING:
    from arena.store.results import MatchResult

KEY = "suspension"
"""The ladder state's key for everything below."""
SUSPEND_AFTER = 5
FIRST_HOLD_S = 60.0
MAX_HOLD_S = 3600.0
PROBE_EVERY_S = 60.0


@dataclass(frozen=True)
class Rules:
    """The thresholds (``docs/formats.md``, "Ladder"); the workers may set them
    (``ARENA_LADDER_SUSPEND_AFTER``, ``ARENA_LADDER_PROBE_HOLD``,
    ``ARENA_LADDER_PROBE_EVERY``)."""

    suspend_after: int = SUSPEND_AFTER
    first_hold_s: float = FIRST_HOLD_S
    max_hold_s: float = MAX_HOLD_S
    probe_every_s: float = PROBE_EVERY_S

    def hold_s(self, times: int) -> float:
        """How long the ``times``-th suspension of an entry waits before its first Hello."""
        return float(min(self.first_hold_s * 2 ** max(times - 1, 0), self.max_hold_s))


@dataclass(frozen=True)
class Failure:
    """What one team did wrong in one match."""

    forfeited: bool
    faults: int
    kinds: Mapping[str, int] = field(default_factory=dict)
    """Its faults by kind (``arena.match_rules.faults.KIND_NAMES``), when the result has them."""


@dataclass(frozen=True)
class Conduct:
    """One stored result as suspension sees it: each team's entry and its failure."""

    match_id: str
    entries: tuple[str, ...]
    failures: tuple[Failure | None, ...]
    """Per team: None for a team that played the match without a fault."""


def conduct(result: MatchResult) -> Conduct:
    failures: list[Failure | None] = []
    for team in range(len(result.entries)):
        forfeited = result.end == "forfeit" and result.forfeit_team == team
        faults = result.team_faults[team] if team < len(result.team_faults) else 0
        kinds = result.team_fault_kinds
        by_kind = dict(kinds[team]) if kinds is not None and team < len(kinds) else {}
        failures.append(Failure(forfeited, faults, by_kind) if forfeited or faults else None)
    return Conduct(result.match_id, tuple(result.entries), tuple(failures))


def _part(state: State) -> dict[str, Any]:
    found: dict[str, Any] = state.get(KEY) or {}
    return found


def suspended(state: State) -> Mapping[str, Mapping[str, Any]]:
    """The suspended entries and their suspensions (``note``)."""
    found: Mapping[str, Mapping[str, Any]] = _part(state).get("suspended", {})
    return found


def note(
    state: State,
    played: Sequence[Conduct],
    unit_of: Callable[[str], int | None],
    rules: Rules,
    now: float,
) -> State:
    """The state once ``played`` (new results, each seen once, in the order they were
    stored) are counted; an entry whose failures reach ``rules.suspend_after`` in a row
    is suspended as of ``now``. ``unit_of`` gives a match's unit number (None: not one
    of this ladder's)."""
    part = copy.deepcopy(_part(state))
    streaks: dict[str, dict[str, Any]] = part.setdefault("streaks", {})
    held: dict[str, dict[str, Any]] = part.setdefault("suspended", {})
    times: dict[str, int] = part.setdefault("times", {})
    since_unit: dict[str, int] = part.setdefault("from_unit", {})
    part["suspend_after"] = rules.suspend_after
    for match in played:
        unit = unit_of(match.match_id)
        if unit is None:
            continue
        for entry, failure in zip(match.entries, match.failures, strict=True):
            if entry in held or unit < since_unit.get(entry, 0):
                continue  # out before it was suspended, or before it came back
            if failure is None:
                streaks.pop(entry, None)
                continue
            streak = streaks.setdefault(entry, {"matches": 0, "forfeits": 0, "faults": {}})
            streak["matches"] += 1
            streak["forfeits"] += int(failure.forfeited)
            kinds = failure.kinds or {"unspecified": failure.faults}
            for kind, count in kinds.items():
                streak["faults"][kind] = streak["faults"].get(kind, 0) + count
            if streak["matches"] >= rules.suspend_after:
                del streaks[entry]
                times[entry] = times.get(entry, 0) + 1
                held[entry] = {
                    "reason": reason(streak),
                    "since": now,
                    "times": times[entry],
                    "probe_from": now + rules.hold_s(times[entry]),
                    "probe_every": rules.probe_every_s,
                }
    return {**state, KEY: part}


def reason(streak: Mapping[str, Any]) -> str:
    """What suspended an entry, in words (no match id: a running ladder's ids are
    secret; ``docs/architecture.md``)."""
    n, forfeits = streak["matches"], streak["forfeits"]
    faults: Mapping[str, int] = streak["faults"]
    total = sum(faults.values())
    kinds = ", ".join(
        f"{kind.replace('_', ' ')}: {count}" for kind, count in sorted(faults.items()) if count
    )
    text = f"its last {n} matches were all forfeited or faulted by it: {forfeits} forfeited"
    if total:
        text += f", {total} fault{'s' if total != 1 else ''} ({kinds})"
    return text


def resume(state: State, entries: Iterable[str], unit: int) -> State:
    """The state once ``entries`` answered Hello: paired again, and only the matches of
    units numbered ``unit`` or more (handed out from now on) count towards their next
    suspension."""
    part = copy.deepcopy(_part(state))
    held = part.get("suspended", {})
    for entry in entries:
        if entry in held:
            del held[entry]
            part.setdefault("from_unit", {})[entry] = unit
    return {**state, KEY: part}


def keep_only(state: State, present: Collection[str]) -> State:
    """The state without the suspensions and counts of entries not in ``present`` (the
    lineup now): an entry that left leaves its suspension. How often each was suspended
    stays, for the next hold if it comes back."""
    part = _part(state)
    gone = [
        e
        for name in ("suspended", "streaks", "from_unit")
        for e in part.get(name, {})
        if e not in present
    ]
    if not gone:
        return state
    part = copy.deepcopy(part)
    for name in ("suspended", "streaks", "from_unit"):
        for entry in gone:
            part.get(name, {}).pop(entry, None)
    return {**state, KEY: part}


def due(state: State, now: float, last_probe: Mapping[str, float]) -> list[str]:
    """The suspended entries to say Hello to at ``now``, given when each was last
    probed in its current suspension (``last_probe``, as the watchdog keeps it)."""
    found = []
    for entry, held in sorted(suspended(state).items()):
        last = last_probe.get(entry)
        if now >= held["probe_from"] and (last is None or now >= last + held["probe_every"]):
            found.append(entry)
    return found


def standings(state: State) -> dict[str, Any]:
    """``arena.v1.LadderStandings`` in its JSON form."""
    part = _part(state)
    rows = []
    for entry, held in sorted(suspended(state).items()):
        since, probe_from = timestamp_pb2.Timestamp(), timestamp_pb2.Timestamp()
        since.FromNanoseconds(int(held["since"] * 1e9))
        probe_from.FromNanoseconds(int(held["probe_from"] * 1e9))
        every = duration_pb2.Duration()
        every.FromNanoseconds(int(held["probe_every"] * 1e9))
        rows.append(
            {
                "entry": entry,
                "reason": held["reason"],
                "since": since.ToJsonString(),
                "times": held["times"],
                "probe_from": probe_from.ToJsonString(),
                "probe_every": every.ToJsonString(),
            }
        )
    return {"suspended": rows, "suspend_after": part.get("suspend_after", SUSPEND_AFTER)}
