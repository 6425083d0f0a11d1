"""A test bot process that answers unary ``Act`` only (its Hello offers no stream). For
the first ``--after`` decisions of a match (by its ``decision_index``) it plays like the
random bot; then it answers every request with a legal id, but naming the decision
before it, as a bot answering from a stale queue would. On a unary call such an answer is a wrong-match fault; on a stream it
would be a stray answer, dropped (the chaos bot's ``stale`` mode)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc

from arena.bots.examples import RandomBot
from arena.v1 import bot_pb2, bot_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class MisnumberingBot(bot_pb2_grpc.BotServicer):
    def __init__(self, after: int) -> None:
        if after < 1:
            raise ValueError("--after must be at least 1: decision 0 has no decision before it")
        self.inner = RandomBot(seed=7)
        self.after = after

    async def Hello(self, request: bot_pb2.HelloRequest, context: Context) -> bot_pb2.HelloResponse:
        return bot_pb2.HelloResponse(
            name="misnumbering", games=list(self.inner.games), supports_stream=False
        )

    async def Act(self, request: bot_pb2.ActRequest, context: Context) -> bot_pb2.ActResponse:
        index = request.decision_index
        named = index - 1 if index >= self.after else index
        return bot_pb2.ActResponse(
            action_id=self.inner.act(request), match_id=request.match_id, decision_index=named
        )

    async def ActStream(
        self, request_iterator: AsyncIterator[bot_pb2.ActRequest], context: Context
    ) -> AsyncIterator[bot_pb2.ActResponse]:
        """Never asked: the Hello offers no stream."""
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "this bot answers unary Act only")
        yield bot_pb2.ActResponse()  # not reached: abort raises

    async def MatchEnded(
        self, request: bot_pb2.MatchEndedRequest, context: Context
    ) -> bot_pb2.MatchEndedResponse:
        return bot_pb2.MatchEndedResponse()


async def serve(port: int, after: int) -> None:
    server = grpc.aio.server()
    bot_pb2_grpc.add_BotServicer_to_server(MisnumberingBot(after), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print(f"bot misnumbering listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--after", type=int, default=2, help="good answers per match first")
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.after))
