"""The competitions' pages: the list (``/competitions``) and one competition
(``/competitions/{name}``), from the API's public competition calls.

A competition's page shows what its phase makes public: before it opens, its rules and
timeline; while it is open (and as submissions close), the public board by author
(GetCompetitionLeaderboard without ``mine``: one row per author, their best active
version, as ``arena competition board`` prints it; with leagues, grouped by league as the
API gives the rows, the top first, each league's boss marked); from the final on, each
author's final version and how it was picked, the final's tournament, its seed
commitment and its number of deals with the reason the arena recorded;
once the board is frozen, the final board. Nothing an author sees only with their own
token (every version of theirs, invite codes, tokens) is read. The description is the
organiser's Markdown, rendered by ``arena.web.markdown``; every other value goes
through ``esc``.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.duration_pb2 import Duration

from arena.ratings.texts import elo_text, interval_text, rating_text, status_text
from arena.tournament.progress import FAIR_PLAY_NAMES
from arena.v1 import arena_pb2
from arena.web import markdown
from arena.web.pages import (
    bot_url,
    empty_tbody,
    esc,
    game_title,
    link,
    page,
    path_part,
    td,
    thead,
    tournament_link,
    utc_text,
)
from arena.web.standings import facts_table

STYLE = """
table.facts { width: auto; }
table.facts th { text-align: left; background: none; font-size: 14px; }
table.facts td { text-align: left; white-space: normal; }
.description { background: #fff; border: 1px solid var(--line); padding: 4px 18px; }
.description table { width: auto; }
code.commitment { word-break: break-all; }
tr.tied td.tie { color: #9a5b00; }
tr.league-start td { border-top: 2px solid var(--line); }
tr.boss td.boss { font-style: italic; }
"""

LIVE = (
    arena_pb2.COMPETITION_PHASE_SCHEDULED,
    arena_pb2.COMPETITION_PHASE_OPEN,
    arena_pb2.COMPETITION_PHASE_CLOSED,
    arena_pb2.COMPETITION_PHASE_FINAL,
)
"""Phases whose page changes by itself (it reloads every ``pages.REFRESH_S``)."""
CHOICES = {
    arena_pb2.FINAL_CHOICE_MARKED: "marked by its author",
    arena_pb2.FINAL_CHOICE_BEST_RATED: "best rated on the open board (unmarked)",
    arena_pb2.FINAL_CHOICE_NEWEST: "newest (unmarked, none rated)",
}


def competition_url(name: str = "", api: bool = False, board: bool = False) -> str:
    """The list (no ``name``), a competition's page, or (``api``) their JSON; ``board``:
    its board's JSON."""
    path = f"{'/api' if api else ''}/competitions"
    if name:
        path += "/" + path_part(name) + ("/board" if board else "")
    return path


def phase_text(phase: arena_pb2.CompetitionPhase.ValueType) -> str:
    return arena_pb2.CompetitionPhase.Name(phase).removeprefix("COMPETITION_PHASE_").lower()


def live(found: arena_pb2.Competition) -> bool:
    return found.phase in LIVE


def shows_open_board(found: arena_pb2.Competition) -> bool:
    """Whether the page shows the open ladder's board: while open, and as submissions
    close (from the final on, the final's own versions and board take its place)."""
    return bool(found.ladder_tournament_id) and found.phase in (
        arena_pb2.COMPETITION_PHASE_OPEN,
        arena_pb2.COMPETITION_PHASE_CLOSED,
    )


def _seconds(value: Duration) -> str:
    return f"{value.ToTimedelta().total_seconds():g} s"


def _count(n: int, word: str) -> str:
    """ "1 match", "18 matches", "2 results"."""
    plural = word + ("es" if word.endswith(("s", "ch")) else "s")
    return f"{n} {word if n == 1 else plural}"


def games_text(spec: arena_pb2.CompetitionSpec) -> str:
    """Each game with the options set (the rest keep their defaults)."""
    if not spec.games:
        return "every game, with its default options"
    parts = []
    for g in spec.games:
        options = ", ".join(f"{k} = {v}" for k, v in sorted(g.options.items()))
        parts.append(f"{game_title(g.game)} ({options})" if options else game_title(g.game))
    if any(g.options for g in spec.games):  # docs/competitions.md, "The ladder"
        parts[-1] += ". Its matches play each game's default options for now"
    return "; ".join(parts)


def list_page(found: arena_pb2.ListCompetitionsResponse, games: Sequence[str], note: str) -> str:
    """Every competition, newest first: phase, timeline (UTC), competitors."""
    columns = [
        ("Competition", "text"),
        ("Phase", "text"),
        ("Opens (UTC)", "text"),
        ("Submissions close (UTC)", "text"),
        ("Final ends (UTC)", "text"),
        ("Competitors", "num"),
    ]
    rows = "".join(
        f'<tr data-competition="{esc(c.spec.name)}">'
        f'<td class="text">{link(competition_url(c.spec.name), c.spec.name)}</td>'
        f"{td(phase_text(c.phase), 'text phase')}"
        f"{td(utc_text(c.spec.timeline.opens_at), 'text')}"
        f"{td(utc_text(c.spec.timeline.submissions_close_at), 'text')}"
        f"{td(utc_text(c.spec.timeline.final_ends_at), 'text')}"
        f"{td(len(c.competitors))}</tr>"
        for c in found.competitions
    )
    body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(len(columns), "No competitions yet.")
    section = (
        '<section><h2>Competitions</h2><p class="muted">Seasons the arena runs: authors '
        "join by invite, submit hosted bots while a competition is open, and a final round "
        "robin of each author's final version decides it.</p>"
        f'<table id="competitions">{thead(columns)}{body}</table></section>'
    )
    return page("Card Arena competitions", section, games, note=note, refresh=True)


def _facts(c: arena_pb2.Competition) -> str:
    spec, timeline = c.spec, c.spec.timeline
    rows = [
        ("phase", "Phase", phase_text(c.phase)),
        ("games", "Games", games_text(spec)),
        ("opens", "Opens", utc_text(timeline.opens_at)),
        ("submissions-close", "Submissions close", utc_text(timeline.submissions_close_at)),
        ("final-ends", "Final ends", utc_text(timeline.final_ends_at)),
        (
            "competitors",
            "Competitors",
            f"{len(c.competitors)}" + (f": {', '.join(c.competitors)}" if c.competitors else ""),
        ),
        ("created", "Created", utc_text(c.created_at)),
    ]
    return facts_table(rows, "competition-facts")


def _rules(rules: arena_pb2.CompetitionRules) -> str:
    partners = arena_pb2.Partners.Name(rules.partners).removeprefix("PARTNERS_").lower()
    bank = rules.time_bank.ToTimedelta().total_seconds()
    rows = [
        ("fair-play", "Fair play", FAIR_PLAY_NAMES.get(rules.fair_play, "open")),
        ("partners", "Partners", partners),
        ("daily-submissions", "Submissions a day", f"{rules.daily_submissions} per author"),
        ("active-versions", "Active versions", f"{rules.active_versions} per author"),
        ("final-deals", "Final deals", f"at most {rules.final_deals} per pairing and game"),
        (
            "final-los",
            "Final LOS",
            f"{rules.final_los:g}: the final plays the deals adjacent ranks are predicted to "
            "need to reach it, and its board reports those under it tied",
        ),
        ("move-deadline", "Move deadline", _seconds(rules.move_deadline)),
        ("time-bank", "Time bank", _seconds(rules.time_bank) if bank else "none"),
        (
            "max-faults",
            "Faults to forfeit",
            str(rules.max_faults) if rules.max_faults else "the referee's default",
        ),
    ]
    if rules.leagues:
        tiers = ", ".join(
            f"{x.name} (boss {x.boss})" if x.boss else f"{x.name} (top)" for x in rules.leagues
        )
        rows += [
            ("leagues", "Leagues, lowest first", tiers),
            (
                "promotion",
                "Promotion",
                f"a version moves up at LOS {rules.promotion_los:g} over its league's boss, "
                f"judged from {_count(rules.promotion_pairs, 'pair')} against it on",
            ),
        ]
    return facts_table(rows, "competition-rules")


def _transitions(c: arena_pb2.Competition) -> str:
    columns = [("Phase", "text"), ("Due (UTC)", "text"), ("Recorded (UTC)", "text")]
    rows = "".join(
        f'<tr data-phase="{esc(phase_text(t.phase))}">{td(phase_text(t.phase), "text")}'
        f"{td(utc_text(t.due_at), 'text')}{td(utc_text(t.recorded_at), 'text')}</tr>"
        for t in c.transitions
    )
    body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(len(columns), "Not opened yet.")
    return (
        '<section id="phases"><h2>Phases</h2><p class="muted">scheduled → open → closed → '
        "final → finished (or cancelled), each recorded by the arena's workers when the "
        "timeline makes it due.</p>"
        f'<table id="phase-history">{thead(columns)}{body}</table></section>'
    )


def _board_links(c: arena_pb2.Competition, game: str, games: Sequence[str]) -> str:
    """All games and each game alone, when it plays more than one."""
    played = [g.game for g in c.spec.games] or list(games)
    if len(played) < 2:
        return ""
    base = competition_url(c.spec.name)
    links = [("", "All games"), *((g, game_title(g)) for g in played)]
    parts = [
        f"<strong>{esc(text)}</strong>"
        if g == game
        else link(base + (f"?game={path_part(g)}" if g else ""), text)
        for g, text in links
    ]
    return f'<p class="board-games">{" · ".join(parts)}</p>'


def _board_row(row: arena_pb2.CompetitionBoardRow, leagues: bool, starts: bool) -> str:
    """An author's row, or a league's boss's: marked as the boss, no author, no rank.
    ``leagues``: with a League column; ``starts``: the first row of its league."""
    r = row.rating
    rating = f"{rating_text(r, arena_pb2.Leaderboard())} {interval_text(r)}".strip()
    classes = [css for css, on in (("league-start", starts), ("boss", row.boss)) if on]
    attrs = f'data-boss="{esc(row.league)}"' if row.boss else f'data-author="{esc(row.author)}"'
    attrs += f' data-version="{esc(row.version)}"'
    if leagues:
        attrs += f' data-league="{esc(row.league)}"'
    if classes:
        attrs += f' class="{" ".join(classes)}"'
    who = td(f"boss of {row.league}", "text boss") if row.boss else td(row.author, "text bot")
    return (
        f"<tr {attrs}>{td(row.rank if row.rank and not row.boss else '', 'num rank')}"
        f"{td(row.league, 'text league') if leagues else ''}{who}"
        f'<td class="text">{link(bot_url(row.version), row.version)}</td>'
        f"{td(rating)}{td(r.pairs)}{td(f'{r.wins}-{r.draws}-{r.losses}')}{td(r.matches)}"
        f"{td(status_text(r.status) + ('' if row.active else ', retired'), 'text')}</tr>"
    )


def open_board(
    c: arena_pb2.Competition,
    board: arena_pb2.CompetitionLeaderboard,
    game: str,
    games: Sequence[str],
) -> str:
    """One row per author: their best active version on the open ladder; with leagues, a
    League column and each league's boss among its rows, in the API's order (by league,
    the top first)."""
    leagues = bool(c.spec.rules.leagues) or any(row.league for row in board.rows)
    columns = [
        ("Rank", "num"),
        *([("League", "text")] if leagues else []),
        ("Author", "text"),
        ("Version", "text"),
        ("Elo ± 95%", "num"),
        ("Pairs", "num"),
        ("W-D-L", "num"),
        ("Matches", "num"),
        ("Status", "text"),
    ]
    rows = []
    for i, row in enumerate(board.rows):
        starts = leagues and (i == 0 or board.rows[i - 1].league != row.league)
        rows.append(_board_row(row, leagues, starts))
    body = (
        f"<tbody>{''.join(rows)}</tbody>"
        if rows
        else empty_tbody(len(columns), "No rated version yet.")
    )
    what = game_title(game) if game else "all its games"
    order = (
        "each author's active version in the highest league, grouped by league, the top "
        "first, and within one, established ratings before provisional ones, then by Elo: "
        "an author in a higher league ranks above every author in a lower one. Each "
        "league's boss, the bot to beat to move up, is listed in it, unranked."
        if leagues
        else "each author's best active version, established ratings before provisional "
        "ones, then by Elo."
    )
    return (
        '<section id="open-board"><h2>Board</h2>'
        f'<p class="muted">The open ladder ({tournament_link(board.ladder_tournament_id)}), '
        f"{esc(what)}, {_count(board.matches, 'rated match')}: {esc(order)}</p>"
        f"{_board_links(c, game, games)}"
        f'<table id="competition-board">{thead(columns)}{body}</table></section>'
    )


def _final(c: arena_pb2.Competition) -> str:
    """The final's tournament, commitment, number of deals (and why) and versions (how
    each was picked)."""
    deals = (
        '<tr data-field="final-deals"><th scope="row">Deals</th>'
        f'<td class="text">{esc(c.final_deals)} per pairing and game, each played twice '
        "(seats swapped)</td></tr>"
        '<tr data-field="final-deals-reason"><th scope="row">Why that many</th>'
        f'<td class="text">{esc(c.final_deals_reason)}</td></tr>'
        if c.final_deals
        else ""
    )
    if c.final_tournament_id:
        commitment = c.final_seed_commitment or "(not published yet)"
        facts = (
            '<table class="facts" id="final-facts"><tbody>'
            '<tr data-field="final-tournament"><th scope="row">Tournament</th>'
            f'<td class="text">{tournament_link(c.final_tournament_id)}</td></tr>'
            '<tr data-field="seed-commitment"><th scope="row">Seed commitment</th>'
            f'<td class="text"><code class="commitment">{esc(commitment)}</code></td></tr>'
            f"{deals}</tbody></table>"
        )
        playing = (
            " It is being played: its board is frozen when it ends, at "
            f"{utc_text(c.spec.timeline.final_ends_at)} at the latest."
            if c.phase == arena_pb2.COMPETITION_PHASE_FINAL
            else ""
        )
        chosen = (
            " Its number of deals was chosen from the open ladder's board as its versions "
            f"were picked: what adjacent ranks are predicted to need to reach LOS "
            f"{c.spec.rules.final_los:g}, within the rules' budget."
            if c.final_deals
            else ""
        )
        intro = (
            '<p class="muted">A sealed duplicate round robin of the final versions.'
            f"{esc(playing)}{esc(chosen)} Its seed commitment was published as it began: "
            f"<code>arena competition verify {esc(c.spec.name)} --commitment HEX</code> "
            "checks the seed and every match against it.</p>"
        )
    else:
        facts = f'<table class="facts" id="final-facts"><tbody>{deals}</tbody></table>' * bool(
            deals
        )
        intro = (
            '<p class="muted" id="no-final">No final round robin is played: fewer than two '
            "final versions can meet.</p>"
        )
    columns = [("Author", "text"), ("Version", "text"), ("How chosen", "text")]
    rows = "".join(
        f'<tr data-author="{esc(v.author)}" data-version="{esc(v.version)}">'
        f"{td(v.author, 'text bot')}"
        f'<td class="text">{link(bot_url(v.version), v.version)}</td>'
        f"{td(CHOICES.get(v.chosen, '?'), 'text chosen')}</tr>"
        for v in c.final_versions
    )
    body = f"<tbody>{rows}</tbody>" if rows else empty_tbody(len(columns), "None.")
    return (
        f'<section id="final"><h2>The final</h2>{intro}{facts}'
        f'<table id="final-versions">{thead(columns)}{body}</table></section>'
    )


def _ties(rows: Sequence[arena_pb2.FinalBoardRow]) -> list[str]:
    """Each row's tie, in words: "tied with 2", "tied with 1 and 3", or ""."""
    found = []
    for i, row in enumerate(rows):
        with_ = []
        if i and rows[i - 1].tied_with_next:
            with_.append(str(rows[i - 1].rank))
        if row.tied_with_next and i + 1 < len(rows):
            with_.append(str(rows[i + 1].rank))
        found.append(f"tied with {' and '.join(with_)}" if with_ else "")
    return found


def final_board(board: arena_pb2.FinalBoard) -> str:
    """The frozen board: rank, author, version, how it was chosen, Elo ± 95%, LOS over
    the next rank, ties, pairs W-D-L, matches won of played; unranked rows last."""
    columns = [
        ("Rank", "num"),
        ("Author", "text"),
        ("Version", "text"),
        ("How chosen", "text"),
        ("Elo ± 95%", "num"),
        ("LOS to next", "num"),
        ("Tie", "text"),
        ("Pairs W-D-L", "num"),
        ("Matches won", "num"),
        ("Status", "text"),
    ]
    rows = list(board.rows)
    tied = ' class="tied"'
    cells = []
    for row, tie in zip(rows, _ties(rows), strict=True):
        ranked = row.rank > 0
        elo = f"{elo_text(row.elo)} ± {row.elo_ci95:.0f}" if ranked else ""
        los = f"{100 * row.los_next:.1f}%" if ranked and row.los_next else ""
        cells.append(
            f'<tr data-author="{esc(row.author)}" data-version="{esc(row.version)}"'
            f"{tied if tie else ''}>"
            f"{td(row.rank if ranked else '', 'num rank')}{td(row.author, 'text bot')}"
            f'<td class="text">{link(bot_url(row.version), row.version)}</td>'
            f"{td(CHOICES.get(row.chosen, '?'), 'text chosen')}{td(elo, 'num elo')}"
            f"{td(los, 'num los')}{td(tie, 'text tie')}"
            f"{td(f'{row.wins}-{row.draws}-{row.losses}', 'num pairs')}"
            f"{td(f'{row.matches_won}/{row.matches}', 'num matches')}"
            f"{td(row.status, 'text status')}</tr>"
        )
    body = (
        f"<tbody>{''.join(cells)}</tbody>"
        if cells
        else empty_tbody(len(columns), "No final version.")
    )
    unplayed = (
        f" {_count(board.unplayed, 'match')} of the final's schedule were left unplayed when "
        "its time ran out."
        if board.unplayed
        else ""
    )
    return (
        '<section id="final-board-section"><h2>Final board</h2>'
        f'<p class="muted">Frozen {esc(utc_text(board.frozen_at))} from '
        f"{_count(board.matches, 'result')} (digest <code>{esc(board.results_digest)}</code>),"
        f" never recomputed.{esc(unplayed)} Maximum-likelihood Elo over the final's games; "
        f"adjacent ranks whose likelihood of superiority is under {100 * board.tie_los:g}% "
        "are tied: the final did not separate them. Versions without a rating are last, "
        "unranked.</p>"
        f'<table id="final-board">{thead(columns)}{body}</table></section>'
    )


def _board_sections(
    c: arena_pb2.Competition,
    board: arena_pb2.CompetitionLeaderboard | None,
    game: str,
    games: Sequence[str],
) -> str:
    """What the phase makes public, most decisive first."""
    parts = []
    if c.HasField("final_board"):
        parts.append(final_board(c.final_board))
    if c.final_versions or c.final_tournament_id:
        parts.append(_final(c))
    elif c.phase == arena_pb2.COMPETITION_PHASE_FINAL:
        parts.append(
            '<section id="final"><h2>The final</h2><p class="muted">Its versions are being '
            "picked.</p></section>"
        )
    if board is not None:
        parts.append(open_board(c, board, game, games))
    elif c.phase in (arena_pb2.COMPETITION_PHASE_SCHEDULED, arena_pb2.COMPETITION_PHASE_OPEN):
        when = (
            f"when the competition opens at {utc_text(c.spec.timeline.opens_at)}"
            if c.phase == arena_pb2.COMPETITION_PHASE_SCHEDULED
            else "which the arena's workers are starting now"
        )
        parts.append(
            '<section id="open-board"><h2>Board</h2><p class="muted">The board starts with '
            f"the open ladder, {esc(when)}.</p></section>"
        )
    elif c.ladder_tournament_id:
        parts.append(
            '<p class="muted" id="ladder-link">The open phase\'s ladder and its board: '
            f"{tournament_link(c.ladder_tournament_id)}.</p>"
        )
    return "".join(parts)


def competition_page(
    c: arena_pb2.Competition,
    board: arena_pb2.CompetitionLeaderboard | None,
    games: Sequence[str],
    note: str,
    game: str = "",
) -> str:
    """The competition: its facts, its phase's board, then its description, rules and
    phases as recorded."""
    name = c.spec.name
    description = (
        '<section id="about"><h2>About</h2>'
        f'<div class="description" id="description">{markdown.render(c.spec.description)}'
        "</div></section>"
        if c.spec.description.strip()
        else ""
    )
    body = (
        f'<section id="summary"><h2>{esc(name)} <span class="muted">({esc(phase_text(c.phase))})'
        f"</span></h2>{_facts(c)}</section>"
        f"{_board_sections(c, board, game, games)}{description}"
        f'<section id="rules-section"><h2>Rules</h2>{_rules(c.spec.rules)}</section>'
        f"{_transitions(c)}"
        f"<p>{link(competition_url(), 'All competitions')}</p>"
    )
    return page(f"Competition {name}", body, games, note=note, refresh=live(c), style=STYLE)
