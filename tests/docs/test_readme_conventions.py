"""The README's output conventions say what the code does: the units per game."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games import all_games

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_units_the_readme_names_are_the_engines() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = re.search(r"\*\*Units\*\*: scores count (\w+)s in (\w+) and (\w+)s in the other", text)
    assert said is not None
    special, game, usual = said.groups()
    units = {g.info.title: g.info.score_unit for g in all_games()}
    assert units.pop(game) == special
    assert set(units.values()) == {usual}
