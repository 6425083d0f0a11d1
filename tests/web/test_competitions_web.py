"""The competitions' pages and JSON (``/competitions``, ``/api/competitions``) served by
``arena leaderboard serve`` in front of a real API, over HTTP.

The competitions are real records on the API's Redis, brought to each phase by the
workers' own steps with the clock in the test's hands (``workers.competitions.advance``
and ``ladders``, ``workers.competition_final.finals``, as
``tests/competition/test_final_steps.py`` drives them) and results stored as a worker
stores them, so that no match is played: one scheduled (created through the API, with a
hostile description), one open with a board, one open with leagues (the operator's
hosted bosses registered, a version moved up as the ladder's state records it), and one
taken through its final (its number of deals chosen by the workers) to a frozen board.
The Markdown's safety and the pages' odd cases are also checked in process, over a fake
API."""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from hashlib import sha256
from html.parser import HTMLParser
from typing import Any

import pytest
import redis
from google.protobuf import json_format
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from arena.competition.spec import CompetitionSpec, check
from arena.local_redis import LocalRedis
from arena.processes import Service, arena_command, start_service
from arena.ratings.texts import elo_text
from arena.store import BotRegistry, TournamentStore, keys
from arena.store.bots import Published, RegisteredBot
from arena.store.competitions import CompetitionStore
from arena.store.packages import HostedVersion, PackageStore
from arena.store.results import MatchResult
from arena.tournament.fair_play import OPEN, SEALED
from arena.tournament.formats import ladder_leagues
from arena.v1 import arena_pb2
from arena.web import markdown
from arena.web.competitions import CHOICES, phase_text
from arena.web.errors import HttpError
from arena.web.pages import bot_url, utc_text
from tests.competition.helpers import Api, competition, spec, start_api
from tests.support.fake_source import FakeSource, Site
from tests.support.http import get, get_json
from tests.web.dom import Document
from workers.competition_final import finals
from workers.competitions import advance, ladders

GAME = "seep"
HOSTILE = """# Spring <em>2027</em>

Play **well**. Rules: [the arena](https://example.org/rules), [mail](mailto:org@example.org),
[this site](/competitions).

<script>alert("script")</script>

<img src=x onerror=alert(1)>

[click](javascript:alert(1)) [again](JAVASCRIPT:alert(2)) [entity](&#106;avascript:alert(3))
<javascript:alert(4)> [data](data:text/html;base64,PHNjcmlwdD4=)

<a href="javascript:alert(5)" onclick="alert(6)">raw</a>
"""


@dataclass
class Arena:
    api: Api
    web: Service

    @property
    def url(self) -> str:
        return self.web.address


