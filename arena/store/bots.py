"""The bot registry: name -> address and what the bot said in its Hello."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

BOTS = "arena:bots"


@dataclass(frozen=True)
class RegisteredBot:
    name: str
    address: str
    games: tuple[str, ...]
    hello_name: str
    version: str
    registered_at: float
    hosted: bool = False
    """Run by the arena itself, one fresh sandboxed process per seat and match, so it
    cannot remember one match in the next (hosted bots come with the sandbox)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> RegisteredBot:
        data = json.loads(text)
        return cls(**{**data, "games": tuple(data["games"])})


class BotRegistry:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def put(self, bot: RegisteredBot) -> None:
        self.redis.hset(BOTS, bot.name, bot.to_json())

    def get(self, name: str) -> RegisteredBot | None:
        text = self.redis.hget(BOTS, name)
        return None if text is None else RegisteredBot.from_json(text)

    def all(self) -> list[RegisteredBot]:
        raw: dict[bytes, bytes] = self.redis.hgetall(BOTS)  # type: ignore[assignment]
        return sorted((RegisteredBot.from_json(v) for v in raw.values()), key=lambda b: b.name)

    def remove(self, name: str) -> bool:
        return bool(self.redis.hdel(BOTS, name))
