"""Hosted bots through a real referee: PlayMatch names packages instead of addresses,
and the referee starts each seat in a sandbox of its own for that one match, keeps the
packages it was sent, hands the caller each seat's output, and leaves no process behind
however the match ends. Real sandboxes, real gRPC over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from arena import wire
from arena.bot_networks import BotNetworks
from arena.bots.examples.house import HouseBot
from arena.bots.sdk import start as start_bot
from arena.hosting.example_packages import HOUSE_BOT, python_package
from arena.hosting.package import digest, pack
from arena.hosting.pool import Launch, SandboxPool
from arena.hosting.runtimes import runtime
from arena.hosting.sandbox import Limits, Sandbox
from arena.hosting.transfer import upload
from arena.referee.hosted import KILLED
from arena.referee.service import start_server
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.support.hosted_matches import Package, logs_by_seat, play, referee, request
from tests.support.sandbox import processes_of

"""One hand of Bid Euchre: about 30 decisions."""
UNREACHABLE = referee_pb2.FAULT_KIND_UNREACHABLE
COUNTING_HOUSE = """
    import time, uuid
    print(f"started at {time.time()!r} as {uuid.uuid4().hex}", flush=True)
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    class Counting(HouseBot):
        seen = []

        def act(self, request):
            if request.match_id not in self.seen:
                self.seen.append(request.match_id)
                print(f"playing match {len(self.seen)}", flush=True)
            return super().act(request)

    serve(Counting())
"""
QUITTER = """
    import os
    print("my secret plan: lead trumps", flush=True)
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    class Quitter(HouseBot):
        acts = 0

        def act(self, request):
            self.acts += 1
            if self.acts == 3:
                os._exit(3)
            return super().act(request)

    serve(Quitter())
"""
CRASHER = """
    import sys
    print("no strategy yet", file=sys.stderr)
    sys.exit(2)
"""
SLOW = """
    import time
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    class Slow(HouseBot):
        def act(self, request):
            time.sleep(0.3)
            return super().act(request)

    serve(Slow())
