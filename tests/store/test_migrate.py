"""``arena store migrate`` on a real Redis: every shape an earlier build stored is refused
by today's readers until the migration upgrades it, then reads as the in-memory upgrades
read it before; a second run and a dry run change nothing; the command says what it did,
and fails in one line when Redis is not there."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from arena.local_redis import LocalRedis, free_port
from arena.processes import arena_command
from arena.ratings.board import MIN_PAIRS, Leaderboard
from arena.ratings.leaderboard import merged
from arena.records import StaleRecord
from arena.store import BotRegistry, TournamentStore, keys
from arena.store.migrate import migrate
from arena.store.packages import PackageStore
from arena.tournament.fair_play import TRUSTED
from tests.support.database import next_database
from tests.support.old_records import (
    FIRST_BOARD,
    FIRST_BOT,
    FIRST_HOSTED,
    FIRST_RESULT,
    FIRST_SPEC,
    FIRST_TALLY,
    SEALED_SPEC_V2,
    STORED_RESULT,
    STORED_SPEC,
    store_old_tournament,
)

OLD, MIDDLE, SEALED = "t0123456789ab", "t0123456789cd", "t0123456789ef"
UPGRADED = {
    "registered bots": 1,
    "hosted versions": 1,
    "tournament specs": 3,
    "match results": 2,
    "tournaments' order index": 1,
    "ratings tallies": 2,
    "leaderboards": 2,
}
"""What the migration upgrades of ``store_old_shapes``."""


@pytest.fixture
def url(local_redis: LocalRedis) -> str:
    return local_redis.url(next_database())


@pytest.fixture
def client(url: str) -> Iterator[redis.Redis]:
    found = redis.Redis.from_url(url)
    store_old_shapes(found)
    yield found
    found.close()


def store_old_shapes(client: redis.Redis) -> None:
    """One of each shape earlier builds stored, as they stored it."""
    olds = {
        OLD: (FIRST_SPEC, [STORED_RESULT, FIRST_RESULT]),
        MIDDLE: (STORED_SPEC, []),
        SEALED: (SEALED_SPEC_V2, []),
    }
    for tournament_id, (spec, results) in olds.items():
        for match_id in store_old_tournament(client, tournament_id, spec, results):
            client.rpush(keys.finished(tournament_id), match_id)
    client.set(keys.results_version(), 2)
    client.hset(keys.bots(), "house", json.dumps(FIRST_BOT))
    client.hset(keys.hosted("rand"), "v2", json.dumps(FIRST_HOSTED))
    client.sadd(keys.hosted_removed("rand"), "v1")
    client.hset(keys.tallies(), OLD, json.dumps({"seep": FIRST_TALLY}))
    client.set(keys.tally_sum(), json.dumps({"ids": [OLD], "tallies": {"seep": FIRST_TALLY}}))
    client.set(keys.ratings(), json.dumps({"": FIRST_BOARD}))
    client.set(keys.leaderboard(OLD), json.dumps(FIRST_BOARD))


def snapshot(client: redis.Redis) -> dict[bytes, Any]:
    """Every key's value."""
    read: dict[bytes, Callable[[bytes], Any]] = {
        b"string": client.get,
        b"hash": client.hgetall,
        b"set": client.smembers,
        b"zset": lambda key: client.zrange(key, 0, -1, withscores=True),
        b"list": lambda key: client.lrange(key, 0, -1),
    }
    return {key: read[client.type(key)](key) for key in sorted(client.scan_iter())}  # type: ignore[index]


def upgraded(client: redis.Redis, dry_run: bool = False) -> dict[str, int]:
    return {count.kind: count.upgraded for count in migrate(client, dry_run)}


READERS: dict[str, Callable[[redis.Redis], object]] = {
    "tournament spec was stored by an earlier build (version 1)": lambda c: TournamentStore(c).get(
        OLD
    ),
    "tournament spec was stored by an earlier build (version 2)": lambda c: TournamentStore(c).get(
        SEALED
    ),
    f"match result '{OLD}-seep-1-0-a' was stored by an earlier build (version 1)": lambda c: (
        TournamentStore(c).result(OLD, f"{OLD}-seep-1-0-a")
    ),
    "' was stored by an earlier build (version 1)": lambda c: TournamentStore(c).results(OLD),
    f"match result '{OLD}-seep-0-0-a' was stored": lambda c: TournamentStore(c).finished_since(
        OLD, 0, 1
    ),
    f"tournament '{OLD}' was stored by an earlier build (its results have no order index)": (
        lambda c: TournamentStore(c).results_page(OLD, "", 10)
    ),
    "registered bot 'house' was stored by an earlier build (version 1)": lambda c: BotRegistry(
        c
    ).all(),
    "hosted version 'rand@v2' was stored by an earlier build (version 1)": lambda c: PackageStore(
        c
    ).versions("rand"),
    "a ratings tally was stored by an earlier build (no 'shared')": lambda c: merged(
        TournamentStore(c).tallies([OLD])
    ),
    "the '' leaderboard was stored by an earlier build (no 'caveats')": lambda c: (
        Leaderboard.from_json(TournamentStore(c).ratings()[""])
    ),
}


@pytest.mark.parametrize("message", list(READERS))
def test_a_reader_refuses_an_earlier_builds_record_naming_the_command(
    client: redis.Redis, message: str
) -> None:
    before = snapshot(client)
    with pytest.raises(StaleRecord) as refused:
        READERS[message](client)
    assert message in str(refused.value)
    assert str(refused.value).endswith("; run `arena store migrate`")
    assert snapshot(client) == before  # a reader upgrades nothing


