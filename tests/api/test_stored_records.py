"""Typed stored records (``arena.records``): what the arena stored before records had
versions, once ``arena store migrate`` upgraded it, reads back as the current types,
through the store and a real API process; a record that is not valid is refused before
anything is written."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import pytest

from arena.local_redis import LocalRedis
from arena.records import RecordError, StaleRecord
from arena.store import BotRegistry, RegisteredBot, TournamentStore, keys
from arena.store.migrate import BOTS, HOSTED_VERSIONS, RESULTS, SPECS, Versioned, migrate, upgrade
from arena.store.packages import HostedVersion, PackageStore
from arena.store.results import VERSION, MatchResult
from arena.tournament.fair_play import TRUSTED
from arena.tournament.spec import SPEC_VERSION, TournamentPlan
from arena.v1 import arena_pb2
from tests.api.hosted import HostedApi, start_api
from tests.records import result, spec
from tests.support.old_records import (
    FIRST_RESULT,
    FIRST_SPEC,
    STORED_RESULT,
    STORED_SPEC,
    store_old_tournament,
)


def migrated(record: Versioned, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as ``arena store migrate`` writes it back; the stored original refused."""
    with pytest.raises(StaleRecord, match=re.escape("earlier build (version ")):
        record.read(data)
    copy: dict[str, Any] = json.loads(json.dumps(data))
    assert upgrade(record, copy) and not upgrade(record, copy)  # once only
    return copy


def test_a_result_stored_before_versions_reads_as_the_current_type_once_migrated() -> None:
    read = MatchResult.from_json(json.dumps(migrated(RESULTS, STORED_RESULT)))
    assert read.record_version == VERSION == 2
    assert read.entries == ("house", "rand") and read.scores == (71, 29)
    assert read.team_fault_kinds == ({}, {"timeout": 1}) and read.fair_play == "sealed"
    assert read.seat_bots is None and read.margin == 42 and read.forfeit_by is None
    # Written again: the same keys and values, and its version.
    assert read.to_json() == {**STORED_RESULT, "record_version": VERSION}
    assert MatchResult.from_json(read.to_json()) == read


def test_the_first_arenas_results_migrate_to_what_readers_assumed_of_them() -> None:
    read = MatchResult.from_json(migrated(RESULTS, FIRST_RESULT))
    assert read.team_fault_kinds is None  # kinds not recorded
    assert (read.deal_key, read.deal_commitment, read.deal_salt, read.referee_match_id) == (
        ("", "", "", "")
    )
    assert read.paired and read.fair_play is None and read.operator_seed is None
    assert (
        MatchResult.from_json(
            migrated(RESULTS, {k: v for k, v in FIRST_RESULT.items() if k != "finished_at"})
        ).finished_at
        is None
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"scores": [71]}, "match result: field 'scores': expected a list of integers (2 of them)"),
        ({"scores": ["71", 29]}, "field 'scores': expected a list of integers"),
        ({"winner_team": 2}, "field 'winner_team': expected an integer from 0 to 1, got 2"),
        ({"end": "won"}, "field 'end': expected one of unspecified, completed, forfeit"),
        ({"paired": 1}, "field 'paired': expected true or false, got 1"),
        (
            {"team_faults": [0, -1]},
            "field 'team_faults': expected a list of integers of at least 0",
        ),
        ({"seed": -1}, "field 'seed': expected an integer from 0 to"),
        ({"fair_play": "fair"}, "field 'fair_play': expected one of open, sealed, trusted"),
        ({"record_version": 3}, "field 'record_version': expected a version from 1 to 2"),
        ({"record_version": "2"}, "field 'record_version': expected a version from 1 to 2"),
    ],
)
def test_a_bad_result_is_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError, match=re.escape(message)):
        MatchResult.from_json({**STORED_RESULT, "record_version": VERSION, **change})
    with pytest.raises(RecordError, match=re.escape(message)):  # nor does migrating mend it
        upgrade(RESULTS, {**STORED_RESULT, **change})


def test_a_result_missing_a_field_is_refused_naming_it() -> None:
    for key in FIRST_RESULT:
        broken = {k: v for k, v in STORED_RESULT.items() if k != key}
        with pytest.raises(RecordError, match=f"match result: field '{key}' is missing"):
            MatchResult.from_json({**broken, "record_version": VERSION})
        if key == "finished_at":
            continue  # the one a first result may lack
        with pytest.raises(RecordError, match=f"match result: field '{key}' is missing"):
            upgrade(RESULTS, broken)
    current = {**STORED_RESULT, "record_version": VERSION}
    del current["deal_key"]  # a current result has every field
    with pytest.raises(RecordError, match="field 'deal_key' is missing"):
        MatchResult.from_json(current)
    with pytest.raises(RecordError, match="match result: expected a JSON object, got list"):
        MatchResult.from_json("[]")