def as_dict(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def _stored(
    client: redis.Redis,
    name: str,
    authors: dict[str, str],
    rules: arena_pb2.CompetitionRules | None = None,
    **timeline: float,
) -> None:
    """A competition on the store whose ``authors`` joined, each with one hosted version
    (``{author}-bot@v1``) that plays ``GAME``."""
    now = time.time()
    made = check(
        spec(
            name, **timeline,
            description=f"The *{name}* season.",
            games=[arena_pb2.CompetitionGame(game=GAME, options={"bazzis": "2"})],
            rules=rules or arena_pb2.CompetitionRules(final_deals=2, daily_submissions=3),
        ),
        now,
    )  # fmt: skip
    assert CompetitionStore(client).create(made, now)
    for author, label in authors.items():
        client.hset(keys.competitors(name), author, "{}")
        _hosted(client, f"{author}-bot", label, author)


def _hosted(client: redis.Redis, name: str, label: str, author: str) -> None:
    """A hosted bot with one version that plays ``GAME``: an author's, or with no author
    the operator's (a league's boss)."""
    now = time.time()
    bot = RegisteredBot(name, "", (GAME,), "house", "1", now, hosted=True, author=author)
    version = HostedVersion(
        bot.name, label, "python3.11", "python3 bot.py", sha256(name.encode()).hexdigest(),
        1, author, now, (GAME,), "house", "1",
    )  # fmt: skip
    assert BotRegistry(client).publish(bot, version, b"x", None) is Published.DONE


def _result(
    tournament_id: str, match_id: str, entries: tuple[str, str], won: bool, fair_play: str
) -> MatchResult:
    return MatchResult(
        match_id=match_id, tournament_id=tournament_id, game=GAME, pair_key=f"{match_id}-pair",
        deal=0, seed=1, entries=entries, scores=(10, 0) if won else (0, 10),
        winner_team=0 if won else 1, end="completed", forfeit_team=None, team_faults=(0, 0),
        team_fault_kinds=None, decisions=10, duration_ms=1.0, replay_id="", referee="",
        finished_at=None, deal_key="k", paired=False, deal_commitment="", deal_salt="",
        referee_match_id="", fair_play=fair_play, operator_seed=False,
    )  # fmt: skip


def _play(
    client: redis.Redis, tournament_id: str, games: list[tuple[str, str, bool]], fair_play: str
) -> None:
    """Results of ``a`` against ``b`` (an author, for ``{author}-bot@v1``, or a version)."""
    tournaments = TournamentStore(client)

    def label(who: str) -> str:
        return who if "@" in who else f"{who}-bot@v1"

    for i, (a, b, won) in enumerate(games):
        result = _result(tournament_id, f"m{i}", (label(a), label(b)), won, fair_play)
        assert tournaments.record_result(tournament_id, result, b"")


class Steps:
    """The workers' steps on the API's Redis, at a clock the test sets."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.store = CompetitionStore(client)
        self.tournaments = TournamentStore(client)

    def at(self, clock: float) -> None:
        advance(self.store, clock=lambda: clock)
        ladders(self.store, self.tournaments)
        finals(
            self.store,
            self.tournaments,
            BotRegistry(self.client),
            PackageStore(self.client),
            clock=lambda: clock,
        )

    def timeline(self, name: str) -> CompetitionSpec:
        record = self.store.get(name)
        assert record is not None
        return record.spec


LEAGUES = [
    arena_pb2.CompetitionLeague(name="wood", boss="wood-boss@v1"),
    arena_pb2.CompetitionLeague(name="bronze", boss="bronze-boss@v1"),
    arena_pb2.CompetitionLeague(name="legend"),
]
WOOD_BOSS, BRONZE_BOSS = "wood-boss@v1", "bronze-boss@v1"


def _leagued(client: redis.Redis, steps: Steps) -> None:
    """``tiers``, open: ida beats wood's boss in six straight pairs and moves up to
    bronze, where bronze's boss beats him once; jon, kim and wood's boss play in wood.
    The ladder's state records ida's league as the ladder's ``promote`` leaves it (no
    scheduler runs here: ``tests/competition/test_leagues.py`` plays the ladder)."""
    ladder = _ladder_of(steps, "tiers")
    _play(
        client, ladder,
        [*[("ida", WOOD_BOSS, True)] * 6, ("ida", BRONZE_BOSS, False), ("jon", "kim", True),
         ("jon", "kim", True), ("kim", WOOD_BOSS, True), ("jon", WOOD_BOSS, False)], SEALED,
    )  # fmt: skip
    rules = steps.timeline("tiers").rules.leagues
    assert rules is not None
    counts = {GAME: {"ida-bot@v1": {WOOD_BOSS: [6, 0, 0], BRONZE_BOSS: [0, 0, 1]}}}
    state = ladder_leagues.promote(rules, {"counts": counts})
    assert ladder_leagues.reached(state) == {"ida-bot@v1": 1}
    steps.tournaments.issue(ladder, {"cursor": 11, "format": state}, [])  # 11 results


def _ladder_of(steps: Steps, name: str) -> str:
    """The competition's open ladder."""
    record = steps.store.get(name)
    assert record is not None and record.ladder
    return record.ladder


