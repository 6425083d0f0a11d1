"""Games by name. An engine module registers its ``Game`` at import."""

from __future__ import annotations

import importlib

from arena.games.api import Game, UnknownGameError

BUILTIN_GAME_MODULES = (
    "arena.games.baloot",
    "arena.games.bid_euchre",
    "arena.games.bridgette",
    "arena.games.persian_rummy",
    "arena.games.seep",
)
"""Engine modules that register themselves on import."""

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    _GAMES[game.info.name] = game
    return game


def get_game(name: str) -> Game:
    _load_builtin_games()
    try:
        return _GAMES[name]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {name!r}; available games: {', '.join(game_names())}"
        ) from None


def game_names() -> list[str]:
    _load_builtin_games()
    return sorted(_GAMES)


def all_games() -> list[Game]:
    return [_GAMES[n] for n in game_names()]


def _load_builtin_games() -> None:
    for module in BUILTIN_GAME_MODULES:
        importlib.import_module(module)
