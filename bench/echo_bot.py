"""The baseline bot: answers at once with the first legal id. Same SDK, same process
layout as a real bot, so a call to it costs gRPC and protobuf and nothing else."""

from __future__ import annotations

import sys

from arena.bots import Bot, serve
from arena.games import game_names
from arena.v1 import bot_pb2


class EchoBot(Bot):
    name = "echo"
    games = tuple(game_names())

    def act(self, request: bot_pb2.ActRequest) -> int:
        return request.legal_actions[0].id


if __name__ == "__main__":
    serve(EchoBot(), port=int(sys.argv[1]) if len(sys.argv) > 1 else 0)
