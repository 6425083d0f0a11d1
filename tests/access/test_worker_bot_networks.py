"""The workers' bot network policy (``workers.settings``): the watchdog's Hello to a
suspended ladder entry's address (``workers.watchdog_probes``) obeys ``ARENA_BOT_ALLOW``
and ``ARENA_BOT_DENY`` as the referee and the API obey them, and a worker with a
mistaken one does not start."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from arena.bot_networks import BotNetworks, parse_networks
from workers import watchdog_probes
from workers.app import settings
from workers.settings import Settings


def test_the_workers_read_the_policy_as_the_referee_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_BOT_ALLOW", "10.0.0.0/8, 192.168.1.7")
    monkeypatch.setenv("ARENA_BOT_DENY", "10.9.0.0/16")
    monkeypatch.setenv("ARENA_BOT_TLS_CA", "/etc/arena/bots-ca.pem")
    settings = Settings()
    assert settings.bot_networks == BotNetworks(
        parse_networks("10.0.0.0/8,192.168.1.7", "allow"), parse_networks("10.9.0.0/16", "deny")
    )
    assert settings.bot_tls_ca == "/etc/arena/bots-ca.pem"


def test_without_a_policy_the_workers_refuse_what_every_server_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ARENA_BOT_ALLOW", "ARENA_BOT_DENY", "ARENA_BOT_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    assert settings.bot_networks == BotNetworks() and settings.bot_tls_ca == ""


def test_a_mistaken_policy_stops_the_worker_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_BOT_DENY", "10.0.0.0/8,not-a-network")
    with pytest.raises(ValueError, match=r"^\$ARENA_BOT_DENY: "):
        Settings()


def test_the_watchdogs_hello_obeys_the_workers_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    narrow = BotNetworks(parse_networks("10.0.0.0/8", "allow"))
    monkeypatch.setattr(
        watchdog_probes,
        "settings",
        dataclasses.replace(settings, bot_networks=narrow),
    )
    why = asyncio.run(watchdog_probes._hello_remote("127.0.0.1:9"))
    assert why is not None and "127.0.0.1" in why
    why = asyncio.run(watchdog_probes._hello_remote("169.254.169.254:80"))
    assert why is not None and "metadata" in why
