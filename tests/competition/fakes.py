"""Pure stand-ins the competition tests share: hosted versions, a spec and the roster
the ladder reads competitors' versions from."""

from __future__ import annotations

from arena.competition.phases import Timeline
from arena.competition.spec import CompetitionSpec, Rules
from arena.store.packages import HostedVersion

GAMES = ("seep",)


def version(
    bot: str, label: str, at: float, author: str, games: tuple[str, ...] = GAMES
) -> HostedVersion:
    sha = f"{abs(hash((bot, label))):064x}"[-64:]
    return HostedVersion(
        bot, label, "python3.11", "python3 bot.py", sha, 1, author, at, games, bot, label
    )


def competition(active_versions: int = 2) -> CompetitionSpec:
    rules = Rules("open", "shared", 5, active_versions, 50, 0.95, 1000.0, 0.0, 0)
    return CompetitionSpec("spring", "", (("seep", {}),), Timeline(1.0, 2.0, 3.0), rules)


class Roster:
    def __init__(self, versions: dict[str, list[HostedVersion]], competitors: list[str]) -> None:
        self.by_bot = versions
        self.authors = competitors

    def versions(self, name: str) -> list[HostedVersion]:
        return self.by_bot.get(name, [])

    def competitors(self, competition: str) -> list[str]:
        return self.authors if competition == "spring" else []
