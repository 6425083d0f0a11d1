"""The bot registry: name -> address (or hosted) and what the bot said in its Hello.

A name holds one kind of bot: a remote one (registered by address) or a hosted one
(submitted as packages, ``arena.store.packages``). The writes that could turn one into
the other check the current entry and write in one transaction (WATCH/MULTI), so two
callers racing for a name cannot leave a version of one bot under another's entry.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import redis
from redis.client import Pipeline

from arena.competition.daily import WINDOW_S, DailyLimit
from arena.quotas import AuthorQuotas, OverQuota, Usage
from arena.records import Fields, check_version, current, parse
from arena.store import keys
from arena.store.packages import HostedVersion
from arena.store.transaction import watching

KIND = "registered bot"
VERSION = 2


@dataclass(frozen=True)
class RegisteredBot:
    name: str
    address: str
    games: tuple[str, ...]
    hello_name: str
    version: str
    registered_at: float
    hosted: bool = False
    """Run by the arena itself from a submitted package (``arena.store.packages``), one
    fresh sandboxed process per seat and match, so it cannot remember one match in the
    next. A hosted bot has no address."""
    author: str = ""
    """Its owner (``arena.store.authors``): a hosted bot's author, or the one a remote
    bot was registered for; empty for the operator's house bots."""
    record_version: int = VERSION
    """The record's schema (``arena.records``); ``version`` is the bot's own."""

    def to_json(self) -> str:
        """The stored JSON; raises ``RecordError`` (nothing is written) if not valid."""
        check_version(KIND, self.record_version, VERSION)
        data = {**asdict(self), "games": list(self.games)}
        _read(data)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> RegisteredBot:
        """A stored bot as the current type; raises ``RecordError`` (``StaleRecord``
        for an earlier build's)."""
        found = parse(KIND, text)
        return _read(current(KIND, found, VERSION, str(found.get("name", ""))))


def _read(data: Mapping[str, Any]) -> RegisteredBot:
    f = Fields(KIND, data)
    bot = RegisteredBot(
        name=f.text("name", empty=False),
        address=f.text("address"),
        games=f.texts("games"),
        hello_name=f.text("hello_name"),
        version=f.text("version"),
        registered_at=f.number("registered_at", 0),
        hosted=f.flag("hosted"),
        author=f.text("author"),
        record_version=f.integer("record_version", VERSION, VERSION),
    )
    if bot.hosted and bot.address:
        f.fail("address", "none for a hosted bot")
    return bot


class Published(enum.Enum):
    """How ``BotRegistry.publish`` went."""

    DONE = "done"
    LABEL_TAKEN = "label taken"
    """The bot already has a version with this label; nothing was written."""
    CHANGED = "changed"
    """The registry entry is no longer the one the caller decided on; nothing was written."""


