"""The ladder: an always-on leaderboard that keeps handing out the most telling games.

Like Kaggle's and Halite's leaderboards it never decides: while it runs it hands out
units (one game, one pairing, one deal, both seatings), each on a deal of its own
(``ladder-<n>``, ``n`` a counter in the state), so no deal is ever seen twice. Its lineup
changes as it runs: the scheduler builds the ``Field`` afresh from the bots registered
now, so ``field.entries`` is who may play *now*. Results of entries that left stay in
the counts (they are just not paired any more), and an entry that comes back keeps its
record.

Matchmaking. Per game, the ratings of the current entries that play it are fitted from
the counts among them (``fit_counts``; an entry without results has the prior's wide
interval), and each pairing is weighted by what one more unit of it is expected to tell::

    v = Var(r_a - r_b) = C_aa + C_bb - 2 C_ab        (C the fit's covariance)
    I = Fisher information of one unit's outcome about r_a - r_b (the fit's own model,
        draw margin included; K^2 p(1-p) without draws, p the expected score)
    weight = log(1 + v I) / 2

That is the unit's expected information gain in the fit's Gaussian approximation: by
the matrix determinant lemma, how much the entropy of the whole table of ratings
shrinks. To first order it is the suggested p(1-p)(sigma_a^2 + sigma_b^2), but ``v`` is
the variance of a difference, all that results pin down (Elo has no zero; a single
sigma is measured against the pool's mean), and its covariance term sees that two
entries who mostly met each other know their gap but not their place. The expected
reduction of ``v`` (v^2 I / (1 + v I)) was tried first: it weighs a far pair's extra
variance squared, so with equal counts a 600-Elo gap, sure to be ranked right, was
drawn as often as an even pair; the log also keeps an unmeasured newcomer (1000 Elo of
prior) from taking every unit at once, though it still plays most until measured.

Units in flight (handed out, their result not absorbed) count as played at their
expected information: the covariance gets the rank-one update (a Kalman step) their
result would bring, so a newcomer's first units spread over its opponents as its own
uncertainty shrinks. Each unit drawn in one ``next`` call does the same. That step
barely touches a well-measured pair (three units more on sixty), so the window could
still pile up on the one pair that tells most: no pairing is drawn twice in one call,
and one in flight ``k`` times has its weight divided by ``1 + k``.

The floor. The gain alone starves the ends of the field: a pairing with a far entry
says little, so two bots 600 Elo either side of a close pack of 14 got 0.62-0.67 of the
median bot's units from 120 units on (``bench/ladder_matchmaking.py``). So an entry
whose units (rated and in flight, in this game, among the current entries) are below
``FLOOR`` (0.8) times the median entry's plus one unit (a unit elsewhere can lift the
median by one) is *short*, and while any entry is short, each unit is drawn among the
pairings with a short entry only, weighted as above (as the placement burst is, below).
An entry whose pairings all tell little is thus served as soon as it is short; at the
start, with everyone short, nothing changes. On the bench's 16-bot fields the ends then
get 0.83 or more of the median's units, and the ranking stays within a standard error
of a balanced cycle of round-robin rounds, or above it, at every budget from 30 to 480
units (drawing only for the most short entry instead, or only for the shortest, kept
the units closer early but ranked worse than the cycle at 60 units). The price: a
newcomer, or an entry back from a suspension, plays every unit until it is back at 0.8
of the median's (its pairings each once a call, the rest of a window to the others),
which is also what its rating needs to be about as sure as theirs. With leagues the
floor is each league's own; the placement burst comes first.

Draws are random with these weights, each from a number derived from the master seed
and the unit counter, so the ladder is reproducible from its seed, its fields and its
results. Games take turns: the counter cycles through the games two current entries play.

Placement. With ``placement`` in its parameters (a competition's ladder:
``workers.competitions``), an entry that has fewer than that many rated outcomes in a
game (pairs, or matches rated alone, as the board counts them; units in flight count
at what they will bring) is *placing*: while any entry is placing and any is not, every
unit of that game is drawn among the pairings with a placing entry, weighted as above.
So a new version plays a burst of units first, against the measured field, and shows a
provisional rating within minutes (``bench/competition_placement.py``), instead of
sharing the window with pairings that would tell more about the field as a whole.

New versions. An unmeasured entry sits at the pool's mean with the prior's 1000-Elo sd,
so its pairings all look alike and its first units go to anyone, though its bot's
previous version may be measured at +400. So a version (``name@version``) with no rated
outcome of its own in a game (``SEEDED_BELOW``) is matched as its *predecessor* says:
the same bot's version that joined the lineup last before it, among those with rated
outcomes in that game against the current entries (it may have left: a competition
retires an author's oldest active version). Matchmaking's fit then takes in the
predecessor's counts too, and the new version's rating is conditioned on lying within
``SEED_SD`` (250 Elo, sd) of the predecessor's: a Gaussian observation of their
difference, 0 with variance ``SEED_SD``^2, one Kalman step like a unit in flight's; the
predecessor, if it left, is then dropped. Its first window so goes mostly to opponents
near the predecessor (a new version of a bot 300 above the field met the strongest one
7 times as often as the weakest; unseeded, it met them about as often). Once its first
result is in, it is matched from its own results as any entry. Only matchmaking sees
the link: the counts, the board and every rating shown or stored come from its own
results alone.
Which version came first is not in the ``Field`` (labels only, and a retired predecessor
is not in it at all), so the state records, for each version, the ``next`` call that
first saw it (``JOINED``): the order of submission, as the lineup takes a version in at
the step after it is submitted. Versions first seen in one call are not ordered, and
none of them is the other's predecessor (nor, later, anyone's while they tie); a remote
bot has no versions and is never linked, nor are two bots' versions.
Measured (``bench/version_seeding.py``: 15 measured versions over ±500 Elo, a window of
4 units, placement 10; 20 seeds), a version near its predecessor (within N(0, 100)) was
provisional after 14.4 units instead of 16.6 for a bot at +400 (0.87) and 11.4 instead
of 12.7 at -400 (0.90), its first 8 opponents 315 and 232 Elo from it instead of 390
and 294; one 600 Elo from its predecessor took 0.97-1.16 times as many units (past the
field's end it cannot be placed quickly either way; inside the field, its first window
went to the wrong end). Seeding until 20 outcomes instead of the first gained nothing
more and cost 1.25-1.30 times the units in that case, so only the first window is
seeded.

Leagues. With ``leagues`` in its parameters (a competition's rules:
``arena.tournament.leagues``), each league's boss joins the lineup and units are drawn
only within a league, placement included (``arena.tournament.formats.ladder_leagues``).

The lineup. A ladder takes every registered bot; with ``competition`` in its parameters
it takes only that competition's competitors' active versions
(``arena.tournament.spec.competition_lineup``), ``max_entries_per_author`` of them each.
One author's entries (``Field.authors``) are never paired: their results are not rated
(``TournamentPlan.same_author``), so such a unit would tell nothing and cost two matches.

The state is bounded by the entries, not the results: the counter, per game and pairing
the W/D/L counts, the units in flight with the halves of them that have arrived, when
each version joined, and the suspensions (``arena.tournament.formats.ladder_suspension``):
an entry suspended for forfeiting or faulting all its latest matches is not paired until
its Hello answers.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from arena.games import game_names
from arena.ratings.duplicate import DuplicateResult, pair_outcomes
from arena.ratings.elo import Counts, K, Outcome, count_outcomes, fit_counts
from arena.tournament.fair_play import OPEN
from arena.tournament.formats import ladder_leagues, ladder_suspension
from arena.tournament.formats.base import Field, Format, InvalidFormat, Played, State, unit_matches
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2

if TYPE_CHECKING:
    from arena.store.bots import RegisteredBot
    from arena.store.results import MatchResult
    from arena.tournament.spec import Entry, Roster, TournamentPlan, VersionLookup

Matrix = npt.NDArray[np.float64]
COMPETITION = "competition"
"""Parameter: the competition whose competitors' active versions are the lineup."""
PLACEMENT = "placement"
"""Parameter: rated outcomes an entry plays first, in a burst, in each game."""
SEED_SD = 250.0
"""How far (sd, Elo) a new version's strength may be from its predecessor's, as its
matchmaking assumes until its first result. Any sd from 150 to 400 did as well within a
standard error (``bench/version_seeding.py``); 250 is the middle, and puts a version 600
Elo from its predecessor 2.4 sd out, not beyond reach."""
SEEDED_BELOW = 1
"""A version with fewer rated outcomes of its own than this in a game is matched as its
predecessor's rating says: only one with none. Weighing the predecessor in until 20
outcomes gained nothing more when the version was near it, and placed one 600 Elo from
it with 1.25-1.30 times the units of no seeding (``bench/version_seeding.py``)."""
JOINED = "joined"
"""The state's record of when each version (``name@version``) joined the lineup: the
number of the ``next`` call that first saw it, counting only calls that saw a new one."""
FLOOR = 0.8
"""An entry with fewer units than this share of the median entry's (plus one unit, in
its game and league) is short: units go to short entries' pairings while there are any,
because the information gain alone starves the ends of the field."""


