"""Real short matches of every game, played by a real referee in this process against
bots that note every request they are sent: the replays the viewer tests read."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import sdk
from arena.bots.examples import chaos
from arena.bots.examples.chaos import ChaosBot
from arena.bots.examples.random_bot import RandomBot
from arena.games import get_game
from arena.match_rules.faults import FaultPolicy
from arena.referee.feed import MatchFeed
from arena.referee.match import MatchRunner, MatchSpec
from arena.replay import ReplayStore
from arena.v1 import bot_pb2

SHORT = {
    "seep": {"max_deals": 1},
    "bid-euchre": {"max_hands": 2},
    "bridgette": {"deals": 1},
    "persian-rummy": {},
    "baloot": {"max_rounds": 1},
}
"""Options that keep each game's match to a hand or two."""

FAULTY = "faulty"
"""The match (Bid Euchre) whose team 1 plays illegal moves from its third decision on."""


class Noting(RandomBot):
    """The random bot, keeping every request it is sent, by match token and decision."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.requests: dict[tuple[str, int], bot_pb2.ActRequest] = {}

    def act(self, request: bot_pb2.ActRequest) -> int:
        copy = bot_pb2.ActRequest()
        copy.CopyFrom(request)
        self.requests[(request.match_id, request.decision_index)] = copy
        return super().act(request)


@dataclass
class Played:
    replays: dict[str, dict[str, Any]] = field(default_factory=dict)
    """By match id: a game's name, or FAULTY."""
    sent: dict[tuple[str, int], bot_pb2.ActRequest] = field(default_factory=dict)
    """What the noting bots were sent, by bot match token and decision index."""


async def _play(
    store: ReplayStore,
    match_id: str,
    game_name: str,
    bots: tuple[str, ...],
    options: dict[str, int],
    max_faults: int,
    time_bank_s: float,
) -> dict[str, Any]:
    game = get_game(game_name)
    seats = game.info.num_seats
    spec = MatchSpec(
        match_id=match_id,
        game=game,
        seat_bots=tuple(bots[game.info.seat_teams[s]] for s in range(seats)),
        seat_names=tuple(f'<b>{match_id}</b> & "{s}"' for s in range(seats)),
        seed=5,
        options=game.info.resolve_options(options),
        move_deadline_s=5.0,
        policy=FaultPolicy(max_faults),
        time_bank_s=time_bank_s,
    )
    await MatchRunner(spec, MatchFeed(match_id), store).run()
    return store.load(match_id)


async def _play_all(
    store: ReplayStore, games: dict[str, dict[str, int]], faulty: bool = True
) -> Played:
    played = Played()
    a, b = Noting(1), Noting(2)
    servers = [
        await sdk.start(a),
        await sdk.start(b),
        await chaos.start(ChaosBot("illegal", after=2)),
    ]
    good_a, good_b, illegal = (f"127.0.0.1:{port}" for _, port in servers)
    try:
        for name, options in games.items():
            bank = 30.0 if name == "baloot" else 0.0
            played.replays[name] = await _play(
                store, name, name, (good_a, good_b), options, 3, bank
            )
        if faulty:
            played.replays[FAULTY] = await _play(
                store, FAULTY, "bid-euchre", (good_a, illegal), {"max_hands": 1}, 1000, 0.0
            )
    finally:
        for server, _ in servers:
            await server.stop(None)
    played.sent = {**a.requests, **b.requests}
    return played


def play_all(directory: Path) -> Played:
    """Play every game's short match, and the faulty one; replays go to ``directory``."""
    return asyncio.run(_play_all(ReplayStore(directory), SHORT))


def play_games(directory: Path, games: dict[str, dict[str, int]]) -> Played:
    """One match of each game named, with those options, between the noting bots."""
    return asyncio.run(_play_all(ReplayStore(directory), games, faulty=False))
