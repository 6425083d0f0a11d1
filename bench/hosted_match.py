"""What hosting a bot costs a match: the referee starting every seat in a sandbox of its
own, against the same bot kept running at an address.

Measured, side by side in one run: full Bid Euchre matches, house against house, seen
from the caller (PlayMatch's wall time), the same deal each way within a round:

- remote: two house bot processes kept running, one per team, as registered bots are;
- hosted, with the pool: a referee started with ``--sandbox-pool 4``, whose match takes
  four sandboxes already started, one per seat (the pool starts the next four once the
  match is over);
- hosted, without the pool: every sandbox starts when its match asks for it;
- remote, a process per seat: four house processes kept running, the process layout of
  a hosted match without the sandboxes, to tell the cost of hosting from that of
  talking to four processes instead of two.

Every match runs on a quiet machine (a pause after each lets the pool refill), the ways
alternate within each round, and medians are reported, with the ratios per round.
Aim: hosted with the pool <= 1.5x remote.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from arena.hosting.example_packages import PYTHON_COMMAND, house_package
from arena.hosting.package import digest, pack
from arena.processes import arena_command, services
from arena.v1 import referee_pb2, referee_pb2_grpc

GAME = "bid-euchre"
POOL = 4
"""Sandboxes kept ready: the four seats of a house-against-house match."""


def referee(directory: Path, pool: int) -> list[str]:
    return arena_command(
        "referee", "serve", "--port", "0",
        "--replay-dir", str(directory / "replays"),
        "--hosting-dir", str(directory / "hosting"),
        "--sandbox-pool", str(pool),
    )  # fmt: skip


def timed(
    stub: referee_pb2_grpc.RefereeStub, request: referee_pb2.PlayMatchRequest
) -> tuple[float, int]:
    """Seconds the caller waits for the match, and its decisions; checks it was played
    to the end."""
    started = time.perf_counter()
    result = stub.PlayMatch(request, timeout=300)
    seconds = time.perf_counter() - started
    if result.end != referee_pb2.MATCH_END_COMPLETED or result.faults:
        raise SystemExit(f"match {result.match_id} did not complete cleanly: {result}")
    return seconds, result.decisions


WAYS = {
    "remote": "remote",
    "seats": "remote, a process per seat",
    "pooled": "hosted with the pool",
    "unpooled": "hosted without",
}


def requests(
    seed: int, houses: list[str], hosted: referee_pb2.HostedBot
) -> dict[str, referee_pb2.PlayMatchRequest]:
    """The same deal, each way."""
    local = referee_pb2.PlayMatchRequest(
        game=GAME, seed=seed, bots=["", ""], hosted={0: hosted, 1: hosted}
    )
    return {
        "remote": referee_pb2.PlayMatchRequest(game=GAME, seed=seed, bots=houses[:2]),
        "seats": referee_pb2.PlayMatchRequest(game=GAME, seed=seed, bots=houses),
        "pooled": local,
        "unpooled": local,
    }


def rounds(
    pooled: str,
    unpooled: str,
    houses: list[str],
    hosted: referee_pb2.HostedBot,
    args: argparse.Namespace,
) -> tuple[list[dict[str, float]], list[int]]:
    """Seconds per match, round by round, each way, and each round's decisions (round
    0, which warms up and sends the package to both referees, left out)."""
    rows: list[dict[str, float]] = []
    decisions: list[int] = []
    with (
        grpc.insecure_channel(pooled) as pooled_channel,
        grpc.insecure_channel(unpooled) as unpooled_channel,
    ):
        with_pool = referee_pb2_grpc.RefereeStub(pooled_channel)
        stubs = {
            "remote": with_pool,
            "seats": with_pool,
            "pooled": with_pool,
            "unpooled": referee_pb2_grpc.RefereeStub(unpooled_channel),
        }
        for seed in range(args.rounds + 1):
            row = {}
            for way, request in requests(seed, houses, hosted).items():
                row[way], made = timed(stubs[way], request)
                time.sleep(args.pause)
            hosted.ClearField("package")  # each referee holds it now
            if seed:
                rows.append(row)
                decisions.append(made)  # the same deal, played the same way, each way
                print(
                    f"round {seed:2}: "
                    + "; ".join(f"{WAYS[w]} {row[w] * 1000:4.0f} ms" for w in WAYS)
                    + f" ({made} decisions)",
                    flush=True,
                )
    return rows, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--pause", type=float, default=1.5, help="seconds of quiet after a match")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-hosted-"))
    blob = pack(house_package(work / "house"))
    hosted = referee_pb2.HostedBot(
        package_sha256=digest(blob), runtime="python3.11", command=PYTHON_COMMAND, package=blob
    )
    house = arena_command("bot", "serve", "house", "--port", "0")
    commands = [referee(work / "pooled", POOL), referee(work / "unpooled", 0), *[house] * 4]
    with services(commands) as (pooled, unpooled, *houses):
        addresses = [h.address for h in houses]
        rows, decisions = rounds(pooled.address, unpooled.address, addresses, hosted, args)
    print(
        "median match: "
        + ", ".join(
            f"{WAYS[w]} {statistics.median(r[w] for r in rows) * 1000:.0f} ms" for w in WAYS
        )
    )
    for way, against in (("pooled", "remote"), ("unpooled", "remote"), ("pooled", "seats")):
        ratio = statistics.median(r[way] / r[against] for r in rows)
        aim = " (aim <= 1.50)" if (way, against) == ("pooled", "remote") else ""
        print(f"median ratio {WAYS[way]} / {WAYS[against]}: {ratio:.2f}{aim}")
    per_decision = statistics.median(
        (r["pooled"] - r["seats"]) / made * 1e6 for r, made in zip(rows, decisions, strict=True)
    )
    print(
        f"hosting's cost per decision (hosted with the pool - a process per seat): "
        f"{per_decision:.0f} us, against {statistics.median(decisions)} decisions a match"
    )


if __name__ == "__main__":
    main()
