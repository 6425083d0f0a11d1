"""The watchdog's Hello probes of a ladder's suspended entries
(``arena.tournament.formats.ladder_suspension``), in ``arena:t:{id}:probes``: entry ->
its last probe (JSON).

A probe is noted before it is made (``start``), so the watchdog of the next round, in
whichever worker, does not probe the same entry again within ``probe_every``; and again
with its answer (``finish``). Each note names the suspension it is for (the entry's
``times``-th), so the scheduler resumes an entry only on an answer to its current
suspension, never on one left from an earlier one. Probes are bookkeeping of a running
ladder: ``clear`` drops them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

from arena.store import keys


@dataclass(frozen=True)
class LadderProbe:
    """The last Hello said to one suspended entry."""

    times: int
    """The suspension it was for: the entry's ``times``-th in the ladder."""
    at: float
    """When it was started (seconds since the epoch)."""
    answered: bool | None
    """None while it is under way."""


class LadderProbes:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def start(self, tournament_id: str, entry: str, times: int, at: float) -> None:
        self._put(tournament_id, entry, LadderProbe(times, at, None))

    def finish(self, tournament_id: str, entry: str, times: int, at: float, answered: bool) -> None:
        self._put(tournament_id, entry, LadderProbe(times, at, answered))

    def _put(self, tournament_id: str, entry: str, probe: LadderProbe) -> None:
        self.redis.hset(keys.probes(tournament_id), entry, json.dumps(asdict(probe)))

    def all(self, tournament_id: str) -> dict[str, LadderProbe]:
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.probes(tournament_id))  # type: ignore[assignment]
        return {entry.decode(): LadderProbe(**json.loads(value)) for entry, value in raw.items()}

    def answered(self, tournament_id: str, current: dict[str, int]) -> set[str]:
        """Those of the ``current`` suspensions (entry -> its ``times``) whose Hello
        answered."""
        if not current:
            return set()
        return {
            entry
            for entry, probe in self.all(tournament_id).items()
            if probe.answered and current.get(entry) == probe.times
        }

    def clear(self, tournament_id: str) -> None:
        self.redis.delete(keys.probes(tournament_id))
