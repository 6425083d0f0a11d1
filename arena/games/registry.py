"""Games by name, each from its own folder.

Every sub-package of ``arena.games`` is a game: its ``game`` module registers its ``Game``.
Its folder holds, beside the rules, the parts the rest of the arena asks for by name
(``part``): ``why`` explains an illegal move, ``table`` lays out the viewer's table,
``layout`` gives the environments' pack and action space, ``infostate`` what a seat's
information state tensor remembers of the hand, ``openspiel`` the facts of
its OpenSpiel model, ``worlds`` random worlds that one seat's observation cannot tell
from the real one (determinization, for ISMCTS), ``docs`` its reference page's
examples, ``bot`` an example bot, ``screen`` how its values read on the play screen,
``messages`` its proto messages when ``bot.proto`` has none. Generic code asks here
and never imports a game by name, so a new game is a new folder (docs/adding-a-game.md).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

from arena.games.api import Game, UnknownGameError

_GAMES: dict[str, Game] = {}
_loaded = False


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


def part(name: str, kind: str) -> ModuleType | None:
    """The module ``kind`` of the folder of game ``name`` (see the module's docstring), or
    None when that game has no such part."""
    if name in builtin_game_names():  # found without loading its rules or any other game's
        package = f"{__package__}.{name.replace('-', '_')}"
    else:
        package = type(get_game(name)).__module__.rpartition(".")[0]
        if not package:  # a game defined in a top-level module has no folder
            return None
    module = f"{package}.{kind}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name == module:
            return None
        raise


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


def names_unloaded() -> list[str]:
    """``game_names()`` without loading any folder's rules: the folders' games and any
    game registered since. For a bot saying which games it plays as it starts."""
    return sorted({*builtin_game_names(), *_GAMES})


def all_games() -> list[Game]:
    return [_GAMES[n] for n in game_names()]


def builtin_game_packages() -> list[str]:
    """The game folders under ``arena/games``, as module names."""
    return list(_folders())


@functools.cache
def _folders() -> tuple[str, ...]:
    """Read once: the folders ship with the code and do not change while it runs."""
    here = [str(Path(__file__).parent)]
    return tuple(f"arena.games.{m.name}" for m in pkgutil.iter_modules(here) if m.ispkg)


def builtin_game_names() -> list[str]:
    """The games of the folders under ``arena/games``, by name, without loading them: a
    folder is named for its game, hyphens as underscores (a test holds each to it)."""
    return [package.rpartition(".")[2].replace("_", "-") for package in builtin_game_packages()]


def _load_builtin_games() -> None:
    global _loaded
    if not _loaded:
        for package in builtin_game_packages():
            importlib.import_module(f"{package}.game")
        _loaded = True
