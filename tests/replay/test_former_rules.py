"""A match stored before a game's rule changed still re-runs and verifies, under the
former rule its game declares (``GameInfo.former_rules``), and verification says so.
Seep's dealer after a void bazzi is the case."""

from __future__ import annotations

import json
import random
from datetime import timedelta

from arena.games import get_game
from arena.games.seep.actions import VOID_BAZZI_SAME_DEALER
from arena.replay.match_log import Replayed, _replay, replay, rerun_as_stored
from arena.replay.verify import verify_replay
from arena.v1 import referee_pb2

OPTIONS = {"bazzis": 2, "max_deals": 1}
SEED = 17
"""Random play (``random.Random(17)``) whose first bazzi ends void."""


def record_played_under(former: frozenset[str]) -> referee_pb2.MatchLog:
    """A record of the match as an engine playing by ``former`` would have stored it."""
    game = get_game("seep")
    state = game.new_state(SEED, OPTIONS)
    state.former = former
    rng = random.Random(SEED)
    choices = []
    while not state.is_terminal():
        legal = state.legal_actions()
        choices.append(rng.randrange(len(legal)))
        state.apply(legal[choices[-1]])
    log = referee_pb2.MatchLog(
        match_id="t000000000000-before",
        game="seep",
        seed=SEED,
        options_json=json.dumps(OPTIONS),
        seat_names=["a", "b", "c", "d"],
        max_faults=3,
        end=referee_pb2.MATCH_END_COMPLETED,
        played=True,
        choices=choices,
        think_100us=[0] * len(choices),
    )
    log.move_deadline.FromTimedelta(timedelta(seconds=1))
    return log


def test_a_match_from_before_the_void_bazzi_rule_verifies_and_is_named() -> None:
    former = frozenset({VOID_BAZZI_SAME_DEALER})
    old = record_played_under(former)
    played = _replay(old, get_game("seep"), OPTIONS, former)
    # Its replay (events and action texts) verifies under the former rule, named.
    verified = verify_replay(played.document)
    assert "same dealer dealt again" in verified.former_rule
    assert "played under a former rule" in verified.summary()
    assert verified.to_json()["former_rule"] == verified.former_rule
    # The record (choices only) re-runs under today's rule too, to the same outcome: the
    # dealer's partner deals instead, a seat of the same team, so the deal is the same
    # one turned by two seats. Only the replay's seats tell the rules apart.
    today = replay(old)
    assert today.former_rule == ""
    assert (today.scores, today.decisions) == (played.scores, played.decisions)
    assert today.document["hands"] != played.document["hands"]

    # Where only the former rule gives what was stored, the re-run says so.
    def stored(rerun: Replayed) -> str | None:
        return None if rerun.document["hands"] == played.document["hands"] else "other hands"

    rerun, different = rerun_as_stored(old, stored)
    assert different is None and rerun.former_rule == verified.former_rule
    # A match played today verifies under today's rule and names none.
    now = replay(record_played_under(frozenset()))
    assert now.former_rule == "" and verify_replay(now.document).former_rule == ""
    assert "former" not in verify_replay(now.document).summary()


def test_a_record_no_rule_explains_keeps_todays_difference() -> None:
    log = record_played_under(frozenset())

    def never(rerun: Replayed) -> str:
        return f"stored otherwise than {rerun.scores}"

    rerun, different = rerun_as_stored(log, never)
    assert rerun.former_rule == ""
    assert different == never(replay(log))