"""


async def watched(stub: referee_pb2_grpc.RefereeAsyncStub, match_id: str) -> str:
    """Everything a watcher of a finished match sees, as text."""
    events = [e async for e in stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id=match_id))]
    return str(events)


def test_two_hosted_entries_play_a_match_with_every_seats_output(tmp_path: Path) -> None:
    house = Package(tmp_path / "house", HOUSE_BOT)
    # Remote bots over TLS, in one network only: a sandbox's socket is on this host,
    # dialled without TLS and whatever the policy says.
    tls = grpc.ssl_channel_credentials()
    nowhere = BotNetworks(allow=(ipaddress.ip_network("192.0.2.0/24"),))

    async def scenario() -> referee_pb2.MatchResult:
        async with referee(tmp_path, bot_credentials=tls, bot_networks=nowhere) as (stub, _):
            return await play(stub, ["", ""], {0: house.entry(), 1: house.entry()})

    result = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_COMPLETED and not result.faults
    assert [list(t.bots) for t in result.teams] == [["", ""], ["", ""]]  # no socket, ever
    logs = logs_by_seat(result)
    assert sorted(logs) == [0, 1, 2, 3]
    for log in logs.values():
        assert b"bot house listening" in log.output
        assert log.exit == KILLED and not log.truncated
    assert processes_of(tmp_path / "hosting") == []


def test_a_hosted_bot_plays_a_remote_one_and_its_output_is_capped(tmp_path: Path) -> None:
    chatty = Package(tmp_path / "chatty", 'print("x" * 5000, flush=True)\n' + HOUSE_BOT)

    async def scenario() -> tuple[referee_pb2.MatchResult, str]:
        remote, port = await start_bot(HouseBot(), port=0)
        try:
            async with referee(tmp_path, sandbox_limits=Limits(log_bytes=1000)) as (stub, _):
                result = await play(
                    stub,
                    ["", f"127.0.0.1:{port}"],
                    {0: chatty.entry()},
                    bot_names=["chatty", "remote"],
                    match_id="hosted-vs-remote",
                )
                return result, await watched(stub, "hosted-vs-remote")
        finally:
            await remote.stop(None)

    result, seen = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_COMPLETED and not result.faults
    assert list(result.teams[0].bots) == ["", ""]
    assert list(result.teams[1].bots) == [result.teams[1].bots[0]] * 2 != ["", ""]
    logs = logs_by_seat(result)
    assert sorted(logs) == [0, 2]  # the hosted seats only
    for log in logs.values():
        assert log.output == b"x" * 1000 and log.truncated and log.exit == KILLED
    assert "x" * 20 not in seen and "unix:" not in seen and "seat_logs" not in seen


def test_a_package_is_sent_once_and_kept(tmp_path: Path) -> None:
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> list[referee_pb2.MatchResult]:
        async with referee(tmp_path) as (stub, _):
            bare = {0: house.entry(with_bytes=False)}
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await play(stub, ["", ""], {0: bare[0], 1: bare[0]}, match_id="resent")
            assert missing.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert (missing.value.details() or "").startswith(
                f"package {house.sha256} is not on this referee"
            )
            # The caller sends it again, bytes and all, under the same match id; after
            # that, the digest is enough.
            return [
                await play(stub, ["", ""], {0: house.entry(), 1: bare[0]}, match_id="resent"),
                await play(stub, ["", ""], {0: bare[0], 1: bare[0]}),
            ]

    for result in asyncio.run(scenario()):
        assert result.end == referee_pb2.MATCH_END_COMPLETED and len(result.seat_logs) == 4


def _bad_requests(
    tmp_path: Path,
) -> list[tuple[list[str], dict[int, referee_pb2.HostedBot], str]]:
    house = Package(tmp_path / "house", HOUSE_BOT)
    other = Package(tmp_path / "other", "print('another bot')\n")
    remote = "127.0.0.1:50051"
    garbage = b"not a tar.gz"
    return [
        ([remote, ""], {5: house.entry()}, "hosted[5] names no entry of bots"),
        ([remote, ""], {-1: house.entry()}, "hosted[-1] names no entry of bots"),
        (
            [remote, remote],
            {0: house.entry()},
            "bots[0] is '127.0.0.1:50051', but hosted[0] hosts that bot: leave a hosted "
            "entry's address empty",
        ),
        ([remote, ""], {1: house.entry(package_sha256="abc123")}, "is not a SHA-256"),
        (
            [remote, ""],
            {1: house.entry(package_sha256=house.sha256.upper())},
            "64 lowercase hex digits",
        ),
        (
            [remote, ""],
            {1: house.entry(package_sha256=other.sha256)},
            f"hosted[1].package: its SHA-256 is {house.sha256}, not the package_sha256 given",
        ),
        (
            [remote, ""],
            {1: house.entry(runtime="ruby3")},
            "hosted[1].runtime 'ruby3' is not on the allow-list; allowed: python3.11, node20, "
            "binary",
        ),
        (
            [remote, ""],
            {1: house.entry(command="python3 strategy.py")},
            "hosted[1].command 'python3 strategy.py': the command runs 'strategy.py', which "
            "is not in the package",
        ),
        ([remote, ""], {1: house.entry(command="")}, "the command is empty"),
        (
            [remote, ""],
            {
                1: referee_pb2.HostedBot(
                    package_sha256=digest(garbage),
                    runtime="python3.11",
                    command="x",
                    package=garbage,
                )
            },
            "hosted[1].package: the package is not a readable tar.gz",
        ),
        (
            ["unix:/tmp/somebody-else.sock", ""],
            {1: house.entry()},
            "bot address 'unix:/tmp/somebody-else.sock' is a Unix socket",
        ),
        (["", remote], {}, "bots[0] is empty, and hosted has no entry 0"),
    ]


def test_bad_hosted_entries_are_invalid_arguments_that_say_what_is_allowed(
    tmp_path: Path,
) -> None:
    cases = _bad_requests(tmp_path)

    async def scenario() -> list[tuple[grpc.StatusCode, str]]:
        answers = []
        async with referee(tmp_path) as (stub, _):
            for bots, hosted, _expected in cases:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await play(stub, bots, hosted)
                answers.append((refused.value.code(), refused.value.details() or ""))
        return answers

    for (_, _, expected), (code, details) in zip(cases, asyncio.run(scenario()), strict=True):
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert expected in details, details
    assert processes_of(tmp_path / "hosting") == []


def test_a_bot_that_crashes_at_start_forfeits_and_only_the_caller_reads_why(
    tmp_path: Path,
) -> None:
    crasher = Package(tmp_path / "crasher", CRASHER)
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> tuple[referee_pb2.MatchResult, str, str]:
        async with referee(tmp_path) as (stub, _):
            result = await play(
                stub, ["", ""], {0: house.entry(), 1: crasher.entry()}, match_id="crash"
            )
            replay = await stub.GetReplay(referee_pb2.GetReplayRequest(replay_id="crash"))
            return result, await watched(stub, "crash"), replay.json

    result, seen, replay = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 1
    assert [f.seat for f in result.faults] == [1, 3] and result.decisions == 0
    for fault in result.faults:
        assert fault.kind == UNREACHABLE
        assert fault.detail.startswith("the bot exited with status 2")
        assert fault.detail.endswith("no strategy yet")  # its own words, for the caller
    logs = logs_by_seat(result)
    assert logs[1].output == logs[3].output == b"no strategy yet\n"
    assert logs[1].exit == "did not start: the bot exited with status 2"
    assert logs[0].exit == KILLED  # the other team's sandboxes were started, then ended
    for public in (seen, replay):
        assert "the bot exited with status 2" in public
        assert "no strategy yet" not in public and "unix:" not in public
    assert processes_of(tmp_path / "hosting") == []


def test_a_bot_whose_process_dies_mid_match_forfeits_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    quitter = Package(tmp_path / "quitter", QUITTER)
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> tuple[referee_pb2.MatchResult, str]:
        async with referee(tmp_path) as (stub, _):
            result = await play(
                stub, ["", ""], {0: quitter.entry(), 1: house.entry()}, match_id="quits"
            )
            return result, await watched(stub, "quits")

    result, seen = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == 0
    assert len(result.faults) == 3 and {f.seat for f in result.faults} == {0, 2}
    assert all(f.kind == UNREACHABLE for f in result.faults)
    assert "the bot's process ended: status 3" in result.faults[-1].detail
    logs = logs_by_seat(result)
    assert logs[0].exit == logs[2].exit == "status 3"
    assert b"my secret plan" in logs[0].output
    assert logs[1].exit == logs[3].exit == KILLED
    assert "status 3" in seen
    assert "my secret plan" not in seen and "unix:" not in seen and "arena-sandboxes" not in seen
    assert processes_of(tmp_path / "hosting") == []


def test_a_cancelled_match_ends_its_sandboxes(tmp_path: Path) -> None:
    slow = Package(tmp_path / "slow", SLOW)
    hosting = tmp_path / "hosting"

    async def scenario() -> list[int]:
        async with referee(tmp_path) as (stub, _):
            call = stub.PlayMatch(
                request(["", ""], {0: slow.entry(), 1: slow.entry()}, match_id="cancelled")
            )
            while not processes_of(hosting):  # its sandboxes are starting
                await asyncio.sleep(0.05)
            follow = stub.WatchMatch(referee_pb2.WatchMatchRequest(match_id="cancelled"))
            async for event in follow:  # in play: the sandboxes are up and answering
                if event.kind == referee_pb2.MATCH_EVENT_KIND_GAME:
                    break
            call.cancel()
            for _ in range(400):  # the referee ends them as the call's end reaches it
                if not processes_of(hosting):
                    break
                await asyncio.sleep(0.05)
            return processes_of(hosting)

    assert asyncio.run(scenario()) == []


def test_a_referee_stopped_while_sandboxes_start_leaves_no_process(tmp_path: Path) -> None:
    slow = Package(tmp_path / "slow", SLOW)
    hosting = tmp_path / "hosting"

    async def scenario() -> None:
        async with referee(tmp_path) as (stub, _):
            call = stub.PlayMatch(request(["", ""], {0: slow.entry(), 1: slow.entry()}))
            while not processes_of(hosting):
                await asyncio.sleep(0.01)
        call.cancel()

    asyncio.run(scenario())
    assert processes_of(hosting) == []  # the stop waited for every match to clean up


def test_a_sandbox_start_cut_short_at_any_moment_leaves_no_process(tmp_path: Path) -> None:
    package = python_package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> list[int]:
        for step in range(12):  # from before bubblewrap runs to the bot importing the SDK
            starting = asyncio.create_task(
                Sandbox.start(
                    package, runtime("python3.11"), ["python3", "bot.py"], tmp_path / "log"
                )
            )
            await asyncio.sleep(step * 0.005)
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await starting
        return processes_of(tmp_path)

    assert asyncio.run(scenario()) == []


def test_a_pool_serves_each_seat_a_fresh_process_and_dies_with_the_referee(
    tmp_path: Path,
) -> None:
    house = Package(tmp_path / "house", COUNTING_HOUSE)
    hosted = {0: house.entry(), 1: house.entry()}

    async def scenario() -> tuple[list[referee_pb2.MatchResult], float]:
        async with referee(tmp_path, sandbox_pool=4) as (stub, server):
            first = await play(stub, ["", ""], hosted)
            for _ in range(600):  # the pool refills in the background
                if server.hosting.pool.idle() == 4:
                    break
                await asyncio.sleep(0.05)
            asked_at = time.time()  # the bots say when they started by this clock
            second = await play(stub, ["", ""], hosted)
            return [first, second], asked_at

    results, asked_at = asyncio.run(scenario())
    started: list[float] = []
    names: list[str] = []
    for result in results:
        assert result.end == referee_pb2.MATCH_END_COMPLETED and len(result.seat_logs) == 4
        for log in result.seat_logs:
            text = log.output.decode()
            (start,) = re.findall(r"started at ([\d.]+) as (\w+)", text)
            started.append(float(start[0]))
            names.append(start[1])
            assert "playing match 1" in text and "playing match 2" not in text
    assert len(set(names)) == 8  # eight processes for eight seats
    assert all(at < asked_at for at in started[4:])  # the second match's were pooled
    assert processes_of(tmp_path / "hosting") == []  # the referee stopped, its pool too


def test_a_package_of_nearly_16_mib_is_uploaded_in_pieces_and_played(tmp_path: Path) -> None:
    directory = python_package(tmp_path / "big", HOUSE_BOT)
    (directory / "weights.bin").write_bytes(os.urandom(16 * 1024 * 1024 - 64 * 1024))
    big = Package(directory)
    assert 16 * 1024 * 1024 - 64 * 1024 < len(big.blob) <= 16 * 1024 * 1024

    async def scenario() -> referee_pb2.MatchResult:
        async with referee(tmp_path) as (stub, _):
            kept = await stub.UploadPackage(upload(big.sha256, big.blob))
            assert kept.package_bytes == len(big.blob)
            seats = {0: big.entry(with_bytes=False), 1: big.entry(with_bytes=False)}
            return await play(stub, ["", ""], seats)

    assert asyncio.run(scenario()).end == referee_pb2.MATCH_END_COMPLETED


def test_the_pool_is_capped_makes_room_for_the_bot_in_demand_and_drops_idle_ones(
    tmp_path: Path,
) -> None:
    def launch(name: str) -> Launch:
        directory = python_package(tmp_path / name, HOUSE_BOT)
        argv = ("python3", "bot.py")
        return Launch(digest(pack(directory)), runtime("python3.11"), argv, directory)

    first, second = launch("first"), launch("second")
    pool = SandboxPool(2, tmp_path / "pool", Limits(), max_total=3)

    async def until(done: Callable[[], bool]) -> None:
        for _ in range(600):
            if done():
                return
            await asyncio.sleep(0.05)

    async def scenario() -> list[tuple[int, int]]:
        counts = []
        try:
            pool.replenish(first)
            await until(lambda: pool.idle(first) == 2)
            counts.append((pool.idle(first), pool.idle(second)))
            pool.replenish(second)  # asked for later: one of the first's makes room
            await until(lambda: pool.idle(second) == 2)
            counts.append((pool.idle(first), pool.idle(second)))
            pool.idle_s = 0.2
            await asyncio.sleep(0.3)  # the first's sandboxes sit idle past idle_s: the test
            pool.replenish(second)  # asked for again; the first, not since: dropped
            counts.append((pool.idle(first), pool.idle(second)))
        finally:
            await pool.close()
        return counts

    assert asyncio.run(scenario()) == [(2, 0), (1, 2), (0, 2)]
    assert processes_of(tmp_path) == []


HOSTILE = """
    import os, socket, sys
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    class Hostile(HouseBot):
        def act(self, request):
            {attack}
            return super().act(request)

    serve(Hostile())
