"""The toy's example bot. It reads only its ActRequest, unpacking the toy's messages from
the ``other`` member with the classes of ``messages``, as a bot of a game in no ``.proto``
file of the arena would: leading, it plays its highest card; second, the lowest card
that wins the pair, else its lowest."""

from __future__ import annotations

from arena.bots.sdk import Bot
from arena.v1 import bot_pb2
from tests.games.toy import messages
from tests.games.toy.game import INFO, RANKS


def rank(code: str) -> int:
    return RANKS.index(code[0])


class ToyBasicBot(Bot):
    name = "toy-basic"
    games = (INFO.name,)

    def act(self, request: bot_pb2.ActRequest) -> int:
        observation = messages.OBSERVATION()
        if not request.other.Unpack(observation):
            raise ValueError(f"not a toy observation: {request.other.type_url}")
        cards: dict[str, int] = {}
        for action in request.legal_actions:
            payload = messages.ACTION()
            action.other.Unpack(payload)
            cards[payload.play.code] = action.id
        if not observation.trick:
            return cards[max(cards, key=rank)]
        led = rank(observation.trick[0].card.code)
        winners = [c for c in cards if rank(c) > led]
        return cards[min(winners or list(cards), key=rank)]


BOT = ToyBasicBot
"""The toy's example bot."""
