"""Bot authors and their tokens. Only a token's SHA-256 is kept: a token is 256 random
bits, so its hash needs no salt or slow function, and a leaked store gives no token."""

from __future__ import annotations

import hashlib
import secrets

import redis
from redis.client import Pipeline

from arena.store import keys
from arena.store.transaction import watching


def token_hash(token: str) -> str:
    """What the store keeps of ``token``."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh author token: 256 random bits."""
    return "author-" + secrets.token_urlsafe(32)


class AuthorStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client

    def add(self, name: str) -> str:
        """A new token for ``name``, replacing (and revoking) any earlier one."""
        token = new_token()
        new = token_hash(token)

        def body(pipe: Pipeline) -> None:
            old = pipe.hget(keys.authors(), name)
            pipe.multi()  # both maps change together
            if old is not None:
                pipe.hdel(keys.author_tokens(), old)
            pipe.hset(keys.authors(), name, new)
            pipe.hset(keys.author_tokens(), new, name)

        # WATCH: two adds at once must not both keep a working token.
        watching(self.redis, [keys.authors()], body)
        return token

    def who(self, token: str) -> str | None:
        """The author holding ``token``, if any."""
        if not token:
            return None
        name = self.redis.hget(keys.author_tokens(), token_hash(token))
        return None if name is None else bytes(name).decode()  # type: ignore[arg-type]

    def exists(self, name: str) -> bool:
        return bool(self.redis.hexists(keys.authors(), name))
