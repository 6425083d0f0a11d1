"""Settings of the tournament workers, from the environment.

``ARENA_REDIS_URL``        broker, result backend and store (default redis://127.0.0.1:6379/0)
``ARENA_REFEREES``         comma-separated referee addresses (default 127.0.0.1:50051)
``ARENA_VISIBILITY_TIMEOUT``  seconds before a task whose worker vanished is handed to
                           another (default 3600); every wait a task spends inside a worker
                           (a retry's countdown, a lease) is kept under a quarter of it
``ARENA_UNACKED_RESTORE_INTERVAL``  seconds between scans for such tasks (default 10)
``ARENA_MATCH_LEASE``      seconds a match's lease lasts without a heartbeat (default 30):
                           how soon a match whose worker died is played again
``ARENA_WATCHDOG_INTERVAL``  seconds between the watchdog's rounds (default 10)
``ARENA_REFEREE_KEEPALIVE``  seconds between HTTP/2 pings to a referee during a match; one
                           that does not answer within as long again has hung (default 10)
``ARENA_REFEREE_CA``       PEM file of CAs to trust: call referees over TLS (default: plaintext)
``ARENA_REFEREE_CERT``, ``ARENA_REFEREE_KEY``  PEM files of the client certificate and its
                           key, shown to referees that require mutual TLS (with the CA)
``ARENA_SCHEDULE_WINDOW``  matches a tournament may have handed out without a result
                           (default 256): what the broker holds of it at most; keep it
                           above the number of worker processes
``ARENA_LADDER_RATINGS_EVERY``  results of a ladder between refits of the arena-wide
                           ratings (default 200): a ladder never finishes, so its results
                           reach them this way
``ARENA_LADDER_SUSPEND_AFTER``  a ladder suspends an entry whose last this many matches
                           it all forfeited or faulted in (default 5)
``ARENA_LADDER_PROBE_HOLD``  seconds before a suspended entry's first Hello (default 60,
                           doubled at each later suspension of it, up to an hour)
``ARENA_LADDER_PROBE_EVERY``  seconds between Hellos to a suspended entry (default 60)
``ARENA_REFEREE_TOKEN``    the referees' token, sent with every PlayMatch (default: none,
                           for referees that have none; ``arena worker --referee-token-file``)
``ARENA_BOT_ALLOW``, ``ARENA_BOT_DENY``  the operator's bot network policy
                           (``arena.bot_networks``), comma-separated networks, as the
                           referee's and the API's ``--bot-networks-allow``/``-deny``: the
                           watchdog's Hello to a suspended ladder entry's address obeys it
``ARENA_BOT_TLS_CA``       PEM file of CAs to trust: say that Hello over TLS, as the
                           referee's ``--bot-tls-ca`` (default: plaintext)

How long a match may run is not bounded by any of these: the lease's heartbeat, not the
visibility timeout, says a match is still being played (``arena.store.leases``).

``current()`` is the workers' settings, read from the environment once per process: the
Celery app (``workers.app``), the stores (``workers.stores``) and the rest take them from
here, so that none of them needs another to reach them. This module imports nothing of
``workers``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache

from arena.bot_networks import ALLOW_ENV, DENY_ENV, BotNetworks, parse_networks
from arena.tournament.formats.ladder_suspension import FIRST_HOLD_S, PROBE_EVERY_S, SUSPEND_AFTER

MAX_RETRY_COUNTDOWN_S = 60.0
RESTORE_MUTEX_S = 300.0


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be more than 0 seconds, got {raw!r}")
    return value


def _count(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        value = int(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {raw!r}")
    return value


def _bot_networks() -> BotNetworks:
    """The policy of ``ARENA_BOT_ALLOW`` and ``ARENA_BOT_DENY``, parsed as ``arena referee
    serve`` parses them (``arena.cli.services.bot_networks_from_flags``)."""
    return BotNetworks(
        parse_networks(os.environ.get(ALLOW_ENV, ""), f"${ALLOW_ENV}"),
        parse_networks(os.environ.get(DENY_ENV, ""), f"${DENY_ENV}"),
    )


@dataclass(frozen=True)
class Settings:
    redis_url: str = field(
        default_factory=lambda: os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    referees: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            a.strip()
            for a in os.environ.get("ARENA_REFEREES", "127.0.0.1:50051").split(",")
            if a.strip()
        )
    )
    visibility_timeout_s: float = field(
        default_factory=lambda: _float("ARENA_VISIBILITY_TIMEOUT", 3600)
    )
    unacked_restore_interval_s: float = field(
        default_factory=lambda: _float("ARENA_UNACKED_RESTORE_INTERVAL", 10)
    )
    match_lease_s: float = field(default_factory=lambda: _float("ARENA_MATCH_LEASE", 30))
    watchdog_interval_s: float = field(
        default_factory=lambda: _float("ARENA_WATCHDOG_INTERVAL", 10)
    )
    referee_keepalive_s: float = field(
        default_factory=lambda: _float("ARENA_REFEREE_KEEPALIVE", 10)
    )
    schedule_window: int = field(default_factory=lambda: _count("ARENA_SCHEDULE_WINDOW", 256))
    ladder_ratings_every: int = field(
        default_factory=lambda: _count("ARENA_LADDER_RATINGS_EVERY", 200)
    )
    ladder_suspend_after: int = field(
        default_factory=lambda: _count("ARENA_LADDER_SUSPEND_AFTER", SUSPEND_AFTER)
    )
    ladder_probe_hold_s: float = field(
        default_factory=lambda: _float("ARENA_LADDER_PROBE_HOLD", FIRST_HOLD_S)
    )
    ladder_probe_every_s: float = field(
        default_factory=lambda: _float("ARENA_LADDER_PROBE_EVERY", PROBE_EVERY_S)
    )
    referee_ca: str = field(default_factory=lambda: os.environ.get("ARENA_REFEREE_CA", ""))
    referee_cert: str = field(default_factory=lambda: os.environ.get("ARENA_REFEREE_CERT", ""))
    referee_key: str = field(default_factory=lambda: os.environ.get("ARENA_REFEREE_KEY", ""))
    referee_token: str = field(
        default_factory=lambda: os.environ.get("ARENA_REFEREE_TOKEN", "").strip(), repr=False
    )
    bot_networks: BotNetworks = field(default_factory=_bot_networks)
    bot_tls_ca: str = field(default_factory=lambda: os.environ.get("ARENA_BOT_TLS_CA", ""))

    def __post_init__(self) -> None:
        if bool(self.referee_cert) != bool(self.referee_key):
            raise ValueError("give both ARENA_REFEREE_CERT and ARENA_REFEREE_KEY, or neither")
        if self.referee_cert and not self.referee_ca:
            raise ValueError(
                "ARENA_REFEREE_CERT needs ARENA_REFEREE_CA: a client certificate is for TLS"
            )
        if self.match_lease_s > self.visibility_timeout_s / 4:
            raise ValueError(
                f"ARENA_MATCH_LEASE ({self.match_lease_s:g} s) must be at most a quarter of "
                f"ARENA_VISIBILITY_TIMEOUT ({self.visibility_timeout_s:g} s)"
            )

    @property
    def retry_cap_s(self) -> float:
        """The longest countdown before a failed match is tried again. A retry waits in a
        worker's memory with its message unacknowledged: one still waiting when the
        visibility timeout ran out would be handed to a second worker, and each copy
        would retry again."""
        return min(MAX_RETRY_COUNTDOWN_S, self.visibility_timeout_s / 4)

    @property
    def restore_mutex_s(self) -> float:
        """How long kombu's lock on its scan for unacknowledged tasks may outlive a holder
        that was killed (its default: 5 minutes, during which no task is handed back)."""
        return min(RESTORE_MUTEX_S, self.visibility_timeout_s)

    @property
    def stranded_after_s(self) -> float:
        """An unacknowledged task older than this was not handed back as it should have
        been (a visibility timeout, then a scan no stale lock can delay longer than
        another): the watchdog counts its match as nowhere."""
        return self.visibility_timeout_s + self.restore_mutex_s + self.unacked_restore_interval_s


@cache
def current() -> Settings:
    """The workers' settings, read from the environment at the first call in a process
    (raises ValueError naming a variable that does not parse)."""
    return Settings()