class Ladder(Format):
    """Never decided. Its ranking is the live leaderboard; ``standings`` shows only the
    entries it has suspended."""

    name = "ladder"
    proto = arena_pb2.FORMAT_LADDER
    title = "Ladder"
    deals_as_needed = True
    open_lineup = True
    plays_forever = True
    suspends = True
    internal_params = frozenset({COMPETITION, PLACEMENT, ladder_leagues.LEAGUES})

    def __init__(self, field: Field, params: Mapping[str, Any]) -> None:
        super().__init__(field, params)
        if not field.games:
            raise InvalidFormat("a ladder plays one or more games: name them")
        self.prefix = f"{field.tournament_id}-ladder-"
        self.placement = int(self.params.get(PLACEMENT, 0))
        self.leagues = ladder_leagues.read(self.params)
        self.floor = FLOOR
        """The floor's share of the median; 0 turns it off (the bench's *before*)."""
        self.seed_sd = SEED_SD
        """A new version's distance from its predecessor; 0 turns seeding off (the bench's
        *before*)."""
        self.seeded_below = SEEDED_BELOW
        """Rated outcomes of its own below which a version is seeded (the bench varies it)."""

    def total(self) -> None:
        return None

    def decided(self, state: State) -> bool:
        return False

    def start(self) -> State:
        # counts: {game: {a: {b: [wins, draws, losses]}}}, a < b, from a's side.
        # out: {unit number: {game, a, b, halves: {"a"|"b": paired half or None}}}.
        return {"units": 0, "counts": {}, "out": {}}

    def players(self, game: str, state: State | None = None) -> list[str]:
        """The current entries that play ``game``, less those ``state`` suspends, sorted
        so that the order the scheduler lists them in cannot change a draw."""
        held = ladder_suspension.suspended(state) if state is not None else {}
        return sorted(
            {
                e
                for e in self.field.entries
                if game in self.field.games_of.get(e, ()) and e not in held
            }
        )

    def next(self, state: State, room: int) -> tuple[State, list[ScheduledMatch]]:
        state = self.note_joined(state)
        units = room // 2  # whole units only
        playable = [g for g in self.field.games if len(self.players(g, state)) >= 2]
        if units < 1 or not playable:
            return state, []
        boards: dict[str, _Board] = {}
        n = state["units"]
        out = dict(state["out"])
        matches: list[ScheduledMatch] = []
        for _ in range(units):
            pick = self.pick(state, boards, playable, n)
            if pick is None:
                break  # every pairing of every game drawn once in this call
            game, a, b = pick
            matches += unit_matches(self.field, f"ladder-{n}", game, a, b, deal=n)
            out[str(n)] = {"game": game, "a": a, "b": b, "halves": {}}
            n += 1
        return {**state, "units": n, "out": out}, matches

    def pick(
        self, state: State, boards: dict[str, _Board], playable: Sequence[str], n: int
    ) -> tuple[str, str, str] | None:
        """Unit ``n``'s game and pairing: its game's turn, or the next game's with a
        pairing not yet drawn in this call."""
        u = _uniform(self.field.master_seed, n)
        for k in range(len(playable)):
            game = playable[(n + k) % len(playable)]
            if game not in boards:
                boards[game] = self.board(state, game)
            pair = boards[game].draw(u)
            if pair is not None:
                return game, *pair
        return None

    def note_joined(self, state: State) -> State:
        """``state`` with the versions (``name@version``) it has not seen before, in the
        lineup or the counts, recorded as joining now (``JOINED``); remote bots, never
        linked to anything, are not recorded."""
        joined: dict[str, int] = state.get(JOINED, {})
        seen = set(self.field.entries)
        for by_pair in state["counts"].values():
            for a, by in by_pair.items():
                seen |= {a, *by}
        new = sorted(e for e in seen if _bot_of(e) is not None and e not in joined)
        if not new:
            return state
        now = 1 + max(joined.values(), default=-1)
        return {**state, JOINED: {**joined, **dict.fromkeys(new, now)}}

    def predecessors(self, state: State, game: str, players: Sequence[str]) -> dict[str, str]:
        """Each player of ``game`` with fewer than ``seeded_below`` rated outcomes in it
        (against the other players) whose bot has an earlier version with rated outcomes
        against them: that version, the one that joined last (none if two joined at once).
        Only versions of one bot, by name, are linked; earlier is by when each joined."""
        if self.seed_sd <= 0:
            return {}
        joined: Mapping[str, int] = state.get(JOINED, {})
        current = set(players)
        against = Counter[str]()  # each entry's rated outcomes against the players
        for a, by in state["counts"].get(game, {}).items():
            for b, row in by.items():
                against[a] += sum(row) if b in current else 0
                against[b] += sum(row) if a in current else 0
        found: dict[str, str] = {}
        for player in players:
            bot = _bot_of(player)
            if bot is None or player not in joined or against[player] >= self.seeded_below:
                continue
            earlier = [
                e
                for e, when in joined.items()
                if _bot_of(e) == bot and when < joined[player] and against[e] > 0
            ]
            last = max((joined[e] for e in earlier), default=None)
            at_last = [e for e in earlier if joined[e] == last]
            if len(at_last) == 1:
                found[player] = at_last[0]
        return found

    def board(self, state: State, game: str) -> _Board:
        """``game``'s current entries, fitted, with the units in flight counted as played."""
        players = self.players(game, state)
        current = set(players)
        by_pair = state["counts"].get(game, {})
        counts = _among(by_pair, current)
        links = self.predecessors(state, game, players)
        with_predecessors = _among(by_pair, current | set(links.values()))
        per_unit = 1 if self.field.paired else 2  # a duplicate pair, or two matches alone
        groups = None
        if self.leagues is not None:
            groups = ladder_leagues.groups(self.leagues, state, players)
        seeds = _Seeds(links, with_predecessors, self.seed_sd) if links else None
        board = _Board(players, counts, self.placement, per_unit, groups, self.floor, seeds)
        for i, a in enumerate(players):  # never rated against each other: nothing to learn
            for j in range(i + 1, len(players)):
                board.open[i, j] &= not self.field.same_author(a, players[j])
        for key in sorted(state["out"], key=int):
            unit = state["out"][key]
            if unit["game"] == game and unit["a"] in current and unit["b"] in current:
                board.play(board.index[unit["a"]], board.index[unit["b"]])
        return board

    def absorb(self, state: State, played: Sequence[Played]) -> State:
        """A paired unit counts once both halves are in (a no-contest half voids it, as on
        the leaderboard); a match rated on its own counts as it arrives."""
        state = copy.deepcopy(state)
        counts, out = state["counts"], state["out"]
        for p in played:
            found = self.unit_of(p.match_id)
            if found is None or found[0] not in out:
                continue  # not a unit of this ladder's
            key, half = found
            unit, result = out[key], p.unit
            unit["halves"][half] = asdict(result) if result is not None and result.paired else None
            outcomes: list[Outcome] = []
            if result is not None and not result.paired:
                outcomes += pair_outcomes([result])
            if len(unit["halves"]) == 2:
                halves = [DuplicateResult(**h) for h in unit["halves"].values() if h]
                outcomes += pair_outcomes(halves)  # rated only with both halves
                del out[key]
            by_pair = counts.setdefault(unit["game"], {})
            for (a, b), wdl in count_outcomes(outcomes).items():
                row = by_pair.setdefault(a, {}).setdefault(b, [0, 0, 0])
                for i in range(3):
                    row[i] += wdl[i]
        if self.leagues is not None:
            state = ladder_leagues.promote(self.leagues, state)
        return state

    def standings(self, state: State) -> dict[str, Any]:
        return {"ladder": ladder_suspension.standings(state)}

    def suspend(
        self,
        state: State,
        played: Sequence[MatchResult],
        rules: ladder_suspension.Rules,
        now: float,
    ) -> State:
        conducts = [ladder_suspension.conduct(r) for r in played]
        return ladder_suspension.note(state, conducts, self.unit_number, rules, now)

    def resume(self, state: State, answered: Collection[str]) -> State:
        """Only the matches of units handed out from now on count towards the next
        suspension of an entry that answered."""
        state = ladder_suspension.keep_only(state, set(self.field.entries))
        if not answered:
            return state
        return ladder_suspension.resume(state, answered, int(state["units"]))

    @classmethod
    def check_entries(cls, entries: Sequence[str], games: Sequence[str]) -> None:
        if entries:
            raise InvalidFormat(
                "a ladder's entries are every registered bot that plays one of its games, "
                "joining as they register: leave entries empty"
            )
        if not games:
            raise InvalidFormat(
                f"a ladder plays the games it names: give one or more of {', '.join(game_names())}"
            )

    @classmethod
    def author_limit(cls, fair_play: str) -> int | None:
        """One entry per author, whatever the fair play: a ladder ranks authors."""
        return 1

    @classmethod
    def lineup(
        cls,
        spec: TournamentPlan,
        registered: Sequence[RegisteredBot],
        version_of: VersionLookup,
        roster: Roster | None = None,
    ) -> list[Entry]:
        """Every registered bot that plays one of its games, as it stands now
        (``arena.tournament.spec.ladder_lineup``), or a competition's active versions
        (``competition_lineup``; none without a ``roster`` to read them from)."""
        # The spec imports the formats.
        from arena.tournament.spec import MAX_ENTRIES, competition_lineup, ladder_lineup

        competition = spec.format_params.get(COMPETITION)
        if not competition:
            return ladder_lineup(spec, registered, version_of)
        if roster is None:
            return []
        lineup = competition_lineup(spec, registered, roster, competition)
        leagues = ladder_leagues.read(spec.format_params)
        if leagues is None:
            return lineup
        bosses = ladder_leagues.boss_entries(leagues, registered, version_of)
        taken = {e.label for e in bosses}
        versions = [e for e in lineup if e.label not in taken][: MAX_ENTRIES - len(bosses)]
        return sorted(bosses + versions, key=lambda e: e.label)

    @classmethod
    def reveals_each_match(cls, fair_play: str) -> bool:
        """Open: each of its matches is dealt cards of its own (``ladder-<n>-<a|b>``), and
        no deal is ever dealt again; sealed and trusted ones play duplicate pairs."""
        return fair_play == OPEN

    @classmethod
    def progress_text(cls, t: arena_pb2.Tournament) -> str:
        return "ladder of every registered bot in its games"

    def unit_number(self, match_id: str) -> int | None:
        """The unit number of one of this ladder's match ids (None: not one)."""
        found = self.unit_of(match_id)
        return int(found[0]) if found is not None and found[0].isdigit() else None

    def unit_of(self, match_id: str) -> tuple[str, str] | None:
        """The unit number and half (``a`` or ``b``) of one of this ladder's match ids."""
        if not match_id.startswith(self.prefix):
            return None
        key, _, half = match_id.removeprefix(self.prefix).rpartition("-")
        return (key, half) if half in ("a", "b") else None


