"""The ladder: always on, reproducible, pairs what tells most, survives a changing field.

Results come from a simulation with known strengths (Elo), so the tests can say which
pairings a good matchmaker should favour."""

from __future__ import annotations

import itertools
import json
import random
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping

import pytest

from arena.ratings.duplicate import DuplicateResult
from arena.ratings.elo import fit_counts
from arena.tournament import formats
from arena.tournament.formats.base import Field, InvalidFormat, Played, State
from arena.tournament.formats.ladder import Ladder
from arena.tournament.schedule import ScheduledMatch
from tests.records import spec

SIX = dict(zip("abcdef", (0, 100, 200, 300, 400, 500), strict=True))


def ladder(
    entries: Iterable[str],
    games: tuple[str, ...] = ("g",),
    seed: int = 7,
    paired: bool = True,
    games_of: Mapping[str, tuple[str, ...]] | None = None,
    authors: Mapping[str, str] | None = None,
) -> Ladder:
    """The ladder as the scheduler builds it at one step: from who is registered now."""
    names = tuple(entries)
    plays = {e: (games_of or {}).get(e, games) for e in names}
    field = Field("t", names, games, plays, 1, seed, paired, authors=authors or {})
    return Ladder(field, {})


def played(match: ScheduledMatch, margin: int | None) -> Played:
    """A stored result: ``margin`` for team 0 (None: no contest)."""
    a, b = match.entries
    unit = None
    if margin is not None:
        unit = DuplicateResult(match.pair_key, a, b, margin, paired=match.paired)
    return Played(match.match_id, unit)


def simulate(match: ScheduledMatch, strengths: Mapping[str, float], rng: random.Random) -> Played:
    """Team 0 outscores team 1 with the Elo expectation of their strengths."""
    a, b = match.entries
    p = 1 / (1 + 10 ** (-(strengths[a] - strengths[b]) / 400))
    return played(match, 5 if rng.random() < p else -5)


def run(
    format: Ladder,
    state: State,
    strengths: Mapping[str, float],
    units: int,
    window: int = 16,
    seed: int = 1,
    tally: Counter[frozenset[str]] | None = None,
) -> State:
    """Hand out ``units`` units a window at a time, results finishing in random order
    (halves of one unit apart), until every one is absorbed."""
    rng = random.Random(seed)
    out: list[ScheduledMatch] = []
    handed = 0
    while handed < units or out:
        state, new = format.next(state, min(window - len(out), 2 * (units - handed)))
        assert len(new) % 2 == 0 and len(state["out"]) <= window  # units with a match out
        handed += len(new) // 2
        if tally is not None:
            tally.update(frozenset(m.entries) for m in new[::2])
        out += new
        rng.shuffle(out)
        finished = rng.randint(1, len(out)) if out else 0
        done, out = out[:finished], out[finished:]
        state = format.absorb(state, [simulate(m, strengths, rng) for m in done])
    return state


def per_entry(tally: Counter[frozenset[str]]) -> Counter[str]:
    """Units each entry played."""
    counts = Counter[str]()
    for pair, n in tally.items():
        counts.update(dict.fromkeys(pair, n))
    return counts


def test_is_registered_never_decides_and_needs_a_game() -> None:
    built = formats.build("t", spec(["a", "b"], ["g"], format="ladder"))
    total = built.total()  # asked of it as of any format, before it is known a Ladder
    assert isinstance(built, Ladder) and formats.FORMATS["ladder"] is Ladder
    state = built.start()
    assert total is None and not built.decided(state)
    # Its ranking is the live leaderboard: its standings show only whom it suspended.
    assert built.standings(state) == {"ladder": {"suspended": [], "suspend_after": 5}}
    with pytest.raises(InvalidFormat, match="a ladder plays one or more games: name them"):
        ladder("ab", games=())


