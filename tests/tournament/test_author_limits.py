"""Per-author entry limits as a spec is planned: the default (one entry in a ladder or a
sealed tournament, no limit elsewhere), house bots exempt, a ladder keeping an author's
most recently registered bots, and same-author pairings told apart for the ratings."""

from __future__ import annotations

import pytest

from arena.store.bots import RegisteredBot
from arena.tournament.spec import InvalidSpec, TournamentPlan, ladder_lineup, plan
from arena.v1 import arena_pb2
from tests.tournament.lineup import registry

GAMES = ("bridgette",)


def bot(name: str, author: str, registered_at: float = 0.0) -> RegisteredBot:
    return RegisteredBot(
        name, f"127.0.0.1:{6000 + len(name)}", GAMES, name, "1", registered_at, author=author
    )


BOTS = {b.name: b for b in (bot("a1", "alice", 1), bot("a2", "alice", 2), bot("b1", "bob"))}
BOTS |= {"h1": bot("h1", ""), "h2": bot("h2", "")}
_, NO_VERSIONS = registry([])


def planned(*entries: str, **fields: object) -> TournamentPlan:
    spec = arena_pb2.TournamentSpec(entries=list(entries), deals=1, **fields)  # type: ignore[arg-type]
    return plan(spec, BOTS, NO_VERSIONS)


def test_by_default_a_round_robin_has_no_limit_and_keeps_each_entrys_author() -> None:
    tournament = planned("a1", "a2", "b1")
    assert tournament.author_limit() is None
    assert {e: x.author for e, x in tournament.lineup.items()} == {
        "a1": "alice", "a2": "alice", "b1": "bob",
    }  # fmt: skip
    again = TournamentPlan.from_json(tournament.to_json("t0"))
    assert again.lineup["a2"].author == "alice" and again.lineup["b1"].author == "bob"


def test_a_limit_refuses_an_author_over_it_and_house_bots_do_not_count() -> None:
    with pytest.raises(InvalidSpec, match=r"at most 1 entry per author .* alice: a1, a2\."):
        planned("a1", "a2", "b1", max_entries_per_author=1)
    assert planned("a1", "b1", "h1", "h2", max_entries_per_author=1).author_limit() == 1
    assert planned("a1", "a2", "b1", max_entries_per_author=2).author_limit() == 2


def test_one_authors_entries_are_told_apart_for_the_ratings() -> None:
    tournament = planned("a1", "a2", "b1", "h1", "h2")
    lineup = tournament.lineup
    assert tournament.same_author(("a1", "a2"), lineup)
    assert not tournament.same_author(("a1", "b1"), lineup)
    assert not tournament.same_author(("h1", "h2"), lineup)  # house bots are nobody's


def test_a_ladder_keeps_one_entry_per_author_the_one_registered_last() -> None:
    spec = arena_pb2.TournamentSpec(format=arena_pb2.FORMAT_LADDER, games=list(GAMES))
    ladder = plan(spec, BOTS, NO_VERSIONS)
    assert ladder.author_limit() == 1
    joined = [e.label for e in ladder_lineup(ladder, list(BOTS.values()), NO_VERSIONS)]
    assert joined == ["a2", "b1", "h1", "h2"]
    spec.max_entries_per_author = 2
    roomy = plan(spec, BOTS, NO_VERSIONS)
    assert [e.label for e in ladder_lineup(roomy, list(BOTS.values()), NO_VERSIONS)] == [
        "a1", "a2", "b1", "h1", "h2",
    ]  # fmt: skip
