"""Tournament throughput against a referee of 2 processes, and what limits it.

Two whole stacks (API, Redis, a Celery worker of ``--concurrency`` processes, one
referee address) share the same bot processes: one stack's referee runs with
``--processes 1``, the other's with ``--processes 2``. Each round plays the same
tournament (4 bots, duplicate round-robin over every game) on one stack, then the
other, so drift on this shared machine hits both alike; baseline is the 1-process
referee. Prints matches per second and the ratio, then CPU seconds per match by kind of
process (``/proc/PID/stat``, whole process trees), and the machine's busy time that
none of them used (other sessions).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.cli.connect import arena_api
from arena.local_redis import start_redis
from arena.processes import Service, arena_command, start_service
from arena.v1 import arena_pb2, arena_pb2_grpc

BOTS = {
    "house": ("house",),
    "random-1": ("random", "--seed", "1"),
    "random-2": ("random", "--seed", "2"),
    "random-3": ("random", "--seed", "3"),
}
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[int, float]]:
    """Every process on the machine: pid -> (parent pid, CPU seconds so far)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # it exited meanwhile
            continue
        found[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) * TICK_S)
    return found


def busy_s() -> float:
    """CPU seconds the whole machine has spent not idle."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) * TICK_S


def by_kind(roots: dict[int, str], table: dict[int, tuple[int, float]]) -> dict[int, str]:
    """Each process of the trees rooted at ``roots`` (pid -> kind), with its kind."""
    kinds = dict(roots)
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, _) in table.items():
        children[parent].append(pid)
    stack = list(roots)
    while stack:
        pid = stack.pop()
        for child in children[pid]:
            kinds.setdefault(child, kinds[pid])
            stack.append(child)
    return kinds


@dataclass
class Usage:
    """CPU seconds by kind over a stretch of time, and the machine's busy seconds."""

    cpu: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    machine_s: float = 0.0
    pids: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    """The referee's CPU seconds by process."""

    @contextlib.contextmanager
    def measure(self, roots: dict[int, str]) -> Iterator[None]:
        before, machine = processes(), busy_s()
        yield
        after = processes()
        self.machine_s += busy_s() - machine
        for pid, kind in by_kind(roots, after).items():
            # A process started meanwhile counts from zero.
            used = after[pid][1] - before.get(pid, (0, 0.0))[1]
            self.cpu[kind] += used
            if kind == "referee":
                self.pids[pid] += used


@dataclass
class Stack:
    processes: int
    referee: Service
    api: Service
    workers: list[Service]
    rates: list[float] = field(default_factory=list)
    matches: int = 0
    usage: Usage = field(default_factory=Usage)


def finish(stub: arena_pb2_grpc.ArenaStub, spec: arena_pb2.TournamentSpec) -> int:
    """Submit and wait until every match has a result; the number of matches."""
    tournament = stub.SubmitTournament(arena_pb2.SubmitTournamentRequest(spec=spec))
    while True:
        state = stub.GetTournament(arena_pb2.GetTournamentRequest(id=tournament.id))
        if state.matches_done == state.matches_total:
            return int(state.matches_total)
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=2, help="60 matches each")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8, help="worker processes")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = start_redis()
        stack.callback(server.stop)

        def start(*command: str) -> Service:
            service = start_service(arena_command(*command))
            stack.callback(service.stop)
            return service

        bots = {name: start("bot", "serve", *flags, "--port", "0") for name, flags in BOTS.items()}
        stacks = []
        for count in (1, 2):
            url = server.url(count)
            replays = stack.enter_context(tempfile.TemporaryDirectory())
            referee = start(
                "referee", "serve", "--port", "0", "--processes", str(count),
                "--replay-dir", replays,
            )  # fmt: skip
            api = start("api", "serve", "--port", "0", "--redis", url)
            worker = start(
                "worker", "--redis", url, "--referee", referee.address,
                "--concurrency", str(args.concurrency), "--name", f"bench{count}@%h",
            )  # fmt: skip
            with arena_api(api.address) as stub:
                for name, bot in bots.items():
                    stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, address=bot.address))
                # Warm up: imports, first connections, every prefork child.
                finish(stub, arena_pb2.TournamentSpec(entries=["house", "random-1"], deals=2))
            stacks.append(Stack(count, referee, api, [worker]))
        spec = arena_pb2.TournamentSpec(entries=list(BOTS), deals=args.deals, master_seed=7)
        for round_ in range(args.rounds):
            for each in stacks if round_ % 2 == 0 else reversed(stacks):
                roots = {each.referee.process.pid: "referee", each.api.process.pid: "API"}
                roots |= {w.process.pid: "workers" for w in each.workers}
                roots |= {b.process.pid: "bots" for b in bots.values()}
                roots |= {server.process.pid: "Redis", os.getpid(): "this bench"}
                with arena_api(each.api.address) as stub, each.usage.measure(roots):
                    started = time.perf_counter()
                    total = finish(stub, spec)
                    elapsed = time.perf_counter() - started
                each.rates.append(total / elapsed)
                each.matches += total
                print(
                    f"round {round_ + 1}, --processes {each.processes}: {total} matches "
                    f"in {elapsed:.1f} s = {total / elapsed:.1f} matches/s"
                )
    report(stacks)


def ceiling_ratio(referee_s: float, rest_s: float, cores: int) -> float:
    """How much a second referee process can gain at most: each match needs
    ``referee_s`` CPU seconds of the referee and ``rest_s`` of everything else on the
    machine, which has ``cores``; one process has one core."""
    one = min(1 / referee_s, cores / (referee_s + rest_s))
    two = min(2 / referee_s, cores / (referee_s + rest_s))
    return two / one


def report(stacks: list[Stack]) -> None:
    rates = {each.processes: statistics.median(each.rates) for each in stacks}
    print(
        f"median matches/s: --processes 1 {rates[1]:.1f}, --processes 2 {rates[2]:.1f}; "
        f"ratio {rates[2] / rates[1]:.2f}x"
    )
    kinds = ["referee", "bots", "workers", "API", "Redis", "this bench"]
    print("CPU ms per match " + "".join(f"{k:>11}" for k in [*kinds, "all", "others"]))
    for each in stacks:
        ours = sum(each.usage.cpu.values())
        row = [each.usage.cpu[k] for k in kinds] + [ours, each.usage.machine_s - ours]
        print(
            f"--processes {each.processes}    "
            + "".join(f"{v / each.matches * 1000:>11.1f}" for v in row)
        )
    one = stacks[0]
    referee_s = one.usage.cpu["referee"] / one.matches
    rest_s = sum(one.usage.cpu.values()) / one.matches - referee_s
    bots_s = one.usage.cpu["bots"] / one.matches
    cores = os.cpu_count() or 1
    print(
        f"limit on {cores} cores: one referee process (a core) plays at most "
        f"{1 / referee_s:.1f} matches/s, all the processes together at most "
        f"{cores / (referee_s + rest_s):.1f}; a second referee process can gain at most "
        f"{ceiling_ratio(referee_s, rest_s, cores):.2f}x here, "
        f"{ceiling_ratio(referee_s, rest_s - bots_s, cores):.2f}x with the bots on "
        "other machines"
    )
    split = sorted(stacks[1].usage.pids.values(), reverse=True)
    print(
        "referee CPU by process, --processes 2: "
        + ", ".join(f"{v:.1f} s" for v in split if v > 0.05)
    )


if __name__ == "__main__":
    main()
