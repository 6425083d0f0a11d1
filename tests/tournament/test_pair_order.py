"""No channel between the halves of a duplicate pair: in sealed and trusted tournaments a
pair's second half starts only once its first half has ended (its result stored, no
attempt at it still playing), while different pairs play at once.

Pure tests of the rule (``arena.tournament.schedule``) for every format; the scheduler's
step, the watchdog, a resume and the play task on a real Redis with no worker to take
the matches; and whole tournaments on real workers, read back from the stored results'
start and finish times."""

from __future__ import annotations

import base64
import json
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from arena.local_redis import LocalRedis
from arena.store import MatchResult, TournamentStore, keys
from arena.store.leases import MatchLeases
from arena.tournament.fair_play import OPEN, SEALED, TRUSTED
from arena.tournament.formats import Format, Played
from arena.tournament.formats.base import unit_matches
from arena.tournament.formats.knockout import Knockout
from arena.tournament.formats.ladder import Ladder
from arena.tournament.formats.round_robin import Gauntlet, RoundRobin
from arena.tournament.formats.sprt import Sprt
from arena.tournament.formats.swiss import Swiss
from arena.tournament.schedule import ScheduledMatch, release
from arena.v1 import arena_pb2
from tests.records import result, spec
from tests.support.arena import Arena
from tests.support.database import next_database
from tests.support.worker_process import run
from tests.tournament.formats.drive import drive, field, random_results
from workers import capacity
from workers.broker import PLAY_MATCH

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)


def formats(paired: bool) -> list[Format]:
    """One of each format that decides, small enough to play out."""
    return [
        RoundRobin(field(3, deals=2, paired=paired), {}),
        Gauntlet(field(3, deals=2, paired=paired), {"challengers": ["e1"]}),
        Swiss(field(4, deals=2, paired=paired), {"rounds": 2}),
        Knockout(field(4, paired=paired), {}),
        Sprt(field(2, paired=paired), {"max_units": 6}),
    ]


def ladder_matches(paired: bool) -> list[ScheduledMatch]:
    """A ladder never decides: a few windows of it, with every result fed back."""
    ladder = Ladder(field(3, paired=paired), {})
    state, handed = ladder.start(), []
    for _ in range(4):
        state, matches = ladder.next(state, 5)
        handed += matches
        state = ladder.absorb(state, [Played(m.match_id, random_results(1)(m)) for m in matches])
    return handed


def handed_out(paired: bool) -> Iterator[tuple[str, list[ScheduledMatch]]]:
    for fmt in formats(paired):
        # A window of 5 splits pairs across calls; results come back in random order.
        yield fmt.name, drive(fmt, random_results(1), room=5, absorb_seed=2).matches
    yield "ladder", ladder_matches(paired)


def test_every_formats_second_half_waits_for_a_first_half_handed_out_before_it() -> None:
    for name, matches in handed_out(paired=True):
        order = {m.match_id: i for i, m in enumerate(matches)}
        seconds = [m for m in matches if m.first_half is not None]
        assert len(seconds) * 2 == len(matches), name
        for m in seconds:
            assert m.match_id.endswith("-b") and m.first_half == f"{m.pair_key}-a", name
            # Handed out before (or with) its second half: the scheduler never holds a
            # second half for a first half that the format has not handed out.
            assert order[m.first_half] < order[m.match_id], name


def test_open_matches_share_no_deal_and_wait_for_nothing() -> None:
    for name, matches in handed_out(paired=False):
        assert matches and all(m.first_half is None for m in matches), name


def test_a_second_half_is_queued_once_its_first_half_has_ended_and_not_before() -> None:
    one = unit_matches(field(2), "seep-0-0", "seep", "e1", "e2", 0)
    two = unit_matches(field(2), "seep-0-1", "seep", "e1", "e2", 1)
    a1, b1, a2, b2 = (m.match_id for m in (*one, *two))
    queue, held = release({}, [*one, *two], ended=set())
    assert queue == [a1, a2]  # the first halves of both pairs at once
    assert held == {b1: a1, b2: a2}
    assert release(held, [], ended=set()) == ([], held)
    queue, held = release(held, [], ended={a1})
    assert (queue, held) == ([b1], {b2: a2})
    # A window that split a pair hands out a second half whose first half has ended.
    assert release({}, [two[1]], ended={a2}) == ([b2], {})
    opened = unit_matches(field(2, paired=False), "seep-0-0", "seep", "e1", "e2", 0)
    assert release({}, opened, ended=set()) == ([m.match_id for m in opened], {})


