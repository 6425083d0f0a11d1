"""Storage with bounds: authors' quotas on hosted bots (bots, versions, package bytes),
refused with RESOURCE_EXHAUSTED and nothing stored; removal of a bot or one version
deletes its packages from Redis unless another version uses them or a running tournament
still plays them, which keeps them until it no longer does. A real API over gRPC on a
real Redis, checking each submission in a real sandbox."""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
import redis

from arena.hosting.package import digest, pack
from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.quotas import AuthorQuotas, OverQuota
from arena.store import BotRegistry, RegisteredBot, TournamentStore
from arena.store import keys as redis_keys
from arena.store.bots import Published
from arena.store.packages import HostedVersion, PackageStore
from arena.store.removal import Gone, Removal
from arena.store.tournaments import FINISHED
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import LADDER, Entry, HostedPackage
from arena.v1 import arena_pb2
from tests.api.hosted import (
    OPERATOR,
    HostedApi,
    as_,
    python_bot,
    refusal,
    request,
    start_api,
)
from tests.records import result, spec

OP = as_(OPERATOR)
KiB = 1 << 10
QUOTAS = ("--author-max-bots", "2", "--author-max-versions", "2", "--author-max-bytes", "100KiB")
HOUSE = """
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve
    serve(HouseBot())
"""


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("bot-storage"), extra=QUOTAS)
    yield started
    started.stop()


def author(api: HostedApi, name: str) -> tuple[tuple[str, str], ...]:
    issued = api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name), metadata=OP)
    return as_(issued.token)


def package(directory: Path, padding: int = 0, source: str | None = None) -> bytes:
    """A package of its own (the directory's name is in it), with ``padding`` random,
    incompressible bytes to give it a size."""
    bot = python_bot(directory) if source is None else python_bot(directory, source)
    (bot / "marker.txt").write_text(str(directory))
    if padding:
        (bot / "weights.bin").write_bytes(os.urandom(padding))
    return pack(bot)


def blob_key(blob: bytes) -> str:
    return redis_keys.package(digest(blob))


def keys(client: redis.Redis) -> set[bytes]:
    return set(client.scan_iter())


def stored(client: redis.Redis) -> dict[bytes, object]:
    """Every key and what it holds, to show that nothing changed: by content, since a
    hash's serialized form (``tests.api.hosted.stored``) changes as Redis rehashes it."""
    found: dict[bytes, object] = {}
    for key in client.scan_iter():
        kind = client.type(key)
        found[key] = (
            client.hgetall(key) if kind == b"hash"
            else client.smembers(key) if kind == b"set"
            else client.zrange(key, 0, -1, withscores=True) if kind == b"zset"
            else client.lrange(key, 0, -1) if kind == b"list"
            else client.get(key)
        )  # fmt: skip
    return found


def versions(api: HostedApi, name: str) -> list[str]:
    listed = api.stub.ListBotVersions(arena_pb2.ListBotVersionsRequest(name=name))
    return [v.version for v in listed.versions]


def bot_names(api: HostedApi) -> set[str]:
    return {b.name for b in api.stub.ListBots(arena_pb2.ListBotsRequest()).bots}


# Quotas


def test_an_author_past_the_quota_of_bots_is_refused_and_nothing_is_stored(
    api: HostedApi, tmp_path: Path
) -> None:
    ana = author(api, "ana")
    for name in ("ana-1", "ana-2"):
        api.stub.SubmitBot(submission(request(name, package(tmp_path / name))), metadata=ana)
    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot, submission(request("ana-3", package(tmp_path / "ana-3"))), metadata=ana
    )
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message == (
        "quota of hosted bots reached: author 'ana' has 2 (ana-1, ana-2), at most 2 allowed; "
        "remove one (`arena bot remove NAME`), or submit this as a new version of one"
    )
    assert stored(api.redis) == before
    # A new version of one of them is no new bot.
    api.stub.SubmitBot(
        submission(request("ana-1", package(tmp_path / "ana-1b"), "v2")), metadata=ana
    )


