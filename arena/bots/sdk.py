"""The Python bot SDK.

A bot is one class::

    class MyBot(Bot):
        name = "my-bot"
        games = ("bid-euchre",)

        def act(self, request: ActRequest) -> int:
            return request.legal_actions[0].id

    serve(MyBot(), port=50051)

``act`` gets the whole ``arena.v1.ActRequest`` (the seat's typed observation in the
field named after the game, and the legal actions) and returns an action id. The SDK
serves both unary ``Act`` and the faster ``ActStream``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from concurrent import futures

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


class Bot:
    """Base class of Python bots; override ``act`` and set ``name`` and ``games``."""

    name: str = "bot"
    version: str = "1"
    games: tuple[str, ...] = ()
    supports_stream: bool = True
    """Offer ``ActStream``; set False to be asked by unary ``Act`` calls only."""

    def act(self, request: bot_pb2.ActRequest) -> int:
        raise NotImplementedError

    def match_ended(self, request: bot_pb2.MatchEndedRequest) -> None:
        """Called once per seat when a match is over; override to learn from it."""


class _BotServicer(bot_pb2_grpc.BotServicer):
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def Hello(
        self, request: bot_pb2.HelloRequest, context: grpc.ServicerContext
    ) -> bot_pb2.HelloResponse:
        return bot_pb2.HelloResponse(
            name=self.bot.name,
            version=self.bot.version,
            games=list(self.bot.games),
            supports_stream=self.bot.supports_stream,
        )

    def _answer(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        return bot_pb2.ActResponse(action_id=self.bot.act(request), match_id=request.match_id)

    def Act(
        self, request: bot_pb2.ActRequest, context: grpc.ServicerContext
    ) -> bot_pb2.ActResponse:
        return self._answer(request)

    def ActStream(
        self, request_iterator: Iterator[bot_pb2.ActRequest], context: grpc.ServicerContext
    ) -> Iterator[bot_pb2.ActResponse]:
        for request in request_iterator:
            yield self._answer(request)

    def MatchEnded(
        self, request: bot_pb2.MatchEndedRequest, context: grpc.ServicerContext
    ) -> bot_pb2.MatchEndedResponse:
        self.bot.match_ended(request)
        return bot_pb2.MatchEndedResponse()


def start(
    bot: Bot, port: int = 0, host: str = "127.0.0.1", workers: int = 32
) -> tuple[grpc.Server, int]:
    """Start serving ``bot`` in the background; returns the server and the bound port."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers),
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ],
    )
    bot_pb2_grpc.add_BotServicer_to_server(_BotServicer(bot), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    server.start()
    return server, bound


def serve(bot: Bot, port: int = 50051, host: str = "127.0.0.1") -> None:
    """Serve ``bot`` until SIGINT or SIGTERM."""
    server, bound = start(bot, port, host)
    print(f"bot {bot.name} listening on {host}:{bound}", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=1).wait()
