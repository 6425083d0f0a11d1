"""Replays stored by an earlier arena keep verifying after an engine rewords an event: the
old wording is accepted exactly where ``GameInfo.former_texts`` says, and nowhere else."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from arena.games import get_game
from arena.replay.verify import ReplayMismatch, verify_text
from tests.games.generic import Case, recorded_replay

OLD = "with 1 tricks;"


def one_trick_replay(game_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A random match with a hand that ended with one trick for the declarer, and that
    hand's end event."""
    game = get_game(game_name)
    for seed in range(200):
        doc = recorded_replay(game, Case(seed, seed, {}))
        for hand in doc["hands"]:
            for entry in hand["log"]:
                event = entry.get("event")
                if event and event["kind"] == "hand_end" and "with 1 trick;" in event["text"]:
                    return doc, event
    pytest.fail(f"no {game_name} hand ended with one trick in 200 matches")


@pytest.mark.parametrize("game_name", ["bid-euchre", "bridgette"])
def test_a_hand_end_says_1_trick_and_the_old_1_tricks_still_verifies(game_name: str) -> None:
    doc, event = one_trick_replay(game_name)
    verify_text(json.dumps(doc))  # as this arena writes it
    event["text"] = event["text"].replace("with 1 trick;", OLD)
    verify_text(json.dumps(doc))  # as an earlier arena wrote it
    event["text"] = event["text"].replace(OLD, "with 2 tricks;")
    with pytest.raises(ReplayMismatch, match="hand_end"):
        verify_text(json.dumps(doc))  # any other wording is still a mismatch


def test_the_former_wording_is_declared_only_where_it_was_written() -> None:
    for name in ("bid-euchre", "bridgette"):
        (pattern, was), *_ = get_game(name).info.former_texts
        assert re.sub(pattern, was, "made with 1 trick; points") == f"made {OLD} points"
    assert get_game("seep").info.former_texts == ()
