"""A test bot process that plays randomly and appends every ActRequest it receives, as
JSON lines, to the file named by --out (or one per process under --out-dir), and every
MatchEnded to --ended-out: the tests read what really crossed the wire."""

from __future__ import annotations

import argparse
import os
import threading

from google.protobuf import json_format

from arena.bots import Bot, serve
from arena.bots.examples import RandomBot
from arena.v1 import bot_pb2


class SpyBot(Bot):
    name = "spy"

    def __init__(
        self, out: str, games: tuple[str, ...] | None = None, ended_out: str | None = None
    ) -> None:
        self.inner = RandomBot(seed=5)
        self.games = self.inner.games if games is None else games
        self.out = open(out, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        self.ended = None if ended_out is None else open(ended_out, "a", encoding="utf-8")  # noqa: SIM115
        self.lock = threading.Lock()

    def act(self, request: bot_pb2.ActRequest) -> int:
        line = json_format.MessageToJson(request, indent=None)
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()
        return self.inner.act(request)

    def match_ended(self, request: bot_pb2.MatchEndedRequest) -> None:
        if self.ended is not None:
            with self.lock:
                self.ended.write(json_format.MessageToJson(request, indent=None) + "\n")
                self.ended.flush()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", help="file to append requests to")
    parser.add_argument("--out-dir", help="instead: append to DIR/<this process id>.jsonl")
    parser.add_argument("--games", help="comma-separated games to claim (default: all)")
    parser.add_argument("--ended-out", help="file to append MatchEnded requests to")
    args = parser.parse_args()
    games = None if args.games is None else tuple(g for g in args.games.split(",") if g)
    out = args.out or os.path.join(args.out_dir, f"{os.getpid()}.jsonl")
    serve(SpyBot(out, games, args.ended_out), port=args.port)