# The scheduler's step, the watchdog, a resume and the play task, each run as a worker
# runs it, in a process of its own, on a Redis with no worker to take what they queue.


def step(url: str, tournament_id: str) -> None:
    run(url, f"from workers import scheduler; scheduler.advance({tournament_id!r})")


def queued(client: redis.Redis) -> Counter[str]:
    """The match of every play message in the broker's queue, counted."""
    found: Counter[str] = Counter()
    for raw in client.lrange("celery", 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] == PLAY_MATCH:
            args = json.loads(base64.b64decode(message["body"]))[0]
            found[args[1]] += 1
    return found


@pytest.fixture
def store(local_redis: LocalRedis) -> Iterator[tuple[str, TournamentStore]]:
    url = local_redis.url(next_database())
    client = redis.Redis.from_url(url)
    yield url, TournamentStore(client)
    client.close()


@pytest.mark.parametrize("mode", [SEALED, TRUSTED])
def test_a_step_queues_first_halves_and_holds_each_second_half_until_its_first_ends(
    store: tuple[str, TournamentStore], mode: str
) -> None:
    url, tournaments = store
    hosted = {"a": "a" * 64, "b": "b" * 64} if mode == SEALED else {}
    plan = spec(("a", "b"), ("seep",), hosted, fair_play=mode, deals=3)
    tournaments.create("t1", plan, ["seep"], total=6)
    # Workers of three processes in all: room for the three first halves in the queue.
    capacity.announce(tournaments.redis, "w@test", 3, 60)
    firsts = [f"t1-seep-0-{deal}-a" for deal in range(3)]
    seconds = [f"t1-seep-0-{deal}-b" for deal in range(3)]
    step(url, "t1")
    record = tournaments.get("t1")
    assert record is not None and record.issued == 6  # every pair handed out at once
    assert queued(tournaments.redis) == Counter(firsts)  # every pair's first half at once
    assert record.scheduler is not None
    assert record.scheduler["held"] == dict(zip(seconds, firsts, strict=True))

    # Held halves are neither lost to the watchdog nor queued again by a resume.
    watchdog = "from workers.watchdog import Watchdog; w = Watchdog(); w.round(); print(w.round())"
    assert run(url, watchdog) == []
    resume = f"from workers.dispatch import start; start('t1', {sorted(firsts + seconds)!r})"
    run(url, resume)
    assert queued(tournaments.redis) == Counter(firsts * 2)
    # A play message for a held half, however it came, plays nothing.
    play = (
        "import json; from workers.tasks import play_match; "
        f"print(json.dumps(play_match.apply(args=['t1', {seconds[0]!r}]).get()))"
    )
    assert run(url, play) == {
        "match_id": seconds[0],
        "skipped": f"held back: its first half {firsts[0]} has not ended",
    }

    # The first half's result is stored, but an attempt at it still holds its lease (a
    # copy whose worker stalled): still held.
    tournaments.redis.delete("celery")
    leases = MatchLeases(tournaments.redis)
    assert leases.claim("t1", firsts[0], "stalled", 60)
    first = result(
        match_id=firsts[0],
        tournament_id="t1",
        pair_key="t1-seep-0-0",
        game="seep",
        entries=["a", "b"],
        scores=[1, 0],
        fair_play=mode,
    )
    assert tournaments.record_result("t1", first, b"")
    step(url, "t1")
    assert queued(tournaments.redis) == Counter()
    # Its lease gone, the next step queues the second half, once; the others wait on.
    leases.release("t1", firsts[0], "stalled")
    step(url, "t1")
    step(url, "t1")
    assert queued(tournaments.redis) == Counter([seconds[0]])
    record = tournaments.get("t1")
    assert record is not None and record.scheduler is not None
    assert record.scheduler["held"] == dict(zip(seconds[1:], firsts[1:], strict=True))


def test_an_open_step_queues_every_match_at_once(store: tuple[str, TournamentStore]) -> None:
    url, tournaments = store
    tournaments.create("t1", spec(("a", "b"), ("seep",), fair_play=OPEN, deals=2), ["seep"])
    capacity.announce(tournaments.redis, "w@test", 2, 60)  # room for four in the queue
    step(url, "t1")
    assert queued(tournaments.redis) == Counter(
        f"t1-seep-0-{deal}-{half}" for deal in range(2) for half in "ab"
    )
    record = tournaments.get("t1")
    assert record is not None and record.scheduler is not None
    assert "held" not in record.scheduler


# Whole tournaments on real workers.