"""
ATTACKS = {
    # Each runs at every decision: the match must end with a result all the same.
    "fork bomb": "while True:\n                try: os.fork()\n                except OSError: pass",
    "memory hog": "hoard = [bytearray(64 << 20) for _ in range(1 << 10)]",
    "endless loop": "while True: pass",
    "output flood": "sys.stdout.write('flood' * 200_000); sys.stdout.flush()",
    "calls out": (
        "for port in ({ports}):\n"
        "                try:\n"
        "                    socket.create_connection(('127.0.0.1', port), timeout=1)\n"
        "                    print(f'reached {{port}}', flush=True)\n"
        "                except OSError as error:\n"
        "                    print(f'refused {{port}}: {{error}}', flush=True)"
    ),
}
FORFEITS = ("fork bomb", "memory hog", "endless loop")


def test_hostile_bots_mid_match_end_with_a_result_and_leave_a_neighbour_unharmed(
    tmp_path: Path,
) -> None:
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> tuple[dict[str, referee_pb2.MatchResult], referee_pb2.MatchResult]:
        server, port = await start_server(
            port=0, replay_dir=tmp_path / "replays", hosting_dir=tmp_path / "hosting"
        )
        with socket.create_server(("127.0.0.1", 0)) as listener:
            listener.setblocking(False)
            ports = f"{listener.getsockname()[1]}, {port}"  # the host's and the referee's
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)
                hostile = {
                    name: Package(
                        tmp_path / name.replace(" ", "-"),
                        HOSTILE.format(attack=attack.format(ports=ports)),
                    )
                    for name, attack in ATTACKS.items()
                }
                # Half a second to forfeit in; the bots meant to finish, the usual 2 s
                # (a megabyte of output a move on a loaded host once took longer).
                plays = [
                    play(
                        stub,
                        ["", ""],
                        {0: package.entry(), 1: house.entry()},
                        **({"move_deadline": wire.duration(0.5)} if name in FORFEITS else {}),
                    )
                    for name, package in hostile.items()
                ]
                *results, neighbour = await asyncio.gather(
                    *plays, play(stub, ["", ""], {0: house.entry(), 1: house.entry()})
                )
            await server.stop(grace=None)
            with pytest.raises(BlockingIOError):
                listener.accept()  # nobody reached the host's loopback
            return dict(zip(hostile, results, strict=True)), neighbour

    results, neighbour = asyncio.run(scenario())
    assert neighbour.end == referee_pb2.MATCH_END_COMPLETED and not neighbour.faults
    for name in FORFEITS:
        assert results[name].end == referee_pb2.MATCH_END_FORFEIT, name
        assert results[name].forfeit_team == 0, name
    flood = logs_by_seat(results["output flood"])
    assert results["output flood"].end == referee_pb2.MATCH_END_COMPLETED
    assert flood[0].truncated and len(flood[0].output) == Limits().log_bytes
    calls = logs_by_seat(results["calls out"])[0].output.decode()
    assert results["calls out"].end == referee_pb2.MATCH_END_COMPLETED
    assert "refused" in calls and "reached" not in calls
    assert processes_of(tmp_path / "hosting") == []


TICKER = """
    import threading, time
    from arena.bots.examples.house import HouseBot
    from arena.bots.sdk import serve

    ticks = 0

    def tick():
        global ticks
        while True:
            time.sleep(0.001)
            ticks += 1

    threading.Thread(target=tick, daemon=True).start()

    class Ticker(HouseBot):
        answered = None

        def act(self, request):
            now = time.monotonic()
            if self.answered is not None:
                gap_ms = (now - self.answered[0]) * 1000
                print(f"GAP {gap_ms:.1f} {ticks - self.answered[1]}", flush=True)
            before = ticks
            time.sleep(0.05)  # the others' time, for each of the others
            print(f"RUN {(time.monotonic() - now) * 1000:.1f} {ticks - before}", flush=True)
            answer = super().act(request)
            self.answered = (time.monotonic(), ticks)
            return answer

    serve(Ticker())