@pytest.fixture(scope="module")
def arena(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    api = start_api(local_redis, tmp_path_factory.mktemp("competitions-web"))
    try:
        web = start_service(
            arena_command("leaderboard", "serve", "--port", "0", "--api", api.service.address)
        )
    except BaseException:
        api.stop()
        raise
    try:
        yield Arena(api, web)
    finally:
        web.stop()
        api.stop()


@pytest.fixture(scope="module")
def seasons(arena: Arena) -> Steps:
    """``later`` (scheduled), ``live`` (open, three authors rated on its ladder) and
    ``done`` (its final under way: the test that reads it takes it on to its board)."""
    api = arena.api
    api.create(
        spec(
            "later",
            description=HOSTILE,
            games=[
                arena_pb2.CompetitionGame(game="seep"),
                arena_pb2.CompetitionGame(game="bid-euchre", options={"joker": "true"}),
            ],
            rules=arena_pb2.CompetitionRules(
                fair_play=arena_pb2.FAIR_PLAY_SEALED, active_versions=2, max_faults=4
            ),
        )
    )
    client = api.redis
    _stored(client, "live", {"ana": "v1", "ben": "v1", "cat": "v1"}, opens_in=10, open_for=3600)
    for boss in (WOOD_BOSS, BRONZE_BOSS):
        _hosted(client, boss.split("@")[0], "v1", "")
    sealed = arena_pb2.FAIR_PLAY_SEALED
    _stored(
        client, "tiers", {"ida": "v1", "jon": "v1", "kim": "v1"},
        rules=arena_pb2.CompetitionRules(fair_play=sealed, leagues=LEAGUES, promotion_pairs=6),
        opens_in=10, open_for=3600,
    )  # fmt: skip
    _stored(
        client, "done", {"dan": "v1", "eve": "v1", "fay": "v1", "gus": "v1"},
        opens_in=10, open_for=10, final_for=10,
    )  # fmt: skip
    steps = Steps(client)
    steps.at(steps.timeline("tiers").timeline.opens_at + 1)  # all open: ladders start
    live = competition(api, "live").ladder_tournament_id
    assert live
    _play(
        client, live, [("ana", "ben", True), ("ana", "cat", True), ("ben", "cat", True),
                       ("ana", "ben", True), ("cat", "ben", False)], OPEN,
    )  # fmt: skip
    _leagued(client, steps)
    steps.at(steps.timeline("done").timeline.submissions_close_at + 1)  # done's final starts
    found = competition(api, "done")
    assert found.phase == arena_pb2.COMPETITION_PHASE_FINAL and found.final_tournament_id
    return steps


def page(arena: Arena, path: str) -> tuple[int, str]:
    status, headers, body = get(f"{arena.url}{path}")
    assert headers["Content-Type"].startswith("text/html"), headers
    return status, body.decode()


class Live(HTMLParser):
    """Every start tag with its attributes, to find anything a browser would run."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def fields(doc: Document, table: str) -> dict[str, str]:
    """A facts table's values by field."""
    return {row.attrs["data-field"]: row.cells[0] for row in doc.tables[table]}


def test_the_list_links_every_competition_from_the_sites_navigation(
    arena: Arena, seasons: Steps
) -> None:
    status, text = page(arena, "/")
    assert status == 200 and '<a href="/competitions">Competitions</a>' in text
    status, text = page(arena, "/competitions")
    assert status == 200
    listed = arena.api.stub.ListCompetitions(arena_pb2.ListCompetitionsRequest()).competitions
    rows = Document(text).tables["competitions"]
    assert [r.attrs["data-competition"] for r in rows] == [c.spec.name for c in listed]
    assert {r.attrs["data-competition"] for r in rows} >= {"later", "live", "done"}
    for row, c in zip(rows, listed, strict=True):
        timeline = c.spec.timeline
        assert row.links == [f"/competitions/{c.spec.name}"]
        assert row.cells[1:] == [
            phase_text(c.phase),
            utc_text(timeline.opens_at),
            utc_text(timeline.submissions_close_at),
            utc_text(timeline.final_ends_at),
            str(len(c.competitors)),
        ]
    phases = {r.attrs["data-competition"]: r.cells[1] for r in rows}
    assert (phases["later"], phases["live"]) == ("scheduled", "open")
    assert phases["done"] in ("final", "finished")  # as the test of its final left it
    assert re.search(r"UTC", rows[0].cells[2])


def test_a_scheduled_competition_shows_its_rules_timeline_and_no_board_yet(
    arena: Arena, seasons: Steps
) -> None:
    status, text = page(arena, "/competitions/later")
    assert status == 200
    doc = Document(text)
    found = competition(arena.api, "later")
    facts = fields(doc, "competition-facts")
    assert facts["phase"] == "scheduled"
    assert facts["games"] == (
        "Seep; Bid Euchre (joker = true). Its matches play each game's default options for now"
    )
    assert facts["opens"] == utc_text(found.spec.timeline.opens_at)
    assert facts["final-ends"] == utc_text(found.spec.timeline.final_ends_at)
    assert facts["competitors"] == "0"
    rules = fields(doc, "competition-rules")
    assert rules["fair-play"] == "sealed" and rules["partners"] == "isolated"
    assert rules["active-versions"] == "2 per author" and rules["max-faults"] == "4"
    assert rules["move-deadline"] == "1 s" and rules["time-bank"] == "none"
    assert "The board starts with the open ladder" in text
    assert "competition-board" not in doc.tables and "final-board" not in doc.tables
    assert doc.tables["phase-history"][0].cells == ["Not opened yet."]
    # Markdown: the heading under the page's own, the safe links live.
    assert "<h3>Spring &lt;em&gt;2027&lt;/em&gt;</h3>" in text
    assert "<strong>well</strong>" in text
    for href in ("https://example.org/rules", "mailto:org@example.org", "/competitions"):
        assert f'<a href="{href}" rel="nofollow ugc noopener">' in text


def test_a_hostile_description_never_comes_out_live(arena: Arena, seasons: Steps) -> None:
    text = page(arena, "/competitions/later")[1]
    description = text[text.index('id="description"') : text.index('id="rules-section"')]
    tags = Live(text).tags
    assert not [t for t, _ in tags if t in ("script", "img", "iframe", "object", "embed")]
    handlers = [(t, a) for t, a in tags if any(k.lower().startswith("on") for k in a)]
    assert handlers == []
    hrefs = [a.get("href", "") for _, a in tags]
    assert not [h for h in hrefs if re.match(r"\s*(javascript|data|vbscript):", h, re.I)]
    # What the reader sees instead: the text, escaped.
    assert "&lt;script&gt;alert(&quot;script&quot;)&lt;/script&gt;" in description
    assert "&lt;img src=x onerror=alert(1)&gt;" in description
    assert "[click](javascript:alert(1))" in description
    assert "&lt;javascript:alert(4)&gt;" in description
    # The description is the API's, as stored: only the page renders it.
    stored = get_json(f"{arena.url}/api/competitions/later")["spec"]["description"]
    assert stored == HOSTILE


def test_an_open_competition_shows_its_board_by_author(arena: Arena, seasons: Steps) -> None:
    status, text = page(arena, "/competitions/live")
    assert status == 200
    doc = Document(text)
    board = arena.api.stub.GetCompetitionLeaderboard(
        arena_pb2.GetCompetitionLeaderboardRequest(name="live")
    )
    assert [r.author for r in board.rows] == ["ana", "ben", "cat"]
    rows = doc.tables["competition-board"]
    assert [(r.attrs["data-author"], r.attrs["data-version"]) for r in rows] == [
        (r.author, r.version) for r in board.rows
    ]
    for row, want in zip(rows, board.rows, strict=True):
        r = want.rating
        assert row.cells[0] == (str(want.rank) if want.rank else "")
        assert row.cells[4:7] == [str(r.pairs), f"{r.wins}-{r.draws}-{r.losses}", str(r.matches)]
        assert bot_url(want.version) in row.links
    assert rows[0].cells[4:6] == ["3", "3-0-0"]
    # No leagues: no League column, no league in the rules.
    assert ">League</th>" not in text and all(len(r.cells) == 8 for r in rows)
    assert not [r for r in rows if "data-league" in r.attrs or "data-boss" in r.attrs]
    assert not {"leagues", "promotion"} & set(fields(doc, "competition-rules"))
    found = competition(arena.api, "live")
    assert fields(doc, "competition-facts")["competitors"] == "3: ana, ben, cat"
    assert [r.attrs["data-phase"] for r in doc.tables["phase-history"]] == ["open"]
    assert doc.tables["phase-history"][0].cells[1] == utc_text(found.transitions[0].due_at)
    assert f"/tournaments/{found.ladder_tournament_id}" in text
    assert '<meta http-equiv="refresh"' in text  # it changes as the ladder plays
    assert "final-versions" not in doc.tables
    # The one game's board is the same rows.
    seep = Document(page(arena, "/competitions/live?game=seep")[1]).tables["competition-board"]
    assert [r.attrs["data-author"] for r in seep] == ["ana", "ben", "cat"]


def test_leagues_show_in_the_rules_and_group_the_board_with_each_boss_marked(
    arena: Arena, seasons: Steps
) -> None:
    status, text = page(arena, "/competitions/tiers")
    assert status == 200
    doc = Document(text)
    rules = fields(doc, "competition-rules")
    assert (
        rules["leagues"] == "wood (boss wood-boss@v1), bronze (boss bronze-boss@v1), legend (top)"
    )
    assert rules["promotion"] == (
        "a version moves up at LOS 0.95 over its league's boss, judged from 6 pairs against it on"
    )
    board = arena.api.stub.GetCompetitionLeaderboard(
        arena_pb2.GetCompetitionLeaderboardRequest(name="tiers")
    )
    # As the API groups them: bronze (ida, who beat wood's boss, and bronze's boss), then
    # wood; legend has nobody.
    assert [(r.league, r.boss) for r in board.rows][:2] in (
        [("bronze", False), ("bronze", True)],
        [("bronze", True), ("bronze", False)],
    )
    assert sorted((r.league, r.version) for r in board.rows[2:]) == [
        ("wood", "jon-bot@v1"), ("wood", "kim-bot@v1"), ("wood", WOOD_BOSS),
    ]  # fmt: skip
    assert ">League</th>" in text
    rows = doc.tables["competition-board"]
    assert [(r.attrs["data-version"], r.attrs["data-league"], r.cells[1]) for r in rows] == [
        (r.version, r.league, r.league) for r in board.rows
    ]
    starts = [r.attrs["data-league"] for r in rows if "league-start" in r.attrs.get("class", "")]
    assert starts == ["bronze", "wood"]
    for row, want in zip(rows, board.rows, strict=True):
        assert row.links == [bot_url(want.version)]  # the version's page, nobody's else
        if want.boss:  # marked as its league's boss: no author, no rank
            assert "data-author" not in row.attrs and row.attrs["data-boss"] == want.league
            assert row.cells[:3] == ["", want.league, f"boss of {want.league}"]
            assert "boss" in row.attrs["class"].split()
        else:
            assert row.attrs["data-author"] == want.author and "data-boss" not in row.attrs
            assert row.cells[:3] == [str(want.rank) if want.rank else "", want.league, want.author]
    ida = next(r for r in rows if r.attrs.get("data-author") == "ida")
    assert ida.cells[0] == "1"  # the top league with anyone in it ranks first
    assert {r.cells[2] for r in rows} == {"ida", "jon", "kim", "boss of wood", "boss of bronze"}
    assert "grouped by league, the top first" in text


def test_the_final_shows_its_versions_commitment_and_then_its_frozen_board(
    arena: Arena, seasons: Steps
) -> None:
    found = competition(arena.api, "done")
    text = page(arena, "/competitions/done")[1]
    doc = Document(text)
    versions = doc.tables["final-versions"]
    assert [(r.attrs["data-author"], r.attrs["data-version"], r.cells[2]) for r in versions] == [
        (v.author, v.version, CHOICES[v.chosen]) for v in found.final_versions
    ]
    assert len(versions) == 4
    facts = doc.tables["final-facts"]
    assert facts[0].links == [f"/tournaments/{found.final_tournament_id}"]
    assert facts[1].cells == [found.final_seed_commitment] and len(facts[1].cells[0]) == 64
    # The deals the workers chose, and why: done's ladder rated nobody, so the budget.
    assert found.final_deals == 2 and found.final_deals_reason.startswith("the budget, 2 deals")
    assert [r.attrs["data-field"] for r in facts[2:]] == ["final-deals", "final-deals-reason"]
    assert facts[2].cells == ["2 per pairing and game, each played twice (seats swapped)"]
    assert facts[3].cells == [found.final_deals_reason]
    assert "reach LOS 0.95, within the rules" in text
    rules = fields(doc, "competition-rules")
    assert rules["final-deals"] == "at most 2 per pairing and game"
    assert rules["final-los"].startswith("0.95: the final plays the deals adjacent ranks")
    assert "final-board" not in doc.tables and "competition-board" not in doc.tables
    assert "It is being played: its board is frozen when it ends" in text

    # The final: dan wins all, eve and fay trade wins, gus never plays; then time is up.
    _play(
        arena.api.redis, found.final_tournament_id,
        [("dan", "eve", True), ("dan", "fay", True), ("eve", "fay", True),
         ("fay", "eve", True), ("dan", "eve", True), ("dan", "fay", True)], SEALED,
    )  # fmt: skip
    ends = seasons.timeline("done").timeline.final_ends_at
    seasons.at(ends + 1)  # cut short
    seasons.tournaments.trim_cancelled()
    seasons.at(ends + 2)  # frozen
    found = competition(arena.api, "done")
    assert found.phase == arena_pb2.COMPETITION_PHASE_FINISHED and found.HasField("final_board")
    status, text = page(arena, "/competitions/done")
    assert status == 200
    doc = Document(text)
    board = found.final_board
    rows = doc.tables["final-board"]
    assert [(r.attrs["data-author"], r.attrs["data-version"]) for r in rows] == [
        (r.author, r.version) for r in board.rows
    ]
    by_author = {r.attrs["data-author"]: r for r in rows}
    assert board.rows[0].author == "dan" and board.rows[-1].author == "gus"
    for want in board.rows:
        row = by_author[want.author]
        assert row.cells[0] == (str(want.rank) if want.rank else "")
        assert row.cells[3] == CHOICES[want.chosen]
        assert row.cells[7] == f"{want.wins}-{want.draws}-{want.losses}"
        assert row.cells[8] == f"{want.matches_won}/{want.matches}"
        assert row.cells[9] == want.status
        if want.rank:
            assert row.cells[4] == f"{elo_text(want.elo)} ± {want.elo_ci95:.0f}"
        else:
            assert row.cells[4] == row.cells[5] == ""
    ranked = [r for r in board.rows if r.rank]
    for want in ranked[:-1]:
        assert by_author[want.author].cells[5] == f"{100 * want.los_next:.1f}%"
    # Ties read as ties on both rows; these results separate nobody at 95%.
    tied = [(a.rank, b.rank) for a, b in itertools.pairwise(ranked) if a.tied_with_next]
    assert tied
    for above, below in tied:
        assert str(below) in re.findall(r"\d+", rows[above - 1].cells[6])
        assert str(above) in re.findall(r"\d+", rows[below - 1].cells[6])
        assert rows[above - 1].attrs.get("class") == "tied"
    assert by_author["gus"].cells[6] == ""
    assert board.unplayed > 0 and f"{board.unplayed} matches of the final" in text
    assert f"from {board.matches} results" in text and board.results_digest in text
    assert [r.attrs["data-phase"] for r in doc.tables["phase-history"]] == [
        "open", "closed", "final", "finished",
    ]  # fmt: skip
    assert '<meta http-equiv="refresh"' not in text  # finished: it never changes again
    assert doc.tables["final-versions"] and doc.tables["final-facts"]
    assert get_json(f"{arena.url}/api/competitions/done") == as_dict(found)


def test_json_is_the_apis_and_as_the_openapi_document_says(arena: Arena, seasons: Steps) -> None:
    stub = arena.api.stub
    listed = get_json(f"{arena.url}/api/competitions")
    assert listed == as_dict(stub.ListCompetitions(arena_pb2.ListCompetitionsRequest()))
    for name in ("later", "live", "tiers"):
        assert get_json(f"{arena.url}/api/competitions/{name}") == as_dict(
            competition(arena.api, name)
        )
    for game in ("", GAME):
        got = get_json(f"{arena.url}/api/competitions/live/board" + (f"?game={game}" * bool(game)))
        want = stub.GetCompetitionLeaderboard(
            arena_pb2.GetCompetitionLeaderboardRequest(name="live", game=game)
        )
        assert got == as_dict(want) and not got["versions"]  # never anyone's own view
    tiers = stub.GetCompetitionLeaderboard(arena_pb2.GetCompetitionLeaderboardRequest(name="tiers"))
    assert get_json(f"{arena.url}/api/competitions/tiers/board") == as_dict(tiers)
    document = get_json(f"{arena.url}/api/openapi.json")
    registry = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(document))

    def valid(route: str, url: str, status: int = 200) -> None:
        code, _, body = get(f"{arena.url}{url}")
        assert code == status, body
        pointer = route.replace("~", "~0").replace("/", "~1")
        ref = (
            f"urn:openapi#/paths/{pointer}/get/responses/{status}/content/application~1json/schema"
        )
        validator = Draft202012Validator({"$ref": ref}, registry=registry)
        errors = [e.message for e in validator.iter_errors(json.loads(body))]
        assert not errors, (url, errors[:3])

    valid("/api/competitions", "/api/competitions")
    valid("/api/competitions/{name}", "/api/competitions/later")
    valid("/api/competitions/{name}", "/api/competitions/done")
    valid("/api/competitions/{name}/board", "/api/competitions/live/board")
    valid("/api/competitions/{name}", "/api/competitions/tiers")
    valid("/api/competitions/{name}/board", "/api/competitions/tiers/board")
    valid("/api/competitions/{name}", "/api/competitions/nosuch", 404)
    valid("/api/competitions/{name}/board", "/api/competitions/later/board", 404)
    valid("/api/competitions/{name}/board", "/api/competitions/live/board?game=chess", 404)


