"""The leaderboard web server in front of an arena's API, and its pages as text."""

from __future__ import annotations

import urllib.error
import urllib.request

from arena.processes import arena_command, start_service
from tests.support.arena import Arena


def get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as page:
            return str(page.read().decode())
    except urllib.error.HTTPError as error:
        return f"{error.code} {error.read().decode()}"


def web(arena: Arena) -> str:
    service = start_service(
        arena_command("leaderboard", "serve", "--port", "0", "--api", arena.api.address)
    )
    arena.bots["web"] = service
    return service.address.rstrip("/")