"""


def test_a_hosted_seat_computes_only_while_it_is_asked_to_act(tmp_path: Path) -> None:
    """Each bot ticks a counter in a thread of its own. Between its answer and its next
    request the other seats think (50 ms each): a bot that ran meanwhile would tick there
    as fast as it ticks while it is asked to act (its own 50 ms wait, the baseline of the
    same run, so a loaded machine slows both alike); a frozen one ticks only in the
    referee's moment between its answer and the freeze."""
    ticker = Package(tmp_path / "ticker", TICKER)

    async def scenario() -> referee_pb2.MatchResult:
        async with referee(tmp_path) as (stub, _):
            return await play(stub, ["", ""], {0: ticker.entry(), 1: ticker.entry()})

    result = asyncio.run(scenario())
    assert result.end == referee_pb2.MATCH_END_COMPLETED and not result.faults
    spans: dict[str, list[tuple[float, int]]] = {"GAP": [], "RUN": []}
    for log in logs_by_seat(result).values():
        for line in log.output.decode().splitlines():
            kind, *fields = line.split() or [""]
            if kind in spans:
                spans[kind].append((float(fields[0]), int(fields[1])))
    (gaps, gap_ms, gap_ticks), (runs, run_ms, run_ticks) = (
        (len(s), sum(ms for ms, _ in s), sum(t for _, t in s)) for s in spans.values()
    )
    assert gaps > 20 and gap_ms > 50 * gaps  # the others took their time
    assert runs > 20 and run_ticks > 0.1 * run_ms  # the ticker ran while asked to act
    assert gap_ticks / gap_ms < 0.25 * run_ticks / run_ms, spans  # and hardly ran meanwhile
