"""The guide's section on the environments: its example runs and its table of tensor
layouts is the one ``arena.envs.layout`` gives."""

from __future__ import annotations

import re
from typing import Any

from arena.envs import action_space_size, layout, tensor_size
from arena.envs.layouts import games, uses_ids
from tests.support.guide import GUIDE

GAMES = games()

TITLE = "## Training with the environments\n"


def section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    assert TITLE in text, "the guide's section on the environments is gone"
    rest = text.split(TITLE, 1)[1]
    return rest.split("\n## ", 1)[0]


def test_the_example_runs() -> None:
    blocks = re.findall(r"<!-- tested: python -->\s*\n```python\n(.*?)^```", section(), re.S | re.M)
    assert len(blocks) == 1
    namespace: dict[str, Any] = {"__name__": "guide"}
    exec(compile(blocks[0], str(GUIDE), "exec"), namespace)
    assert namespace["table"].unwrapped.state.is_terminal()


def test_the_layout_table_is_the_code_s() -> None:
    rows = {}
    for line in section().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0] in GAMES:
            rows[cells[0]] = cells[1:]
    assert sorted(rows) == sorted(GAMES)
    for game, (size, actions, blocks) in rows.items():
        assert int(size) == tensor_size(game)
        assert actions == f"{action_space_size(game)} {'ids' if uses_ids(game) else 'indices'}"
        assert blocks == ", ".join(f"{name} {n}" for name, _, n in layout(game))