def test_an_author_past_the_quota_of_versions_is_refused_until_one_is_removed(
    api: HostedApi, tmp_path: Path
) -> None:
    ben = author(api, "ben")
    for label in ("v1", "v2"):
        api.stub.SubmitBot(
            submission(request("ben-bot", package(tmp_path / label), label)), metadata=ben
        )
    third = request("ben-bot", package(tmp_path / "v3"), "v3")
    before = stored(api.redis)
    code, message = refusal(api.stub.SubmitBot, submission(third), metadata=ben)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message == (
        "quota of versions per bot reached: 'ben-bot' has 2, at most 2 allowed; remove one "
        "it no longer needs (`arena bot remove ben-bot --version V`; `arena bot versions "
        "ben-bot` lists them)"
    )
    assert stored(api.redis) == before

    api.stub.RemoveBotVersion(
        arena_pb2.RemoveBotVersionRequest(name="ben-bot", version="v1"), metadata=ben
    )
    assert api.stub.SubmitBot(submission(third), metadata=ben).version == "v3"
    assert versions(api, "ben-bot") == ["v3", "v2"]


def test_an_author_past_the_quota_of_bytes_is_refused_and_a_package_counts_once(
    api: HostedApi, tmp_path: Path
) -> None:
    cy = author(api, "cy")
    first, second = package(tmp_path / "p1", 40 * KiB), package(tmp_path / "p2", 40 * KiB)
    api.stub.SubmitBot(submission(request("cy-a", first)), metadata=cy)
    api.stub.SubmitBot(submission(request("cy-b", second)), metadata=cy)
    third = package(tmp_path / "p3", 40 * KiB)
    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot, submission(request("cy-a", third, "v2")), metadata=cy
    )
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    used = len(first) + len(second)
    assert message == (
        f"quota of package bytes reached: author 'cy' stores {used:,} bytes of packages, at "
        f"most {100 * KiB:,} allowed, and this one adds {len(third):,}; remove versions "
        "(`arena bot remove NAME --version V`) or bots (`arena bot remove NAME`) no longer "
        "needed (a package counts once, however many versions use it)"
    )
    assert stored(api.redis) == before
    # The same bytes again are stored once, and counted once.
    api.stub.SubmitBot(submission(request("cy-a", second, "v2")), metadata=cy)
    assert api.redis.exists(blob_key(second)) == 1


def test_two_submissions_at_once_cannot_both_slip_under_a_quota(
    api: HostedApi, local_redis: LocalRedis, tmp_path: Path
) -> None:
    """One API takes one SubmitBot of an author at a time; two APIs on one store may
    each take one, and the store still lets only one through."""
    dot = author(api, "dot")
    api.stub.SubmitBot(submission(request("dot-1", package(tmp_path / "dot-1"))), metadata=dot)
    (tmp_path / "other").mkdir()
    other = start_api(local_redis, tmp_path / "other", extra=QUOTAS, url=api.url)
    # Both pass the first check, made before their sandboxes start: one bot is left.
    submissions = [request(n, package(tmp_path / n)) for n in ("dot-2", "dot-3")]
    outcomes: list[grpc.StatusCode] = []

    def submit(server: HostedApi, whole: arena_pb2.SubmitBotRequest) -> None:
        try:
            server.stub.SubmitBot(submission(whole), metadata=dot)
            outcomes.append(grpc.StatusCode.OK)
        except grpc.RpcError as error:
            outcomes.append(error.code())

    threads = [
        threading.Thread(target=submit, args=(server, whole))
        for server, whole in zip((api, other), submissions, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=str) == sorted(
        [grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED], key=str
    )
    other.stop()
    assert len({"dot-2", "dot-3"} & bot_names(api)) == 1


def test_the_operator_has_no_quotas(api: HostedApi, tmp_path: Path) -> None:
    eve = author(api, "eve")
    for label in ("v1", "v2"):
        api.stub.SubmitBot(
            submission(request("eve-bot", package(tmp_path / label), label)), metadata=eve
        )
    # The operator may add a third version of eve's bot, and any number of bots.
    api.stub.SubmitBot(submission(request("eve-bot", package(tmp_path / "v3"), "v3")), metadata=OP)
    for name in ("house-1", "house-2", "house-3"):
        api.stub.SubmitBot(
            submission(request(name, package(tmp_path / name, 60 * KiB))), metadata=OP
        )
    assert {"house-1", "house-2", "house-3"} <= bot_names(api)
    # Which still count against eve, whose bot it is.
    code, _ = refusal(
        api.stub.SubmitBot,
        submission(request("eve-bot", package(tmp_path / "v4"), "v4")),
        metadata=eve,
    )
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


# Removal


def test_removing_a_bot_deletes_its_versions_and_packages_from_redis(
    api: HostedApi, tmp_path: Path
) -> None:
    fay = author(api, "fay")
    before = keys(api.redis)
    one, two = package(tmp_path / "one", 20 * KiB), package(tmp_path / "two", 20 * KiB)
    api.stub.SubmitBot(submission(request("fay-bot", one)), metadata=fay)
    api.stub.SubmitBot(submission(request("fay-bot", two, "v2")), metadata=fay)
    assert int(api.redis.memory_usage(blob_key(one)) or 0) >= len(one)

    removed = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="fay-bot"), metadata=fay)
    assert list(removed.versions) == ["v1", "v2"]
    assert removed.packages.freed_bytes == len(one) + len(two)
    assert (removed.packages.kept_bytes, list(removed.packages.kept_for)) == (0, [])
    # Nothing of it is left: no package, no version, no note of either.
    assert keys(api.redis) == before
    assert "fay-bot" not in bot_names(api)


