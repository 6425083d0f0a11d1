"""A whole season end to end, its timeline in seconds: real API (with an operator token),
Redis, referee, two Celery worker processes, hosted bots started in sandboxes and the
web site in front of the API.

Four authors join by invite and submit (one past the daily limit is refused with when
the next is allowed); they mark final versions (and are refused what is not theirs to
mark, with nothing stored); the ladder rates every author; at the deadline the ladder
stops, a late submission is refused, and the final starts once, with the marked or best
versions, as a sealed round robin whose commitment the competition publishes; it
finishes, the board freezes and the competition finishes early; the web site shows each
phase; ``arena competition show`` prints the board, ``arena competition verify`` passes,
and fails naming what was changed when a stored result or the frozen board is tampered
with."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from arena.access import bearer
from arena.local_redis import LocalRedis
from arena.processes import arena_command, start_service
from arena.store import TournamentStore, keys
from arena.store.tournaments import CANCELLED, FINISHED
from arena.tournament.fair_play import SEALED
from arena.v1 import arena_pb2
from tests.competition.helpers import (
    TOKEN,
    Api,
    competition,
    refused,
    season,
    spec,
    submit,
)
from tests.support.cli import arena
from tests.support.hosted_tournaments import HOUSE, package
from tests.support.waiting import wait_until

GAME = "seep"
NAME = "whole-season"
AUTHORS = ("ada", "bob", "cy", "dee")


@pytest.fixture(scope="module")
def stack(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with season(local_redis, tmp_path_factory.mktemp("season"), "season", 2, 1) as api:
        yield api


@pytest.fixture(scope="module")
def site(stack: Api) -> Iterator[str]:
    served = start_service(
        arena_command("leaderboard", "serve", "--port", "0", "--api", stack.service.address)
    )
    yield served.address
    served.stop()


def _mark(api: Api, version: str, token: str | None) -> arena_pb2.MarkFinalVersionResponse:
    found: arena_pb2.MarkFinalVersionResponse = api.stub.MarkFinalVersion(
        arena_pb2.MarkFinalVersionRequest(competition=NAME, version=version),
        metadata=(bearer(token),) if token is not None else None,
    )
    return found


def _competition(api: Api) -> arena_pb2.Competition:
    return competition(api, NAME)


def _on_the_web(site: str, phases: set[str], *shown: str) -> str:
    """The competition's page, once its JSON shows one of ``phases`` and the page every
    one of ``shown``."""
    found: list[str] = []

    def read(path: str) -> str:
        with urllib.request.urlopen(site + path, timeout=30) as page:
            return str(page.read().decode())

    def there() -> bool:
        phase = json.loads(read(f"/api/competitions/{NAME}"))["phase"]
        found[:] = [read(f"/competitions/{NAME}")]
        return phase.removeprefix("COMPETITION_PHASE_").lower() in phases and all(
            s in found[0] for s in shown
        )

    wait_until(there, 30, f"the web to show {NAME} {phases} with {shown}")
    return found[0]


def test_a_season_from_invites_to_a_verified_final_board(
    stack: Api, site: str, tmp_path: Path
) -> None:
    api = stack
    blob = package(tmp_path / "house", HOUSE)
    api.create(
        spec(
            NAME, opens_in=10, open_for=45, final_for=600,
            games=[arena_pb2.CompetitionGame(game=GAME)],
            rules=arena_pb2.CompetitionRules(
                daily_submissions=2, active_versions=2, final_deals=1
            ),
        )
    )  # fmt: skip
    _on_the_web(site, {"scheduled"}, "(scheduled)", "The board starts with the open ladder")
    codes = api.invites(NAME, count=len(AUTHORS))
    tokens = {
        who: api.join(code, who).author.token for who, code in zip(AUTHORS, codes, strict=True)
    }
    # At once, so that every author's version is in the ladder from its first units.
    with ThreadPoolExecutor(len(AUTHORS)) as pool:
        list(pool.map(lambda who: submit(api, tokens[who], f"{who}-bot", "v1", blob), AUTHORS))
    submit(api, tokens["ada"], "ada-bot", "v2", blob)  # two active: v2 is the newest
    refused(
        lambda: submit(api, tokens["ada"], "ada-bot", "v3", blob),
        grpc.StatusCode.RESOURCE_EXHAUSTED, "allows 2 versions", "the next is allowed at",
    )  # fmt: skip

    # Refusals, each storing nothing.
    refused(lambda: _mark(api, "ada-bot@v1", None), grpc.StatusCode.UNAUTHENTICATED)
    refused(
        lambda: _mark(api, "ada-bot@v1", TOKEN),
        grpc.StatusCode.PERMISSION_DENIED, "its author's choice",
    )  # fmt: skip
    refused(
        lambda: _mark(api, "ada-bot@v1", tokens["bob"]),
        grpc.StatusCode.PERMISSION_DENIED, "not author 'bob''s",
    )  # fmt: skip
    refused(
        lambda: _mark(api, "ada-bot@v9", tokens["ada"]),
        grpc.StatusCode.INVALID_ARGUMENT, "ada-bot@v2, ada-bot@v1",
    )  # fmt: skip
    assert api.redis.hgetall(keys.final_marks(NAME)) == {}
    # ada marks her older version, with the command line.
    marked = arena(
        "competition", "final", NAME, "ada-bot@v1", "--api", api.service.address,
        "--token", tokens["ada"],
    )  # fmt: skip
    assert marked.returncode == 0, marked.stderr
    assert marked.stdout == f"ada's final version in {NAME}: ada-bot@v1\n"

    wait_until(lambda: _competition(api).ladder_tournament_id, 30, "the ladder")
    ladder = _competition(api).ladder_tournament_id
    _on_the_web(site, {"open"}, "(open)", ladder)

    # The deadline: the ladder stops, a late submission is refused, and the final starts
    # once, with the marked version and the others' best.
    wait_until(lambda: _competition(api).final_tournament_id, 90, "the final to start")
    refused(
        lambda: submit(api, tokens["bob"], "bob-bot", "v2", blob),
        grpc.StatusCode.FAILED_PRECONDITION, f"competition '{NAME}' is", "submissions closed at",
    )  # fmt: skip
    store = TournamentStore(api.redis)
    wait_until(lambda: getattr(store.get(ladder), "state", "") == CANCELLED, 30, "no ladder")
    rated = api.stub.GetCompetitionLeaderboard(
        arena_pb2.GetCompetitionLeaderboardRequest(name=NAME)
    )
    assert {r.author for r in rated.rows if r.rating.matches} == set(AUTHORS), rated.rows
    found = _competition(api)
    assert [(v.author, v.version) for v in found.final_versions] == [
        ("ada", "ada-bot@v1"), ("bob", "bob-bot@v1"), ("cy", "cy-bot@v1"), ("dee", "dee-bot@v1"),
    ]  # fmt: skip
    chosen = [v.chosen for v in found.final_versions]
    assert chosen[0] == arena_pb2.FINAL_CHOICE_MARKED
    assert set(chosen[1:]) <= {arena_pb2.FINAL_CHOICE_BEST_RATED, arena_pb2.FINAL_CHOICE_NEWEST}
    refused(
        lambda: _mark(api, "ada-bot@v2", tokens["ada"]),
        grpc.StatusCode.FAILED_PRECONDITION, "is final", "submissions closed at",
    )  # fmt: skip
    # The final's id is recorded a watchdog round before its tournament is stored.
    wait_until(lambda: store.get(found.final_tournament_id), 30, "the final stored")
    final = store.get(found.final_tournament_id)
    assert final is not None
    assert final.spec.fair_play == SEALED and final.spec.deals == 1
    # The budget (final_deals = 1) is less than any adjacent pair of the ladder could need.
    assert found.final_deals == 1 and found.final_deals_reason.startswith("the budget, 1 deal: ")
    assert set(final.spec.entries) == {f"{who}-bot@v1" for who in AUTHORS}
    assert final.total == 6 * 2  # six pairings, one deal, two halves
    wait_until(lambda: _competition(api).final_seed_commitment, 10, "the commitment")
    assert _competition(api).final_seed_commitment == final.spec.published_commitment
    _on_the_web(site, {"final", "finished"}, final.id, final.spec.published_commitment)

    # It finishes; the board freezes once and the competition finishes before its time.
    wait_until(lambda: _competition(api).HasField("final_board"), 120, "the final board")
    wait_until(
        lambda: _competition(api).phase == arena_pb2.COMPETITION_PHASE_FINISHED, 10, "finished"
    )
    found = _competition(api)
    board = found.final_board
    assert store.state(final.id) == FINISHED
    assert (board.tournament_id, board.matches, board.unplayed) == (final.id, 12, 0)
    assert board.results_digest == store.get(final.id).results_digest  # type: ignore[union-attr]
    assert sorted(r.version for r in board.rows) == sorted(final.spec.entries)
    ranked = [r for r in board.rows if r.rank]
    assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))
    assert sum(r.matches for r in board.rows) == 24  # two entries a match
    finals = [t for t in store.ids() if store.get(t).spec.name == f"competition {NAME}: final"]  # type: ignore[union-attr]
    assert finals == [final.id]  # two workers, one final
    assert [t.phase for t in found.transitions].count(arena_pb2.COMPETITION_PHASE_FINISHED) == 1
    ended = found.transitions[-1]
    assert ended.due_at.ToNanoseconds() < found.spec.timeline.final_ends_at.ToNanoseconds()

    _on_the_web(
        site, {"finished"}, "(finished)", 'id="final-board"', *final.spec.entries,
        *(f'data-phase="{p}"' for p in ("open", "closed", "final", "finished")),
    )  # fmt: skip

    shown = arena("competition", "show", NAME, "--api", api.service.address)
    assert shown.returncode == 0, shown.stderr
    assert f"  final: tournament {final.id}, seed commitment {found.final_seed_commitment}" in (
        shown.stdout
    )
    assert "  final board (frozen " in shown.stdout and "12 results" in shown.stdout
    assert "ada-bot@v1" in shown.stdout and "marked" in shown.stdout
    assert "  final deals: 1 per pairing and game (the budget, 1 deal: " in shown.stdout

    verified = arena("competition", "verify", NAME, "--api", api.service.address)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith(f"verified: competition {NAME}: tournament {final.id}")
    assert verified.stdout.count("\n") == 1 and "is a refit of its 12 results" in verified.stdout

    # A stored result changed: its record no longer re-runs to it.
    results_key = keys.results(final.id)
    stored_results: dict[bytes, bytes] = api.redis.hgetall(results_key)  # type: ignore[assignment]
    match_id, raw = min(stored_results.items())
    changed = json.loads(raw)
    changed["scores"] = [changed["scores"][0] + 1, changed["scores"][1]]
    api.redis.hset(results_key, match_id, json.dumps(changed))
    failed = arena("competition", "verify", NAME, "--api", api.service.address)
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith(f"arena: error: competition {NAME} does not verify: ")
    assert match_id.decode() in failed.stderr and failed.stderr.count("\n") == 1
    api.redis.hset(results_key, match_id, raw)

    # The frozen board changed: it is no longer a refit of the results.
    stored = api.redis.hget(keys.competition(NAME), "final_board")
    assert stored is not None
    frozen = json.loads(stored)
    frozen["rows"][0]["elo"] += 25
    api.redis.hset(keys.competition(NAME), "final_board", json.dumps(frozen))
    failed = arena("competition", "verify", NAME, "--api", api.service.address)
    assert failed.returncode == 1, failed.stdout
    assert "the final board is not a refit of the final's results: rank 1" in failed.stderr
    assert "elo is" in failed.stderr and failed.stderr.count("\n") == 1
    api.redis.hset(keys.competition(NAME), "final_board", stored)
    assert arena("competition", "verify", NAME, "--api", api.service.address).returncode == 0
