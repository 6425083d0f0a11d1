"""The games, one folder each (``arena/games/<game>/``: its pure, deterministic rules and
the parts the rest of the arena asks the registry for), and what their engines share:
the engine API, cards, tricks and the registry.

Importing this package loads no game; ``get_game`` and the registry's other functions
load the folders when first asked.
"""

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
    "State",
    "UnknownGameError",
    "all_games",
    "game_name",
    "game_names",
    "get_game",
]