def test_hands_out_whole_units_each_on_a_deal_of_its_own() -> None:
    fmt = ladder("abc")
    state = fmt.start()
    assert fmt.next(state, 1) == (state, [])
    state, matches = fmt.next(state, 5)
    assert len(matches) == 4 and state["units"] == 2
    state, more = fmt.next(state, 4)
    matches += more
    for n, (first, second) in enumerate(zip(matches[::2], matches[1::2], strict=True)):
        assert (first.match_id, second.match_id) == (f"t-ladder-{n}-a", f"t-ladder-{n}-b")
        assert first.entries == second.entries[::-1] and first.game == second.game == "g"
        assert first.deal == second.deal == n and first.seed == second.seed
    assert len({m.deal_key for m in matches}) == 4
    open_play = ladder("abc", paired=False)
    _, halves = open_play.next(open_play.start(), 4)
    assert len({m.deal_key for m in halves}) == 4  # open: no deal seen twice, not even swapped


def test_the_same_seed_and_results_give_the_same_ladder() -> None:
    def history(seed: int) -> tuple[State, Counter[frozenset[str]]]:
        fmt, tally = ladder(SIX, seed=seed), Counter[frozenset[str]]()
        return run(fmt, fmt.start(), SIX, 150, tally=tally), tally

    state, tally = history(7)
    assert history(7) == (state, tally)
    assert json.loads(json.dumps(state)) == state  # what the scheduler stores
    assert history(8)[1] != tally  # another seed draws other pairings


def test_a_newcomer_plays_far_more_than_the_measured_entries() -> None:
    settled = ladder(SIX)
    state = run(settled, settled.start(), SIX, 600)
    strengths = {**SIX, "new": 250}
    tally = Counter[frozenset[str]]()
    run(ladder(strengths), state, strengths, 200, seed=2, tally=tally)
    counts = per_entry(tally)
    uniform = 200 * 2 / len(strengths)  # each unit seats 2 of 7
    assert counts["new"] > 1.5 * uniform, counts
    assert counts["new"] > 1.5 * max(n for e, n in counts.items() if e != "new"), counts


def measured(strengths: Mapping[str, float], units: int = 60) -> dict[str, dict[str, list[int]]]:
    """Counts as ``absorb`` keeps them: every pairing ``units`` units, at its expectation."""
    counts: dict[str, dict[str, list[int]]] = {}
    for a, b in itertools.combinations(sorted(strengths), 2):
        wins = round(units / (1 + 10 ** (-(strengths[a] - strengths[b]) / 400)))
        counts.setdefault(a, {})[b] = [wins, 0, units - wins]
    return counts


def draws(fmt: Ladder, state: State, times: int = 1500) -> Counter[frozenset[str]]:
    """The pairing of one unit from ``state``, under ``times`` different unit counters."""
    tally = Counter[frozenset[str]]()
    for n in range(times):
        _, matches = fmt.next({**state, "units": n}, 2)
        tally[frozenset(matches[0].entries)] += 1
    return tally


def test_close_ratings_are_paired_more_often_than_far_ones() -> None:
    strengths = {"a": 0, "b": 0, "c": 600, "d": 600}
    fmt = ladder(strengths)
    state = {**fmt.start(), "counts": {"g": measured(strengths)}}  # all equally measured
    tally = draws(fmt, state)
    close = [tally[frozenset("ab")], tally[frozenset("cd")]]
    far = [tally[frozenset(p)] for p in ("ac", "ad", "bc", "bd")]
    assert min(close) > 2 * max(far), tally


def test_a_pairing_in_flight_is_drawn_less() -> None:
    strengths = dict.fromkeys("abcd", 0)
    fmt = ladder(strengths)
    state = {**fmt.start(), "counts": {"g": measured(strengths)}}
    in_flight = {str(-i): {"game": "g", "a": "a", "b": "b", "halves": {}} for i in range(1, 4)}
    before = draws(fmt, state, 600)[frozenset("ab")]
    after = draws(fmt, {**state, "out": in_flight}, 600)[frozenset("ab")]
    assert before > 600 / 6 * 0.8 and after < before / 2, (before, after)
    _, window = fmt.next(state, 12)  # one call: every pairing once, none twice
    assert sorted("".join(sorted(m.entries)) for m in window[::2]) == [
        "".join(p) for p in itertools.combinations("abcd", 2)
    ]