def test_unknown_competitions_are_the_sites_404(arena: Arena, seasons: Steps) -> None:
    for path in ("/competitions/nosuch", "/competitions/a%2Fb", "/competitions/" + "x" * 41):
        status, text = page(arena, path)
        assert status == 404, path
        assert '<p id="message">no competition' in text and "<nav>" in text
    status, _, body = get(f"{arena.url}/api/competitions/nosuch")
    assert status == 404 and json.loads(body) == {"error": "no competition 'nosuch'", "status": 404}
    status, _, body = get(f"{arena.url}/api/competitions/later/board")
    assert status == 404 and "ladder" in json.loads(body)["error"]
    status, _, _ = get(f"{arena.url}/competitions/live", "POST", b"")
    assert status == 405  # read-only


def test_nothing_an_author_sees_alone_is_on_the_public_pages(arena: Arena, seasons: Steps) -> None:
    arena.api.create(spec("invited"))
    codes = arena.api.invites("invited", count=1)
    joined = arena.api.join(codes[0], "hal")
    texts = [page(arena, p)[1] for p in ("/competitions", "/competitions/invited")]
    texts.append(get(f"{arena.url}/api/competitions/invited")[2].decode())
    for text in texts:
        assert codes[0] not in text and joined.author.token not in text
    assert "hal" in texts[1]  # a competitor's name is public, as GetCompetition has it


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "[x](javascript:alert(1))",
        "[x](  JavaScript:alert(1) )",
        "[x](&#x6A;avascript:alert(1))",
        "[x](java\\script:alert(1))",
        "[x](<java\tscript:alert(1)>)",
        "[x](<\x01javascript:alert(1)>)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "<javascript:alert(1)>",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](file:///etc/passwd)",
        "![x](javascript:alert(1))",
        "![x](https://elsewhere.example/tracker.png)",
        '[x](https://ok.example "a" onmouseover="alert(1)")',
        "`<script>` and ~~<b>~~",
    ],
)
def test_markdown_lets_no_script_handler_or_unsafe_link_through(text: str) -> None:
    html = markdown.render(text)
    tags = Live(html).tags
    assert not [t for t, _ in tags if t not in ("p", "a", "code", "s", "h3", "em", "strong")]
    for _, attrs in tags:
        assert set(attrs) <= {"href", "rel"}, attrs
        # As a browser reads it: no control character or space (it drops tabs and
        # newlines), and a scheme, if any, one of the allowed.
        href = attrs.get("href", "")
        assert not re.search(r"[\x00-\x20]", href), href
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", href)
        assert scheme is None or scheme[1].lower() in ("http", "https", "mailto"), href


