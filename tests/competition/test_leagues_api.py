"""A competition with leagues on a real API: created and read back with its leagues and
promotion rule; every bad league refused with what is allowed, and nothing stored."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from arena.store import keys
from arena.store.bots import BotRegistry, RegisteredBot
from arena.store.packages import PackageStore
from arena.v1 import arena_pb2
from tests.competition.fakes import version
from tests.competition.helpers import Api, refused, spec

SEALED = arena_pb2.FAIR_PLAY_SEALED
GAMES = ("seep",)


@pytest.fixture(scope="module")
def bots(api: Api) -> Iterator[Api]:
    """The operator's hosted boss ``boss@v1``, an author's hosted bot and a remote bot."""
    registry, packages = BotRegistry(api.redis), PackageStore(api.redis)
    registry.put(RegisteredBot("boss", "", GAMES, "boss", "1", 1, hosted=True))
    registry.put(RegisteredBot("theirs", "", GAMES, "t", "1", 1, hosted=True, author="ada"))
    registry.put(RegisteredBot("far", "127.0.0.1:1", GAMES, "far", "1", 1))
    for name, author in (("boss", ""), ("theirs", "ada")):
        packages.add_version(version(name, "v1", 1, author))
    yield api


def _league(name: str, boss: str = "") -> arena_pb2.CompetitionLeague:
    return arena_pb2.CompetitionLeague(name=name, boss=boss)


def _rules(*leagues: arena_pb2.CompetitionLeague, **fields: object) -> arena_pb2.CompetitionRules:
    return arena_pb2.CompetitionRules(
        fair_play=fields.pop("fair_play", SEALED),  # type: ignore[arg-type]
        leagues=leagues,
        **fields,  # type: ignore[arg-type]
    )


TWO = (_league("wood", "boss@v1"), _league("legend"))

BAD: dict[str, tuple[arena_pb2.CompetitionRules, str]] = {
    "open-play": (
        _rules(*TWO, fair_play=arena_pb2.FAIR_PLAY_OPEN),
        "leagues need fair_play = FAIR_PLAY_SEALED",
    ),
    "one": (_rules(_league("legend")), "give 2 to 8 leagues"),
    "nine": (
        _rules(*(_league(f"l{i}", "boss@v1") for i in range(8)), _league("top")),
        "give 2 to 8 leagues",
    ),
    "top-boss": (_rules(_league("wood", "boss@v1"), _league("legend", "boss@v1")), "no boss"),
    "no-boss": (_rules(_league("wood"), _league("legend")), "league 'wood' needs a boss"),
    "remote-shaped": (_rules(_league("wood", "boss"), _league("legend")), "'name@version'"),
    "names": (_rules(_league("wood", "boss@v1"), _league("wood")), "repeated: wood"),
    "bad-name": (_rules(_league("a b", "boss@v1"), _league("top")), "bad league name"),
    "los-low": (_rules(*TWO, promotion_los=0.5), "promotion_los must be above 0.5"),
    "los-one": (_rules(*TWO, promotion_los=1.0), "at most 0.9999"),
    "pairs": (_rules(*TWO, promotion_pairs=1001), "promotion_pairs must be 1 to 1,000"),
    "no-leagues": (_rules(promotion_los=0.9), "need leagues"),
    "unknown-boss": (
        _rules(_league("wood", "ghost@v1"), _league("legend")),
        "bot 'ghost' is not registered",
    ),
    "authors-boss": (_rules(_league("wood", "theirs@v1"), _league("legend")), "is ada's"),
    "remote-boss": (_rules(_league("wood", "far@v1"), _league("legend")), "is a remote bot"),
    "no-version": (_rules(_league("wood", "boss@v9"), _league("legend")), "no version 'v9'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_leagues_are_refused_saying_what_is_allowed_and_nothing_is_stored(
    bots: Api, case: str
) -> None:
    rules, words = BAD[case]
    request = spec(f"leagues-{case}", rules=rules)
    refused(lambda: bots.create(request), grpc.StatusCode.INVALID_ARGUMENT, words)
    assert not bots.redis.exists(keys.competition(request.name))


def test_a_competition_with_leagues_is_read_back_with_them(bots: Api) -> None:
    made = bots.create(spec("leagues-made", rules=_rules(*TWO)))
    rules = made.spec.rules
    assert [(x.name, x.boss) for x in rules.leagues] == [("wood", "boss@v1"), ("legend", "")]
    assert (rules.promotion_los, rules.promotion_pairs) == (0.95, 6)  # the defaults
    got = bots.stub.GetCompetition(arena_pb2.GetCompetitionRequest(name="leagues-made"))
    assert got == made
    three = (_league("wood", "boss@v1"), _league("bronze", "boss@v1"), _league("gold"))
    refused(
        lambda: bots.create(spec("leagues-twice", rules=_rules(*three))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "each boss may be listed once; repeated: boss@v1",
    )
    tuned = bots.create(
        spec("leagues-tuned", rules=_rules(*TWO, promotion_los=0.99, promotion_pairs=20))
    )
    assert (tuned.spec.rules.promotion_los, tuned.spec.rules.promotion_pairs) == (0.99, 20)
    plain = bots.create(spec("leagues-none", rules=arena_pb2.CompetitionRules()))
    assert not plain.spec.rules.leagues and plain.spec.rules.promotion_los == 0
