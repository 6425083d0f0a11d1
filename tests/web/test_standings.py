"""The tournament page's format views, rendered from hand-built ``Tournament`` messages:
the Swiss rounds and table, the knockout bracket, the SPRT's figures and LLR chart."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from arena.v1 import arena_pb2
from arena.web import standings
from arena.web.standings import BOTTOM, CHART_H, CHART_W, LEFT, RIGHT, TOP, tournament_page
from tests.support.fake_source import HOSTILE
from tests.web.dom import Document

SVG = "{http://www.w3.org/2000/svg}"


def render(t: arena_pb2.Tournament, board: arena_pb2.Leaderboard | None = None) -> str:
    text = tournament_page(t, board, ["seep"], "note")
    assert "<script>" not in text and "<img" not in text
    tags = Document(text).tags
    assert "script" not in tags and "img" not in tags
    return text


def swiss() -> arena_pb2.Tournament:
    """Three entries, two rounds (each with a bye), the second still playing."""
    return arena_pb2.Tournament(
        id="t1",
        spec=arena_pb2.TournamentSpec(
            name="swiss",
            entries=[HOSTILE, "b", "c"],
            format=arena_pb2.FORMAT_SWISS,
            swiss=arena_pb2.SwissParams(rounds=2),
        ),
        state=arena_pb2.TOURNAMENT_STATE_RUNNING,
        matches_total=8,
        matches_done=6,
        seed=arena_pb2.SeedCommitment(commitment="0123456789abcdef" * 4),
        standings=arena_pb2.Standings(
            swiss=arena_pb2.SwissStandings(
                rounds=[
                    arena_pb2.SwissRound(
                        round=1,
                        tables=[
                            arena_pb2.SwissTable(
                                a=HOSTILE, b="b", a_units=3, b_units=1, a_points=1, b_points=0
                            )
                        ],
                        bye="c",
                        complete=True,
                    ),
                    arena_pb2.SwissRound(
                        round=2,
                        tables=[
                            arena_pb2.SwissTable(
                                a="c", b=HOSTILE, a_units=1.5, b_units=0.5, a_points=0, b_points=0
                            )
                        ],
                        bye="b",
                    ),
                ],
                table=[
                    arena_pb2.SwissRow(rank=1, entry="c", points=1, buchholz=1, units=1.5),
                    arena_pb2.SwissRow(rank=2, entry=HOSTILE, points=1, buchholz=1, units=3.5),
                    arena_pb2.SwissRow(rank=3, entry="b", points=1, buchholz=1, units=1),
                ],
                tie_break="Buchholz, then units",
            )
        ),
    )


def test_swiss_shows_each_round_with_its_bye_and_the_table_with_its_tie_breaks() -> None:
    text = render(swiss())
    doc = Document(text)
    first = doc.tables["swiss-round-1"]
    assert [r.cells for r in first] == [[HOSTILE, "3-1", "b", "1-0"], ["c", "bye", "", "1"]]
    assert first[0].cell_attrs[0]["class"] == "text winner"
    assert first[0].cell_attrs[2]["class"] == "text"
    assert [r.cells for r in doc.tables["swiss-round-2"]] == [
        ["c", "1.5-0.5", HOSTILE, "0-0"],
        ["b", "bye", "", "1"],
    ]
    assert "<h3>Round 1</h3>" in text
    assert '<h3>Round 2 <span class="muted">(playing)</span></h3>' in text
    assert [r.cells for r in doc.tables["swiss-standings"]] == [
        ["1", "c", "1", "1", "1.5"],
        ["2", HOSTILE, "1", "1", "3.5"],
        ["3", "b", "1", "1", "1"],
    ]
    assert "Tie-breaks: Buchholz, then units." in text
    assert "Rounds paired: 2 of 2." in text
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["tournament-summary"]}
    assert facts["format"] == "Swiss, 2 rounds"
    assert facts["progress"] == "6/8 matches, 0 forfeited"
    assert facts["status"] == "playing"
    assert facts["seed"] == "secret seed, commitment 0123456789abcdef"
    assert 'http-equiv="refresh"' in text  # still running


def tie(
    a: str,
    a_seed: int,
    b: str = "",
    b_seed: int = 0,
    units: tuple[float, float] = (0, 0),
    **won: str,
) -> arena_pb2.KnockoutTie:
    return arena_pb2.KnockoutTie(
        a=a, a_seed=a_seed, b=b, b_seed=b_seed, a_units=units[0], b_units=units[1], **won
    )


def knockout(final: bool = True) -> arena_pb2.Tournament:
    """Three entries: the top seed has a bye, the other two meet; the final if ``final``."""
    first = arena_pb2.KnockoutRound(
        round=1,
        ties=[
            tie("s1", 1, winner="s1", decided_by="bye"),
            tie("s2", 2, HOSTILE, 3, (2, 2), winner=HOSTILE, decided_by="margin"),
        ],
    )
    rounds = [first]
    if final:
        last = tie("s1", 1, HOSTILE, 3, (1.5, 2.5), winner=HOSTILE, decided_by="units")
        rounds.append(arena_pb2.KnockoutRound(round=2, ties=[last]))
    return arena_pb2.Tournament(
        id="t2",
        spec=arena_pb2.TournamentSpec(
            name=HOSTILE, entries=["s1", "s2", HOSTILE], format=arena_pb2.FORMAT_KNOCKOUT
        ),
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        matches_total=8,
        matches_done=8,
        standings=arena_pb2.Standings(
            knockout=arena_pb2.KnockoutBracket(rounds=rounds, champion=HOSTILE if final else "")
        ),
    )


def test_knockout_shows_the_bracket_by_round_with_seeds_units_and_how_each_tie_went() -> None:
    text = render(knockout())
    doc = Document(text)
    bye = doc.tables["tie-1-1"]
    assert [r.cells for r in bye] == [["1", "s1", "", "bye"]]
    assert bye[0].attrs["class"] == "winner"
    semi = doc.tables["tie-1-2"]
    assert [r.cells for r in semi] == [
        ["2", "s2", "2", ""],
        ["3", HOSTILE, "2", "won on points margin (level on units)"],
    ]
    assert [r.attrs.get("class") for r in semi] == [None, "winner"]
    final = doc.tables["tie-2-1"]
    assert [r.cells for r in final] == [
        ["1", "s1", "1.5", ""],
        ["3", HOSTILE, "2.5", "won on units"],
    ]
    # Columns in round order, named as a bracket's rounds are.
    assert text.index("<h3>Semi-finals</h3>") < text.index('id="tie-1-1"')
    assert text.index('id="tie-1-2"') < text.index("<h3>Final</h3>") < text.index('id="tie-2-1"')
    assert re.search(r'<p id="champion">Champion: <strong>&lt;script&gt;[^<]*</strong>', text)

    pending = render(knockout(final=False))
    assert '<h3>Final</h3><p class="muted">not paired yet</p>' in pending
    assert "No champion yet." in pending


def sprt(trace: list[tuple[int, float]]) -> arena_pb2.Tournament:
    params = arena_pb2.SprtParams(elo0=0, elo1=5, alpha=0.05, beta=0.05, max_units=20000)
    upper = math.log(0.95 / 0.05)
    return arena_pb2.Tournament(
        id="t3",
        spec=arena_pb2.TournamentSpec(entries=[HOSTILE, "base"], format=arena_pb2.FORMAT_SPRT),
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        matches_done=80,
        matches_issued=80,
        standings=arena_pb2.Standings(
            sprt=arena_pb2.SprtStatus(
                llr=trace[-1][1] if trace else 0.0,
                lower=-upper,
                upper=upper,
                elo=12.34,
                elo_ci95=4.56,
                units=trace[-1][0] if trace else 0,
                wins=22,
                draws=10,
                losses=8,
                verdict=arena_pb2.SPRT_VERDICT_H1,
                trace=[arena_pb2.SprtPoint(units=u, llr=v) for u, v in trace],
                params=params,
            )
        ),
    )


def chart(text: str) -> ET.Element:
    """The page's inline SVG, which must be well-formed XML on its own."""
    start, end = text.index("<svg"), text.index("</svg>") + len("</svg>")
    return ET.fromstring(text[start:end])