def test_a_package_another_version_uses_stays_until_the_last_one_goes(
    api: HostedApi, tmp_path: Path
) -> None:
    shared = package(tmp_path / "shared", 10 * KiB)
    api.stub.SubmitBot(submission(request("twin-a", shared)), metadata=OP)
    api.stub.SubmitBot(submission(request("twin-b", shared)), metadata=OP)
    first = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="twin-a"), metadata=OP)
    assert (first.packages.freed_bytes, first.packages.kept_bytes) == (0, 0)
    assert api.redis.get(blob_key(shared)) == shared
    last = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="twin-b"), metadata=OP)
    assert last.packages.freed_bytes == len(shared)
    assert not api.redis.exists(blob_key(shared))


def test_removing_a_version_deletes_its_package_and_the_bot_goes_with_its_last_one(
    api: HostedApi, tmp_path: Path
) -> None:
    gil = author(api, "gil")
    before = keys(api.redis)
    random_bot = package(tmp_path / "random")
    house = package(tmp_path / "house", source=HOUSE)
    api.stub.SubmitBot(submission(request("gil-bot", random_bot)), metadata=gil)
    api.stub.SubmitBot(submission(request("gil-bot", house, "v2")), metadata=gil)

    # The newest goes: the registry says what the one left said at its Hello.
    removed = api.stub.RemoveBotVersion(
        arena_pb2.RemoveBotVersionRequest(name="gil-bot", version="v2"), metadata=gil
    )
    assert not removed.bot_removed and removed.packages.freed_bytes == len(house)
    assert not api.redis.exists(blob_key(house)) and api.redis.exists(blob_key(random_bot))
    assert versions(api, "gil-bot") == ["v1"]
    (entry,) = [
        b for b in api.stub.ListBots(arena_pb2.ListBotsRequest()).bots if b.name == "gil-bot"
    ]
    assert entry.hello_name == "random"

    # A label names one package for good: v2 is not given out again.
    code, message = refusal(
        api.stub.SubmitBot, submission(request("gil-bot", house, "v2")), metadata=gil
    )
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert message.startswith("bot 'gil-bot' had a version 'v2', since removed: ")

    code, message = refusal(
        api.stub.RemoveBotVersion,
        arena_pb2.RemoveBotVersionRequest(name="gil-bot", version="v9"),
        metadata=gil,
    )
    assert (code, message) == (
        grpc.StatusCode.NOT_FOUND,
        "bot 'gil-bot' has no version 'v9' (`arena bot versions gil-bot` lists them)",
    )

    last = api.stub.RemoveBotVersion(
        arena_pb2.RemoveBotVersionRequest(name="gil-bot", version="v1"), metadata=gil
    )
    assert last.bot_removed and last.packages.freed_bytes == len(random_bot)
    assert "gil-bot" not in bot_names(api)
    assert keys(api.redis) == before  # the removed labels went with the bot


def test_an_author_removes_bots_of_their_own_only(api: HostedApi, tmp_path: Path) -> None:
    hal, ivy = author(api, "hal"), author(api, "ivy")
    api.stub.SubmitBot(submission(request("hal-bot", package(tmp_path / "hal"))), metadata=hal)
    api.stub.SubmitBot(submission(request("op-owned", package(tmp_path / "op"))), metadata=OP)
    before = stored(api.redis)
    remove = arena_pb2.RemoveBotRequest(name="hal-bot")
    one = arena_pb2.RemoveBotVersionRequest(name="hal-bot", version="v1")
    calls = {
        "RemoveBot": lambda md: api.stub.RemoveBot(remove, metadata=md),
        "RemoveBotVersion": lambda md: api.stub.RemoveBotVersion(one, metadata=md),
    }
    for method, call in calls.items():
        code, message = refusal(call, ivy)
        assert code == grpc.StatusCode.PERMISSION_DENIED
        assert message == (
            "bot 'hal-bot' belongs to author 'hal': an author may remove bots of their own, "
            "and their versions, only (you are 'ivy'); the operator's token removes any bot"
        )
        code, message = refusal(call, ())
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert message.startswith(f"{method} needs an author's token or the operator's")
    code, message = refusal(
        api.stub.RemoveBot, arena_pb2.RemoveBotRequest(name="op-owned"), metadata=hal
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("bot 'op-owned' belongs to the operator: ")
    assert stored(api.redis) == before

    # The operator removes anyone's.
    api.stub.RemoveBot(remove, metadata=OP)
    api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="op-owned"), metadata=OP)
    assert not {"hal-bot", "op-owned"} & bot_names(api)
    code, _ = refusal(api.stub.RemoveBot, remove, metadata=OP)
    assert code == grpc.StatusCode.NOT_FOUND


