"""``arena leaderboard serve`` end to end: a real arena plays a small tournament, the web
server reads it from the API, the JSON is checked directly and the page in headless
Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from starlette.routing import Route

import arena.web
from arena.ratings.texts import interval_text, point_text, rank_text, rating_text
from arena.replay.render import render
from arena.store import keys
from arena.v1 import arena_pb2, referee_pb2, referee_pb2_grpc
from arena.web.app import create_app
from arena.web.bots import charted
from tests.support.http import get, get_json
from tests.support.real_arena import BOTS, GAMES, Played
from tests.support.screenshots import HEIGHT, WIDTH, chromium, png_size
from tests.web.dom import Document


def as_dict(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def api_board(played: Played, game: str = "") -> arena_pb2.Leaderboard:
    board: arena_pb2.Leaderboard = played.arena.stub.GetLeaderboard(
        arena_pb2.GetLeaderboardRequest(game=game)
    )
    return board


def api_results(played: Played) -> list[arena_pb2.MatchRecord]:
    return list(
        played.arena.stub.ListResults(
            arena_pb2.ListResultsRequest(tournament_id=played.tournament.id)
        ).results
    )


def test_leaderboard_json_is_the_api_leaderboard(played: Played) -> None:
    overall = api_board(played)
    assert {row.bot for row in overall.rows} == set(BOTS)
    assert get_json(f"{played.url}/api/leaderboard") == as_dict(overall)
    for game in GAMES:
        per_game = get_json(f"{played.url}/api/leaderboard?game={game}")
        assert per_game == as_dict(api_board(played, game))
        assert per_game["game"] == game and per_game["matches"] == 6
        assert {r["bot"] for r in per_game["rows"]} == set(BOTS)
    # Another scale, as the API gives it (docs/ratings.md, The scale).
    anchor = next(row.bot for row in overall.rows if row.rank)
    pinned = get_json(
        f"{played.url}/api/leaderboard?anchor={anchor}&anchor_elo=1500&prior_sd=500"
        "&bootstrap=10&bootstrap_seed=3"
    )
    scale = arena_pb2.GetLeaderboardRequest(
        anchor=anchor, anchor_elo=1500, prior_sd=500, bootstrap=10, bootstrap_seed=3
    )
    assert pinned == as_dict(played.arena.stub.GetLeaderboard(scale))
    assert (pinned["anchor"], pinned["anchor_elo"], pinned["prior_sd"]) == (anchor, 1500, 500)
    assert next(r for r in pinned["rows"] if r["bot"] == anchor)["elo"] == 1500


def test_matches_json_lists_the_tournaments_matches_with_replay_links(played: Played) -> None:
    t = played.tournament.id
    listed = get_json(f"{played.url}/api/matches")
    assert listed["limit"] == 50
    matches = listed["matches"]
    assert sorted(m["match_id"] for m in matches) == sorted(r.match_id for r in api_results(played))
    assert len(matches) == played.tournament.matches_total == 12
    by_id = {r.match_id: as_dict(r) for r in api_results(played)}
    for m in matches:
        assert m["tournament_id"] == t and m["tournament_name"] == "web"
        assert m["replay_url"] == f"/replays/{t}/{m['match_id']}"
        assert m["replay_json_url"] == f"/api/replays/{t}/{m['match_id']}"
        assert {k: v for k, v in m.items() if k in by_id[m["match_id"]]} == by_id[m["match_id"]]
    assert len(get_json(f"{played.url}/api/matches?limit=3")["matches"]) == 3
    baloot = get_json(f"{played.url}/api/matches?game=baloot")["matches"]
    assert len(baloot) == 6 and {m["game"] for m in baloot} == {"baloot"}


def test_a_replay_is_served_as_json_and_as_readable_text(played: Played) -> None:
    record = api_results(played)[0]
    with grpc.insecure_channel(record.referee) as channel:
        stored = referee_pb2_grpc.RefereeStub(channel).GetReplay(
            referee_pb2.GetReplayRequest(replay_id=record.replay_id)
        )
    path = f"{played.tournament.id}/{record.match_id}"
    assert get_json(f"{played.url}/api/replays/{path}") == json.loads(stored.json)

    status, headers, body = get(f"{played.url}/replays/{path}")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert Document(body.decode()).pres["replay"] == render(json.loads(stored.json))


def test_missing_replays_say_why(played: Played) -> None:
    t = played.tournament.id
    status, _, body = get(f"{played.url}/replays/{t}/{t}-seep-9-9-a")
    assert status == 404
    assert (
        f"tournament {t} has no result for match &#x27;{t}-seep-9-9-a&#x27; (yet)" in body.decode()
    )
    status, _, body = get(f"{played.url}/api/replays/nosuch/m")
    assert status == 404 and json.loads(body)["error"] == "no tournament 'nosuch'"
    # A result stored before the arena kept records (put back afterwards: shared fixture);
    # one whose replay no earlier test read, since the site keeps published replays.
    match_id = api_results(played)[-1].match_id
    logs = keys.match_logs(t)
    kept = played.arena.redis.hget(logs, match_id)
    assert kept
    played.arena.redis.hdel(logs, match_id)
    try:
        status, _, body = get(f"{played.url}/api/replays/{t}/{match_id}")
    finally:
        played.arena.redis.hset(logs, match_id, kept)
    assert status == 404
    assert json.loads(body)["error"] == (
        f"replay unavailable: the result of {match_id} was stored without its record (before "
        "the arena kept them): `arena replay import` brings in a referee's replay files"
    )


def test_bad_requests_get_clear_errors(played: Played) -> None:
    status, _, body = get(f"{played.url}/api/leaderboard?game=chess")
    assert status == 404
    assert json.loads(body) == {
        "error": "unknown game 'chess'; the games are: baloot, bid-euchre, bridgette, "
        "persian-rummy, seep",
        "status": 404,
    }
    status, headers, body = get(f"{played.url}/games/chess")
    assert status == 404 and headers["Content-Type"].startswith("text/html")
    assert "unknown game &#x27;chess&#x27;; the games are: baloot" in body.decode()

    for query, error in (
        ("prior_sd=-1", "prior_sd is the prior's standard deviation in Elo, above 0"),
        ("prior_sd=wide", "prior_sd is a number, got 'wide'"),
        ("bootstrap=-3", "bootstrap is a number of resamples from 0 (none) to 1000; got -3"),
        ("bootstrap_seed=-1", "out of range"),
        ("anchor=nobody", "anchor 'nobody' has no rating on the overall board"),
    ):
        status, _, body = get(f"{played.url}/api/leaderboard?{query}")
        assert status == 400 and error in json.loads(body)["error"], body

    status, _, body = get(f"{played.url}/api/matches?limit=lots")
    assert status == 400
    assert json.loads(body)["error"] == "limit must be a whole number from 1 to 500, got 'lots'"

    for method, data in (("POST", b'{"bot": "x"}'), ("PUT", b"x"), ("DELETE", None)):
        status, headers, body = get(f"{played.url}/api/leaderboard", method, data)
        assert status == 405, method
        assert headers["Allow"] == "GET, HEAD"
        assert f"{method} is not allowed" in json.loads(body)["error"]

    status, headers, body = get(f"{played.url}/", "HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1000
    status, _, body = get(f"{played.url}/healthz")
    assert (status, body) == (200, b"ok\n")


def screenshot(tmp_path: Path, name: str, url: str) -> Path:
    out = tmp_path / f"{name}.png"
    done = chromium(tmp_path / f"profile-{name}", f"--screenshot={out}", url)
    assert done.returncode == 0 and out.exists(), done.stderr[-2000:]
    assert png_size(out) == (WIDTH, HEIGHT)
    return out


def test_the_page_renders_in_chromium_with_the_apis_ranking(played: Played, tmp_path: Path) -> None:
    page = screenshot(tmp_path, "page", f"{played.url}/")
    blank = screenshot(tmp_path, "blank", "about:blank")
    # A page of tables and text compresses far worse than a blank one.
    assert page.stat().st_size > 4 * blank.stat().st_size, (page.stat(), blank.stat())

    dumped = chromium(tmp_path / "profile-dom", "--dump-dom", f"{played.url}/")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    doc = Document(dumped.stdout)
    overall = api_board(played)
    rows = doc.tables["leaderboard-overall"]
    assert [r.cells[:3] for r in rows] == [
        [
            rank_text(row),
            row.bot,
            f"{rating_text(row, overall)} {interval_text(row)}".strip(),
        ]
        for row in overall.rows
    ]
    assert [r.cells[-1] for r in rows] == [row.note for row in overall.rows]
    assert [float(r.cell_attrs[2]["data-elo"]) for r in rows] == [row.elo for row in overall.rows]
    for game in GAMES:
        by_game = api_board(played, game)
        assert [r.attrs["data-bot"] for r in doc.tables[f"leaderboard-{game}"]] == [
            row.bot for row in by_game.rows
        ]
    recent = doc.tables["recent-matches"]
    assert len(recent) == 12
    t = played.tournament.id
    assert {r.links[-2] for r in recent} == {
        f"/replays/{t}/{m.match_id}" for m in api_results(played)
    }


def test_the_tournament_page_and_json_are_the_apis(played: Played) -> None:
    t = played.tournament.id
    tournament = played.arena.stub.GetTournament(arena_pb2.GetTournamentRequest(id=t))
    assert get_json(f"{played.url}/api/tournaments/{t}") == as_dict(tournament)
    board = played.arena.stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(tournament_id=t))
    assert get_json(f"{played.url}/api/leaderboard?tournament={t}") == as_dict(board)

    status, _, body = get(f"{played.url}/tournaments/{t}")
    assert status == 200
    doc = Document(body.decode())
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["tournament-summary"]}
    assert facts["state"] == "finished" and facts["format"] == "Round robin"
    assert facts["progress"] == "12/12 matches, 0 forfeited"
    assert facts["seed"] == "operator's seed 3 revealed"
    assert [r.attrs["data-bot"] for r in doc.tables["tournament-leaderboard"]] == [
        row.bot for row in board.rows
    ]
    index = Document(get(f"{played.url}/")[2].decode())
    assert index.tables["recent-tournaments"][0].links == [f"/tournaments/{t}"]

    status, _, body = get(f"{played.url}/api/tournaments/nosuch")
    assert status == 404 and json.loads(body) == {"error": "no tournament 'nosuch'", "status": 404}
    assert get(f"{played.url}/tournaments/nosuch")[0] == 404


def test_a_bot_page_charts_the_history_the_api_keeps(played: Played, tmp_path: Path) -> None:
    history = played.arena.stub.GetRatingHistory(arena_pb2.GetRatingHistoryRequest(bot="house"))
    assert [s.game for s in history.series] == ["", *sorted(GAMES)]
    finished = f"tournament {played.tournament.id} finished"
    assert all([p.event for p in s.points] == [finished] for s in history.series)
    assert get_json(f"{played.url}/api/bots/house/history") == as_dict(history)
    baloot = get_json(f"{played.url}/api/bots/house/history?game=baloot")
    assert [s["game"] for s in baloot["series"]] == ["baloot"]

    dumped = chromium(tmp_path / "profile-bot", "--dump-dom", f"{played.url}/bots/house")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    doc = Document(dumped.stdout)
    # All games together, and each game: a chart of the estimates the boards showed
    # (provisional ones too: this small tournament leaves every bot provisional), or a
    # line saying why there is none (a clean sweep shows its bound instead).
    drawn = [s for s in history.series if any(charted(p) for p in s.points)]
    assert doc.tags.count("svg") == len(drawn)
    untold = dumped.stdout.count("No rating to chart yet: at the latest refit it was")
    untold += dumped.stdout.count("No estimate to chart: at the latest refit it had")
    assert untold == len(history.series) - len(drawn)
    for series in history.series:
        (row,) = doc.tables[f"rating-history-{series.game or 'overall'}"]
        point = series.points[0]
        assert row.cells[1:4] == [
            finished,
            point_text(point),  # as the board's cell read: "+12? ± 400" while provisional
            str(point.pairs),
        ]
    page = screenshot(tmp_path, "bot", f"{played.url}/bots/house")
    blank = screenshot(tmp_path, "blank", "about:blank")
    assert page.stat().st_size > 4 * blank.stat().st_size
    index = Document(get(f"{played.url}/")[2].decode())
    assert {r.links[0] for r in index.tables["leaderboard-overall"]} == {f"/bots/{b}" for b in BOTS}
    status, _, body = get(f"{played.url}/api/bots/ghost/history")
    assert status == 404 and json.loads(body)["error"].startswith("no bot 'ghost': ")


def answer_schema(document: dict[str, Any], path: str, status: int = 200) -> Draft202012Validator:
    """A validator for ``path``'s answer with ``status``, as the OpenAPI document says."""
    registry = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(document))
    escaped = path.replace("~", "~0").replace("/", "~1")
    pointer = f"/paths/{escaped}/get/responses/{status}/content/application~1json/schema"
    return Draft202012Validator({"$ref": f"urn:openapi#{pointer}"}, registry=registry)


