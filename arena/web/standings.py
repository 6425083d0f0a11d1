"""A tournament's page: what it plays, how far it got, and its format's own standings
(Swiss rounds and table, the knockout bracket, the SPRT's verdict and LLR chart).

Kept apart from ``pages`` so that each format's view reads on its own; it uses the same
table helpers and sends every value through ``esc``, since entry and tournament names
are chosen by users. The LLR chart is an inline SVG drawn here: the pages load nothing
else (no script, no font, no CDN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.ratings.texts import every_row
from arena.tournament import formats
from arena.tournament.formats.sprt import params_in_force as sprt_params
from arena.tournament.progress import (
    STATE_NAMES,
    VERDICTS,
    fair_play_text,
    held_up_text,
    partners_text,
    seed_text,
    shown_standings,
    sprt_bounds,
    sprt_elo_text,
)
from arena.v1 import arena_pb2
from arena.web.pages import (
    caveats,
    empty_tbody,
    esc,
    game_title,
    leaderboard_table,
    link,
    matches_url,
    page,
    path_part,
    td,
    thead,
    tournament_url,
    utc_text,
)

STYLE = """
table.facts { width: auto; }
table.facts th { text-align: left; background: none; font-size: 14px; }
table.facts td { text-align: left; white-space: normal; }
table.pairings, table.tie { table-layout: fixed; }
table.pairings td, table.tie td.bot { overflow: hidden; text-overflow: ellipsis; }
table.pairings th:nth-child(odd) { width: 38%; }
.bracket { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(320px, 1fr);
  gap: 20px; overflow-x: auto; }
.ko-round { display: flex; flex-direction: column; }
.ko-round h3 { margin: 0 0 8px; }
.ko-ties { flex: 1; display: flex; flex-direction: column; justify-content: space-around;
  gap: 14px; }
table.tie td { padding: 4px 8px; }
table.tie td.seed { width: 2.6em; color: var(--muted); }
table.tie td.num:not(.seed) { width: 3.4em; }
table.tie td.how { width: 8.5em; white-space: normal; color: var(--muted); font-size: 12px;
  font-weight: 400; line-height: 1.2; }
