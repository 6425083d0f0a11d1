"""docs/ratings.md's worked example is what the code computes."""

from __future__ import annotations

import re
from pathlib import Path

from arena.ratings.board import INCOMPLETE
from arena.ratings.leaderboard import ratings_by_game
from arena.ratings.texts import elo_text
from arena.store.results import MatchResult
from tests.records import result

DOC = Path(__file__).parents[2] / "docs" / "ratings.md"
GAMES = ["seep", "baloot", "bid-euchre"]
WINS = {  # of 24 units, first bot over second
    "seep": {("house", "mid"): 16, ("house", "rand"): 20, ("mid", "rand"): 15},
    "baloot": {("house", "mid"): 14, ("house", "rand"): 19, ("mid", "rand"): 16},
    "bid-euchre": {
        ("house", "mid"): 15,
        ("house", "rand"): 21,
        ("mid", "rand"): 14,
        ("basic", "house"): 17,
        ("basic", "mid"): 19,
        ("basic", "rand"): 22,
    },
}


def results() -> list[MatchResult]:
    out: list[MatchResult] = []
    for game, wins in WINS.items():
        for (a, b), won in wins.items():
            for i in range(24):
                margin = 1 if i < won else -1
                key = f"{game}-{len(out)}"
                out.append(
                    result(
                        match_id=key,
                        pair_key=key,
                        game=game,
                        entries=[a, b],
                        scores=[max(margin, 0), max(-margin, 0)],
                        end="completed",
                        forfeit_team=None,
                        paired=False,
                    )
                )
    return out


def doc_table() -> dict[str, list[str]]:
    text = DOC.read_text()
    section = text[text.index("### Worked example") :]
    rows = re.findall(r"^\| (house|mid|rand|basic) \|(.*)\|$", section, re.M)
    return {bot: [cell.strip() for cell in cells.split("|")] for bot, cells in rows}


def test_the_worked_example_is_what_the_boards_compute() -> None:
    boards = ratings_by_game(results())
    table = doc_table()
    assert list(table) == ["house", "mid", "rand", "basic"]
    three = ["house", "mid", "rand"]
    elo = {g: {row.bot: row.elo for row in boards[g].rows} for g in GAMES}
    centre = sum(elo["bid-euchre"][b] for b in three) / 3
    overall = {row.bot: row for row in boards[""].rows}
    for bot, cells in table.items():
        expected = [elo_text(elo[g][bot]) if bot in elo[g] else "" for g in GAMES]
        expected.append(elo_text(elo["bid-euchre"][bot] - centre))
        row = overall[bot]
        if row.status == INCOMPLETE:
            expected.append("incomplete")
        else:
            expected.append(f"{elo_text(row.elo)} ± {row.elo_ci95:.0f}")
        assert cells == expected, bot
    text = DOC.read_text()
    assert f"({centre:.1f})" in text
    house = [elo["seep"]["house"], elo["baloot"]["house"], elo["bid-euchre"]["house"] - centre]
    assert " + ".join(f"{v:.1f}" for v in house) + f") / 3 = {overall['house'].elo:+.1f}" in text
    assert f'"{overall["basic"].note}"' in text