def test_sprt_shows_its_figures_and_draws_the_llr_trace_between_the_bounds() -> None:
    upper = math.log(0.95 / 0.05)
    trace = [(0, 0.0), (10, 0.8), (20, -0.5), (30, 1.9), (40, upper)]
    text = render(sprt(trace))
    doc = Document(text)
    figures = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["sprt-status"]}
    assert figures["verdict"] == "H1 accepted"
    assert figures["llr"] == "+2.94 (bounds -2.94, +2.94)"
    assert figures["elo"] == "+12.3 ± 4.6"  # a status stored before the interval had ends
    assert figures["wdl"] == "22/10/8 over 40 units"
    assert figures["hypotheses"].startswith(f"H0: {HOSTILE} is at most 0 Elo better than base")
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["tournament-summary"]}
    assert facts["format"] == "SPRT: elo0 0, elo1 5, alpha 0.05, beta 0.05, at most 20000 units"
    assert facts["progress"] == "80/80 matches handed out so far, 0 forfeited"

    svg = chart(text)
    assert svg.get("id") == "llr-chart"
    (line,) = svg.iter(f"{SVG}polyline")
    points = [tuple(map(float, p.split(","))) for p in (line.get("points") or "").split()]
    assert len(points) == len(trace)
    bounds = {el.get("class"): el for el in svg.iter(f"{SVG}line")}
    upper_y = float(bounds["bound-upper"].get("y1") or "nan")
    lower_y = float(bounds["bound-lower"].get("y1") or "nan")
    zero_y = float(bounds["zero"].get("y1") or "nan")
    for bound in ("bound-upper", "bound-lower", "zero"):
        assert bounds[bound].get("y1") == bounds[bound].get("y2")  # horizontal
    # The trace ends on the upper bound and starts at LLR 0 at the left edge.
    assert points[-1] == (CHART_W - RIGHT, upper_y)
    assert points[0] == (LEFT, zero_y)
    assert TOP < upper_y < zero_y < lower_y < CHART_H - BOTTOM
    # y is linear in LLR: the bounds sit symmetrically about 0, and so does each point.
    assert abs((lower_y - zero_y) - (zero_y - upper_y)) < 0.11
    for (x, y), (u, v) in zip(points, trace, strict=True):
        assert abs(x - (LEFT + (CHART_W - LEFT - RIGHT) * u / 40)) < 0.06
        assert abs(y - (zero_y - (zero_y - upper_y) * v / upper)) < 0.11
    labels = [el.text for el in svg.iter(f"{SVG}text")]
    assert "units" in labels and "LLR" in labels
    assert {"0", "40", "-2.94", "+0.00", "+2.94"} <= set(labels)
    assert "H1 accepted at +2.94" in labels and "H0 accepted at -2.94" in labels
    title = svg.find(f"{SVG}title")
    assert title is not None and title.text == f"LLR of {HOSTILE} against base after each unit"