table.tie tr.winner td { background: #e6f3e8; }
table.tie tr.winner td.bot { font-weight: 700; }
#champion strong { font-size: 17px; }
svg.chart { background: #fff; border: 1px solid var(--line); max-width: 100%; height: auto;
  font: 12px system-ui, sans-serif; }
svg.chart text { fill: var(--muted); }
svg.chart line { stroke: #9aa3b2; stroke-width: 1; }
svg.chart line.bound-upper, svg.chart line.bound-lower { stroke-width: 1.5;
  stroke-dasharray: 6 4; }
svg.chart line.bound-upper { stroke: #1e7b34; }
svg.chart text.bound-upper-label { fill: #1e7b34; }
svg.chart line.bound-lower { stroke: #b03a2e; }
svg.chart text.bound-lower-label { fill: #b03a2e; }
svg.chart polyline.llr { fill: none; stroke: #1d5bb8; stroke-width: 2; stroke-linejoin: round; }
svg.chart circle.now { fill: #1d5bb8; }
"""

DECIDED = {
    "units": "won on units",
    "margin": "won on points margin (level on units)",
    "seed": "went on as the higher seed (level on units and margin)",
}


def num(value: float) -> str:
    """Units and points as a reader writes them: 2, 1.5, never 2.0."""
    return f"{value:g}"


def shows_leaderboard(t: arena_pb2.Tournament) -> bool:
    """Whether the tournament's standings are its leaderboard (``Format.shows_leaderboard``:
    a round robin's, a gauntlet's, a ladder's), which the page then fetches."""
    kind = formats.by_proto(t.spec.format)
    return kind is not None and kind.shows_leaderboard


def format_params_text(t: arena_pb2.Tournament) -> str:
    """The format with its parameters, in a line (``Format.params_text``)."""
    kind = formats.by_proto(t.spec.format)
    return "Unknown format" if kind is None else kind.params_text(t)


def facts_table(rows: Sequence[tuple[str, str, str]], table_id: str) -> str:
    """Label and value rows (``field``, label, value), the field in ``data-field``."""
    body = "".join(
        f'<tr data-field="{esc(field)}"><th scope="row">{esc(label)}</th>{td(value, "text")}</tr>'
        for field, label, value in rows
    )
    return f'<table class="facts" id="{esc(table_id)}"><tbody>{body}</tbody></table>'


def summary_table(t: arena_pb2.Tournament) -> str:
    """What the tournament plays and where it is, as the CLI's status says it."""
    if t.matches_total:
        done = f"{t.matches_done}/{t.matches_total} matches"
    else:
        # The format decides as it goes how many it plays (an SPRT): those handed out so far.
        done = f"{t.matches_done}/{t.matches_issued} matches handed out so far"
    done += f", {t.forfeits} forfeited"
    rows = [
        ("id", "Id", t.id),
        ("state", "State", STATE_NAMES.get(t.state, "?")),
        ("format", "Format", format_params_text(t)),
        (
            "entries",
            "Entries",
            ", ".join(t.spec.entries)
            if t.spec.entries or not _open_lineup(t)
            else "every registered bot that plays one of its games, taken afresh as it runs",
        ),
        ("games", "Games", ", ".join(_game_text(t, g) for g in t.games)),
        ("progress", "Progress", done),
    ]
    if t.state == arena_pb2.TOURNAMENT_STATE_RUNNING:
        rows.append(("status", "Status", held_up_text(t) or "playing"))
    rows += [
        ("fair-play", "Fair play", fair_play_text(t)),
        ("partners", "Partners", partners_text(t)),
        (
            "per-author",
            "Entries per author",
            f"at most {t.spec.max_entries_per_author}"
            if t.spec.max_entries_per_author
            else "no limit",
        ),
        ("seed", "Seed", seed_text(t)),
    ]
    if t.spec.HasField("broadcast_delay"):
        delay = t.spec.broadcast_delay.ToTimedelta().total_seconds()
        rows.append(("delay", "Broadcast delay", f"{delay:g} s: live views run this far behind"))
    if t.HasField("created_at"):
        created = utc_text(t.created_at)
        rows.append(("created", "Submitted", created))
    return facts_table(rows, "tournament-summary")


def _game_text(t: arena_pb2.Tournament, game: str) -> str:
    """A game's title, with the options the tournament plays it with, if any."""
    options = t.spec.game_options[game].options if game in t.spec.game_options else {}
    given = ", ".join(f"{n}={v}" for n, v in sorted(options.items()))
    return f"{game_title(game)} ({given})" if given else game_title(game)


def _open_lineup(t: arena_pb2.Tournament) -> bool:
    """Whether its entries are taken from the registry as it runs (``Format.open_lineup``)."""
    kind = formats.by_proto(t.spec.format)
    return kind is not None and kind.open_lineup


# Swiss


def _swiss_round(r: arena_pb2.SwissRound) -> str:
    columns = [("A", "text"), ("Units", "num"), ("B", "text"), ("Points", "num")]
    rows = []
    for table in r.tables:
        a_css = "text winner" if table.a_points > table.b_points else "text"
        b_css = "text winner" if table.b_points > table.a_points else "text"
        rows.append(
            f"<tr>{td(table.a, a_css)}{td(f'{num(table.a_units)}-{num(table.b_units)}')}"
            f"{td(table.b, b_css)}{td(f'{num(table.a_points)}-{num(table.b_points)}')}</tr>"
        )
    if r.bye:  # sits the round out and scores as for a win
        rows.append(f'<tr class="bye">{td(r.bye, "text")}{td("bye")}{td("", "text")}{td(1)}</tr>')
    state = "" if r.complete else ' <span class="muted">(playing)</span>'
    body = "<tbody>" + "".join(rows) + "</tbody>" if rows else empty_tbody(4, "No pairings.")
    return (
        f"<h3>Round {r.round}{state}</h3>"
        f'<table class="pairings" id="swiss-round-{r.round}">{thead(columns)}{body}</table>'
    )


def swiss_view(s: arena_pb2.SwissStandings, rounds: int) -> str:
    """Each round's pairings, then the standings with the tie-breaks that order them."""
    columns = [
        ("Rank", "num"),
        ("Entry", "text"),
        ("Points", "num"),
        ("Buchholz", "num"),
        ("Units", "num"),
    ]
    body = "".join(
        f'<tr data-entry="{esc(row.entry)}">{td(row.rank, "num rank")}{td(row.entry, "text bot")}'
        f"{td(num(row.points))}{td(num(row.buchholz))}{td(num(row.units))}</tr>"
        for row in s.table
    )
    table = (
        f'<table id="swiss-standings">{thead(columns)}<tbody>{body}</tbody></table>'
        if body
        else '<p class="muted">No round paired yet.</p>'
    )
    tie_break = f'<p class="muted" id="tie-break">Tie-breaks: {esc(s.tie_break)}.</p>'
    paired = f"{len(s.rounds)} of {rounds}" if rounds else str(len(s.rounds))
    return (
        f'<section><h2>Standings</h2><p class="muted">Rounds paired: {esc(paired)}.</p>'
        f"{table}{tie_break if s.tie_break else ''}</section>"
        "<section><h2>Rounds</h2>" + "".join(_swiss_round(r) for r in s.rounds) + "</section>"
    )


# Knockout


def round_name(number: int, rounds: int) -> str:
    """The last rounds by their usual names, the rest by number."""
    names = {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}
    return names.get(rounds - number, f"Round {number}") if rounds else f"Round {number}"


def _side(tie: arena_pb2.KnockoutTie, name: str, seed: int, units: float) -> str:
    """One entry's row of a tie: seed, name, units, and how it went on if it did."""
    went = bool(name) and tie.winner == name
    if not tie.b:  # a bye: the higher seed goes on without playing
        how, shown = "bye", ""
    elif went:
        how, shown = DECIDED.get(tie.decided_by, f"by {tie.decided_by}"), num(units)
    else:
        how, shown = "", num(units)
    css = ' class="winner"' if went else ""
    return (
        f'<tr{css} data-entry="{esc(name)}">{td(seed, "num seed")}{td(name, "text bot")}'
        f"{td(shown)}{td(how, 'text how')}</tr>"
    )


def _tie(tie: arena_pb2.KnockoutTie, table_id: str) -> str:
    rows = _side(tie, tie.a, tie.a_seed, tie.a_units)
    if tie.b:
        rows += _side(tie, tie.b, tie.b_seed, tie.b_units)
    return f'<table class="tie" id="{esc(table_id)}"><tbody>{rows}</tbody></table>'


def knockout_view(k: arena_pb2.KnockoutBracket, entries: int) -> str:
    """The bracket, a column per round (later rounds centred on the ties that feed them),
    each tie with seeds and units and the winner marked with how it went on."""
    rounds = max(math.ceil(math.log2(entries)) if entries > 1 else 0, len(k.rounds))
    columns = []
    for r in k.rounds:
        ties = "".join(_tie(tie, f"tie-{r.round}-{i + 1}") for i, tie in enumerate(r.ties))
        columns.append(
            f'<div class="ko-round"><h3>{esc(round_name(r.round, rounds))}</h3>'
            f'<div class="ko-ties">{ties}</div></div>'
        )
    for number in range(len(k.rounds) + 1, rounds + 1):
        columns.append(
            f'<div class="ko-round"><h3>{esc(round_name(number, rounds))}</h3>'
            '<p class="muted">not paired yet</p></div>'
        )
    champion = (
        f'<p id="champion">Champion: <strong>{esc(k.champion)}</strong></p>'
        if k.champion
        else '<p class="muted" id="champion">No champion yet.</p>'
    )
    return (
        f'<section><h2>Bracket</h2>{champion}<div class="bracket" id="knockout-bracket">'
        + "".join(columns)
        + "</div></section>"
    )


# SPRT

CHART_W, CHART_H = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 16, 48


def unit_ticks(high: int, count: int = 7) -> list[int]:
    """At most ``count`` + 1 round unit counts from 0 up to ``high``: steps of 1, 2 or 5
    times a power of ten, never a fraction of a unit."""
    raw = max(high / count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(int(m * power) for m in (1, 2, 5, 10) if m * power >= raw)
    return list(range(0, high + 1, step))


class Scale:
    """Units and LLR to SVG coordinates, with both bounds and the whole trace in view."""

    def __init__(self, s: arena_pb2.SprtStatus) -> None:
        llrs = [p.llr for p in s.trace]
        low, high = min([s.lower, 0.0, *llrs]), max([s.upper, 0.0, *llrs])
        pad = (high - low) * 0.06 or 1.0
        self.low, self.high = low - pad, high + pad
        self.units = max([1, s.units, *(p.units for p in s.trace)])

    def x(self, units: float) -> str:
        return f"{LEFT + (CHART_W - LEFT - RIGHT) * units / self.units:.1f}"

    def y(self, llr: float) -> str:
        span = self.high - self.low
        return f"{TOP + (CHART_H - TOP - BOTTOM) * (self.high - llr) / span:.1f}"


def _hline(scale: Scale, llr: float, css: str, label: str) -> str:
    y = scale.y(llr)
    return (
        f'<line class="{css}" data-llr="{llr!r}" x1="{LEFT}" x2="{CHART_W - RIGHT}" '
        f'y1="{y}" y2="{y}"/>'
        + (
            f'<text class="{css}-label" x="{LEFT + 6}" y="{float(y) - 5:.1f}">{esc(label)}</text>'
            if label
            else ""
        )
    )


def llr_chart(s: arena_pb2.SprtStatus, title: str) -> str:
    """The LLR trace as a line over units, with the bounds where the test stops."""
    scale = Scale(s)
    lower, upper = sprt_bounds(s)
    bottom = CHART_H - BOTTOM
    points = " ".join(f"{scale.x(p.units)},{scale.y(p.llr)}" for p in s.trace)
    x_ticks = "".join(
        f'<line class="tick" x1="{scale.x(u)}" x2="{scale.x(u)}" y1="{bottom}" '
        f'y2="{bottom + 5}"/><text x="{scale.x(u)}" y="{bottom + 18}" '
        f'text-anchor="middle">{u}</text>'
        for u in unit_ticks(scale.units)
    )
    y_ticks = "".join(
        f'<text x="{LEFT - 6}" y="{float(scale.y(v)) + 4:.1f}" text-anchor="end">{v:+.2f}</text>'
        for v in sorted({lower, 0.0, upper})
    )
    last = s.trace[-1] if s.trace else None
    marker = (
        f'<circle class="now" cx="{scale.x(last.units)}" cy="{scale.y(last.llr)}" r="3.5"/>'
        if last
        else ""
    )
    mid_x = (LEFT + CHART_W - RIGHT) / 2
    mid_y = (TOP + bottom) / 2
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="llr-chart" role="img" '
        f'viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" height="{CHART_H}" '
        f'aria-label="{esc(title)}"><title>{esc(title)}</title>'
        f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}"/>'
        f'<line class="axis" x1="{LEFT}" x2="{CHART_W - RIGHT}" y1="{bottom}" y2="{bottom}"/>'
        + _hline(scale, 0.0, "zero", "")
        + _hline(scale, upper, "bound-upper", f"H1 accepted at {upper:+.2f}")
        + _hline(scale, lower, "bound-lower", f"H0 accepted at {lower:+.2f}")
        + (f'<polyline class="llr" points="{points}"/>' if points else "")
        + marker
        + x_ticks
        + y_ticks
        + f'<text class="axis-label" x="{mid_x:.1f}" y="{CHART_H - 8}" '
        'text-anchor="middle">units</text>'
        f'<text class="axis-label" x="16" y="{mid_y:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {mid_y:.1f})">LLR</text>'
        "</svg>"
    )


def sprt_view(s: arena_pb2.SprtStatus, entries: Sequence[str], p: arena_pb2.SprtParams) -> str:
    """The verdict, LLR against its bounds, the Elo estimate, W/D/L and the LLR chart."""
    new, old = [*entries, "the first entry", "the second entry"][:2]
    lower, upper = sprt_bounds(s)
    rows = [
        ("verdict", "Verdict", VERDICTS.get(s.verdict, "pending")),
        (
            "hypotheses",
            "Hypotheses",
            f"H0: {new} is at most {p.elo0:g} Elo better than {old}; "
            f"H1: at least {p.elo1:g} (alpha {p.alpha:g}, beta {p.beta:g})",
        ),
        ("llr", "LLR", f"{s.llr:+.2f} (bounds {lower:+.2f}, {upper:+.2f})"),
        ("elo", "Elo [95%]", sprt_elo_text(s)),
        ("wdl", "W/D/L", f"{s.wins}/{s.draws}/{s.losses} over {s.units} units"),
    ]
    chart = (
        llr_chart(s, f"LLR of {new} against {old} after each unit")
        if s.trace
        else '<p class="muted">No units scored yet.</p>'
    )
    return f"<section><h2>SPRT</h2>{facts_table(rows, 'sprt-status')}<h3>LLR</h3>{chart}</section>"


# Ladder


def hello_text(s: arena_pb2.LadderSuspension) -> str:
    """When the arena says Hello to a suspended entry."""
    every = s.probe_every.ToTimedelta().total_seconds()
    return f"asked from {utc_text(s.probe_from)}, every {every:g} s"


def suspension_text(s: arena_pb2.LadderSuspension) -> str:
    """A suspended entry in a line: since when, why, and when the arena says Hello."""
    return (
        f"suspended since {utc_text(s.since)}: {s.reason}; paired again once it answers "
        f"Hello ({hello_text(s)})"
    )


def ladder_board(
    board: arena_pb2.Leaderboard, ladder: arena_pb2.LadderStandings
) -> arena_pb2.Leaderboard:
    """The ladder's leaderboard with each suspended entry's row saying so in its note."""
    held = {s.entry: s for s in ladder.suspended}
    if not held:
        return board
    marked = arena_pb2.Leaderboard()
    marked.CopyFrom(board)
    for row in every_row(marked):
        if row.bot in held:
            row.note = "; ".join(n for n in (suspension_text(held[row.bot]), row.note) if n)
    return marked


def suspended_view(ladder: arena_pb2.LadderStandings) -> str:
    """The entries the ladder does not pair for now (some may have no rated match)."""
    if not ladder.suspended:
        return ""
    columns = [("Entry", "text"), ("Since", "text"), ("Why", "text"), ("Hello", "text")]
    rows = "".join(
        f'<tr data-entry="{esc(s.entry)}">{td(s.entry, "text bot")}'
        f"{td(utc_text(s.since), 'text')}{td(s.reason, 'text')}{td(hello_text(s), 'text')}</tr>"
        for s in ladder.suspended
    )
    return (
        f'<h3>Suspended</h3><p class="muted">An entry whose last {ladder.suspend_after} '
        "matches were all forfeited or faulted by it is not paired until it answers Hello "
        "again; its results so far stay on the board.</p>"
        f'<table id="ladder-suspended">{thead(columns)}<tbody>{rows}</tbody></table>'
    )


# The page


def standings_view(t: arena_pb2.Tournament, board: arena_pb2.Leaderboard | None) -> str:
    """The format's standings, drawn as what they are (Swiss rounds, a bracket, an SPRT's
    status); for a format ranked by its leaderboard (``shows_leaderboard``), the board."""
    shown = shown_standings(t.standings)
    if isinstance(shown, arena_pb2.SwissStandings):
        return swiss_view(shown, t.spec.swiss.rounds)
    if isinstance(shown, arena_pb2.KnockoutBracket):
        return knockout_view(shown, len(t.spec.entries))
    if isinstance(shown, arena_pb2.SprtStatus):
        return sprt_view(shown, t.spec.entries, sprt_params(t))
    if board is not None:
        suspended = ""
        if isinstance(shown, arena_pb2.LadderStandings):
            # Its ranking is the board; and who it does not pair now.
            board = ladder_board(board, shown)
            suspended = suspended_view(shown)
        json_link = link(f"/api/leaderboard?tournament={path_part(t.id)}", "JSON")
        return (
            f'<section><h2>Leaderboard</h2><p class="muted">Ratings from this tournament\'s '
            f"{board.matches} results only · {json_link}</p>"
            f"{caveats(board)}{leaderboard_table(board, 'tournament-leaderboard')}"
            f"{suspended}</section>"
        )
    return '<section><p class="muted" id="no-standings">Nothing paired yet.</p></section>'


def tournament_page(
    t: arena_pb2.Tournament,
    board: arena_pb2.Leaderboard | None,
    games: Sequence[str],
    note: str,
) -> str:
    """The summary, a link to its matches, and the standings; reloads while the
    tournament runs."""
    json_link = link(tournament_url(t.id, api=True), "JSON")
    all_matches = link(
        matches_url(tournament=t.id), f"All {t.matches_done} matches played", "all-matches"
    )
    body = (
        f'<section><h2>Tournament</h2><p class="muted">The same as {json_link}.</p>'
        f"{summary_table(t)}<p>{all_matches}</p></section>{standings_view(t, board)}"
    )
    return page(
        f"Tournament {t.spec.name or t.id}",
        body,
        games,
        note=note,
        refresh=t.state == arena_pb2.TOURNAMENT_STATE_RUNNING,
        style=STYLE,
    )