def test_every_json_route_answers_as_its_openapi_schema_says(played: Played) -> None:
    document = get_json(f"{played.url}/api/openapi.json")
    assert document["openapi"].startswith("3.1")
    # OpenAPI writes "{bot}" where Starlette writes "{bot:path}".
    routes = {
        re.sub(r"\{(\w+):\w+\}", r"{\1}", r.path)
        for r in create_app("api:1").routes
        if isinstance(r, Route)
    }
    json_routes = {p for p in routes if p.startswith("/api/")}
    assert json_routes == set(document["paths"])  # none undocumented, none stale

    def documented(route: str, *urls: str, status: int = 200) -> None:
        validator = answer_schema(document, route, status)
        for url in urls:
            code, _, body = get(f"{played.url}{url}")
            assert code == status, (url, body)
            errors = [
                f"{list(e.absolute_path)}: {e.message}"
                for e in validator.iter_errors(json.loads(body))
            ]
            assert not errors, (url, errors[:5])

    t = played.tournament.id
    record = api_results(played)[0]
    documented(
        "/api/leaderboard",
        "/api/leaderboard",
        "/api/leaderboard?game=baloot",
        f"/api/leaderboard?tournament={t}",
    )
    documented("/api/tournaments/{tournament}", f"/api/tournaments/{t}")
    documented("/api/matches", "/api/matches", "/api/matches?limit=2&game=seep")
    documented("/api/replays/{tournament}/{match}", f"/api/replays/{t}/{record.match_id}")
    frames = f"/api/replays/{t}/{record.match_id}/frames"
    documented("/api/replays/{tournament}/{match}/frames", frames)
    sent = "/api/replays/{tournament}/{match}/frames/{index}/sent"
    documented(sent, f"{frames}/0/sent", f"{frames}/1/sent")
    documented(sent, f"{frames}/x/sent", status=400)
    documented(sent, f"{frames}/100000/sent", status=404)
    documented(
        "/api/bots/{bot}/history", "/api/bots/house/history", "/api/bots/rand-a/history?game=baloot"
    )
    documented("/api/openapi.json", "/api/openapi.json")
    documented("/api/leaderboard", "/api/leaderboard?game=chess", status=404)
    documented("/api/tournaments/{tournament}", "/api/tournaments/nosuch", status=404)
    documented("/api/matches", "/api/matches?limit=501", status=400)
    documented("/api/bots/{bot}/history", "/api/bots/ghost/history", status=404)
    # The schemas are strict: a field the answers lack, or an extra one, would fail.
    board = document["components"]["schemas"]["arena.v1.Leaderboard"]
    assert board["additionalProperties"] is False and "rows" in board["required"]


def test_pages_load_only_the_sites_own_files(played: Played) -> None:
    t = played.tournament.id
    record = api_results(played)[0]
    pages = [
        "/",
        "/games/baloot",
        f"/tournaments/{t}",
        "/bots/house",
        f"/replays/{t}/{record.match_id}",
        "/nosuch",
    ]
    linked: set[str] = set()
    for page in pages:
        text = get(f"{played.url}{page}")[2].decode()
        for attr in ("src", "href"):
            for value in re.findall(rf'\b{attr}="([^"]*)"', text):
                assert not re.match(r"^([a-z]+:)?//", value, re.I), (page, value)
                linked.add(value)
    assert "/static/site.css" in linked
    status, headers, css = get(f"{played.url}/static/site.css")
    assert status == 200 and headers["Content-Type"] == "text/css; charset=utf-8"
    assert css == (Path(arena.web.__file__).parent / "static" / "site.css").read_bytes()
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, headers, body = get(f"{played.url}/static/site.css", "HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) == len(css)
    for missing in ("/static/nosuch.js", "/static/../pyproject.toml", "/static/%2e%2e/app.py"):
        assert get(f"{played.url}{missing}")[0] == 404, missing