def test_sprt_shows_the_bounds_in_force_and_the_estimates_interval() -> None:
    t = sprt([(0, 0.0), (10, 1.2), (20, 2.9)])
    s = t.standings.sprt
    s.lower_in_force, s.upper_in_force = -2.81, 2.87
    s.elo_low, s.elo_high = -0.44, 26.2
    text = render(t)
    figures = {r.attrs["data-field"]: r.cells[0] for r in Document(text).tables["sprt-status"]}
    assert figures["llr"] == "+2.90 (bounds -2.81, +2.87)"
    assert figures["elo"] == "+12.3 [-0.4, +26.2]"
    labels = [el.text for el in chart(text).iter(f"{SVG}text")]
    assert "H1 accepted at +2.87" in labels and "H0 accepted at -2.81" in labels


def test_an_sprt_without_units_has_no_chart_yet() -> None:
    text = render(sprt([]))
    assert "<svg" not in text and "No units scored yet." in text


def test_unit_ticks_are_round_whole_numbers() -> None:
    assert standings.unit_ticks(1) == [0, 1]
    assert standings.unit_ticks(40) == [0, 10, 20, 30, 40]
    assert standings.unit_ticks(1234) == [0, 200, 400, 600, 800, 1000, 1200]


def test_a_format_without_standings_yet_says_so() -> None:
    t = swiss()
    t.ClearField("standings")
    assert "Nothing paired yet." in render(t)
    leaderboard = arena_pb2.Tournament(id="t9", state=arena_pb2.TOURNAMENT_STATE_RUNNING)
    board = arena_pb2.Leaderboard(tournament_id="t9")
    doc = Document(render(leaderboard, board))
    assert [r.cells for r in doc.tables["tournament-leaderboard"]] == [["No rated matches yet."]]
