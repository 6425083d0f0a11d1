"""Pure, deterministic rule engines, one module per game.

Importing this package loads no engine: an engine's own names exported here (Seep's
``SeepPosition`` for ``SeepGame.from_position``) load their module when first used.
"""

import importlib
from typing import TYPE_CHECKING

from arena.games.api import (
    Deal,
    DealError,
    Event,
    Game,
    GameError,
    GameInfo,
    IllegalActionError,
    OptionError,
    OptionSpec,
    State,
    UnknownGameError,
)
from arena.games.registry import all_games, game_name, game_names, get_game

if TYPE_CHECKING:
    from arena.games.seep import PlacedHouse, SeepPosition

_FROM_ENGINES = {"PlacedHouse": "arena.games.seep", "SeepPosition": "arena.games.seep"}


def __getattr__(name: str) -> object:
    module = _FROM_ENGINES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Deal",
    "DealError",
    "Event",
    "Game",
    "GameError",
    "GameInfo",
    "IllegalActionError",
    "OptionError",
    "OptionSpec",
    "PlacedHouse",
    "SeepPosition",
    "State",
    "UnknownGameError",
    "all_games",
    "game_name",
    "game_names",
    "get_game",
]
