"""The output conventions (docs/cli.md, once the README's) say what the code does: the
units per game."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games import all_games

CONVENTIONS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_units_the_conventions_name_are_the_engines() -> None:
    text = " ".join(CONVENTIONS.read_text(encoding="utf-8").split())
    said = re.search(r"\*\*Units\*\*: scores count (\w+)s in (\w+) and (\w+)s in the other", text)
    assert said is not None
    special, game, usual = said.groups()
    units = {g.info.title: g.info.score_unit for g in all_games()}
    assert units.pop(game) == special
    assert set(units.values()) == {usual}
