"""Where a ladder's suspensions are shown: the row of the ladder's leaderboard on its web
page, a table below it, the bot's page, and the CLI's status; and the CLI's status line
of a ladder, whose entries are every registered bot of its games."""

from __future__ import annotations

import pytest

from arena.cli.tournament import print_standings, summary
from arena.v1 import arena_pb2
from arena.web.bots import registry_section
from arena.web.data import BotFacts, Suspension
from arena.web.standings import standings_view
from tests.web.dom import Document

REASON = "its last 5 matches were all forfeited or faulted by it: 5 forfeited, 15 faults"


def ladder(*suspended: str) -> arena_pb2.Tournament:
    t = arena_pb2.Tournament(
        id="lad1",
        state=arena_pb2.TOURNAMENT_STATE_RUNNING,
        spec=arena_pb2.TournamentSpec(format=arena_pb2.FORMAT_LADDER, games=["seep"]),
        games=["seep"],
        fair_play=arena_pb2.FAIR_PLAY_OPEN,
    )
    t.standings.ladder.suspend_after = 5
    for entry in suspended:
        held = t.standings.ladder.suspended.add(entry=entry, reason=REASON, times=1)
        held.since.FromSeconds(1_700_000_000)
        held.probe_from.FromSeconds(1_700_000_060)
        held.probe_every.FromSeconds(60)
    return t


def board() -> arena_pb2.Leaderboard:
    return arena_pb2.Leaderboard(
        tournament_id="lad1",
        game="seep",
        matches=12,
        rows=[
            arena_pb2.LeaderboardRow(rank=1, bot="house", elo=40, pairs=8, matches=8),
            arena_pb2.LeaderboardRow(rank=2, bot="flaky", elo=-40, pairs=8, matches=8),
        ],
    )


def test_the_web_page_marks_a_suspended_entrys_row_and_lists_why() -> None:
    html = standings_view(ladder("flaky", "gone"), board())
    doc = Document(html)
    rows = {row.attrs["data-bot"]: row for row in doc.tables["tournament-leaderboard"]}
    note = rows["flaky"].cells[-1]
    assert note.startswith("suspended since 2023-11-14 22:13:20 UTC: " + REASON)
    assert "paired again once it answers Hello (asked from 2023-11-14 22:14:20 UTC" in note
    assert "suspended" not in rows["house"].cells[-1]
    # Every suspended entry is listed, one with no rated match ("gone") too.
    listed = doc.tables["ladder-suspended"]
    assert [r.attrs["data-entry"] for r in listed] == ["flaky", "gone"]
    assert listed[0].cells == [
        "flaky",
        "2023-11-14 22:13:20 UTC",
        REASON,
        "asked from 2023-11-14 22:14:20 UTC, every 60 s",
    ]
    assert "last 5 matches were all forfeited or faulted by it" in html
    # Nothing suspended: the leaderboard alone, as before.
    assert "ladder-suspended" not in Document(standings_view(ladder(), board())).tables


def test_the_bot_page_says_which_ladders_suspended_it_and_why() -> None:
    bot = arena_pb2.RegisteredBot(name="flaky", address="127.0.0.1:1", games=["seep"])
    held = ladder("flaky").standings.ladder.suspended[0]
    facts = BotFacts("flaky", bot, [], (Suspension("lad1", "the <ladder>", held),))
    html = registry_section(facts)
    assert '<ul id="bot-suspensions"><li data-tournament="lad1" data-entry="flaky">' in html
    assert '<a href="/tournaments/lad1">the &lt;ladder&gt;</a>' in html
    assert f"flaky suspended since 2023-11-14 22:13:20 UTC: {REASON}" in html
    assert 'id="bot-suspensions"' not in registry_section(BotFacts("flaky", bot, []))


def test_the_cli_status_of_a_ladder_names_its_entries_and_its_suspensions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    t = ladder("flaky")
    line = summary(t)
    assert "entries ;" not in line
    assert "; entries every registered bot that plays its games; games seep;" in line
    print_standings(t)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("suspended (each one's last 5 matches were all forfeited")
    assert out[1] == (
        f"  flaky: since 2023-11-14 22:13:20 UTC: {REASON}; Hello asked from "
        "2023-11-14 22:14:20 UTC, every 60 s"
    )
    print_standings(ladder())
    assert capsys.readouterr().out == ""
