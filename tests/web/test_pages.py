"""The leaderboard's pages and routes without a network: escaping, errors, limits."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest
from starlette.testclient import TestClient

from arena.processes import arena_command, start_service
from arena.v1 import arena_pb2
from arena.web import bots, pages
from arena.web.app import create_app, to_dict
from arena.web.data import (
    MAX_LIMIT,
    BotFacts,
    Replay,
)
from arena.web.errors import HttpError
from tests.support.fake_source import HOSTILE, FakeSource, Site, board, match
from tests.web.dom import Document


def test_user_controlled_names_are_escaped_in_every_table() -> None:
    source = FakeSource((HOSTILE, "rand"))
    text = Site(source, "api:1").get("/").body.decode()
    assert "<script>" not in text and "<img" not in text
    doc = Document(text)
    assert "script" not in doc.tags and "img" not in doc.tags
    assert [r.cells[1] for r in doc.tables["leaderboard-overall"]] == [HOSTILE, "rand"]
    assert [r.attrs["data-bot"] for r in doc.tables["leaderboard-seep"]] == [HOSTILE, "rand"]
    # The likelihood of superiority, row over column, with the names escaped too.
    assert [r.cells for r in doc.tables["los-matrix"]] == [[HOSTILE, "", "99"], ["rand", "1", ""]]
    recent = doc.tables["recent-matches"]
    assert recent[0].cells[3:5] == [HOSTILE, "rand"]
    assert recent[0].cells[6:8] == [f"{HOSTILE} wins", "2023-11-14 22:13:20 UTC"]
    # The tournament's name is the organiser's: escaped too.
    html = pages.matches_table([match("a", "b", tournament_name=HOSTILE)])
    assert Document(html).tables["recent-matches"][0].cells[0] == HOSTILE
    assert "<script>" not in html


def test_elo_is_shown_with_its_interval_and_rows_keep_the_rank_order() -> None:
    doc = Document(pages.leaderboard_table(board("a", "b"), "t"))
    assert [r.cells[:6] for r in doc.tables["t"]] == [
        ["1", "a", "+100 ± 41", "2", "2-0-0", "4"],
        ["2", "b", "-100 ± 41", "2", "0-0-2", "4"],
    ]
    assert doc.tables["t"][0].cells[6] == "+12"  # the overall table's per-game Elo column
    empty = Document(pages.leaderboard_table(arena_pb2.Leaderboard(game="seep"), "e"))
    assert [r.cells for r in empty.tables["e"]] == [["No rated matches yet."]]


def provisional_board(game: str = "") -> arena_pb2.Leaderboard:
    """An established bot, a provisional one ranked after it, one that lost every pair
    (provisional too), one with no rated pair, and (overall) one not in every game."""
    rows = [
        arena_pb2.LeaderboardRow(
            rank=1, group=1, bot="est", elo=-10.2, elo_ci95=40.4, pairs=24,
            status=arena_pb2.RATING_STATUS_RATED,
        ),
        arena_pb2.LeaderboardRow(
            rank=2, group=1, bot="new", elo=123.6, elo_ci95=266.0, pairs=3,
            status=arena_pb2.RATING_STATUS_PROVISIONAL, note="provisional: 3 of the 20 pairs",
        ),
        arena_pb2.LeaderboardRow(
            rank=3, group=1, bot="dud", elo=-800.0, elo_ci95=900.0, pairs=6,
            status=arena_pb2.RATING_STATUS_PROVISIONAL, bound=arena_pb2.RATING_BOUND_AT_MOST,
            elo_bound=-310.4, note="lost all 6 pairs: at most -310 at 95%",
        ),
        arena_pb2.LeaderboardRow(
            bot="ghost", status=arena_pb2.RATING_STATUS_PROVISIONAL, note="no rated pair yet"
        ),
    ]  # fmt: skip
    if not game:
        rows.append(
            arena_pb2.LeaderboardRow(
                bot="one", status=arena_pb2.RATING_STATUS_INCOMPLETE, pairs=5,
                note="played seep only (1 of 2 games): not ranked overall",
            )
        )  # fmt: skip
    return arena_pb2.Leaderboard(game=game, matches=40, min_pairs=20, rows=rows)


def test_provisional_rows_show_their_estimate_marked_and_the_rule_under_the_table() -> None:
    doc = Document(html := pages.leaderboard_table(provisional_board(), "t"))
    assert [r.cells[:4] for r in doc.tables["t"]] == [
        ["1", "est", "-10 ± 40", "24"],
        ["2", "new", "+124? ± 266", "3"],
        ["3", "dud", "≤ -310?", "6"],
        ["", "ghost", "—", "0"],
        ["", "one", "incomplete", "5"],
    ]
    assert [r.attrs["data-status"] for r in doc.tables["t"]][:2] == ["rated", "provisional"]
    assert (
        '<p class="muted ranking" id="t-rule">Ranked by Elo: established ratings (20 pairs or '
        "more, in every game) first, then provisional ones, marked ?, whose estimates run "
        "ahead of the truth with fewer pairs (their 95% intervals stay honest).</p>"
    ) in html
    established = pages.leaderboard_table(board("a", "b", game="seep"), "e")
    assert 'id="e-rule"' not in established  # nothing provisional: nothing to explain


def test_the_front_page_leads_with_boards_that_rank_someone() -> None:
    nobody = arena_pb2.Leaderboard(
        matches=12,
        rows=[
            arena_pb2.LeaderboardRow(bot=b, status=arena_pb2.RATING_STATUS_INCOMPLETE, pairs=4)
            for b in ("a", "b")
        ],
        caveats=["no bot is rated in all 2 yet, so none is ranked here"],
    )
    seep = provisional_board("seep")
    order = [("overall", "by-game"), ("by-game", "overall")]
    for overall, expected in ((provisional_board(), order[0]), (nobody, order[1])):
        text = pages.index_page(overall, [seep], [], [], ["seep"], "")
        found = sorted(expected, key=lambda section: text.index(f'<section id="{section}">'))
        assert tuple(found) == expected
    text = pages.index_page(nobody, [seep], [], [], ["seep"], "")
    assert "Note: no bot is rated in all 2 yet, so none is ranked here." in text


def test_a_bot_page_shows_where_the_bot_stands_now_on_every_board() -> None:
    """The bot page's rows are the boards' own: the same rank, cell and status."""
    boards = [provisional_board(), provisional_board("seep")]
    history = arena_pb2.RatingHistory(bot="new")
    text = bots.bot_page(history, ["seep"], "", boards=boards)
    rows = Document(text).tables["bot-standing"]
    assert [r.cells[:6] for r in rows] == [
        ["All games", "new", "2", "+124? ± 266", "3", "provisional"],
        ["Seep", "new", "2", "+124? ± 266", "3", "provisional"],
    ]
    facts = BotFacts(
        "trick",
        arena_pb2.RegisteredBot(name="trick", hosted=True),
        [arena_pb2.HostedBotVersion(version="v1")],
    )
    renamed = [arena_pb2.Leaderboard(game="", rows=[arena_pb2.LeaderboardRow(
        rank=1, group=1, bot="trick@v1", elo=124.0, elo_ci95=266.0, pairs=3,
        status=arena_pb2.RATING_STATUS_PROVISIONAL,
    )])]  # fmt: skip
    hosted = bots.bot_page(arena_pb2.RatingHistory(bot="trick"), [], "", facts, boards=renamed)
    assert [r.cells[1:4] for r in Document(hosted).tables["bot-standing"]] == [
        ["trick@v1", "1", "+124? ± 266"]
    ]
    nowhere = bots.bot_page(arena_pb2.RatingHistory(bot="x"), [], "", boards=boards)
    assert [r.cells for r in Document(nowhere).tables["bot-standing"]] == [
        ["x is on no board yet: it has no rated match."]
    ]


def test_replay_links_quote_ids() -> None:
    assert pages.replay_url("t1", "a/b?c") == "/replays/t1/a%2Fb%3Fc"
    assert pages.replay_url("t1", "m", api=True) == "/api/replays/t1/m"


def test_limits_outside_1_to_500_are_400() -> None:
    source = FakeSource()
    site = Site(source, "api:1")
    for bad in ("0", "-1", "abc", "", "1.5", str(MAX_LIMIT + 1), "999999", "1e3"):
        response = site.get(f"/api/matches?limit={bad}")
        assert response.status == 400, bad
        assert json.loads(response.body) == {
            "error": f"limit must be a whole number from 1 to {MAX_LIMIT}, got {bad!r}",
            "status": 400,
        }
    for query, limit in (("", 50), ("?limit=7", 7), (f"?limit={MAX_LIMIT}", MAX_LIMIT)):
        response = site.get("/api/matches" + query)
        assert response.status == 200 and json.loads(response.body)["limit"] == limit


def test_unknown_pages_and_games_are_404_in_html_and_json() -> None:
    site = Site(FakeSource(), "api:1")
    page = site.get("/no/such/page")
    assert (page.status, page.content_type) == (404, "text/html; charset=utf-8")
    assert "nothing at /no/such/page: see / for the leaderboard" in page.body.decode()
    api = site.get("/api/nothing")
    assert api.status == 404 and "nothing at /api/nothing" in json.loads(api.body)["error"]
    game = site.get("/api/leaderboard?game=chess")
    assert game.status == 404
    assert json.loads(game.body)["error"].startswith("unknown game 'chess'; the games are: ")
    assert site.get("/games/chess").status == 404
    assert site.get("/replays/t1/bad%20id").status == 404


def test_an_unreachable_replay_is_a_502_page_that_says_why() -> None:
    response = Site(FakeSource(), "api:1").get("/replays/t1/t1-seep-0-0-a")
    assert response.status == 502
    text = response.body.decode()
    assert "replay unavailable: cannot reach the referee at 127.0.0.1:1" in text
    assert "Traceback" not in text


def test_a_replay_that_is_not_one_is_a_502_not_a_crash() -> None:
    broken = Replay("t1", match("a", "b").record, "{}", {})
    with pytest.raises(HttpError) as caught:
        pages.replay_page(broken, ["seep"])
    assert caught.value.status == 502
    assert "is not a Card Arena replay" in caught.value.message


def test_an_unreachable_api_is_a_502_naming_it_and_not_ready() -> None:
    with TestClient(create_app("127.0.0.1:1")) as client:  # its lifespan opens the channel
        response = client.get("/api/leaderboard")
        assert response.status_code == 502
        assert response.json()["error"].startswith("cannot reach the arena API at 127.0.0.1:1 (")
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.text.startswith("not ready: cannot reach the arena API at 127.0.0.1:1 (")
        for live in ("/livez", "/healthz"):  # the process itself is fine
            assert (client.get(live).status_code, client.get(live).text) == (200, "ok\n")


def test_serve_says_where_it_listens_and_stops_cleanly_on_sigterm() -> None:
    web = start_service(
        arena_command("leaderboard", "serve", "--port", "0", "--api", "127.0.0.1:1")
    )
    try:
        assert web.address.startswith("http://127.0.0.1:")
        port = web.address.rsplit(":", 1)[1]
        assert int(port) > 0
        busy = subprocess.run(
            arena_command("leaderboard", "serve", "--port", port),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert busy.returncode == 1
        assert (
            busy.stderr
            == f"arena: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
        )
        web.process.terminate()
        assert web.process.wait(timeout=10) == 0
    finally:
        web.stop()


def test_a_waiting_tournament_says_why_on_the_index_and_a_playing_one_says_so() -> None:
    source = FakeSource()
    assert "running-tournaments" not in Site(source, "api:1").get("/").body.decode()
    waiting = arena_pb2.Tournament(
        id="t1",
        spec=arena_pb2.TournamentSpec(name=HOSTILE),
        state=arena_pb2.TOURNAMENT_STATE_RUNNING,
        matches_total=10,
        matches_done=4,
        waiting=arena_pb2.TournamentWait(reason="referee r:1: UNAVAILABLE: <refused>"),
    )
    waiting.waiting.since.FromSeconds(1_800_000_000)
    playing = arena_pb2.Tournament(
        id="t2", state=arena_pb2.TOURNAMENT_STATE_RUNNING, matches_total=6, matches_done=1
    )
    source.listed = [waiting, playing]
    doc = Document(Site(source, "api:1").get("/").body.decode())
    rows = doc.tables["running-tournaments"]
    assert rows[0].cells == [
        HOSTILE,
        "4/10",
        "waiting for a referee since 2027-01-15 08:00:00 UTC (referee r:1: UNAVAILABLE: <refused>)",
    ]
    assert rows[1].cells == ["t2", "1/6", "playing"]
    assert [r.links for r in rows] == [["/tournaments/t1"], ["/tournaments/t2"]]


def test_tournaments_are_linked_from_the_index_and_the_ended_ones_listed() -> None:
    source = FakeSource()
    sprt = arena_pb2.Tournament(
        id="t3",
        spec=arena_pb2.TournamentSpec(name="sprt run", format=arena_pb2.FORMAT_SPRT),
        state=arena_pb2.TOURNAMENT_STATE_RUNNING,
        matches_done=5,
        matches_issued=8,
    )
    knockout = arena_pb2.Tournament(
        id="t2",
        spec=arena_pb2.TournamentSpec(name=HOSTILE, format=arena_pb2.FORMAT_KNOCKOUT),
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        matches_total=8,
        matches_done=8,
        standings=arena_pb2.Standings(knockout=arena_pb2.KnockoutBracket(champion="house")),
    )
    cancelled = arena_pb2.Tournament(
        id="t1", state=arena_pb2.TOURNAMENT_STATE_CANCELLED, matches_total=6, matches_done=2
    )
    source.listed = [sprt, knockout, cancelled]
    doc = Document(Site(source, "api:1").get("/").body.decode())
    # An SPRT has no total: its progress counts the matches handed out so far.
    assert [r.cells[:2] for r in doc.tables["running-tournaments"]] == [["sprt run", "5/8 issued"]]
    ended = doc.tables["recent-tournaments"]
    assert [r.cells for r in ended] == [
        [HOSTILE, "knockout, won by house", "8/8", "finished"],
        ["t1", "round robin", "2/6", "cancelled"],
    ]
    assert [r.links for r in ended] == [["/tournaments/t2"], ["/tournaments/t1"]]
    assert doc.tables["recent-matches"][0].links[0] == "/tournaments/t1"
    assert "<script>" not in pages.ended_table(source.listed)


def test_unknown_and_implausible_tournaments_are_404_in_html_and_json() -> None:
    source = FakeSource()
    site = Site(source, "api:1")
    page = site.get("/tournaments/t404")
    assert (page.status, page.content_type) == (404, "text/html; charset=utf-8")
    assert "no tournament &#x27;t404&#x27;" in page.body.decode()
    api = site.get("/api/tournaments/t404")
    assert api.status == 404
    assert json.loads(api.body) == {"error": "no tournament 't404'", "status": 404}
    assert source.asked == ["t404", "t404"]
    # Not an id at all: refused before the API is asked.
    for bad in ("/tournaments/bad%20id", "/api/tournaments/%3Cscript%3E", "/tournaments/a%2Fb"):
        response = site.get(bad)
        assert response.status == 404, bad
        assert "ids are letters, digits" in response.body.decode()
    board = site.get("/api/leaderboard?tournament=no%20such")
    assert board.status == 404
    assert source.asked == ["t404", "t404"]
    assert site.get("/api/leaderboard?tournament=t404").status == 404


def test_a_round_robin_page_shows_its_own_leaderboard_and_the_json_is_the_message() -> None:
    source = FakeSource((HOSTILE, "rand"))
    t = arena_pb2.Tournament(
        id="t1",
        spec=arena_pb2.TournamentSpec(
            name=HOSTILE,
            entries=[HOSTILE, "rand"],
            format=arena_pb2.FORMAT_GAUNTLET,
            gauntlet=arena_pb2.GauntletParams(challengers=[HOSTILE]),
        ),
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        games=["seep"],
        matches_total=4,
        matches_done=4,
        fair_play=arena_pb2.FAIR_PLAY_TRUSTED,
        seed=arena_pb2.SeedCommitment(
            commitment="ab" * 32,
            source=arena_pb2.SEED_SOURCE_OPERATOR,
            revealed=True,
            master_seed=42,
        ),
    )
    source.listed = [t]
    site = Site(source, "api:1")
    response = site.get("/tournaments/t1")
    assert response.status == 200
    text = response.body.decode()
    assert "<script>" not in text and "<img" not in text
    assert 'http-equiv="refresh"' not in text  # it has ended: nothing will change
    doc = Document(text)
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["tournament-summary"]}
    assert facts == {
        "id": "t1",
        "state": "finished",
        "format": f"Gauntlet: challengers {HOSTILE}",
        "entries": f"{HOSTILE}, rand",
        "games": "Seep",
        "progress": "4/4 matches, 0 forfeited",
        "fair-play": "trusted (the operator vouches for the entries)",
        "partners": "partners shared (no remote entry plays a partnership game)",
        "per-author": "no limit",
        "seed": "operator's seed 42 revealed",
    }
    assert source.boards_of == ["t1"]
    assert [r.cells[1] for r in doc.tables["tournament-leaderboard"]] == [HOSTILE, "rand"]
    assert "/api/leaderboard?tournament=t1" in text
    api = site.get("/api/tournaments/t1")
    assert api.status == 200 and api.content_type == "application/json"
    assert json.loads(api.body) == to_dict(t)


def test_a_bot_page_charts_each_board_and_tables_its_points() -> None:
    site = Site(FakeSource((HOSTILE, "rand")), "api:1")
    response = site.get("/bots/" + pages.path_part(HOSTILE))
    assert response.status == 404  # not a name a bot can have: never asked for
    source = FakeSource(("house", "rand"))
    site = Site(source, "api:1")
    text = site.get("/bots/house").body.decode()
    doc = Document(text)
    assert doc.tags.count("svg") == 1 and "script" not in doc.tags
    assert 'id="rating-chart-overall"' in text and 'id="rating-chart-seep"' in text
    assert '<desc id="rating-chart-overall-desc">2 ratings of house, All games from ' in text
    # A clean sweep's estimate is the prior's: the bound is told, and not drawn.
    assert (
        '<p class="muted" id="rating-chart-seep">No estimate to chart: at the latest refit it '
        "had won every one of its 24 pairs, and the board showed its 95% bound, ≥ +60.</p>"
    ) in text
    assert [r.cells for r in doc.tables["rating-history-overall"]] == [  # newest first
        ["2023-11-15 23:13:20", "t2", "+36 ± 80", "4", "rated"],
        ["2023-11-14 22:13:20", HOSTILE, "-20 ± 80", "4", "rated"],
    ]
    assert [r.cells for r in doc.tables["rating-history-seep"]] == [
        ["2023-11-15 23:13:20", "t2", "≥ +60", "24", "rated"]
    ]
    assert "<script>" not in text and "<img" not in text  # the event is escaped
    assert "/api/bots/house/history" in text  # the footer names the JSON

    empty_text = site.get("/bots/rand").body.decode()
    empty = Document(empty_text)
    assert empty.tags.count("svg") == 0
    assert '<p class="muted" id="rating-chart-overall">No rating to chart yet.</p>' in empty_text
    assert [r.cells for r in empty.tables["rating-history-overall"]] == [["No ratings yet."]]
    assert (
        "rand has no rating recorded yet: points are recorded when a tournament finishes "
        "and as a ladder plays on; the leaderboards show the ratings of every result so far."
    ) in empty_text
    # A hosted bot's versions are rated each on its own: its page points to them.
    source.registry["rand"] = BotFacts(
        "rand",
        arena_pb2.RegisteredBot(name="rand", hosted=True),
        [arena_pb2.HostedBotVersion(version="2"), arena_pb2.HostedBotVersion(version="1")],
    )
    hosted_text = site.get("/bots/rand").body.decode()
    assert (
        '<p id="no-history">rand has no rating recorded yet. Each version is rated on its '
        "own results, and its chart follows the newest one: "
        '<a href="/bots/rand%402">rand@2</a>, <a href="/bots/rand%401">rand@1</a>.</p>'
    ) in hosted_text
    hosted = Document(hosted_text)
    assert [r.links for r in hosted.tables["bot-versions"]] == [
        ["/bots/rand%402"],
        ["/bots/rand%401"],
    ]

    missing = site.get("/bots/ghost")
    assert missing.status == 404 and "no bot &#x27;ghost&#x27;" in missing.body.decode()
    api = site.get("/api/bots/ghost/history")
    assert api.status == 404 and json.loads(api.body) == {"error": "no bot 'ghost'", "status": 404}


def test_the_history_json_is_the_message_and_names_link_to_bot_pages() -> None:
    source = FakeSource(("house", "rand"))
    site = Site(source, "api:1")
    assert json.loads(site.get("/api/bots/house/history").body) == to_dict(
        asyncio.run(source.rating_history("house"))
    )
    seep = json.loads(site.get("/api/bots/house/history?game=seep").body)
    assert [s["game"] for s in seep["series"]] == ["seep"]
    assert seep["series"][0]["points"][0]["bound"] == "RATING_BOUND_AT_LEAST"
    doc = Document(site.get("/").body.decode())
    assert [r.links for r in doc.tables["leaderboard-overall"]] == [["/bots/house"], ["/bots/rand"]]
    assert pages.bot_url("a b/c") == "/bots/a%20b%2Fc"
    assert pages.bot_url("x@v1", api=True) == "/api/bots/x%40v1/history"


class BrokenSource(FakeSource):
    async def leaderboard(
        self,
        game: str = "",
        tournament_id: str = "",
        los: bool = False,
        scale: arena_pb2.GetLeaderboardRequest | None = None,
    ) -> arena_pb2.Leaderboard:
        raise RuntimeError("a bug <b>here</b>")


def test_a_bug_is_a_500_that_says_little_and_one_line_in_the_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    site = Site(BrokenSource(), "api:1")
    page = site.get("/?q=<script>")
    assert (page.status, page.content_type) == (500, "text/html; charset=utf-8")
    text = page.body.decode()
    assert "internal error; the server log has the details" in text
    assert "a bug" not in text and "Traceback" not in text
    api = site.get("/api/leaderboard")
    assert json.loads(api.body) == {
        "error": "internal error; the server log has the details",
        "status": 500,
    }
    logged = capsys.readouterr().err.splitlines()
    assert logged == [
        "leaderboard: GET / failed: RuntimeError('a bug <b>here</b>')",
        "leaderboard: GET /api/leaderboard failed: RuntimeError('a bug <b>here</b>')",
    ]


def test_head_answers_like_get_without_a_body_and_other_methods_are_405() -> None:
    client = Site(FakeSource(), "api:1").client
    got, head = client.get("/"), client.head("/")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == got.headers["content-length"]
    css = client.head("/static/site.css")
    assert css.status_code == 200 and css.headers["content-type"] == "text/css; charset=utf-8"
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        refused = client.request(method, "/games/seep", content=b"x")
        assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
        assert f"{method} is not allowed" in refused.text  # an HTML page here