def test_safe_links_are_http_https_mailto_or_this_sites() -> None:
    allowed = ["https://a.example/x", "http://a.example", "MAILTO:a@b.example", "/bots/x", "x#y"]
    assert all(markdown.safe_link(u) for u in allowed)
    refused = ["javascript:alert(1)", " data:x", "vbscript:x", "file:///x", "ftp://x"]
    refused += ["\x01java\tscript:alert(1)", "java\nscript:alert(1)"]
    assert not any(markdown.safe_link(u) for u in refused)


REASON = '<script>alert(1)</script> a@v1 over "b@v1" (+40 Elo) & <b>more</b>'


class Competitions(FakeSource):
    """An open competition whose ladder is recorded but not stored yet, and a cancelled
    one, as the API would give them."""

    def __init__(self) -> None:
        super().__init__()
        self.found = {
            "racing": arena_pb2.Competition(
                spec=arena_pb2.CompetitionSpec(name="racing"),
                phase=arena_pb2.COMPETITION_PHASE_OPEN,
                ladder_tournament_id="tladder",
            ),
            "off": arena_pb2.Competition(
                spec=arena_pb2.CompetitionSpec(name="off", description=HOSTILE),
                phase=arena_pb2.COMPETITION_PHASE_CANCELLED,
                ladder_tournament_id="tladder",
                competitors=["<b>ana</b>"],
            ),
            "picked": arena_pb2.Competition(
                spec=arena_pb2.CompetitionSpec(name="picked"),
                phase=arena_pb2.COMPETITION_PHASE_FINAL,
                final_tournament_id="tfinal",
                final_versions=[
                    arena_pb2.FinalVersion(
                        author="ana", version="a@v1", chosen=arena_pb2.FINAL_CHOICE_MARKED
                    )
                ],
                final_deals=12,
                final_deals_reason=REASON,
            ),
        }

    async def competitions(self) -> arena_pb2.ListCompetitionsResponse:
        return arena_pb2.ListCompetitionsResponse(competitions=list(self.found.values()))

    async def competition(self, name: str) -> arena_pb2.Competition:
        if name not in self.found:
            return await super().competition(name)
        return self.found[name]

    async def competition_board(
        self, name: str, game: str = ""
    ) -> arena_pb2.CompetitionLeaderboard:
        raise HttpError(404, "no tournament 'tladder'")  # as the API answers meanwhile


