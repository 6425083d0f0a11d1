"""``arena backup`` and ``arena restore`` on a real arena: a finished tournament copied
out of its Redis and into a fresh one, where an API serves it and ``arena tournament
verify`` passes; a restore that would overwrite, or reads a damaged file, changes
nothing."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from arena.local_redis import LocalRedis, start_redis
from arena.processes import arena_command, start_service
from tests.support.arena import Arena


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


@pytest.fixture
def fresh() -> Iterator[LocalRedis]:
    server = start_redis()
    yield server
    server.stop()


def contents(client: redis.Redis) -> dict[bytes, object]:
    """Every key's value, as its type reads (a restored hash may be laid out anew)."""
    read = {
        b"string": client.get,
        b"hash": client.hgetall,
        b"list": lambda key: client.lrange(key, 0, -1),
        b"set": client.smembers,
        b"zset": lambda key: client.zrange(key, 0, -1, withscores=True),
    }
    return {key: read[client.type(key)](key) for key in client.scan_iter()}  # type: ignore[index,no-untyped-call]


def test_a_backup_restored_into_a_fresh_redis_serves_and_verifies(
    arena: Arena, fresh: LocalRedis, tmp_path: Path
) -> None:
    arena.start_worker("w", concurrency=2)
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    tournament = arena.submit(["a", "b"], deals=2, games=["seep", "baloot"])
    arena.wait_until(tournament.id)
    for worker in arena.workers:  # a copy of one instant: nothing writes meanwhile
        worker.stop()
    arena.workers.clear()
    copy = tmp_path / "arena.backup"
    made = arena_cli("backup", "--redis", arena.redis_url, str(copy))
    assert made.returncode == 0, made.stderr
    kept = contents(arena.redis)
    assert made.stdout.strip() == f"{len(kept)} keys copied to {copy}"

    put = arena_cli("restore", "--redis", fresh.url(0), str(copy))
    assert put.returncode == 0, put.stderr
    restored = redis.Redis.from_url(fresh.url(0))
    assert contents(restored) == kept
    api = start_service(arena_command("api", "serve", "--port", "0", "--redis", fresh.url(0)))
    try:
        verified = arena_cli("tournament", "verify", tournament.id, "--api", api.address)
    finally:
        api.stop()
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "8 deal commitments OK; 8 match records re-run to their results" in verified.stdout

    # Into a database that holds keys: refused in one line, nothing changed.
    again = arena_cli("restore", "--redis", fresh.url(0), str(copy))
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1 and "holds" in again.stderr
    assert contents(restored) == kept


def test_a_damaged_or_foreign_file_is_refused_before_anything_is_written(
    local_redis: LocalRedis, fresh: LocalRedis, tmp_path: Path
) -> None:
    source = redis.Redis.from_url(local_redis.url(3))
    source.flushdb()
    source.set("arena:x", "1")
    source.rpush("arena:y", "a", "b")
    source.set("arena:z", "2", ex=600)
    copy = tmp_path / "small.backup"
    assert arena_cli("backup", "--redis", local_redis.url(3), str(copy)).returncode == 0
    cut = tmp_path / "cut.backup"
    cut.write_bytes(copy.read_bytes()[:-9])
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello\n")
    target = redis.Redis.from_url(fresh.url(5))
    for bad, says in ((cut, "cut short or damaged"), (foreign, "is not a card-arena backup")):
        refused = arena_cli("restore", "--redis", fresh.url(5), str(bad))
        assert refused.returncode == 1 and says in refused.stderr, refused.stderr
        assert refused.stderr.count("\n") == 1
        assert target.dbsize() == 0
    assert arena_cli("restore", "--redis", fresh.url(5), str(copy)).returncode == 0
    assert contents(target) == contents(source)
    assert 0 < target.ttl("arena:z") <= 600