def test_halves_count_once_both_are_in_whatever_their_order() -> None:
    fmt = ladder(SIX)
    state, matches = fmt.next(fmt.start(), 16)
    rng = random.Random(3)
    results = [simulate(m, SIX, rng) for m in matches]
    at_once = fmt.absorb(state, results)
    rated = sum(sum(row) for by in at_once["counts"]["g"].values() for row in by.values())
    assert at_once["out"] == {} and rated == len(matches) // 2
    seconds = results[1::2][::-1]
    one_by_one = fmt.absorb(state, seconds)
    assert one_by_one["counts"] == {"g": {}} and len(one_by_one["out"]) == 8  # none whole
    firsts = results[0::2]
    rng.shuffle(firsts)
    for result in firsts:
        one_by_one = fmt.absorb(one_by_one, [result])
    assert one_by_one == at_once
    assert fmt.absorb(at_once, results) == at_once  # not units in flight any more


def test_a_no_contest_voids_a_pair_and_open_matches_count_alone() -> None:
    fmt = ladder("ab")
    state, (first, second) = fmt.next(fmt.start(), 2)
    state = fmt.absorb(state, [played(first, 3), played(second, None)])
    assert state["counts"] == {"g": {}} and state["out"] == {}
    fmt = ladder("ab", paired=False)
    state, (first, second) = fmt.next(fmt.start(), 2)
    state = fmt.absorb(state, [played(first, 3)])
    won = 0 if first.entries[0] == "a" else 2  # the index of a's win or loss
    assert state["counts"]["g"]["a"]["b"][won] == 1 and "0" in state["out"]
    state = fmt.absorb(state, [played(second, 0)])
    assert state["counts"]["g"]["a"]["b"][1] == 1 and state["out"] == {}


def test_the_state_does_not_grow_with_the_results() -> None:
    fmt = ladder(SIX)
    short = run(fmt, fmt.start(), SIX, 100)
    long = run(fmt, fmt.start(), SIX, 2000)
    # The counts' digits grow, nothing else: 15 pairings of 3 counts, and the counter.
    assert len(json.dumps(long)) < 1.3 * len(json.dumps(short)), (short, long)


def record_of(state: State, entry: str) -> dict[tuple[str, str], list[int]]:
    by_pair = state["counts"]["g"]
    return {(a, b): row for a, by in by_pair.items() for b, row in by.items() if entry in (a, b)}


def test_only_current_entries_are_paired_and_leavers_keep_their_counts() -> None:
    everyone = ladder(SIX)
    state, matches = everyone.next(run(everyone, everyone.start(), SIX, 600), 16)
    assert any("c" in m.entries for m in matches)  # c is in flight when it leaves
    rest = {e: s for e, s in SIX.items() if e != "c"}
    without_c = ladder(rest)
    tally = Counter[frozenset[str]]()
    rng = random.Random(4)
    state = without_c.absorb(state, [simulate(m, SIX, rng) for m in matches])
    kept = record_of(state, "c")
    state = run(without_c, state, rest, 100, tally=tally)
    assert "c" not in per_entry(tally)
    assert record_of(state, "c") == kept and kept
    # c comes back with its record, so it is no newcomer; z is one.
    strengths = {**SIX, "z": 250}
    tally = Counter[frozenset[str]]()
    run(ladder(strengths), state, strengths, 200, tally=tally)
    counts = per_entry(tally)
    assert counts["z"] > 1.5 * counts["c"], counts


def test_games_take_turns_among_those_who_play_them() -> None:
    games_of = {e: ("g", "h") for e in "abcd"} | {"e": ("h",), "f": ("g",)}
    fmt = ladder("abcdef", games=("g", "h", "solo"), games_of=games_of)
    _, matches = fmt.next(fmt.start(), 40)
    units = matches[::2]
    assert [m.game for m in units] == ["g", "h"] * 10  # "solo" has no two players
    assert all("e" not in m.entries for m in units if m.game == "g")
    assert all("f" not in m.entries for m in units if m.game == "h")
    alone = ladder("a", games=("g",))
    assert alone.next(alone.start(), 10) == (alone.start(), [])


