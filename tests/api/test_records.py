"""What a stored result shows while its tournament runs: nothing that deals its cards
or ties it to its pairing, deal and half, and for a duplicate half not even the id that
opens its events on the referee; except, in an open ladder, the seed and replay of a
match that has ended, whose deal no other match shares."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.api.common import deal_revealed, revealed, reveals_each_match
from arena.api.service import record_message
from arena.store import TournamentRecord
from arena.store.tournaments import CANCELLED, RUNNING
from arena.tournament.fair_play import OPEN, PUBLIC_ID, SEALED, TRUSTED, MasterSeed, public_match_id
from arena.tournament.spec import LADDER
from tests.records import spec
from tests.support.stored_result import stored

SEED = MasterSeed(1234, "9" * 32, operator=False)


def test_a_duplicate_half_hides_its_referee_id_until_the_tournament_ends() -> None:
    half = stored("t-seep-0-a", "t-seep-0")
    running = record_message(half, False, SEED.public_id)
    assert running.referee_match_id == "" and running.replay_id == ""
    assert not running.HasField("seed") and running.deal_salt == ""
    assert running.deal_commitment == "c" * 64
    ended = record_message(half, True, SEED.public_id)
    assert ended.referee_match_id == "t-seep-0-a-0a1b2c3d" and ended.seed == 77


def test_a_match_with_its_own_deal_shows_its_referee_id_while_it_runs() -> None:
    alone = record_message(stored("t-seep-3", "t-seep-3"), False, SEED.public_id)
    assert alone.referee_match_id == "t-seep-3-0a1b2c3d"  # its events show only its own deal
    assert alone.replay_id == "" and not alone.HasField("seed")


def test_when_a_result_started_and_was_stored_is_shown_when_it_was_kept() -> None:
    kept = replace(
        stored("t-seep-3", "t-seep-3"), started_at=1_699_999_990.5, finished_at=1_700_000_000.25
    )
    shown = record_message(kept, False, SEED.public_id)
    assert shown.started_at.ToMilliseconds() == 1_699_999_990_500
    assert shown.finished_at.ToMilliseconds() == 1_700_000_000_250
    unkept = replace(stored("t-seep-3", "t-seep-3"), started_at=None, finished_at=None)
    older = record_message(unkept, True, SEED.public_id)
    # stored before the arena kept the times
    assert not older.HasField("finished_at") and not older.HasField("started_at")


def test_while_it_runs_a_result_is_named_only_by_public_ids() -> None:
    halves = [stored("t-seep-4-7-a", "t-seep-4-7"), stored("t-seep-4-7-b", "t-seep-4-7")]
    running = [record_message(h, False, SEED.public_id) for h in halves]
    for message, half in zip(running, halves, strict=True):
        shown = str(message)
        assert "t-seep" not in shown and "4-7" not in shown  # no pairing, deal or half
        assert PUBLIC_ID.fullmatch(message.match_id) and message.public_id == message.match_id
        assert not message.HasField("deal") and message.deal_key == ""
        assert message.match_id == public_match_id(1234, "9" * 32, half.match_id)
    # The halves still share a rated unit, by a key that names neither.
    assert running[0].pair_key == running[1].pair_key != running[0].match_id
    assert PUBLIC_ID.fullmatch(running[0].pair_key)
    # Once the tournament has ended, both ids are shown: the mapping is published, and
    # anyone holding the revealed seed and salt can check it.
    ended = record_message(halves[1], True, SEED.public_id)
    assert (ended.match_id, ended.public_id) == ("t-seep-4-7-b", running[1].public_id)
    assert ended.HasField("deal") and ended.pair_key == "t-seep-4-7"


def test_public_ids_need_the_salt_as_well_as_the_seed() -> None:
    # An operator's seed may be guessed; the salt the arena draws may not.
    other_salt = MasterSeed(1234, "8" * 32, operator=True)
    assert SEED.public_id("t-seep-0-a") != other_salt.public_id("t-seep-0-a")
    assert SEED.public_id("t-seep-0-a") != SEED.public_id("t-seep-0-b")


def running(**fields: Any) -> TournamentRecord:
    plan = spec(["a", "b"], ["seep"], **fields)
    return TournamentRecord("t", plan, ("seep",), RUNNING, 0.0, 0, 3, 0)


def test_an_open_ladder_publishes_each_match_once_it_has_ended_and_no_other() -> None:
    own = replace(stored("t-ladder-4-a", "t-ladder-4-a"), paired=False)
    ladder = running(format=LADDER, fair_play=OPEN)
    assert reveals_each_match(ladder) and not revealed(ladder)
    assert deal_revealed(ladder, own, playing=set())
    # A copy still being played (a lapsed lease taken again) would see its own cards.
    assert not deal_revealed(ladder, own, playing={"t-ladder-4-a"})
    # A duplicate half shares its deal with its twin: never before the end.
    assert not deal_revealed(ladder, stored("t-ladder-5-a", "t-ladder-5"), playing=set())
    for other in (running(format=LADDER, fair_play=SEALED), running(fair_play=OPEN)):
        assert not reveals_each_match(other) and not deal_revealed(other, own, playing=set())
    ended = replace(running(format=LADDER, fair_play=TRUSTED), state=CANCELLED)
    assert deal_revealed(ended, stored("t-ladder-5-a", "t-ladder-5"), playing=set())


def test_a_published_match_of_a_running_ladder_keeps_its_public_ids() -> None:
    own = replace(stored("t-ladder-4-a", "t-ladder-4-a"), paired=False)
    shown = record_message(own, False, SEED.public_id, dealt=True)
    assert shown.seed == 77 and shown.deal_salt == "5" * 32
    assert shown.replay_id == shown.referee_match_id == "t-ladder-4-a-0a1b2c3d"
    # Still no schedule id, deal number or deal key: those wait for the end.
    assert PUBLIC_ID.fullmatch(shown.match_id) and shown.pair_key == shown.match_id
    assert not shown.HasField("deal") and shown.deal_key == ""
