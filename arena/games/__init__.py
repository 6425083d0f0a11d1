"""Pure, deterministic rule engines, one module per game."""

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
