"""The seed commitment is the one published at submission: every read serves it as
stored, so a master seed rewritten in the store afterwards fails ``tournament verify``
on the commitment itself, and ``--commitment`` pins what the caller saw published. The
digest published at the end over every result and record catches a result taken away
(each one left still checks out on its own)."""

from __future__ import annotations

import json
import subprocess

from arena.processes import arena_command
from arena.store import keys
from tests.support.arena import Arena


def verify(arena: Arena, tournament_id: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena_command("tournament", "verify", tournament_id, "--api", arena.api.address, *flags),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_rewritten_seed_fails_on_the_commitment_published_at_submission(arena: Arena) -> None:
    arena.start_worker("w")
    arena.start_bot("a", "random", "--seed", "1")
    arena.start_bot("b", "house")
    submitted = arena.submit(["a", "b"], games=["seep"])
    published = submitted.seed.commitment
    assert len(published) == 64
    t = arena.wait_until(submitted.id).id
    assert arena.get(t).seed.commitment == published
    ok = verify(arena, t, "--commitment", published.upper())
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.rstrip().endswith("match records re-run to their results; results digest OK")
    assert len(arena.get(t).results_digest) == 64

    results, logs = keys.results(t), keys.match_logs(t)
    gone: bytes = sorted(arena.redis.hkeys(results))[0]  # type: ignore[assignment]
    kept = arena.redis.hget(results, gone), arena.redis.hget(logs, gone)
    arena.redis.hdel(results, gone)
    arena.redis.hdel(logs, gone)
    arena.redis.zrem(keys.order(t), gone)
    removed = verify(arena, t)
    assert removed.returncode == 1 and "results digest mismatch: the results and records" in (
        removed.stderr
    )
    arena.redis.hset(results, gone, kept[0] or b"")
    arena.redis.hset(logs, gone, kept[1] or b"")
    arena.redis.zadd(keys.order(t), {gone: 0})
    assert verify(arena, t).returncode == 0

    other = "0" * 64
    pinned = verify(arena, t, "--commitment", other)
    assert pinned.returncode == 1
    assert f"seed commitment mismatch: {other} was published, but the arena now serves " in (
        pinned.stderr
    )
    bad = verify(arena, t, "--commitment", "xyz")
    assert bad.returncode == 2 and "a commitment is 64 hex digits, got 'xyz'" in bad.stderr

    key = keys.tournament(t)
    spec = json.loads(arena.redis.hget(key, "spec") or b"{}")
    spec["master_seed"] += 1  # rewritten in the store after the fact
    arena.redis.hset(key, "spec", json.dumps(spec))
    assert arena.get(t).seed.commitment == published  # served as stored, not worked out again
    caught = verify(arena, t)
    assert caught.returncode == 1
    assert f"seed commitment mismatch: master seed {spec['master_seed']} with salt" in caught.stderr
    assert f"but {published} was published" in caught.stderr
