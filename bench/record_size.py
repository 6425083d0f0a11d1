"""What a match's record costs: bytes per decision and per match, by game, and Redis
bytes per stored match with and without it.

Matches are played for real (a referee and two example bots as processes, each game in
turn), so the think times are a real loopback bot's. For each game: the record's size
per decision (its choices and think times) and per match (with its header: ids, seed,
salt, names, options, faults), and, in the same run, the replay JSON built from it per
match, the form the referee kept before (ratio: record / JSON). Aim: at most 4 bytes a
decision in every game. Then the results and records are stored ``--copies`` times over
in a scratch Redis (``arena.store.TournamentStore.record_result``, as a worker stores
them) and ``used_memory`` is read: bytes per stored match, result alone and with its
record.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

import grpc
import redis

from arena import wire
from arena.games import game_names
from arena.local_redis import start_redis
from arena.processes import arena_command, start_service
from arena.replay.match_log import encode, replay_document
from arena.store import TournamentStore
from arena.store.results import MatchResult
from arena.v1 import referee_pb2, referee_pb2_grpc

AIM_BYTES_PER_DECISION = 4.0
WIDTHS = (9, 10, 8, 12, 7)


def _decision_bytes(log: referee_pb2.MatchLog) -> int:
    bare = referee_pb2.MatchLog()
    bare.CopyFrom(log)
    del bare.choices[:], bare.think_100us[:]
    return len(encode(log)) - len(encode(bare))


def _stored(result: referee_pb2.MatchResult, n: int) -> MatchResult:
    """The result as a worker stores it (``workers.tasks._outcome``), as copy ``n``."""
    match_id = f"t-bench-{result.game}-{n}-a"
    return MatchResult.from_json(
        {
            "match_id": match_id,
            "tournament_id": "t-bench",
            "game": result.game,
            "pair_key": match_id[:-2],
            "deal": n,
            "seed": result.seed,
            "entries": ["house", "random"],
            "scores": [t.score for t in result.teams],
            "winner_team": result.winner_team if result.HasField("winner_team") else None,
            "end": "completed",
            "forfeit_team": None,
            "team_faults": [0, 0],
            "team_fault_kinds": [{}, {}],
            "decisions": result.decisions,
            "duration_ms": result.duration.ToMilliseconds(),
            "replay_id": result.replay_id,
            "referee": "127.0.0.1:50051",
            "finished_at": 1_796_000_000.0,
            "deal_key": f"{result.game}-{n}",
            "paired": True,
            "deal_commitment": result.deal_commitment,
            "deal_salt": result.deal_salt,
            "referee_match_id": result.match_id,
            "fair_play": "sealed",
            "operator_seed": False,
            "started_at": 1_795_999_999.0,
        }
    )


def _redis_bytes(played: list[referee_pb2.MatchResult], copies: int, with_logs: bool) -> float:
    server = start_redis()
    try:
        store = TournamentStore(redis.Redis.from_url(server.url(0)))
        before = int(store.redis.info("memory")["used_memory"])
        for n in range(copies):
            result = played[n % len(played)]
            store.record_result(
                "t-bench", _stored(result, n), encode(result.log) if with_logs else b""
            )
        after = int(store.redis.info("memory")["used_memory"])
    finally:
        server.stop()
    return (after - before) / copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=6, help="matches per game (default 6)")
    parser.add_argument("--copies", type=int, default=3000, help="results stored (default 3000)")
    args = parser.parse_args()
    referee = start_service(arena_command("referee", "serve", "--port", "0"))
    bots = [
        start_service(arena_command("bot", "serve", "house", "--port", "0")),
        start_service(arena_command("bot", "serve", "random", "--seed", "1", "--port", "0")),
    ]
    played: list[referee_pb2.MatchResult] = []
    columns = ("decisions", "B/decision", "B/match", "JSON B/match", "ratio")
    print(f"{'game':<14} " + " ".join(f"{c:>{w}}" for c, w in zip(columns, WIDTHS, strict=True)))
    worst = 0.0
    try:
        with grpc.insecure_channel(referee.address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            for game in game_names():
                decisions, per_decision, per_match, json_bytes = 0, [], [], []
                for seed in range(args.matches):
                    result: referee_pb2.MatchResult = stub.PlayMatch(
                        referee_pb2.PlayMatchRequest(
                            game=game,
                            bots=[b.address for b in bots],
                            seed=random.Random(seed).getrandbits(48),
                            move_deadline=wire.duration(2.0),
                        ),
                        timeout=300,
                    )
                    played.append(result)
                    log = result.log
                    decisions += len(log.choices)
                    per_decision.append(_decision_bytes(log) / max(1, len(log.choices)))
                    per_match.append(len(encode(log)))
                    json_bytes.append(len(json.dumps(replay_document(log), separators=(",", ":"))))
                mean_decision = statistics.fmean(per_decision)
                worst = max(worst, max(per_decision))
                record, text = statistics.fmean(per_match), statistics.fmean(json_bytes)
                print(
                    f"{game:<14} {decisions // args.matches:>9} {mean_decision:>10.2f} "
                    f"{record:>8,.0f} {text:>12,.0f} {record / text:>7.3f}"
                )
    finally:
        for bot in bots:
            bot.stop()
        referee.stop()
    print(
        f"worst match: {worst:.2f} bytes a decision (aim: at most {AIM_BYTES_PER_DECISION:g}) "
        f"{'OK' if worst <= AIM_BYTES_PER_DECISION else 'OVER'}"
    )
    alone = _redis_bytes(played, args.copies, with_logs=False)
    both = _redis_bytes(played, args.copies, with_logs=True)
    print(
        f"Redis bytes per stored match ({args.copies:,} stored): result {alone:,.0f}; "
        f"with its record {both:,.0f} (+{both - alone:,.0f})"
    )


if __name__ == "__main__":
    main()
