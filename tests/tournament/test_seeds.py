"""Secret seeds and what derives from them, as pure functions: the commitment formula
recomputed by hand, the schedule's deal keys in each fair-play mode, and the verifier's
verdict on an honest and on a tampered tournament."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

import pytest

from arena.games import get_game
from arena.match_rules.commitment import deal_commitment
from arena.replay.match_log import replay
from arena.tournament.fair_play import MasterSeed, deal_seed, seed_commitment
from arena.tournament.formats import Field
from arena.tournament.formats.round_robin import RoundRobin
from arena.tournament.schedule import ScheduledMatch
from arena.tournament.spec import InvalidSpec, plan
from arena.tournament.verify import TournamentMismatch, verify_tournament
from arena.v1 import arena_pb2
from tests.games.generic import Case, recorded_log
from tests.tournament.lineup import registry

GAMES_OF = {e: ("bid-euchre", "seep") for e in "abc"}


def schedule(tournament_id: str, master: int, paired: bool) -> list[ScheduledMatch]:
    field = Field(tournament_id, tuple("abc"), ("bid-euchre", "seep"), GAMES_OF, 3, master, paired)
    round_robin = RoundRobin(field, {})
    return round_robin.next(round_robin.start(), round_robin.total())[1]


def matches(paired: bool, master: int = 7) -> list[ScheduledMatch]:
    return schedule("t1", master, paired)


def test_the_tournament_commitment_is_the_documented_hash() -> None:
    salt = "0123456789abcdef" * 2
    text = f"arena.v1 tournament t1 42 {salt}"
    assert seed_commitment("t1", 42, salt) == hashlib.sha256(text.encode()).hexdigest()
    digest = hashlib.sha256(b"arena.v1 seed 42 seep-0-1-a").digest()
    assert deal_seed(42, "seep-0-1-a") == int.from_bytes(digest[:8], "big")


def test_an_arena_seed_is_drawn_fresh_and_an_operator_seed_is_marked() -> None:
    drawn = {MasterSeed.draw().value for _ in range(50)}
    assert len(drawn) == 50 and all(0 <= v < 2**64 for v in drawn)
    assert not MasterSeed.draw().operator and MasterSeed.given(1).operator
    # The salt is fresh too: the same operator seed commits differently every time.
    assert MasterSeed.given(1).commitment("t1") != MasterSeed.given(1).commitment("t1")
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match=r"0\.\.2\^64-1"):
            MasterSeed.given(bad)


def test_an_open_schedule_never_deals_one_entry_the_same_cards_twice() -> None:
    scheduled = matches(paired=False)
    assert len(scheduled) == 2 * 3 * 3 * 2  # games x pairings x deals x seatings
    assert len({m.seed for m in scheduled}) == len(scheduled)
    assert all(m.pair_key == m.match_id and not m.paired for m in scheduled)
    # Seatings still alternate: each pairing plays each side of every deal number.
    sides = Counter((m.game, frozenset(m.entries), m.deal, m.entries[0]) for m in scheduled)
    assert set(sides.values()) == {1}


def test_a_duplicate_schedule_shares_a_deal_only_between_the_halves_of_a_pair() -> None:
    scheduled = matches(paired=True)
    by_seed = Counter(m.seed for m in scheduled)
    assert set(by_seed.values()) == {2}
    for a, b in itertools.combinations(scheduled, 2):
        if a.seed == b.seed:
            assert a.pair_key == b.pair_key and a.entries == b.entries[::-1]


def test_the_same_operator_seed_deals_the_same_cards_in_another_tournament() -> None:
    other = schedule("t2", 7, paired=False)
    assert [m.seed for m in other] == [m.seed for m in matches(paired=False)]
    assert [m.seed for m in matches(False, master=8)] != [m.seed for m in other]


def test_fair_play_modes_are_checked_against_the_entries() -> None:
    spec = arena_pb2.TournamentSpec(entries=["a", "b"], deals=1)
    assert plan(spec, *registry("ab")).fair_play == "open"
    spec.fair_play = arena_pb2.FAIR_PLAY_TRUSTED
    assert plan(spec, *registry("ab")).fair_play == "trusted"
    spec.fair_play = arena_pb2.FAIR_PLAY_SEALED
    with pytest.raises(InvalidSpec, match=r"every entry must be a hosted bot.*not hosted: b"):
        plan(spec, *registry("ab", hosted={"a"}))
    assert plan(spec, *registry("ab", hosted={"a", "b"})).fair_play == "sealed"
    spec.fair_play = 9  # type: ignore[assignment]
    with pytest.raises(InvalidSpec, match="unknown fair_play 9; allowed: FAIR_PLAY_OPEN"):
        plan(spec, *registry("ab"))


def ended(paired: bool) -> tuple[arena_pb2.Tournament, list[arena_pb2.MatchRecord]]:
    """A finished tournament as GetTournament and ListResults show it."""
    seed = MasterSeed.given(7)
    mode = arena_pb2.FAIR_PLAY_TRUSTED if paired else arena_pb2.FAIR_PLAY_OPEN
    tournament = arena_pb2.Tournament(
        id="t1",
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        fair_play=mode,
        seed=arena_pb2.SeedCommitment(
            commitment=seed.commitment("t1"),
            source=arena_pb2.SEED_SOURCE_OPERATOR,
            revealed=True,
            master_seed=7,
            salt=seed.salt,
        ),
    )
    return tournament, [_played(m, seed) for m in matches(paired)]


def _played(match: ScheduledMatch, seed: MasterSeed) -> arena_pb2.MatchRecord:
    """The stored result of ``match``, played at random, with its record."""
    salt = "ab" * 16
    log = recorded_log(get_game(match.game), Case(match.seed, 1, {}), f"{match.match_id}-x")
    log.deal_salt = salt
    rerun = replay(log)
    return arena_pb2.MatchRecord(
        match_id=match.match_id,
        public_id=seed.public_id(match.match_id),
        game=match.game,
        seed=match.seed,
        deal_key=match.deal_key,
        referee_match_id=log.match_id,
        deal_salt=salt,
        deal_commitment=deal_commitment(log.match_id, match.seed, salt),
        scores=rerun.scores,
        winner_team=rerun.winner_team,
        end=arena_pb2.RESULT_END_COMPLETED,
        team_faults=[0, 0],
        decisions=rerun.decisions,
        log=log,
    )


@pytest.mark.parametrize("paired", [False, True])
def test_an_honest_tournament_verifies(paired: bool) -> None:
    tournament, records = ended(paired)
    assert verify_tournament(tournament, records) == (
        f"verified: tournament t1 ({'trusted' if paired else 'open'}, operator's seed): seed "
        "commitment OK; 36 match seeds and public ids derive from the master seed; 36 deal "
        "commitments OK; 36 match records re-run to their results"
    )


def test_tampering_is_named_at_the_first_mismatch() -> None:
    tournament, records = ended(False)
    bad = arena_pb2.Tournament()
    bad.CopyFrom(tournament)
    bad.seed.master_seed = 8
    with pytest.raises(TournamentMismatch, match=r"^seed commitment mismatch: master seed 8"):
        verify_tournament(bad, records)
    records[3].seed += 1
    with pytest.raises(
        TournamentMismatch, match=f"^{records[3].match_id}: seed {records[3].seed}, but"
    ):
        verify_tournament(tournament, records)
    records[3].seed -= 1
    records[5].deal_key = records[4].deal_key  # a deal picked from elsewhere in the schedule
    with pytest.raises(TournamentMismatch, match="but the schedule gives this match"):
        verify_tournament(tournament, records)
    records[5].deal_key = records[5].match_id.removeprefix("t1-")
    records[6].deal_salt = "cd" * 16
    with pytest.raises(TournamentMismatch, match="deal commitment mismatch"):
        verify_tournament(tournament, records)
    records[6].deal_salt = "ab" * 16
    records[8].public_id, records[9].public_id = records[9].public_id, records[8].public_id
    with pytest.raises(TournamentMismatch, match=f"^{records[8].match_id}: public id"):
        verify_tournament(tournament, records)  # a mapping published wrong
    records[8].public_id, records[9].public_id = records[9].public_id, records[8].public_id
    records[7].scores[0] += 1
    with pytest.raises(
        TournamentMismatch, match=f"^{records[7].match_id}: its record re-runs to scores"
    ):
        verify_tournament(tournament, records)
    records[7].scores[0] -= 1
    del records[8].log.choices[-1], records[8].log.think_100us[-1]  # cut short
    with pytest.raises(
        TournamentMismatch, match=f"^{records[8].match_id}: its record does not re-run"
    ):
        verify_tournament(tournament, records)
    records[8].ClearField("log")
    with pytest.raises(
        TournamentMismatch, match=f"^{records[8].match_id}: no record of its decisions"
    ):
        verify_tournament(tournament, records)
    running = arena_pb2.Tournament(id="t1", seed=arena_pb2.SeedCommitment(commitment="0" * 64))
    with pytest.raises(TournamentMismatch, match="has not ended"):
        verify_tournament(running, records)