def test_a_board_not_there_yet_and_a_cancelled_competition_still_have_their_pages() -> None:
    site = Site(Competitions(), "api:1")
    racing = site.get("/competitions/racing")
    assert racing.status == 200
    assert b"The board starts with the open ladder, which the arena&#x27;s workers" in racing.body
    assert site.get("/api/competitions/racing/board").status == 404
    off = site.get("/competitions/off")
    assert off.status == 200 and b'id="ladder-link"' in off.body
    assert b"<b>ana</b>" not in off.body and b"&lt;b&gt;ana&lt;/b&gt;" in off.body
    assert b"<script>" not in off.body and b'<meta http-equiv="refresh"' not in off.body
    listed = Document(site.get("/competitions").body.decode()).tables["competitions"]
    assert [(r.attrs["data-competition"], r.cells[1]) for r in listed] == [
        ("racing", "open"),
        ("off", "cancelled"),
        ("picked", "final"),
    ]
    empty = Document(Site(FakeSource(), "api:1").get("/competitions").body.decode())
    assert empty.tables["competitions"][0].cells == ["No competitions yet."]


def test_the_finals_deals_and_their_reason_are_shown_escaped() -> None:
    found = Site(Competitions(), "api:1").get("/competitions/picked")
    assert found.status == 200
    text = found.body.decode()
    assert "<script>" not in text and "<b>more</b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&amp; &lt;b&gt;more" in text
    facts = {r.attrs["data-field"]: r.cells for r in Document(text).tables["final-facts"]}
    assert facts["final-deals"] == ["12 per pairing and game, each played twice (seats swapped)"]
    assert facts["final-deals-reason"] == [REASON]