def test_a_version_a_running_tournament_plays_is_removed_and_its_package_kept_until_it_ends(
    api: HostedApi, tmp_path: Path
) -> None:
    jo = author(api, "jo")
    blob = package(tmp_path / "played", 10 * KiB)
    api.stub.SubmitBot(submission(request("jo-bot", blob)), metadata=jo)
    api.stub.SubmitBot(
        submission(request("jo-bot", package(tmp_path / "newer"), "v2")), metadata=jo
    )
    sha = digest(blob)
    tournament = "t00000000a11e"
    store = TournamentStore(api.redis)
    store.create(tournament, spec(("jo-bot@v1", "x"), hosted={"jo-bot@v1": sha}), ["seep"])

    removed = api.stub.RemoveBotVersion(
        arena_pb2.RemoveBotVersionRequest(name="jo-bot", version="v1"), metadata=jo
    )
    assert removed.packages.freed_bytes == 0
    assert removed.packages.kept_bytes == len(blob)
    assert list(removed.packages.kept_for) == [tournament]
    assert versions(api, "jo-bot") == ["v2"]  # the version itself is gone
    # What a worker reads when a referee lacks the package (workers.tasks._play):
    assert PackageStore(api.redis).blob(sha) == blob

    api.stub.CancelTournament(arena_pb2.CancelTournamentRequest(id=tournament), metadata=OP)
    assert not api.redis.exists(blob_key(blob))
    assert not api.redis.exists(redis_keys.removed_packages())


def test_a_kept_package_goes_at_the_first_sweep_after_its_tournament_finishes(
    api: HostedApi, tmp_path: Path
) -> None:
    blob = package(tmp_path / "finishing", 10 * KiB)
    api.stub.SubmitBot(submission(request("kim-bot", blob)), metadata=OP)
    tournament = "t00000000f1e1"
    store = TournamentStore(api.redis)
    store.create(
        tournament, spec(("kim-bot@v1", "x"), hosted={"kim-bot@v1": digest(blob)}), ["seep"]
    )
    match = ScheduledMatch(f"{tournament}-seep-0-0-a", "seep", ("kim-bot@v1", "x"), 0, 1, "k")
    store.record_result(
        tournament,
        result(match_id=match.match_id, tournament_id=tournament, game="seep",
               entries=["kim-bot@v1", "x"], scores=[1, 0], winner_team=0), b"",
    )  # fmt: skip
    removed = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="kim-bot"), metadata=OP)
    assert list(removed.packages.kept_for) == [tournament]

    store.set_state(tournament, FINISHED)  # as the workers' scheduler does
    Removal(api.redis).sweep()  # as the API does every minute
    assert not api.redis.exists(blob_key(blob))
    # The finished tournament reads as before: it never needed the package.
    record = api.stub.GetTournament(arena_pb2.GetTournamentRequest(id=tournament))
    assert list(record.spec.entries) == ["kim-bot@v1", "x"]
    (played,) = api.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=tournament)).results
    assert list(played.entries) == ["kim-bot@v1", "x"] and played.winner_team == 0
    board = api.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=tournament))
    assert {row.bot for row in board.rows} == {"kim-bot@v1", "x"}