class BotRegistry:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def put(self, bot: RegisteredBot) -> None:
        self.redis.hset(keys.bots(), bot.name, bot.to_json())

    def put_remote(self, bot: RegisteredBot) -> RegisteredBot | None:
        """Register (or re-register) a remote bot unless its name is a hosted bot's;
        returns that hosted bot (and writes nothing) if it is."""

        def body(pipe: Pipeline) -> RegisteredBot | None:
            current = _parse(pipe.hget(keys.bots(), bot.name))
            if current is not None and current.hosted:
                return current
            pipe.multi()
            pipe.hset(keys.bots(), bot.name, bot.to_json())
            return None

        return watching(self.redis, [keys.bots()], body)

    def publish(
        self,
        bot: RegisteredBot,
        version: HostedVersion,
        blob: bytes,
        seen: RegisteredBot | None,
        quotas: AuthorQuotas | None = None,
        daily: tuple[str, DailyLimit] | None = None,
    ) -> Published:
        """Store a hosted bot's new ``version``, its package and its registry entry
        ``bot`` together, if the entry is still ``seen`` (what the caller's access
        decision was made on; None: no such bot) and the label is new. With ``quotas``,
        raises ``OverQuota`` (nothing written) if the version would take the bot's author
        past one: checked here, on what the transaction watches, so two submissions at
        once cannot both slip under a limit. With ``daily`` (the submitting author and
        their competition's limit, ``arena.competition.daily``), raises ``OverQuota``
        past the limit, and otherwise records the submission in the same transaction."""
        versions = keys.hosted(bot.name)
        log = keys.submissions(daily[0]) if daily is not None else None
        watched = [keys.bots(), versions, keys.hosted_removed(bot.name), *([log] if log else [])]

        def body(pipe: Pipeline) -> Published:
            if _parse(pipe.hget(keys.bots(), bot.name)) != seen:
                return Published.CHANGED
            if pipe.hexists(versions, version.version) or pipe.sismember(
                keys.hosted_removed(bot.name), version.version
            ):
                return Published.LABEL_TAKEN
            if quotas is not None and bot.author:
                usage = _usage(pipe, bot.author)
                why = quotas.refusal(bot.author, usage, bot.name, version.sha256, version.size)
                if why is not None:
                    raise OverQuota(why)
            if daily is not None and log is not None:
                author, limit = daily
                found: list[tuple[bytes, float]] = pipe.zrangebyscore(  # type: ignore[assignment]
                    log, limit.since, "+inf", withscores=True
                )
                why = limit.refusal(author, [t for _, t in found])
                if why is not None:
                    raise OverQuota(why)
            pipe.multi()
            pipe.set(keys.package(version.sha256), blob, nx=True)
            pipe.hset(versions, version.version, version.to_json())
            pipe.hset(keys.bots(), bot.name, bot.to_json())
            if daily is not None and log is not None:
                pipe.zadd(log, {version.label: version.submitted_at})
                pipe.zremrangebyscore(log, "-inf", f"({daily[1].since}")
                pipe.expire(log, int(2 * WINDOW_S))
            return Published.DONE

        # A WATCH fails on any bot's change: the body looks again and decides on this one.
        return watching(self.redis, watched, body)

    def usage(self, author: str) -> Usage:
        """What ``author``'s hosted bots hold, for their quotas (``arena.quotas``)."""
        return _usage(self.redis, author)

    def submissions(self, author: str, since: float) -> list[float]:
        """When ``author`` submitted, at or after ``since``, as counted for a daily limit."""
        found: list[tuple[bytes, float]] = self.redis.zrangebyscore(  # type: ignore[assignment]
            keys.submissions(author), since, "+inf", withscores=True
        )
        return [t for _, t in found]

    def get(self, name: str) -> RegisteredBot | None:
        return _parse(self.redis.hget(keys.bots(), name))

    def all(self) -> list[RegisteredBot]:
        raw: dict[bytes, bytes] = self.redis.hgetall(keys.bots())  # type: ignore[assignment]
        return sorted((RegisteredBot.from_json(v) for v in raw.values()), key=lambda b: b.name)


def _parse(text: object) -> RegisteredBot | None:
    return None if text is None else RegisteredBot.from_json(text)  # type: ignore[arg-type]


def _usage(client: redis.Redis | redis.client.Pipeline, author: str) -> Usage:
    """What ``author``'s bots hold, read through ``client``: in a transaction, a pipeline
    that has started watching, which then watches their versions too."""
    raw: dict[bytes, bytes] = client.hgetall(keys.bots())  # type: ignore[assignment]
    bots = (RegisteredBot.from_json(v) for v in raw.values())
    mine = sorted(b.name for b in bots if b.hosted and b.author == author)
    held_in = [keys.hosted(name) for name in mine]
    if held_in and isinstance(client, redis.client.Pipeline):
        client.watch(*held_in)  # type: ignore[no-untyped-call]
    versions: dict[str, int] = {}
    packages: dict[str, int] = {}
    for name, key in zip(mine, held_in, strict=True):
        held: dict[bytes, bytes] = client.hgetall(key)  # type: ignore[assignment]
        versions[name] = len(held)
        for text in held.values():
            version = HostedVersion.from_json(text)
            packages[version.sha256] = version.size
    return Usage(versions, packages)
