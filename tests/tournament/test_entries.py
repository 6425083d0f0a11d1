"""Tournament entries: a remote bot by name, a hosted bot at a version fixed when the
tournament is submitted (its newest, or the one named as name@version)."""

from __future__ import annotations

import pytest

from arena.tournament.spec import InvalidSpec, plan
from arena.v1 import arena_pb2
from tests.tournament.lineup import registry

BOTS = registry(["remote", "hosted"], hosted={"hosted"}, versions=("v1", "v2"))


def planned(*entries: str) -> dict[str, object]:
    spec = arena_pb2.TournamentSpec(entries=list(entries), deals=1)
    return plan(spec, *BOTS).to_json("t0")


def test_a_hosted_entry_plays_its_newest_version_unless_one_is_named() -> None:
    stored = planned("remote", "hosted")
    assert stored["entries"] == ["remote", "hosted@v2"]
    assert stored["addresses"] == {"remote": "127.0.0.1:5000"}
    assert stored["hosted"] == {
        "hosted@v2": {"sha256": f"{1:064x}", "runtime": "python3.11", "command": "python3 bot.py"}
    }
    assert planned("remote", "hosted@v1")["entries"] == ["remote", "hosted@v1"]


def test_two_versions_of_one_bot_may_meet() -> None:
    assert planned("hosted@v1", "hosted")["entries"] == ["hosted@v1", "hosted@v2"]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            ("remote", "hosted@v9"),
            r"hosted bot 'hosted' has no version 'v9'; `arena bot versions hosted`",
        ),
        (("remote@v1", "hosted"), r"'remote@v1': remote is a remote bot, which has no versions"),
        (
            ("ghost@v1", "hosted"),
            r"unknown bot 'ghost': register it first \(registered bots: hosted, remote\)",
        ),
        (("hosted", "hosted@v2"), r"each entry may appear once; repeated: hosted@v2"),
    ],
)
def test_entries_that_name_no_playable_bot_are_refused(
    entries: tuple[str, ...], message: str
) -> None:
    with pytest.raises(InvalidSpec, match=message):
        planned(*entries)