def test_a_spec_stored_before_versions_migrates_to_a_plan_and_writes_back_the_same() -> None:
    plan = TournamentPlan.from_json(json.dumps(migrated(SPECS, STORED_SPEC)))
    assert plan.record_version == SPEC_VERSION == 3
    # Before version 3: no broadcast delay, and partners shared unless sealed.
    assert (plan.broadcast_delay_ms, plan.partners) == (0.0, "shared")
    assert plan.lineup["house"].address == "127.0.0.1:7001"
    assert plan.lineup["house"].games == ("seep", "baloot")
    hosted = plan.lineup["rand@v2"].hosted
    assert hosted is not None and hosted.sha256 == "e" * 64 and plan.time_bank_ms == 750
    assert (plan.seed.value, plan.seed.salt, plan.seed.operator) == (5, "ab" * 16, False)
    # The commitment as published is kept, never worked out again from the seed.
    assert plan.published_commitment == STORED_SPEC["seed_commitment"]
    again = plan.to_json("t0123456789ab")
    assert again == {
        **STORED_SPEC,
        "broadcast_delay_ms": 0.0,
        "partners": "shared",
        "max_entries_per_author": 0,
        "authors": {},
        "record_version": SPEC_VERSION,
    }
    assert TournamentPlan.from_json(again) == plan


def test_the_first_arenas_spec_migrates_to_the_defaults_readers_assumed() -> None:
    plan = TournamentPlan.from_json(migrated(SPECS, FIRST_SPEC))
    assert plan.time_bank_ms == 0 and plan.fair_play == TRUSTED and plan.seed.operator
    assert plan.seed.salt == "" and plan.commitment("t1") == ""  # never committed to
    assert plan.format == "round-robin" and plan.format_params == {}
    assert {e: x.games for e, x in plan.lineup.items()} == {
        "house": ("seep", "baloot"),
        "rand": ("seep", "baloot"),
    }


def test_a_bad_spec_is_refused_naming_the_field() -> None:
    current = migrated(SPECS, STORED_SPEC)
    with pytest.raises(RecordError, match="tournament spec: field 'deals': expected an integer"):
        TournamentPlan.from_json({**current, "deals": "2"})
    with pytest.raises(RecordError, match="field 'addresses': expected an address or a hosted"):
        TournamentPlan.from_json({**current, "addresses": {}})
    with pytest.raises(RecordError, match="hosted entry 'rand@v2': field 'runtime' is missing"):
        TournamentPlan.from_json({**current, "hosted": {"rand@v2": {"sha256": "e" * 64}}})
    with pytest.raises(RecordError, match="tournament spec: games_of: field 'rand@v2' is missing"):
        TournamentPlan.from_json({**current, "games_of": {"house": ["seep"]}})
    with pytest.raises(RecordError, match="field 'seed_salt': expected 32 lowercase hex digits"):
        TournamentPlan.from_json({**current, "seed_salt": "salt"})
    with pytest.raises(RecordError, match="field 'format': expected one of"):
        TournamentPlan.from_json({**current, "format": "league"})
    with pytest.raises(RecordError, match="field 'format': expected one of"):
        upgrade(SPECS, {**STORED_SPEC, "format": "league"})  # migrating does not mend it


def test_bot_records_stored_before_versions_migrate_and_bad_ones_are_refused() -> None:
    first = {"name": "house", "address": "127.0.0.1:7001", "games": ["seep"],
             "hello_name": "House", "version": "1.0", "registered_at": 1.5}  # fmt: skip
    bot = RegisteredBot.from_json(json.dumps(migrated(BOTS, first)))
    assert (bot.hosted, bot.author, bot.record_version, bot.version) == (False, "", 2, "1.0")
    assert json.loads(bot.to_json()) == {
        **first,
        "hosted": False,
        "author": "",
        "record_version": 2,
    }
    current = {**first, "hosted": False, "author": "", "record_version": 2}
    with pytest.raises(RecordError, match="registered bot: field 'address': expected none for a"):
        RegisteredBot.from_json({**current, "hosted": True})
    with pytest.raises(RecordError, match="registered bot: field 'name': expected a non-empty"):
        RegisteredBot.from_json({**current, "name": ""})
    version = {"name": "rand", "version": "v2", "runtime": "python3.11", "command": "bot.py",
               "sha256": "e" * 64, "size": 900, "author": "ana", "submitted_at": 2.5,
               "games": ["seep"], "hello_name": "Rand", "hello_version": "2"}  # fmt: skip
    read = HostedVersion.from_json(json.dumps(migrated(HOSTED_VERSIONS, version)))
    assert read.games == ("seep",) and read.record_version == 2 and read.label == "rand@v2"
    with pytest.raises(StaleRecord, match="hosted version 'rand@v2' was stored by an earlier"):
        HostedVersion.from_json(version)
    current = {**version, "record_version": 2}
    with pytest.raises(RecordError, match="hosted version: field 'sha256': expected 64 lowercase"):
        HostedVersion.from_json({**current, "sha256": "E" * 64})
    with pytest.raises(RecordError, match="hosted version: field 'size': expected an integer"):
        HostedVersion.from_json({**current, "size": -1})


