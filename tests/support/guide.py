"""The bot author's guide, docs/writing-a-bot.md, and the games' pages, docs/games/GAME.md:
where they are and their text (tests/docs/test_guide.py checks them against the code)."""

from __future__ import annotations

import re
from pathlib import Path

from arena import wire
from arena.v1 import bot_pb2

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "writing-a-bot.md"
GAME_PAGES = ROOT / "docs" / "games"
_OBSERVATIONS = bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["observation"]
GAMES = [field.name.replace("_", "-") for field in _OBSERVATIONS.fields if field.name != wire.OTHER]
"""Every game of ``ActRequest.observation``, by its name (``other`` carries, packed, the
messages of a game in no ``.proto`` file here, and is none)."""


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def game_page(game: str) -> str:
    """The page of one game, docs/games/GAME.md."""
    page = GAME_PAGES / f"{game}.md"
    assert page.is_file(), f"{game} has no page {page.relative_to(ROOT)}"
    return page.read_text(encoding="utf-8")


def game_section(game: str) -> str:
    """A game's page, under its title ``# Title (`game`)``."""
    text = game_page(game)
    m = re.search(rf"^# .*\(`{re.escape(game)}`\)\s*$(?P<body>.*)", text, re.M | re.S)
    assert m, f"docs/games/{game}.md has no title '# ... (`{game}`)'"
    return m["body"]
