"""Paging through every stored match, filtered by game, bot and tournament, and a bot's
fault rates from its matches.

The order is the one the index's recent matches use: newest tournament first (the API
lists them so), and within a tournament the latest scheduled match first (reversed match
id order; results carry no end time). A page ends at a cursor, ``TOURNAMENT/MATCH``,
the last match it showed; the next page is the matches after that one in this order.
Because the cursor names a match rather than a position, a boundary neither skips nor
repeats a match when nothing new arrives. When results do arrive, the pages already read
stay as they were: a new result after the cursor (an older tournament's, or the same
tournament's with an earlier match id) shows up on a later page; one before it (a newer
tournament's, or a later match id of the cursor's tournament) does not, and a reader
sees it by starting again from the first page.

A tournament's results are read a ListResults page at a time from the cursor's match on
(``Source.latest_results``), so a page costs about its own size however big the
tournament. The API cannot filter by game or bot, so a filtered page keeps only the
results that match and reads on until it is full.

Reading is bounded: a page reads at most ``MAX_TOURNAMENTS_READ`` tournaments' results,
in at most ``MAX_RESULT_CALLS`` ListResults calls. A tournament whose games or entries
rule out the filter is not read at all (a ladder's entries change as it runs, so it is
always read when a bot is asked for). When a bound is reached before the page is full,
the page is short and its cursor goes on after the last match read, ``TOURNAMENT/MATCH``
(a match the page did not show), or after the last tournament read, ``TOURNAMENT/``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from arena.match_rules.faults import KIND_NAMES
from arena.tournament import formats
from arena.v1 import arena_pb2
from arena.web.data import Match, ResultsPage
from arena.web.errors import HttpError

MAX_TOURNAMENTS_READ = 20
MAX_RESULT_CALLS = 40
"""ListResults calls one page makes at most: a filter that matches one result in
thousands must not read a huge tournament whole for one page."""
FILTERED_PAGE = 200
"""Results asked for per call when a filter may drop some: a page of its own size
would take a call for every few matches kept."""
FAULT_KINDS = tuple(KIND_NAMES.values())
UNRECORDED = "unrecorded"
"""Faults of results stored before the arena kept their kinds."""
_CURSOR = re.compile(r"^([A-Za-z0-9_.-]{1,200})/([A-Za-z0-9_.-]{0,200})\Z")


@dataclass(frozen=True)
class MatchFilter:
    """Empty fields match everything."""

    game: str = ""
    bot: str = ""
    tournament_id: str = ""


@dataclass(frozen=True)
class Cursor:
    """After ``match_id`` of ``tournament_id``; an empty ``match_id`` is after all of it."""

    tournament_id: str
    match_id: str

    def text(self) -> str:
        return f"{self.tournament_id}/{self.match_id}"


@dataclass(frozen=True)
class MatchPage:
    matches: list[Match]
    next_cursor: Cursor | None
    """Where the next page starts; None when there is nothing after this page."""


def parse_cursor(raw: str | None) -> Cursor | None:
    """``?cursor=``: a page's ``next_cursor``; anything else is a 400."""
    if raw is None or raw == "":
        return None
    found = _CURSOR.match(raw)
    if found is None:
        raise HttpError(
            400,
            f"cursor must be a page's next_cursor, TOURNAMENT/MATCH (ids of letters, digits, "
            f"'-', '_' and '.'), got {raw!r}; leave it out for the first page",
        )
    return Cursor(found.group(1), found.group(2))


def plays(entry: str, bot: str) -> bool:
    """Whether an entry is the bot: "name" is every version of it, "name@v1" that one."""
    return entry == bot or ("@" not in bot and entry.startswith(bot + "@"))


def _may_hold(t: arena_pb2.Tournament, filters: MatchFilter) -> bool:
    """Whether the tournament can hold a match the filter keeps, from its listing alone."""
    if t.matches_done == 0 or (filters.game and filters.game not in t.games):
        return False
    kind = formats.by_proto(t.spec.format)
    if filters.bot and not (kind is not None and kind.open_lineup):  # else: who came
        return any(plays(entry, filters.bot) for entry in t.spec.entries)
    return True


