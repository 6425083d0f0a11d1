"""The chaos bot's modes are all documented, and ``--after`` counts per match.

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


def test_good_decisions_are_counted_per_match() -> None:
    bot = ChaosBot("illegal", after=2)

    def request(match_id: str) -> bot_pb2.ActRequest:
        return bot_pb2.ActRequest(match_id=match_id)

    assert [bot.misbehaves(request("a")) for _ in range(3)] == [False, False, True]
    assert [bot.misbehaves(request("b")) for _ in range(3)] == [False, False, True]
    bot.match_ended(bot_pb2.MatchEndedRequest(match_id="a"))
    assert not bot.misbehaves(request("a"))  # a finished match's count is forgotten