EXTREMES = {"lo": -600, "hi": 600} | dict(zip("abcdefgh", range(-100, 101, 28), strict=True))
"""A close pack and two far entries, whose pairings tell little per unit."""


def test_no_entry_falls_below_the_floor_of_the_median_entrys_units() -> None:
    """The information gain alone gives the far entries about 0.6 of the median's units
    here; the floor keeps everyone at 0.8 of it or more, all along."""
    fmt = ladder(EXTREMES)
    state, tally = fmt.start(), Counter[frozenset[str]]()
    for step in range(8):
        state = run(fmt, state, EXTREMES, 50, seed=step, tally=tally)
        counts = per_entry(tally)
        median = statistics.median(counts[e] for e in EXTREMES)
        assert min(counts[e] for e in EXTREMES) >= 0.8 * median, (step, counts)


def test_an_entry_below_the_floor_has_its_pairings_drawn_first() -> None:
    """x, far above a pack that played 20 units a pairing, has 10 against each (1 draw,
    9 wins): 40 units to the pack's 70, below 0.8 of the median's. Every unit is its own
    until it is back above the floor (its pairings each once a call); the gain alone
    would give it fewer than half."""
    pack = dict.fromkeys("abcd", 0)
    fmt = ladder({**pack, "x": 800})
    counts = measured(pack, 20)
    for e in sorted(pack):
        counts.setdefault(e, {})["x"] = [0, 1, 9]
    state = {**fmt.start(), "counts": {"g": counts}}

    def with_x(fmt: Ladder, state: State) -> int:
        return sum(n for pair, n in draws(fmt, state, 300).items() if "x" in pair)

    assert with_x(fmt, state) == 300
    _, window = fmt.next(state, 2 * 8)
    assert [("x" in m.entries) for m in window[::2]] == [True] * 4 + [False] * 4
    gain_alone = ladder({**pack, "x": 800})
    gain_alone.floor = 0
    assert with_x(gain_alone, state) < 150
    for e in sorted(pack):
        counts[e]["x"] = [0, 1, 16]  # 68 units, the pack's 77: above 0.8 x (77 + 1)
    assert with_x(fmt, state) < 150


STRONG = dict(zip("abcdef", (0, 100, 200, 300, 400, 500), strict=True))


def versions_state(
    predecessor: str = "top@v1", strength: float = 800, game: str = "g"
) -> tuple[State, dict[str, float]]:
    """A measured field a-f and ``predecessor`` measured against it in ``game``, as a
    ladder records them (the predecessor seen joining), then ``top@v2`` in its place."""
    strengths = {**STRONG, predecessor: strength}
    before = ladder(strengths)
    state = {**before.start(), "counts": {game: measured(strengths, 20)}}
    state, _ = before.next(state, 0)  # a step with no room: who is in is recorded
    return state, {**STRONG, "top@v2": strength}


def with_top(tally: Counter[frozenset[str]], opponents: str) -> int:
    return sum(tally[frozenset({"top@v2", o})] for o in opponents)


def test_one_authors_entries_are_never_paired() -> None:
    """Their results would not be rated: ada's two versions meet nobody but bob and the
    house bot, whose own pairing goes on; an author alone with her versions plays none."""
    authors = {"ada@v1": "ada", "ada@v2": "ada", "bob@v1": "bob"}
    fmt = ladder([*authors, "house"], authors=authors)
    state = fmt.start()
    tally = Counter[frozenset[str]]()
    for _ in range(40):
        state, matches = fmt.next(state, 2 * 3)
        tally.update(frozenset(m.entries) for m in matches[::2])
        state = fmt.absorb(state, [played(m, 1) for m in matches])
    assert frozenset({"ada@v1", "ada@v2"}) not in tally
    assert len(tally) == 5 and min(tally.values()) > 0, tally  # every other pairing
    alone = ladder(["ada@v1", "ada@v2"], authors=authors)
    assert alone.next(alone.start(), 2 * 3)[1] == []