@pytest.fixture(scope="module")
def api(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedApi]:
    started = start_api(local_redis, tmp_path_factory.mktemp("stored-records"))
    yield started
    started.stop()


def test_an_invalid_record_is_never_written(api: HostedApi) -> None:
    client = api.redis
    store = TournamentStore(client)
    store.create("t-refused", spec(), ["seep"])
    counted = client.get(keys.results_version())
    good = result(
        match_id="t-refused-0",
        tournament_id="t-refused",
        game="seep",
        entries=["a", "b"],
        scores=[1, 0],
    )
    for bad in (
        replace(good, scores=(1,)),
        replace(good, end="won"),
        replace(good, record_version=1),
    ):
        with pytest.raises(RecordError):
            store.record_result("t-refused", bad, b"")
    assert client.hlen(keys.results("t-refused")) == 0
    assert (
        client.zcard(keys.order("t-refused")) == 0 and client.llen(keys.finished("t-refused")) == 0
    )
    assert client.get(keys.results_version()) == counted
    assert store.record_result("t-refused", good, b"") and store.results("t-refused") == [good]

    with pytest.raises(RecordError, match="field 'deals': expected an integer of at least 0"):
        store.create("t-never", spec(deals=-1), ["seep"])
    assert not client.exists(keys.tournament("t-never")) and store.get("t-never") is None
    assert "t-never" not in store.ids()

    with pytest.raises(RecordError, match="field 'address': expected none for a hosted bot"):
        BotRegistry(client).put(RegisteredBot("odd", "127.0.0.1:1", ("seep",), "", "", 0.0, True))
    assert BotRegistry(client).get("odd") is None
    broken = HostedVersion("odd", "v1", "python3.11", "bot.py", "x", 1, "", 0.0, ("seep",), "", "")
    with pytest.raises(RecordError, match="field 'sha256'"):
        PackageStore(client).add_version(broken)
    assert PackageStore(client).versions("odd") == []


def test_a_tournament_stored_before_versions_is_read_by_the_api_and_the_ratings_once_migrated(
    api: HostedApi,
) -> None:
    """Written as the arena wrote them before and migrated: the API shows the tournament
    and its results, and rates them, exactly as it does the same records written today."""
    client = api.redis
    old, new = "t0123456789ab", "t0123456789cd"
    store_old_tournament(client, old, FIRST_SPEC, [STORED_RESULT, FIRST_RESULT])
    with pytest.raises(grpc.RpcError) as refused:  # an earlier build's spec, until migrated
        api.stub.GetTournament(arena_pb2.GetTournamentRequest(id=old))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "was stored by an earlier build (version 1); run `arena store migrate`" in str(
        refused.value.details()
    )
    assert any(count.upgraded for count in migrate(client))
    # The same tournament written today, through the types.
    store = TournamentStore(client)
    store.create(new, TournamentPlan.from_json(migrated(SPECS, FIRST_SPEC)), ["seep"], total=2)
    for n, stored in enumerate((STORED_RESULT, FIRST_RESULT)):
        match_id = f"{new}-seep-{n}-0-a"
        current = migrated(RESULTS, stored)
        typed = MatchResult.from_json({**current, "match_id": match_id, "tournament_id": new})
        store.record_result(new, typed, b"")
    store.finish(new)

    shown = {t: api.stub.GetTournament(arena_pb2.GetTournamentRequest(id=t)) for t in (old, new)}
    tournament = shown[old]
    assert not tournament.spec.HasField("time_bank")  # none kept: none shown
    assert tournament.spec.fair_play == arena_pb2.FAIR_PLAY_TRUSTED
    assert tournament.seed.source == arena_pb2.SEED_SOURCE_OPERATOR
    assert tournament.seed.commitment == "" and tournament.seed.master_seed == 7
    assert list(tournament.spec.entries) == ["house", "rand"]
    assert shown[new].spec == tournament.spec and shown[new].seed == tournament.seed

    listed = {
        t: api.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=t)).results
        for t in (old, new)
    }
    first, oldest = listed[old]
    assert first.team_fault_kinds[1].by_kind == {"timeout": 1} and first.deal_salt == "3c" * 16
    assert not oldest.team_fault_kinds and oldest.deal_commitment == "" and oldest.seed
    for was, now in zip(listed[old], listed[new], strict=True):
        assert now.match_id.replace(new, old) == was.match_id
        now.match_id, now.public_id = was.match_id, was.public_id  # public ids differ too
        assert now == was

    boards = {
        t: api.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=t))
        for t in (old, new)
    }
    assert {row.bot for row in boards[old].rows} == {"house", "rand"}
    assert boards[old].matches == 2 and list(boards[old].rows) == list(boards[new].rows)
    assert list(boards[old].caveats) == list(boards[new].caveats)