def test_a_ladder_keeps_a_removed_package_while_its_matches_are_out(
    api: HostedApi, tmp_path: Path
) -> None:
    blob = package(tmp_path / "laddered", 10 * KiB)
    api.stub.SubmitBot(submission(request("lad-bot", blob)), metadata=OP)
    ladder = "t0000000ladd0"
    store = TournamentStore(api.redis)
    match = ScheduledMatch(f"{ladder}-ladder-0-a", "seep", ("lad-bot@v1", "x"), 0, 1, "l")
    store.create(ladder, spec((), format=LADDER), ["seep"], [match], total=0)
    store.set_lineup(ladder, [Entry("lad-bot@v1", ("seep",), hosted=HostedPackage(
        digest(blob), "python3.11", "python3 bot.py"))])  # fmt: skip

    removed = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="lad-bot"), metadata=OP)
    assert list(removed.packages.kept_for) == [ladder]
    # The match is played, but a step under way may have read the registry before the
    # removal and be handing out more: nothing goes.
    api.redis.set(redis_keys.scheduling(ladder), "held")
    store.record_result(ladder, result(match_id=match.match_id, tournament_id=ladder,
                                       game="seep", entries=["lad-bot@v1", "x"],
                                       scores=[0, 0]), b"")  # fmt: skip
    assert Removal(api.redis).sweep().kept == {digest(blob): (ladder,)}
    assert api.redis.exists(blob_key(blob))
    # Once the step is over, the ladder plays it no more.
    api.redis.delete(redis_keys.scheduling(ladder))
    Removal(api.redis).sweep()
    assert not api.redis.exists(blob_key(blob))
    store.set_state(ladder, "cancelled")


def test_the_quota_is_checked_again_in_the_transaction_that_stores_the_version(
    api: HostedApi,
) -> None:
    """What the concurrent submissions above race for, without the race: the check made
    before the sandbox started has passed, and the author has used the room since."""
    registry = BotRegistry(api.redis)
    bot = RegisteredBot("lou-bot", "", ("seep",), "random", "1", 0.0, hosted=True, author="lou")
    version = HostedVersion(
        "lou-bot", "v1", "python3.11", "python3 bot.py", "e" * 64, 10, "lou", 0.0, ("seep",),
        "random", "1",
    )  # fmt: skip
    before = stored(api.redis)
    with pytest.raises(OverQuota, match="quota of hosted bots reached: author 'lou' has 0"):
        registry.publish(bot, version, b"x" * 10, None, AuthorQuotas(bots=0))
    with pytest.raises(OverQuota, match="quota of package bytes reached"):
        registry.publish(bot, version, b"x" * 10, None, AuthorQuotas(bytes=9))
    assert stored(api.redis) == before
    assert registry.publish(bot, version, b"x" * 10, None, AuthorQuotas()) is Published.DONE
    api.redis.delete(redis_keys.package("e" * 64), redis_keys.hosted("lou-bot"))
    api.redis.hdel(redis_keys.bots(), "lou-bot")


def test_many_bots_stored_and_removed_at_once_all_go_through(api: HostedApi) -> None:
    """Every transaction watches the registry hash all bots share, so one bot's change
    fails another's WATCH: the store looks again rather than calling that a change to
    the submitter's own bot (a competition's opening, four authors submitting at once,
    had one refused ABORTED)."""
    registry, removal = BotRegistry(api.redis), Removal(api.redis)
    names = [f"rush-{i}" for i in range(24)]

    def version(name: str) -> HostedVersion:
        return HostedVersion(
            name, "v1", "python3.11", "python3 bot.py", digest(name.encode()), 10, name, 0.0,
            ("seep",), "random", "1",
        )  # fmt: skip

    def entry(name: str) -> RegisteredBot:
        return RegisteredBot(name, "", ("seep",), "random", "1", 0.0, hosted=True, author=name)

    def publish(name: str) -> Published:
        return registry.publish(entry(name), version(name), name.encode(), None, AuthorQuotas())

    def remove(name: str) -> object:
        return removal.remove_bot(entry(name))

    with ThreadPoolExecutor(len(names)) as pool:
        assert set(pool.map(publish, names)) == {Published.DONE}
        assert {name for name in names if registry.get(name)} == set(names)
        # Half of them removed while as many new ones are stored.
        removed = [pool.submit(remove, name) for name in names[::2]]
        added = [pool.submit(publish, f"{name}-again") for name in names[::2]]
        assert not any(isinstance(done.result(), Gone) for done in removed)
        assert {done.result() for done in added} == {Published.DONE}
    left = {bot.name for bot in registry.all() if bot.name.startswith("rush-")}
    assert left == set(names[1::2]) | {f"{name}-again" for name in names[::2]}
    for name in left:
        removal.remove_bot(entry(name))


def test_the_lock_the_sweep_waits_for_is_the_one_the_scheduler_steps_under() -> None:
    """The sweep names the scheduler's lock without importing the workers (Celery)."""
    from workers import scheduler

    taken = inspect.getsource(scheduler.advance)
    assert "exclusive(keys.scheduling(tournament_id)" in taken
    assert "keys.scheduling(" in inspect.getsource(Removal.sweep)
