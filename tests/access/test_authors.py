"""Bot authors: the operator issues their tokens; an author submits bots of their own and
reads their logs once a tournament has ended; an author's token opens none of the
operator's calls; tokens are kept hashed, and a new one revokes the old."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis

from arena.hosting.transfer import submission
from arena.local_redis import LocalRedis
from arena.store import BotRegistry, RegisteredBot, TournamentStore
from arena.store.bot_logs import BotLogStore, SeatOutput
from arena.store.packages import HostedVersion, PackageStore
from arena.store.tournaments import FINISHED
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from tests.api.hosted import (
    OPERATOR,
    HostedApi,
    as_,
    python_package,
    refusal,
    request,
    start_api,
    stored,
)
from tests.records import result, spec

OP = as_(OPERATOR)
HOW = "send the metadata 'authorization: Bearer TOKEN' (the arena command: --token or $ARENA_API_TOKEN)"


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("authors"))
    yield started
    started.stop()


def author(api: HostedApi, name: str) -> tuple[tuple[str, str], ...]:
    """A new token for ``name``, as metadata."""
    issued = api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name), metadata=OP)
    assert issued.name == name and issued.token
    return as_(issued.token)


def registry_entry(api: HostedApi, name: str) -> arena_pb2.RegisteredBot:
    (bot,) = [b for b in api.stub.ListBots(arena_pb2.ListBotsRequest()).bots if b.name == name]
    return bot


def test_a_submission_needs_an_authors_token_or_the_operators(api: HostedApi) -> None:
    before = stored(api.redis)
    code, message = refusal(api.stub.SubmitBot, submission(request("anon", b"")))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert message == (
        f"SubmitBot needs an author's token or the operator's: {HOW}; the operator issues "
        "author tokens (`arena author add NAME`)"
    )
    code, message = refusal(
        api.stub.SubmitBot, submission(request("anon", b"")), metadata=as_("guess")
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("SubmitBot: the token is neither the operator's nor an author's")
    assert stored(api.redis) == before


def test_an_author_submits_bots_of_their_own_only(api: HostedApi, tmp_path: Path) -> None:
    ada, bob = author(api, "ada"), author(api, "bob")
    first = api.stub.SubmitBot(
        submission(request("ada-bot", python_package(tmp_path / "a1"))), metadata=ada
    )
    assert first.author == "ada"
    entry = registry_entry(api, "ada-bot")
    assert (entry.hosted, entry.author) == (True, "ada")

    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot, submission(request("ada-bot", b"", version="v2")), metadata=bob
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message == (
        "bot 'ada-bot' belongs to author 'ada': an author may submit new bots and new "
        "versions of their own (you are 'bob')"
    )
    # Ada herself gets as far as the label, which she has used already.
    code, _ = refusal(api.stub.SubmitBot, submission(request("ada-bot", b"")), metadata=ada)
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert stored(api.redis) == before

    # The operator may submit a version of anyone's bot; the bot stays its author's.
    by_operator = api.stub.SubmitBot(
        submission(request("ada-bot", python_package(tmp_path / "a2"), version="v2")), metadata=OP
    )
    assert by_operator.author == ""  # who submitted it
    assert registry_entry(api, "ada-bot").author == "ada"

    api.stub.SubmitBot(submission(request("op-bot", python_package(tmp_path / "op"))), metadata=OP)
    assert registry_entry(api, "op-bot").author == ""
    before = stored(api.redis)
    code, message = refusal(
        api.stub.SubmitBot, submission(request("op-bot", b"", "v2")), metadata=ada
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("bot 'op-bot' belongs to the operator: ")
    assert stored(api.redis) == before


def test_an_authors_token_opens_none_of_the_operators_calls(api: HostedApi) -> None:
    ada = author(api, "ada-again")
    BotRegistry(api.redis).put(
        RegisteredBot("op-remote", "127.0.0.1:5999", ("seep",), "random", "1", 0.0)
    )
    calls = {
        "RegisterBot": lambda md: api.stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name="x", address="127.0.0.1:1"), metadata=md
        ),
        "SubmitTournament": lambda md: api.stub.SubmitTournament(
            arena_pb2.SubmitTournamentRequest(), metadata=md
        ),
        "ResumeTournament": lambda md: api.stub.ResumeTournament(
            arena_pb2.ResumeTournamentRequest(id="t1"), metadata=md
        ),
        "CancelTournament": lambda md: api.stub.CancelTournament(
            arena_pb2.CancelTournamentRequest(id="t1"), metadata=md
        ),
        "AddAuthor": lambda md: api.stub.AddAuthor(
            arena_pb2.AddAuthorRequest(name="mallory"), metadata=md
        ),
    }
    before = stored(api.redis)
    for name, call in calls.items():
        code, message = refusal(call, ada)
        assert code == grpc.StatusCode.PERMISSION_DENIED, name
        assert message == f"{name}: the token is not valid; {HOW}"
        code, message = refusal(call, ())
        assert code == grpc.StatusCode.UNAUTHENTICATED, name
    # Authors remove bots of their own (tests/api/test_bot_storage.py), no one else's.
    code, message = refusal(
        api.stub.RemoveBot, arena_pb2.RemoveBotRequest(name="op-remote"), metadata=ada
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("bot 'op-remote' belongs to the operator: ")
    assert stored(api.redis) == before


def _every_byte(client: redis.Redis) -> list[bytes]:
    """Every key, field, member and value in the database."""
    found: list[bytes] = []
    for key in client.scan_iter():
        found.append(key)
        kind = client.type(key)
        if kind == b"string":
            found.append(client.get(key))  # type: ignore[arg-type]
        elif kind == b"hash":
            pairs: dict[bytes, bytes] = client.hgetall(key)  # type: ignore[assignment]
            for field, value in pairs.items():
                found += [field, value]
        elif kind == b"set":
            found += client.smembers(key)  # type: ignore[arg-type]
        elif kind == b"zset":
            found += client.zrange(key, 0, -1)  # type: ignore[arg-type]
        elif kind == b"list":
            found += client.lrange(key, 0, -1)  # type: ignore[arg-type]
        else:
            raise AssertionError(f"{key!r} is a {kind!r}: read it too")
    return found


def test_tokens_are_kept_hashed_and_a_new_one_revokes_the_old(api: HostedApi) -> None:
    old = api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name="carol"), metadata=OP).token
    kept = _every_byte(api.redis)
    assert not any(old.encode() in item for item in kept)
    assert hashlib.sha256(old.encode()).hexdigest().encode() in kept

    new = api.stub.AddAuthor(arena_pb2.AddAuthorRequest(name="carol"), metadata=OP).token
    assert new != old
    code, message = refusal(
        api.stub.SubmitBot, submission(request("carol-bot", b"")), metadata=as_(old)
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert "adding an author again replaces their token" in message
    # The new token is carol's: her call gets past who she is, to what she sent.
    code, message = refusal(
        api.stub.SubmitBot,
        submission(request("carol-bot", b"", version="not a label")),
        metadata=as_(new),
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("bad version")

    code, message = refusal(
        api.stub.AddAuthor, arena_pb2.AddAuthorRequest(name="carol smith"), metadata=OP
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message == "bad author name 'carol smith': use 1 to 40 letters, digits, '-', '_' or '.'"


TOURNAMENT = "t00000000a11c"
PLAYED = f"{TOURNAMENT}-seep-0-0-a"
UNPLAYED = f"{TOURNAMENT}-seep-0-0-b"


def _hosted(client: redis.Redis, name: str, author: str, sha256: str) -> None:
    """A hosted bot as SubmitBot stores it, without starting it."""
    games = ("seep",)
    BotRegistry(client).put(RegisteredBot(name, "", games, name, "1", 0.0, True, author))
    version = HostedVersion(
        name, "v1", "python3.11", "python3 bot.py", sha256, 1, author, 0.0, games, name, "1"
    )
    PackageStore(client).add_version(version)


def _tournament(client: redis.Redis) -> None:
    """A tournament in which dora-bot met op-logs once; the return match never ran."""
    entries = ("dora-bot@v1", "op-logs@v1")
    hosted = dict(zip(entries, ("d" * 64, "0" * 64), strict=True))
    matches = [
        ScheduledMatch(PLAYED, "seep", entries, 0, 1, PLAYED),
        ScheduledMatch(UNPLAYED, "seep", (entries[1], entries[0]), 0, 2, UNPLAYED),
    ]
    TournamentStore(client).create(TOURNAMENT, spec(entries, ["seep"], hosted), ["seep"], matches)
    TournamentStore(client).record_result(
        TOURNAMENT,
        result(
            match_id=PLAYED, tournament_id=TOURNAMENT, game="seep", entries=entries, scores=[1, 0]
        ),
        b"",
    )
    BotLogStore(client).put(
        TOURNAMENT,
        PLAYED,
        [
            SeatOutput(0, "dora-bot@v1", "dora: opening with the seven\n", False, "killed"),
            SeatOutput(1, "op-logs@v1", "operator's bot thinking\n", True, "SIGXCPU"),
        ],
    )


Metadata = tuple[tuple[str, str], ...]


def logs(api: HostedApi, bot: str, match: str, md: Metadata) -> arena_pb2.BotLogs:
    answer: arena_pb2.BotLogs = api.stub.GetBotLogs(
        arena_pb2.GetBotLogsRequest(bot=bot, match_id=match), metadata=md
    )
    return answer


def logs_refused(api: HostedApi, bot: str, match: str, md: Metadata) -> tuple[grpc.StatusCode, str]:
    return refusal(logs, api, bot, match, md)


def test_logs_are_for_the_bots_author_and_the_operator_once_the_tournament_ended(
    api: HostedApi,
) -> None:
    dora, eve = author(api, "dora"), author(api, "eve")
    _hosted(api.redis, "dora-bot", "dora", "d" * 64)
    _hosted(api.redis, "op-logs", "", "0" * 64)
    _hosted(api.redis, "eve-bot", "eve", "e" * 64)
    _tournament(api.redis)

    code, message = logs_refused(api, "dora-bot", PLAYED, dora)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert message == (
        f"tournament {TOURNAMENT} is still running (1 of 2 matches played): its logs are "
        "readable once it has finished or been cancelled, since a log could show a deal "
        "still to be played"
    )
    TournamentStore(api.redis).set_state(TOURNAMENT, FINISHED)

    mine = logs(api, "dora-bot", PLAYED, dora)
    assert (mine.bot, mine.match_id, mine.version) == ("dora-bot", PLAYED, "v1")
    assert [(s.seat, s.output, s.truncated, s.exit) for s in mine.seats] == [
        (0, "dora: opening with the seven\n", False, "killed")
    ]
    assert logs(api, "dora-bot", PLAYED, OP) == mine
    (theirs,) = logs(api, "op-logs", PLAYED, OP).seats
    assert (theirs.seat, theirs.truncated, theirs.exit) == (1, True, "SIGXCPU")

    refusals = {
        ("dora-bot", PLAYED, eve): (
            grpc.StatusCode.PERMISSION_DENIED,
            "the logs of 'dora-bot' are for its author ('dora') and the operator only",
        ),
        ("op-logs", PLAYED, dora): (
            grpc.StatusCode.PERMISSION_DENIED,
            "the logs of 'op-logs' are for the operator only: it has no author",
        ),
        ("dora-bot", PLAYED, ()): (
            grpc.StatusCode.UNAUTHENTICATED,
            f"GetBotLogs needs an author's token or the operator's: {HOW}",
        ),
        ("nobody", PLAYED, dora): (grpc.StatusCode.NOT_FOUND, "no bot 'nobody'"),
        ("dora-bot", f"{TOURNAMENT}-seep-9-0-a", dora): (
            grpc.StatusCode.NOT_FOUND,
            f"tournament {TOURNAMENT} has no match '{TOURNAMENT}-seep-9-0-a'",
        ),
        ("dora-bot", "t999999999999-seep-0-0-a", dora): (
            grpc.StatusCode.NOT_FOUND,
            "no tournament 't999999999999'",
        ),
        ("dora-bot", "../../etc/passwd", dora): (
            grpc.StatusCode.INVALID_ARGUMENT,
            "bad match id '../../etc/passwd': a match id is its tournament's id and the match's "
            "name",
        ),
        ("eve-bot", PLAYED, eve): (
            grpc.StatusCode.NOT_FOUND,
            f"'eve-bot' did not play match {PLAYED} (dora-bot@v1 against op-logs@v1)",
        ),
        ("dora-bot", UNPLAYED, dora): (
            grpc.StatusCode.NOT_FOUND,
            f"match {UNPLAYED} was never played (its tournament was cancelled first)",
        ),
    }
    for (bot, match, md), (code, start) in refusals.items():
        refused, message = logs_refused(api, bot, match, md)
        assert (refused, message[: len(start)]) == (code, start), (bot, match)

    # Removed, then its name taken by another author: the old bot's logs stay the
    # operator's, whatever label the new one uses.
    api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="dora-bot"), metadata=OP)
    _hosted(api.redis, "dora-bot", "eve", "f" * 64)
    code, message = logs_refused(api, "dora-bot", PLAYED, eve)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("dora-bot@v1 is not a version of 'dora-bot' as it is now")
    assert logs_refused(api, "dora-bot", PLAYED, dora)[0] == grpc.StatusCode.PERMISSION_DENIED
    assert logs(api, "dora-bot", PLAYED, OP).seats[0].seat == 0


def test_without_an_operator_token_everyone_is_the_operator(
    local_redis: LocalRedis, tmp_path: Path
) -> None:
    open_api = start_api(local_redis, tmp_path, token=None)
    try:
        # So it issues no author tokens, which would protect nothing, and says why.
        code, message = refusal(open_api.stub.AddAuthor, arena_pb2.AddAuthorRequest(name="anyone"))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert message.startswith("this API has no operator token, so every caller acts as")
        assert "arena token new" in message
        code, message = refusal(open_api.stub.SubmitBot, submission(request("x", b"", version="")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and message.startswith("bad version")
        code, _ = refusal(
            open_api.stub.GetBotLogs, arena_pb2.GetBotLogsRequest(bot="x", match_id="nope")
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        open_api.stop()


def test_an_author_removes_a_remote_bot_registered_for_them(api: HostedApi) -> None:
    """A remote bot the operator registered for an author is the author's to remove,
    and no other author's."""
    rita, sam = author(api, "rita"), author(api, "sam")
    BotRegistry(api.redis).put_remote(
        RegisteredBot("rita-remote", "10.0.0.9:50061", ("seep",), "r", "1", 0.0, author="rita")
    )
    code, message = refusal(
        api.stub.RemoveBot, arena_pb2.RemoveBotRequest(name="rita-remote"), metadata=sam
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("bot 'rita-remote' belongs to author 'rita': an author may remove")
    assert "the operator's token removes any bot" in message
    removed = api.stub.RemoveBot(arena_pb2.RemoveBotRequest(name="rita-remote"), metadata=rita)
    assert list(removed.versions) == []
    assert "rita-remote" not in {
        b.name for b in api.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    }