def _keeps(record: arena_pb2.MatchRecord, filters: MatchFilter) -> bool:
    return (not filters.game or record.game == filters.game) and (
        not filters.bot or any(plays(e, filters.bot) for e in record.entries)
    )


async def page_matches(
    tournaments: Sequence[arena_pb2.Tournament],
    results: Callable[[str, str, int], Awaitable[ResultsPage]],
    filters: MatchFilter,
    limit: int,
    cursor: Cursor | None,
) -> MatchPage:
    """Up to ``limit`` matches after ``cursor`` from ``tournaments`` (newest first, as
    the API lists them), reading each one's results (latest first, below a match id, a
    page at a time) with ``results``. A cursor naming a tournament that is not stored is
    a 400."""
    order = [t for t in tournaments if not filters.tournament_id or t.id == filters.tournament_id]
    start, after = 0, ""
    if cursor is not None:
        ids = [t.id for t in order]
        if cursor.tournament_id not in ids:
            raise HttpError(
                400,
                f"cursor {cursor.text()!r} names no tournament of this list; leave it out "
                "for the first page",
            )
        start, after = ids.index(cursor.tournament_id), cursor.match_id
    filtering = bool(filters.game or filters.bot)
    found: list[Match] = []
    read = calls = 0
    for index in range(start, len(order)):
        t = order[index]
        first = index == start and cursor is not None
        if first and not after:
            continue  # the cursor is after all of it
        if not _may_hold(t, filters):
            continue
        if read == MAX_TOURNAMENTS_READ or calls == MAX_RESULT_CALLS:
            return MatchPage(found, Cursor(order[index - 1].id, ""))  # on from here next
        read += 1
        before, more = (after if first else ""), True
        while more:
            if calls == MAX_RESULT_CALLS:  # bounded: on from the last match read next
                return MatchPage(found, Cursor(t.id, before))
            calls += 1
            need = limit + 1 - len(found)  # one more than asked: is there a next page?
            page = await results(t.id, before, max(need, FILTERED_PAGE) if filtering else need)
            for record in page.results:
                if _keeps(record, filters):
                    found.append(Match(t.id, t.spec.name, record))
                    if len(found) > limit:
                        last = found[limit - 1]
                        return MatchPage(
                            found[:limit], Cursor(last.tournament_id, last.record.match_id)
                        )
            more = page.more and bool(page.results)
            before = page.results[-1].match_id if page.results else before
    return MatchPage(found, None)


@dataclass(frozen=True)
class FaultRates:
    """A bot's faults by kind over ``matches`` of its matches, and its forfeits."""

    matches: int
    decisions: int
    faults: dict[str, int]
    """By kind (``FAULT_KINDS``, then ``UNRECORDED``); kinds without a fault left out."""
    forfeits: int

    def per_match(self, kind: str) -> float:
        return self.faults.get(kind, 0) / self.matches if self.matches else 0.0


def fault_rates(matches: Sequence[Match], bot: str) -> FaultRates:
    """The bot's faults in ``matches``: its team's, by kind, and the matches it forfeited.
    A match where the bot holds both teams (two of its versions) counts both."""
    faults: Counter[str] = Counter()
    forfeits = decisions = counted = 0
    for match in matches:
        record = match.record
        teams = [t for t, entry in enumerate(record.entries) if plays(entry, bot)]
        if not teams:
            continue
        counted += 1
        decisions += record.decisions
        for team in teams:
            total = record.team_faults[team] if team < len(record.team_faults) else 0
            kinds = (
                dict(record.team_fault_kinds[team].by_kind)
                if team < len(record.team_fault_kinds)
                else {}
            )
            faults.update(kinds)
            if total > sum(kinds.values()):
                faults[UNRECORDED] += total - sum(kinds.values())
            if record.HasField("forfeit_team") and record.forfeit_team == team:
                forfeits += 1
    ordered = {k: faults[k] for k in (*FAULT_KINDS, UNRECORDED) if faults[k]}
    ordered.update({k: v for k, v in faults.items() if k not in ordered and v})
    return FaultRates(counted, decisions, ordered, forfeits)
