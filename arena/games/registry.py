"""Games by name. An engine module registers its ``Game`` at import."""

from __future__ import annotations

import difflib
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


def unregister(name: str) -> None:
    """Take a game out again: for a test that registers one of its own."""
    _GAMES.pop(name, None)


def get_game(name: str) -> Game:
    """The game registered as exactly ``name``: the wire and stored records use canonical
    names only (``game_name`` accepts what a person types)."""
    _load_builtin_games()
    try:
        return _GAMES[name]
    except KeyError:
        raise unknown_game(name) from None


def game_name(typed: str) -> str:
    """The canonical name of the game a person typed, in any case, with spaces or
    underscores for the hyphen, or as its title ("Bid Euchre", "bid_euchre")."""
    _load_builtin_games()
    key = _loose(typed)
    for name, game in _GAMES.items():
        if key in (_loose(name), _loose(game.info.title)):
            return name
    raise unknown_game(typed)


def unknown_game(name: str) -> UnknownGameError:
    """The error for a name no game has: the closest name, if one is close, then all."""
    names = game_names()
    key = _loose(name)
    close = [n for n in names if key and key in n] or difflib.get_close_matches(
        key, names, n=1, cutoff=0.6
    )
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return UnknownGameError(f"unknown game {name!r}{hint}; available games: {', '.join(names)}")


def _loose(text: str) -> str:
    return "-".join(text.lower().replace("_", " ").replace("-", " ").split())


def game_names() -> list[str]:
    _load_builtin_games()
    return sorted(_GAMES)


def all_games() -> list[Game]:
    return [_GAMES[n] for n in game_names()]


def _load_builtin_games() -> None:
    for module in BUILTIN_GAME_MODULES:
        importlib.import_module(module)