def test_a_new_version_is_matched_first_as_its_predecessors_rating_says() -> None:
    """top@v1 measured 300 above the best of the field: top@v2, with no result yet, is
    drawn against the strong end, where its units tell most (f 7 times as often as a),
    where an unknown entry, at the prior's variance, is drawn against everyone about
    evenly; the same from the same seed."""
    state, strengths = versions_state()
    seeded = ladder(strengths)
    tally = draws(seeded, state, 600)
    assert with_top(tally, "ef") > 3 * with_top(tally, "ab"), tally
    unseeded = ladder(strengths)
    unseeded.seed_sd = 0  # today's: at the pool's mean with the prior's variance
    before = draws(unseeded, state, 600)
    assert with_top(before, "ef") < 1.5 * with_top(before, "ab"), before  # about even
    _, window = seeded.next(state, 2 * 3)
    opponents = [set(m.entries) - {"top@v2"} for m in window[::2]]
    assert opponents == [{"f"}, {"d"}, {"b"}]  # this seed's: the strongest first
    assert ladder(strengths).next(state, 2 * 3)[1] == window


def test_seeding_changes_no_rating_and_no_standings() -> None:
    """Only matchmaking sees the predecessor: the counts the board is fitted from, and so
    top@v2's rating, come from its own results alone, whichever pairings were drawn."""
    state, strengths = versions_state()
    seeded, unseeded = ladder(strengths), ladder(strengths)
    unseeded.seed_sd = 0
    state, matches = seeded.next(state, 2 * 8)
    rng = random.Random(5)
    results = [simulate(m, strengths, rng) for m in matches]
    after = seeded.absorb(state, results)
    assert after == unseeded.absorb(state, results)
    assert seeded.standings(after) == unseeded.standings(after)
    counts = {
        (a, b): (r[0], r[1], r[2]) for a, by in after["counts"]["g"].items() for b, r in by.items()
    }
    whole = fit_counts(counts, sorted(strengths)).by_player()["top@v2"]
    # The same record under an unrelated bot's name: the same rating to the last bit.
    renamed = {
        tuple(sorted(("old@v1" if e == "top@v1" else e) for e in p)): row
        for p, row in counts.items()
    }
    assert whole == fit_counts(renamed, sorted(strengths)).by_player()["top@v2"]  # type: ignore[arg-type]
    assert whole.games == sum("top@v2" in m.entries for m in matches[::2]) > 0


def test_only_versions_of_the_same_bot_are_linked_by_when_they_joined() -> None:
    for unrelated in ("topper@v1", "to@v1", "top"):
        state, strengths = versions_state(unrelated)
        fmt = ladder(strengths)
        state = fmt.note_joined(state)
        assert fmt.predecessors(state, "g", fmt.players("g", state)) == {}
        assert "top" not in state["joined"]  # a remote bot is never recorded
    # Earlier is by joining, not by the label's text: v10 joined before v9 here.
    state, strengths = versions_state("top@v10")
    fmt = ladder({**strengths, "top@v9": 0})
    state = fmt.note_joined(state)
    players = fmt.players("g", state)
    assert fmt.predecessors(state, "g", players) == {"top@v2": "top@v10", "top@v9": "top@v10"}
    # Two earlier versions that joined at once: which is the later is unknown, so neither.
    two = {**STRONG, "top@v1": 800, "top@v0": 0}
    before = ladder(two)
    state = {**before.start(), "counts": {"g": measured(two, 20)}}
    state, _ = before.next(state, 0)
    fmt = ladder({**STRONG, "top@v2": 800})
    state = fmt.note_joined(state)
    assert fmt.predecessors(state, "g", fmt.players("g", state)) == {}


def test_a_predecessor_without_results_in_the_game_changes_nothing() -> None:
    """top@v1 played only game h: in game g top@v2 is matched as today, draw for draw."""
    state, strengths = versions_state(game="h")
    state["counts"]["g"] = measured(STRONG, 20)
    seeded, unseeded = ladder(strengths), ladder(strengths)  # both play g only
    unseeded.seed_sd = 0
    assert seeded.predecessors(seeded.note_joined(state), "g", seeded.players("g")) == {}
    for n in range(100):
        assert seeded.next({**state, "units": n}, 8) == unseeded.next({**state, "units": n}, 8)
