"""``arena bot check``: what a bot author runs before entering an arena.

The bot under test plays the house bot in every game its ``Hello`` claims, through a
real referee started in this process, each deal twice with the seats swapped. The
report gives, per game: the results, the bot's own faults by kind, and its decision
latency as the referee measured it (p50, p95, max). A bot fit to enter has no fault.

The bot is at one address, or at several (the processes ``arena bot check --bot-command``
started, one per seat of its team: its seats take them in turn). The command line
starts a file or module bot the same way (``arena.bots.named.command``).
"""

from __future__ import annotations

import statistics
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena import wire
from arena.bots.examples.house import HouseBot
from arena.bots.sdk import start as start_bot
from arena.games import game_names, get_game
from arena.match_rules.faults import KIND_NAMES
from arena.referee.bot_client import BotConnection, BotFault
from arena.replay import ReplayStore
from arena.v1 import referee_pb2
from arena.wording import printable

HELLO_TIMEOUT_S = 5.0


class CheckError(Exception):
    """The check could not run at all (bot unreachable, games it does not play)."""


@dataclass
class GameReport:
    game: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)

    def latency(self) -> dict[str, float]:
        """p50, p95 and max of the bot's decisions, in milliseconds."""
        if not self.latencies_ms:
            return {"p50": 0.0, "p95": 0.0, "max": 0.0}
        ordered = sorted(self.latencies_ms)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return {"p50": statistics.median(ordered), "p95": p95, "max": ordered[-1]}

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "matches": self.matches,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "forfeits": self.forfeits,
            "faults": dict(self.faults),
            "decisions": len(self.latencies_ms),
            "latency_ms": {k: round(v, 3) for k, v in self.latency().items()},
        }


@dataclass
class CheckReport:
    address: str
    name: str
    version: str
    games: list[GameReport]

    @property
    def ok(self) -> bool:
        return not any(g.faults for g in self.games)

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "name": self.name,
            "version": self.version,
            "ok": self.ok,
            "games": [g.to_json() for g in self.games],
        }


async def check_bot(
    address: str | Sequence[str],
    games: list[str] | None = None,
    matches: int = 4,
    deadline_s: float = 1.0,
    seed: int = 1,
    label: str = "",
) -> CheckReport:
    """Play ``matches`` matches per game (half in each seating) against the house bot.
    ``address``: the bot's, or one per process of it, which its seats take in turn;
    ``label`` names it in the report (default: its address)."""
    from arena.referee.service import local_referee  # the referee loads only when needed

    addresses = [address] if isinstance(address, str) else list(address)
    address = addresses[0]
    connection = BotConnection.open(address)
    try:
        hello = await connection.say_hello(HELLO_TIMEOUT_S)
    except BotFault as fault:
        raise CheckError(f"cannot check the bot at {address}: {fault.detail}") from None
    finally:
        await connection.close()
    claimed = [g for g in hello.games if g in game_names()]
    chosen = games or claimed
    missing = [g for g in chosen if g not in hello.games]
    if missing:
        plays = ", ".join(hello.games) or "nothing"
        raise CheckError(
            f"bot {hello.name!r} does not play {', '.join(missing)} (it plays: {plays})"
        )
    if not chosen:
        raise CheckError(
            f"bot {hello.name!r} plays no game of this arena ({', '.join(game_names())})"
        )

    with tempfile.TemporaryDirectory(prefix="arena-check-") as replay_dir:
        store = ReplayStore(replay_dir)
        reports = []
        async with local_referee(replay_dir) as stub:
            house, house_port = await start_bot(HouseBot(), port=0)
            try:
                for game in chosen:
                    report = GameReport(game)
                    seat_teams = get_game(game).info.seat_teams
                    for i in range(matches):
                        bot_team = i % 2
                        bots = _seat_bots(seat_teams, bot_team, addresses, house_port)
                        result = await stub.PlayMatch(
                            referee_pb2.PlayMatchRequest(
                                game=game,
                                bots=bots,
                                seed=seed + i // 2,
                                move_deadline=wire.duration(deadline_s),
                            )
                        )
                        _tally(report, result, bot_team, store.load(result.replay_id))
                    reports.append(report)
            finally:
                await house.stop(grace=None)
    return CheckReport(label or address, hello.name, hello.version, reports)


def _seat_bots(
    seat_teams: Sequence[int], team: int, addresses: Sequence[str], house_port: int
) -> list[str]:
    """One address per seat: the bot's for ``team``'s seats (in turn, when it runs as
    several processes), the house bot's for the others."""
    own = iter(range(len(seat_teams)))
    return [
        addresses[next(own) % len(addresses)] if t == team else f"127.0.0.1:{house_port}"
        for t in seat_teams
    ]


def _tally(
    report: GameReport, result: referee_pb2.MatchResult, team: int, replay: dict[str, Any]
) -> None:
    info = get_game(report.game).info
    seats = set(info.seats_of_team(team))
    report.matches += 1
    if result.end == referee_pb2.MATCH_END_FORFEIT and result.forfeit_team == team:
        report.forfeits += 1
    if not result.HasField("winner_team"):
        report.draws += 1
    elif result.winner_team == team:
        report.wins += 1
    else:
        report.losses += 1
    for fault in result.faults:
        if fault.seat in seats:
            report.faults[KIND_NAMES[fault.kind]] += 1
    report.latencies_ms += [
        line["decision"]["think_ms"]
        for hand in replay["hands"]
        for line in hand["log"]
        if "decision" in line
        and line["decision"]["seat"] in seats
        and not line["decision"]["substituted"]
    ]


_ROW = "{:<14} {:>7} {:>8} {:<24} {:>7} {:>7} {:>7}"


def render(report: CheckReport) -> str:
    """The report as a table for a terminal."""
    lines = [
        f"bot {printable(report.name)} {printable(report.version)} at {report.address}",
        _ROW.format("game", "matches", "W-D-L", "faults", "p50 ms", "p95 ms", "max ms"),
    ]
    for g in report.games:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(g.faults.items())) or "none"
        latency = [f"{v:.1f}" for v in g.latency().values()]
        lines.append(
            _ROW.format(g.game, g.matches, f"{g.wins}-{g.draws}-{g.losses}", faults, *latency)
        )
    lines.append("ok: no faults" if report.ok else "NOT OK: the bot faulted (see above)")
    return "\n".join(lines)
