"""A bot process that remembers everything and tries to read everything (the attacker
of the fair-play tests; the inference is in ``memory.py``).

It plays randomly. A thread keeps reading what is open to anyone: every tournament and
its results on the arena API (seeds, replay ids), every replay those name from the
referee that played it, and every match and replay the web leaderboard serves. At each
decision it appends one JSON line to --out with the opponents' cards it names from
memory; a line ``{"reads": ...}`` counts what its reading found.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.request
from typing import Any

import grpc

from arena.bots import Bot, serve
from arena.bots.examples import RandomBot
from arena.games import all_games
from arena.tournament.fair_play import deal_seed
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, referee_pb2, referee_pb2_grpc
from tests.fair_play.memory import Memory, guessed_seeds

READ_EVERY_S = 0.3


class RememberingBot(Bot):
    name = "remembering"

    def __init__(self, out: str, api: str, web: str) -> None:
        self.inner = RandomBot(seed=7)
        self.games = self.inner.games
        self.memory = Memory({g.info.name: g.info.seat_teams for g in all_games()})
        for game in self.games:
            for seed in guessed_seeds(game):
                self.memory.learn_seed(game, seed, "seed")
        self.out = open(out, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        self.lock = threading.Lock()
        self.reads = {"api_calls": 0, "seeds": 0, "replays": 0, "web_pages": 0, "ended": 0}
        self.api, self.web = api, web
        self.replays_seen: set[str] = set()
        threading.Thread(target=self._read_forever, daemon=True).start()

    def act(self, request: bot_pb2.ActRequest) -> int:
        with self.lock:
            claims = self.memory.decide(request)
            self._write(
                {
                    "token": request.match_id,
                    "game": request.game,
                    "seat": request.seat,
                    "decision": request.decision_index,
                    "claims": claims,
                }
            )
        return self.inner.act(request)

    def match_ended(self, request: bot_pb2.MatchEndedRequest) -> None:
        with self.lock:
            self.reads["ended"] += 1
            self.memory.match_ended(request)
            self._write({"ended": request.match_id, "deals": len(request.deals)})

    def _write(self, line: dict[str, Any]) -> None:
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()

    def _read_forever(self) -> None:
        channel = grpc.insecure_channel(self.api)
        stub = arena_pb2_grpc.ArenaStub(channel)
        while True:
            try:
                self._read_api(stub)
                self._read_web()
            except (grpc.RpcError, OSError, ValueError):
                pass  # the arena is starting or stopping: read again later
            with self.lock:
                self._write({"reads": dict(self.reads)})
            time.sleep(READ_EVERY_S)

    def _read_api(self, stub: arena_pb2_grpc.ArenaStub) -> None:
        listing = stub.ListTournaments(arena_pb2.ListTournamentsRequest(), timeout=5)
        self.reads["api_calls"] += 1
        for tournament in listing.tournaments:
            if tournament.spec.HasField("master_seed") or tournament.seed.HasField("master_seed"):
                self._learn_master(tournament)
            results = stub.ListResults(
                arena_pb2.ListResultsRequest(tournament_id=tournament.id), timeout=5
            ).results
            self.reads["api_calls"] += 1
            for record in results:
                if record.HasField("seed"):
                    with self.lock:
                        self.memory.learn_seed(record.game, record.seed, "deal")
                        self.reads["seeds"] += 1
                for replay_id in {record.replay_id, record.referee_match_id} - {""}:
                    self._read_replay(record.referee, replay_id)

    def _learn_master(self, tournament: arena_pb2.Tournament) -> None:
        master = tournament.seed.master_seed or tournament.spec.master_seed
        with self.lock:
            for game in tournament.games:
                for p in range(len(tournament.spec.entries) ** 2):
                    for d in range(tournament.spec.deals):
                        for half in ("", "-a", "-b"):
                            key = f"{game}-{p}-{d}{half}"
                            self.memory.learn_seed(game, deal_seed(master, key), "deal")
            self.reads["seeds"] += 1

    def _read_replay(self, referee: str, replay_id: str) -> None:
        if replay_id in self.replays_seen or not referee:
            return
        try:
            with grpc.insecure_channel(referee) as channel:
                reply = referee_pb2_grpc.RefereeStub(channel).GetReplay(
                    referee_pb2.GetReplayRequest(replay_id=replay_id), timeout=5
                )
        except grpc.RpcError:
            return
        self.replays_seen.add(replay_id)
        self._learn_replay(json.loads(reply.json))

    def _learn_replay(self, document: dict[str, Any]) -> None:
        with self.lock:
            self.reads["replays"] += 1
            for number, hand in enumerate(document.get("hands", [])):
                deal = hand["deal"]
                self.memory.learn_deal(document["game"], number, deal, "deal")

    def _read_web(self) -> None:
        if not self.web:
            return
        with urllib.request.urlopen(f"{self.web}/api/matches?limit=200", timeout=5) as page:
            matches = json.load(page)
        self.reads["web_pages"] += 1
        for match in matches["matches"]:
            url = match["replay_json_url"]
            if not url or url in self.replays_seen:
                continue
            try:
                with urllib.request.urlopen(self.web + url, timeout=5) as page:
                    document = json.load(page)
            except OSError:  # 404 while the tournament runs
                continue
            self.replays_seen.add(url)
            self._learn_replay(document)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", required=True, help="file to append claims to")
    parser.add_argument("--api", required=True, help="the arena API, host:port")
    parser.add_argument("--web", default="", help="the web leaderboard, http://host:port")
    args = parser.parse_args()
    serve(RememberingBot(args.out, args.api, args.web), port=args.port)