def test_the_migration_upgrades_every_shape_to_what_readers_assumed_of_it(
    client: redis.Redis,
) -> None:
    assert upgraded(client) == UPGRADED
    store = TournamentStore(client)

    old = store.get(OLD)
    assert old is not None and old.done == 2
    plan = old.spec
    assert plan.time_bank_ms == 0 and plan.fair_play == TRUSTED and plan.seed.operator
    assert plan.seed.salt == "" and plan.commitment("t1") == ""  # never committed to
    assert plan.format == "round-robin" and plan.format_params == {}
    assert {e: x.games for e, x in plan.lineup.items()} == {
        "house": ("seep", "baloot"),
        "rand": ("seep", "baloot"),
    }
    middle = store.get(MIDDLE)
    assert middle is not None
    assert (middle.spec.broadcast_delay_ms, middle.spec.partners) == (0.0, "shared")
    assert middle.spec.published_commitment == STORED_SPEC["seed_commitment"]
    sealed = store.get(SEALED)
    assert sealed is not None and sealed.spec.partners == "isolated"  # sealed: isolated

    stored, first = store.results(OLD)
    assert stored.to_json() == {
        **STORED_RESULT,
        "match_id": stored.match_id,
        "tournament_id": OLD,
        "record_version": 2,
    }
    assert first.team_fault_kinds is None  # kinds not recorded
    assert (first.deal_key, first.deal_commitment, first.deal_salt, first.referee_match_id) == (
        ("", "", "", "")
    )
    assert first.paired and first.fair_play is None and first.operator_seed is None
    assert store.results_page(OLD, "", 10) == [stored, first]
    assert store.finished_since(OLD, 0, 5) == [stored, first]
    assert client.get(keys.results_version()) == b"2"  # no result counted again

    (bot,) = BotRegistry(client).all()
    assert (bot.hosted, bot.author, bot.record_version, bot.version) == (False, "", 2, "1.0")
    (version,) = PackageStore(client).versions("rand")
    assert version.label == "rand@v2" and version.record_version == 2
    assert PackageStore(client).label_removed("rand", "v1")  # the removed labels' set stays

    summed_ids, summed = store.tally_sum()
    assert summed_ids == {OLD} and summed == merged(store.tallies([OLD]))
    assert summed["seep"] == {**FIRST_TALLY, "shared": {}}  # the tally itself unchanged
    for board in (store.ratings()[""], store.leaderboard(OLD)):
        assert board is not None
        read = Leaderboard.from_json(board)
        assert (read.caveats, read.covariance, read.min_pairs, read.rule) == ((), {}, MIN_PAIRS, 1)
        assert [(r.bot, r.rank, r.shared_partners, r.bound) for r in read.rows] == [
            ("house", 1, 0, ""),
            ("rand", 2, 0, ""),  # ranked as a fresh board ranks it
        ]


def test_a_second_run_changes_nothing_and_a_dry_run_writes_nothing(client: redis.Redis) -> None:
    before = snapshot(client)
    assert upgraded(client, dry_run=True) == UPGRADED
    assert snapshot(client) == before
    assert upgraded(client) == UPGRADED
    after = snapshot(client)
    assert set(after) - set(before) == {keys.order(OLD).encode()}
    assert client.hlen(keys.results(OLD)) == 2 and client.zcard(keys.order(OLD)) == 2
    assert upgraded(client) == dict.fromkeys(UPGRADED, 0)
    assert upgraded(client, dry_run=True) == dict.fromkeys(UPGRADED, 0)
    assert snapshot(client) == after


def test_an_empty_store_has_nothing_to_migrate(url: str) -> None:
    empty = redis.Redis.from_url(url)
    counts = migrate(empty)
    assert [(c.read, c.upgraded) for c in counts] == [(0, 0)] * len(UPGRADED)
    assert snapshot(empty) == {}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command("store", "migrate", *args), capture_output=True, text=True, timeout=120
    )


def test_the_command_prints_a_line_per_kind_and_runs_again_to_nothing(
    client: redis.Redis, url: str
) -> None:
    dry = run_cli("--redis", url, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [
        "registered bots: 1 read, 1 to upgrade",
        "hosted versions: 1 read, 1 to upgrade",
        "tournament specs: 3 read, 3 to upgrade",
        "match results: 2 read, 2 to upgrade",
        "tournaments' order index: 3 read, 1 to upgrade",
        "ratings tallies: 2 read, 2 to upgrade",
        "leaderboards: 2 read, 2 to upgrade",
    ]
    done = run_cli("--redis", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        line.replace("to upgrade", "upgraded") for line in dry.stdout.splitlines()
    ]
    again = run_cli("--redis", url)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == "nothing to upgrade: every record is of today's shape"
    assert "tournament specs: 3 read, 0 upgraded" in again.stdout.splitlines()
    assert TournamentStore(client).results(OLD)[1].team_fault_kinds is None


def test_the_command_fails_in_one_line_without_redis_or_on_a_record_it_cannot_mend(
    client: redis.Redis, url: str
) -> None:
    gone = run_cli("--redis", f"redis://127.0.0.1:{free_port()}/0")
    assert gone.returncode == 1 and gone.stdout == ""
    assert gone.stderr.startswith("arena: error: cannot reach the arena's Redis at 127.0.0.1:")
    assert len(gone.stderr.splitlines()) == 1

    client.hset(keys.results(OLD), "broken", json.dumps({**FIRST_RESULT, "scores": [1]}))
    broken = run_cli("--redis", url)
    assert broken.returncode == 1 and len(broken.stderr.splitlines()) == 1
    assert broken.stderr == (
        f"arena: error: cannot upgrade {keys.results(OLD)} 'broken': match result: field "
        "'scores': expected a list of integers (2 of them), got [1]\n"
    )