class _Board:
    """One game's current entries: the covariance of their ratings and the information
    one unit of each pairing brings, updated as units are counted as played. With
    ``groups`` (each player's league), only players of one group are paired, and the
    placement burst is each group's own."""

    def __init__(
        self,
        players: Sequence[str],
        counts: Counts,
        placement: int = 0,
        per_unit: int = 1,
        groups: Sequence[int] | None = None,
        floor: float = FLOOR,
        seeds: _Seeds | None = None,
    ) -> None:
        self.players = list(players)
        self.index = {p: i for i, p in enumerate(self.players)}
        r, self.cov, draw_elo = _fitted(self.players, counts, seeds)
        self.info = _information(r[:, None] - r[None, :], draw_elo)
        size = len(self.players)
        self.open = np.triu(np.ones((size, size), dtype=bool), k=1)
        """Pairings not yet drawn in this call (i < j)."""
        self.groups = None if groups is None else np.array(groups)
        if self.groups is not None:
            self.open &= self.groups[:, None] == self.groups[None, :]
        self.in_flight = np.zeros((size, size))
        """Units of each pairing (i < j) out or drawn in this call."""
        self.placement = placement
        self.per_unit = per_unit
        self.floor = floor
        self.seen = np.zeros(size)
        """Each entry's rated outcomes, units in flight counted at ``per_unit``."""
        for (a, b), wdl in counts.items():
            self.seen[self.index[a]] += sum(wdl)
            self.seen[self.index[b]] += sum(wdl)

    def play(self, i: int, j: int) -> None:
        """Count one unit of ``i`` against ``j`` as played, at its expected information."""
        self.in_flight[min(i, j), max(i, j)] += 1
        self.seen[[i, j]] += self.per_unit
        column = self.cov[:, i] - self.cov[:, j]
        variance = max(float(column[i] - column[j]), 0.0)
        info = float(self.info[i, j])
        self.cov -= np.outer(column, column) * (info / (1.0 + info * variance))

    def draw(self, u: float) -> tuple[str, str] | None:
        """The pairing at ``u`` (uniform in [0, 1)) of the weights' cumulative sum."""
        rows, cols = np.nonzero(self.open)
        if len(rows) == 0:
            return None
        rows, cols = self.starved(*self.placing(rows, cols))
        diagonal = np.diag(self.cov)
        variance = np.maximum(diagonal[rows] + diagonal[cols] - 2 * self.cov[rows, cols], 0.0)
        info = self.info[rows, cols]
        # The gain's factor 1/2 does not change a draw.
        weights = np.log1p(variance * info) / (1.0 + self.in_flight[rows, cols])
        total = float(weights.sum())
        if not np.isfinite(total) or total <= 0:
            weights, total = np.ones(len(rows)), float(len(rows))
        k = min(int(np.searchsorted(np.cumsum(weights), u * total, side="right")), len(rows) - 1)
        i, j = int(rows[k]), int(cols[k])
        self.open[i, j] = False
        self.play(i, j)
        return self.players[i], self.players[j]

    def placing(
        self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The open pairings (``rows``, ``cols``) to draw from: those with an entry still
        placing, while some are placing and some are not; else all of them."""
        placing = self.seen < self.placement
        if self.groups is not None:
            return self.placing_by_group(rows, cols, placing)
        if not placing.any() or placing.all():
            return rows, cols
        with_one = placing[rows] | placing[cols]
        if not with_one.any():
            return rows, cols
        return rows[with_one], cols[with_one]

    def starved(
        self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The pairings to draw from (of ``rows``, ``cols``): in each league (the whole
        board without leagues) with an entry below the floor that has a pairing among
        them, only the pairings with such an entry; the other leagues' as they are."""
        if self.floor <= 0:
            return rows, cols
        groups = self.groups if self.groups is not None else np.zeros(len(self.players), int)
        short = np.zeros(len(self.players), dtype=bool)
        for group in np.unique(groups[rows]):
            members = groups == group
            # One unit's margin: a unit elsewhere may lift the median by one.
            line = self.floor * (float(np.median(self.seen[members])) + self.per_unit)
            short |= members & (self.seen < line)
        keep = np.ones(len(rows), dtype=bool)
        with_one = short[rows] | short[cols]
        for group in np.unique(groups[rows[with_one]]):
            keep &= (groups[rows] != group) | with_one
        return rows[keep], cols[keep]

    def placing_by_group(
        self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp], placing: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """``placing`` league by league: a league with an entry placing and one not draws
        only its pairings with a placing entry; the other leagues draw as they would."""
        assert self.groups is not None
        keep = np.ones(len(rows), dtype=bool)
        with_one = placing[rows] | placing[cols]
        for group in np.unique(self.groups[rows]):
            members = self.groups == group
            if not placing[members].any() or placing[members].all():
                continue
            mine = self.groups[rows] == group
            if (mine & with_one).any():
                keep &= ~mine | with_one
        return rows[keep], cols[keep]


@dataclass(frozen=True)
class _Seeds:
    """New versions to match as their predecessors' ratings say (``Ladder.predecessors``)."""

    links: Mapping[str, str]
    """A new version -> its predecessor, which may have left the lineup."""
    counts: Counts
    """The counts among the players and the predecessors."""
    sd: float
    """How far (Elo) a new version may be from its predecessor (``SEED_SD``)."""


def _fitted(
    players: Sequence[str], counts: Counts, seeds: _Seeds | None
) -> tuple[npt.NDArray[np.float64], Matrix, float]:
    """The players' ratings, their covariance and the draw margin, as matchmaking sees
    them: the fit of ``counts``; with ``seeds``, the fit of the counts with the
    predecessors', each new version then conditioned on being its predecessor give or
    take ``sd`` (a Gaussian observation of their difference, 0 with variance ``sd``^2,
    its own results still in), and the predecessors that left dropped."""
    if seeds is None:
        names = list(players)
        table = fit_counts(counts, names)
    else:
        names = [*players, *sorted(set(seeds.links.values()) - set(players))]
        table = fit_counts(seeds.counts, names)
    elo = table.by_player()
    r = np.array([elo[p].elo for p in names])
    cov: Matrix = np.array([[table.covariance[a, b] for b in names] for a in names])
    if seeds is not None:
        index = {p: i for i, p in enumerate(names)}
        for new, old in sorted(seeds.links.items()):
            i, j = index[new], index[old]
            column = cov[:, i] - cov[:, j]
            gain = column / (column[i] - column[j] + seeds.sd**2)
            r = r - gain * (r[i] - r[j])
            cov = cov - np.outer(column, gain)
    size = len(players)
    return r[:size], cov[:size, :size], table.draw_elo


def _among(by_pair: Mapping[str, Mapping[str, Sequence[int]]], names: Collection[str]) -> Counts:
    """The stored W/D/L counts of the pairings between ``names``."""
    return {
        (a, b): (row[0], row[1], row[2])
        for a, by in by_pair.items()
        if a in names
        for b, row in by.items()
        if b in names
    }


def _bot_of(label: str) -> str | None:
    """The bot whose version ``label`` (``name@version``) is; None for a remote bot."""
    name, at, version = label.partition("@")
    return name if at and name and version else None


def _information(delta: Matrix, draw_elo: float) -> Matrix:
    """Fisher information about ``delta`` = r_a - r_b of one outcome under the fit's
    model (``arena.ratings.elo``): K^2 p(1-p) without draws."""

    def sigmoid(x: Matrix) -> Matrix:
        result: Matrix = 0.5 * (1.0 + np.tanh(0.5 * K * x))
        return result

    win, loss = sigmoid(delta - draw_elo), sigmoid(-delta - draw_elo)
    draw = 1.0 - win - loss
    win_slope, loss_slope = win * (1 - win), loss * (1 - loss)
    # d p_win = K win_slope, d p_loss = -K loss_slope, d p_draw = K (loss_slope - win_slope).
    info: Matrix = K**2 * (win * (1 - win) ** 2 + loss * (1 - loss) ** 2)
    drawn = draw > 1e-12
    info += np.where(drawn, K**2 * (loss_slope - win_slope) ** 2 / np.maximum(draw, 1e-12), 0.0)
    return info


def _uniform(master_seed: int, unit: int) -> float:
    """The draw of unit number ``unit``, in [0, 1): the same wherever it is computed."""
    digest = hashlib.sha256(f"arena.v1 ladder {master_seed} {unit}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64
