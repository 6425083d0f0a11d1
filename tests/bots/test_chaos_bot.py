"""The chaos bot's modes are all documented, and ``--after`` counts a match's decisions.

Each mode's effect on a referee is checked in ``tests/referee/test_chaos_matrix.py``.
"""

from __future__ import annotations

import re

import pytest

from arena.bots.examples import chaos
from arena.bots.examples.chaos import MODES, ChaosBot
from arena.cli import parser
from arena.v1 import bot_pb2


def test_every_mode_is_documented_in_the_module_and_the_command_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["bot", "serve", "--help"])
    help_text = capsys.readouterr().out
    options = help_text[help_text.index("\n  --mode MODE") : help_text.index("\n  --after")]
    mode_help = " ".join(options.split())
    docstring = chaos.__doc__ or ""
    for mode in MODES:
        assert f"``{mode}``" in docstring, f"{mode} is missing from the docstring"
        assert re.search(rf"(?<![\w-]){mode}(?![\w-])", mode_help), f"{mode} missing: {mode_help}"


def test_an_unknown_mode_is_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match="unknown chaos mode 'sulk'; modes: hang, late"):
        ChaosBot("sulk")


def test_it_misbehaves_from_the_matchs_decision_after_on_whatever_its_seat() -> None:
    """By the match's decision index: each seat's token is its own, so a count per token
    would let each of a team's seats answer ``after`` times."""
    bot = ChaosBot("illegal", after=2)

    def request(token: str, index: int) -> bot_pb2.ActRequest:
        return bot_pb2.ActRequest(match_id=token, decision_index=index)

    assert [bot.misbehaves(request("seat-1", i)) for i in (0, 1, 2, 5)] == [
        False, False, True, True,
    ]  # fmt: skip
    assert bot.misbehaves(request("seat-3", 3))  # its partner's first decision, past 2
    assert not bot.misbehaves(request("next-match", 1))