def pairs(results: list[MatchResult]) -> dict[str, tuple[MatchResult, MatchResult]]:
    """Each pair's (first half, second half)."""
    by_id = {r.match_id: r for r in results}
    found = {
        r.pair_key: (by_id[f"{r.pair_key}-a"], by_id[f"{r.pair_key}-b"])
        for r in results
        if r.paired
    }
    assert 2 * len(found) == len(results)
    return found


def assert_halves_in_order(results: list[MatchResult]) -> None:
    for first, second in pairs(results).values():
        assert first.started_at is not None and first.finished_at is not None
        assert second.started_at is not None and second.finished_at is not None
        assert first.finished_at <= second.started_at, (first, second)


def test_a_trusted_tournament_overlaps_pairs_but_never_the_halves_of_one(arena: Arena) -> None:
    arena.start_worker("w1")
    arena.start_worker("w2")
    for name, seed in (("p1", "1"), ("p2", "2"), ("p3", "3")):
        arena.start_bot(name, "paced", "--seed", seed, "--delay-ms", "5")
    tournament = arena.submit(
        ["p1", "p2", "p3"], deals=2, games=["seep"], fair_play=arena_pb2.FAIR_PLAY_TRUSTED
    )
    assert tournament.matches_total == 3 * 2 * 2  # pairings x deals x seatings
    arena.wait_until(tournament.id)
    results = TournamentStore(arena.redis).results(tournament.id)
    assert len(pairs(results)) == 6
    assert_halves_in_order(results)
    # Two workers: matches of different pairs were played at the same time.
    overlapping = [
        (x.match_id, y.match_id)
        for x in results
        for y in results
        if x.pair_key < y.pair_key
        and max(x.started_at or 0, y.started_at or 0) < min(x.finished_at or 0, y.finished_at or 0)
    ]
    assert overlapping, [(r.match_id, r.started_at, r.finished_at) for r in results]


def test_a_first_half_whose_worker_dies_is_played_again_before_its_second_half(
    arena: Arena,
) -> None:
    victim = arena.start_worker("victim", concurrency=2)
    for name, seed in (("p1", "1"), ("p2", "2")):
        arena.start_bot(name, "paced", "--seed", seed, "--delay-ms", "10")
    tournament = arena.submit(
        ["p1", "p2"], deals=2, games=["seep"], fair_play=arena_pb2.FAIR_PLAY_TRUSTED
    )
    live = keys.live(tournament.id)

    def first_halves_playing() -> list[str]:
        keys = [m.decode() if isinstance(m, bytes) else m for m in arena.redis.hkeys(live)]
        return [m for m in keys if m.endswith("-a")]

    while not (playing := first_halves_playing()):
        assert arena.get(tournament.id).matches_done < 4, "no first half was ever seen playing"
        time.sleep(0.02)
    victim.kill()  # SIGKILL while playing a first half: its message comes back
    store = TournamentStore(arena.redis)
    cut = [m for m in playing if not store.has_result(tournament.id, m)]
    assert cut, "the first halves seen playing had finished: nothing was cut short"
    arena.start_worker("rescuer", concurrency=2)
    arena.wait_until(tournament.id)
    results = store.results(tournament.id)
    assert len(results) == len({r.match_id for r in results}) == 4
    assert_halves_in_order(results)
    record = store.get(tournament.id)
    assert record is not None and record.retried is not None
    assert record.retried >= len(cut), (cut, record)  # played again


@pytest.mark.parametrize(
    "format_spec",
    [
        {"format": arena_pb2.FORMAT_SWISS, "swiss": arena_pb2.SwissParams(rounds=2)},
        {"format": arena_pb2.FORMAT_KNOCKOUT},
        {"format": arena_pb2.FORMAT_SPRT, "sprt": arena_pb2.SprtParams(elo1=50, max_units=3)},
    ],
    ids=["swiss", "knockout", "sprt"],
)
def test_formats_that_wait_for_results_finish_with_every_pair_in_order(
    arena: Arena, format_spec: dict[str, Any]
) -> None:
    arena.start_worker("w1", concurrency=2)
    arena.start_bot("house", "house")
    arena.start_bot("r1", "random", "--seed", "1")
    arena.start_bot("r2", "random", "--seed", "2")
    sprt = format_spec["format"] == arena_pb2.FORMAT_SPRT
    tournament = arena.submit(
        ["house", "r1"] if sprt else ["house", "r1", "r2"],
        games=["seep"],
        fair_play=arena_pb2.FAIR_PLAY_TRUSTED,
        **format_spec,
    )
    finished = arena.wait_until(tournament.id)
    results = TournamentStore(arena.redis).results(tournament.id)
    assert finished.matches_done == len(results) == finished.matches_issued > 0
    assert_halves_in_order(results)
