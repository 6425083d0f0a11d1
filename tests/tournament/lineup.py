"""A registry of remote and hosted bots for tests of tournament specs, without Redis."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from arena.games import game_names
from arena.store.bots import RegisteredBot
from arena.store.packages import HostedVersion
from arena.tournament.spec import VersionLookup


def registry(
    names: Iterable[str], hosted: Collection[str] = (), versions: Iterable[str] = ("v1",)
) -> tuple[dict[str, RegisteredBot], VersionLookup]:
    """Bots by name (those in ``hosted`` hosted, with ``versions``, the last the newest)
    and the lookup of their versions."""
    games = tuple(game_names())
    labels = list(versions)
    bots = {
        name: RegisteredBot(
            name,
            "" if name in hosted else f"127.0.0.1:{5000 + i}",
            games,
            name,
            "1",
            0.0,
            hosted=name in hosted,
        )
        for i, name in enumerate(names)
    }

    def version_of(name: str, label: str | None) -> HostedVersion | None:
        label = labels[-1] if label is None else label
        if name not in hosted or label not in labels:
            return None
        sha = f"{labels.index(label):064x}"
        return HostedVersion(
            name, label, "python3.11", "python3 bot.py", sha, 1, "", 0.0, games, name, "1"
        )

    return bots, version_of
