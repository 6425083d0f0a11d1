"""The match list's paging and filters, and the bot page's registry facts, matches and
fault rates, in process over a fake source."""

from __future__ import annotations

import json
from typing import Any

from arena.v1 import arena_pb2
from arena.web import matchlist
from arena.web.data import BotFacts, Match
from arena.web.matchlist import FILTERED_PAGE, MAX_RESULT_CALLS, MAX_TOURNAMENTS_READ
from tests.support.fake_source import HOSTILE, FakeSource, Site
from tests.web.dom import Document


def record(
    match_id: str, a: str, b: str, game: str = "seep", **fields: Any
) -> arena_pb2.MatchRecord:
    given: dict[str, Any] = {"team_faults": [0, 0], "decisions": 10, **fields}
    return arena_pb2.MatchRecord(
        match_id=match_id,
        game=game,
        entries=[a, b],
        scores=[1, 0],
        winner_team=0,
        end=arena_pb2.RESULT_END_COMPLETED,
        **given,
    )


def tournament(tid: str, entries: list[str], done: int, name: str = "") -> arena_pb2.Tournament:
    return arena_pb2.Tournament(
        id=tid,
        spec=arena_pb2.TournamentSpec(name=name or tid, entries=entries),
        state=arena_pb2.TOURNAMENT_STATE_FINISHED,
        games=["seep"],
        matches_done=done,
        matches_total=done,
    )


def arena_with(
    *shape: tuple[str, int], bots: tuple[str, ...] = ("house", "rand", "other")
) -> FakeSource:
    """Tournaments newest first, each with that many house-v-rand matches (m0, m1, ...)."""
    source = FakeSource(bots)
    for tid, count in shape:
        source.listed.append(tournament(tid, ["house", "rand"], count))
        source.stored[tid] = [record(f"{tid}-m{i}", "house", "rand") for i in range(count)]
    return source


def walk(site: Site, query: str) -> list[list[str]]:
    """Every page's (tournament/match) keys, following next_cursor to the end."""
    pages: list[list[str]] = []
    url = "/api/matches?" + query
    while url:
        answer = site.get(url)
        assert answer.status == 200, answer.body
        body = json.loads(answer.body)
        pages.append([f"{m['tournament_id']}/{m['match_id']}" for m in body["matches"]])
        url = body["next_url"]
        if url is None:
            assert body["next_cursor"] is None
        else:
            assert body["next_cursor"] == pages[-1][-1]  # the last match shown
    return pages


EVERY = ["t3/t3-m2", "t3/t3-m1", "t3/t3-m0", "t1/t1-m1", "t1/t1-m0"]


def test_pages_visit_every_match_once_in_order_newest_tournament_first() -> None:
    source = arena_with(("t3", 3), ("t2", 0), ("t1", 2))
    site = Site(source, "api:1")
    assert walk(site, "limit=2") == [EVERY[:2], EVERY[2:4], EVERY[4:]]
    assert "t2" not in source.reads  # no results: not read
    # A last page exactly full has no empty page after it; a big limit is one page.
    assert walk(site, "limit=5") == [EVERY]
    assert walk(site, "limit=1") == [[key] for key in EVERY]
    assert walk(site, "limit=500") == [EVERY]
    first = json.loads(site.get("/api/matches?limit=2").body)
    assert (first["cursor"], first["next_cursor"]) == (None, "t3/t3-m1")
    assert first["next_url"] == "/api/matches?cursor=t3%2Ft3-m1&limit=2"


def test_filters_combine_and_read_only_tournaments_that_can_hold_a_match() -> None:
    source = arena_with(("t3", 2), ("t1", 2))
    source.listed.insert(0, tournament("t4", ["other", "rand"], 2))
    source.stored["t4"] = [record("t4-m0", "other", "rand"), record("t4-m1", "rand", "other")]
    source.stored["t1"].append(record("t1-m9", "house@v2", "other"))
    source.listed[2].matches_done = 3
    source.listed[2].spec.entries.extend(["house@v2", "other"])
    site = Site(source, "api:1")
    assert walk(site, "bot=house&limit=2") == [
        ["t3/t3-m1", "t3/t3-m0"],
        ["t1/t1-m9", "t1/t1-m1"],
        ["t1/t1-m0"],
    ]
    assert "t4" not in source.reads  # house is not among its entries
    assert walk(site, "bot=other") == [["t4/t4-m1", "t4/t4-m0", "t1/t1-m9"]]
    assert walk(site, "bot=house@v2") == [["t1/t1-m9"]]
    assert walk(site, "bot=rand&tournament=t4&game=seep&limit=1") == [["t4/t4-m1"], ["t4/t4-m0"]]
    source.reads.clear()
    assert walk(site, "tournament=t1&bot=other") == [["t1/t1-m9"]]
    assert source.reads == ["t1"]
    # Nothing matches: one empty page, no cursor.
    assert walk(site, "tournament=t3&bot=other") == [[]]
    page = Document(site.get("/matches?tournament=t3&bot=other").body.decode())
    assert [r.cells for r in page.tables["matches"]] == [["No matches yet."]]


def test_unknown_filters_are_404_saying_which_and_bad_paging_is_400() -> None:
    site = Site(arena_with(("t1", 2)), "api:1")
    for query, status, error in (
        ("game=chess", 404, "unknown game 'chess'; the games are: "),
        ("bot=ghost", 404, "no bot 'ghost'"),
        ("tournament=t9", 404, "no tournament 't9'"),
        ("bot=a%20b", 404, "no bot 'a b': names are letters"),
        ("tournament=a%2Fb", 404, "no tournament 'a/b': ids are letters"),
        ("limit=0", 400, "limit must be a whole number from 1 to 500, got '0'"),
        ("limit=501", 400, "limit must be a whole number from 1 to 500, got '501'"),
        ("cursor=nonsense", 400, "cursor must be a page's next_cursor, TOURNAMENT/MATCH"),
        ("cursor=t1/a/b", 400, "cursor must be a page's next_cursor"),
        ("cursor=t9/t9-m0", 400, "cursor 't9/t9-m0' names no tournament of this list"),
        ("tournament=t1&cursor=t3/x", 400, "cursor 't3/x' names no tournament of this"),
        ("limit=0&bot=ghost", 400, "limit must be"),  # paging is checked first
    ):
        answer = site.get("/api/matches?" + query)
        assert answer.status == status, query
        assert json.loads(answer.body)["error"].startswith(error), (query, answer.body)
        html = site.get("/matches?" + query)
        assert html.status == status and html.content_type.startswith("text/html"), query
    # A cursor past the last match is an empty last page, not an error.
    assert json.loads(site.get("/api/matches?cursor=t1/t1-m0").body)["matches"] == []


def test_new_results_after_the_cursor_show_later_and_none_repeats() -> None:
    source = arena_with(("t3", 3), ("t1", 2))
    site = Site(source, "api:1")
    first = json.loads(site.get("/api/matches?limit=2").body)
    # Meanwhile: a newer tournament, a later match of t3 and an older one of t1 arrive.
    source.listed.insert(0, tournament("t5", ["house", "rand"], 1))
    source.stored["t5"] = [record("t5-m0", "house", "rand")]
    source.stored["t3"].append(record("t3-m3", "house", "rand"))
    source.stored["t1"].append(record("t1-m0a", "house", "rand"))
    rest = walk(site, f"limit=2&cursor={first['next_cursor']}")
    seen = [f"{m['tournament_id']}/{m['match_id']}" for m in first["matches"]]
    seen += [key for page in rest for key in page]
    assert seen == ["t3/t3-m2", "t3/t3-m1", "t3/t3-m0", "t1/t1-m1", "t1/t1-m0a", "t1/t1-m0"]


def test_a_page_reads_a_bounded_number_of_tournaments() -> None:
    count = MAX_TOURNAMENTS_READ + 5
    source = FakeSource(("house", "rand", "other"))
    for i in reversed(range(count)):  # house entered but played none of them
        source.listed.append(tournament(f"t{i:02}", ["house", "rand", "other"], 1))
        source.stored[f"t{i:02}"] = [record(f"t{i:02}-m0", "rand", "other")]
    source.stored["t00"].append(record("t00-m1", "house", "rand"))
    site = Site(source, "api:1")
    first = json.loads(site.get("/api/matches?bot=house").body)
    assert first["matches"] == [] and len(source.reads) == MAX_TOURNAMENTS_READ
    assert first["next_cursor"] == f"t{count - MAX_TOURNAMENTS_READ:02}/"
    assert walk(site, "bot=house&cursor=" + first["next_cursor"]) == [["t00/t00-m1"]]


def test_a_page_deep_inside_a_big_tournament_reads_about_a_page_of_results() -> None:
    source = FakeSource(("house", "rand"))
    source.listed.append(tournament("big", ["house", "rand"], 2000))
    source.stored["big"] = [record(f"big-m{i:04}", "house", "rand") for i in range(2000)]
    site = Site(source, "api:1")
    deep = json.loads(site.get("/api/matches?tournament=big&limit=20&cursor=big/big-m0700").body)
    keys = [m["match_id"] for m in deep["matches"]]
    assert keys == [f"big-m{i:04}" for i in range(699, 679, -1)]
    assert deep["next_cursor"] == "big/big-m0680"
    assert (source.reads, source.results_read) == (["big"], 21)  # the page and one more
    source.reads.clear()
    source.results_read = 0
    last = json.loads(site.get("/api/matches?limit=20&cursor=big/big-m0015").body)
    assert [m["match_id"] for m in last["matches"]][-1] == "big-m0000"
    assert last["next_cursor"] is None and source.results_read == 15
    # A filter reads on a page at a time until its page is full.
    source.stored["big"][100] = record("big-m0100", "house", "other")
    source.listed[0].spec.entries.append("other")
    source.bots = ("house", "rand", "other")
    source.results_read = 0
    found = json.loads(site.get("/api/matches?bot=other&cursor=big/big-m0700").body)
    assert [m["match_id"] for m in found["matches"]] == ["big-m0100"]
    assert source.results_read == 700  # from the cursor down, and no further


def test_a_filtered_page_makes_a_bounded_number_of_calls_and_goes_on_after() -> None:
    size = FILTERED_PAGE * (MAX_RESULT_CALLS + 2)
    source = FakeSource(("house", "rand", "other"))
    source.listed.append(tournament("huge", ["house", "rand", "other"], size))
    source.stored["huge"] = [record(f"huge-m{i:05}", "rand", "other") for i in range(size)]
    source.stored["huge"][0] = record("huge-m00000", "house", "rand")
    site = Site(source, "api:1")
    first = json.loads(site.get("/api/matches?bot=house").body)
    assert first["matches"] == [] and len(source.reads) == MAX_RESULT_CALLS
    assert source.results_read == FILTERED_PAGE * MAX_RESULT_CALLS
    last_read = f"huge-m{size - FILTERED_PAGE * MAX_RESULT_CALLS:05}"
    assert first["next_cursor"] == f"huge/{last_read}"  # the last match read, not shown
    assert walk(site, "bot=house&cursor=" + first["next_cursor"]) == [["huge/huge-m00000"]]


def test_the_html_list_pages_forward_keeps_its_filters_and_escapes_names() -> None:
    source = arena_with(("t3", 3))
    source.listed[0].spec.name = HOSTILE
    site = Site(source, "api:1")
    text = site.get("/matches?bot=house&limit=2").body.decode()
    assert "<script>" not in text and "<img" not in text
    doc = Document(text)
    assert [r.attrs["data-match"] for r in doc.tables["matches"]] == ["t3-m2", "t3-m1"]
    assert doc.tables["matches"][0].cells[0] == HOSTILE
    assert 'id="first-page"' not in text
    assert 'href="/matches?bot=house&amp;cursor=t3%2Ft3-m1&amp;limit=2"' in text
    second = site.get("/matches?bot=house&limit=2&cursor=t3/t3-m1").body.decode()
    assert 'id="first-page" href="/matches?bot=house&amp;limit=2"' in second
    assert 'id="next-page"' not in second
    # What the reader typed is escaped in the 404 that names it.
    for query in ("game=%3Cscript%3E", "bot=%3Cimg%20src=x%3E", "tournament=%3Cscript%3E"):
        answer = site.get("/matches?" + query)
        assert answer.status == 404 and b"<script>" not in answer.body
        assert b"<img" not in answer.body


def test_lists_are_linked_from_the_index_game_bot_and_tournament_pages() -> None:
    source = arena_with(("t1", 2), bots=("house", "rand"))  # the index's LOS takes two
    site = Site(source, "api:1")
    links = {
        "/": "/matches",
        "/games/seep": "/matches?game=seep",
        "/bots/house": "/matches?bot=house",
        "/tournaments/t1": "/matches?tournament=t1",
    }
    for path, target in links.items():
        text = site.get(path).body.decode()
        assert f'<a class="all-matches" href="{target}">' in text, path


def test_fault_rates_count_the_bots_team_by_kind_per_match() -> None:
    matches = [
        record("m0", "house", "rand", team_faults=[2, 1], decisions=40),
        record("m1", "rand", "house@v2", team_faults=[0, 3], decisions=20, forfeit_team=1),
        record("m2", "rand", "other"),
    ]
    matches[0].team_fault_kinds.add(by_kind={"timeout": 1, "illegal_action": 1})
    matches[0].team_fault_kinds.add(by_kind={"timeout": 1})
    # m1 was stored before kinds were kept: its faults count, as unrecorded.
    found = [Match("t1", "", r) for r in matches]
    rates = matchlist.fault_rates(found, "house")
    assert (rates.matches, rates.decisions, rates.forfeits) == (2, 60, 1)
    assert rates.faults == {"timeout": 1, "illegal_action": 1, "unrecorded": 3}
    assert rates.per_match("unrecorded") == 1.5 and rates.per_match("rpc_error") == 0.0
    assert matchlist.fault_rates(found, "house@v1").matches == 0


def test_the_bot_page_shows_registry_versions_matches_and_faults() -> None:
    source = arena_with(("t1", 2))
    source.stored["t1"][1].team_faults[:] = [2, 0]
    source.stored["t1"][1].team_fault_kinds.add(by_kind={"timeout": 2})
    source.stored["t1"][1].team_fault_kinds.add()
    hosted = arena_pb2.RegisteredBot(
        name="house", games=["seep"], hello_name="House", version=HOSTILE, hosted=True
    )
    hosted.registered_at.FromSeconds(1_800_000_000)
    version = arena_pb2.HostedBotVersion(
        name="house", version="v2", runtime="python3.11", games=["seep"],
        hello_name="House", hello_version=HOSTILE, package_sha256="ab" * 32, package_bytes=900,
    )  # fmt: skip
    version.submitted_at.FromSeconds(1_800_000_000)
    source.registry["house"] = BotFacts("house", hosted, [version])
    site = Site(source, "api:1")
    text = site.get("/bots/house").body.decode()
    assert "<script>" not in text and "<img" not in text
    doc = Document(text)
    facts = {r.attrs["data-field"]: r.cells[0] for r in doc.tables["bot-facts"]}
    assert facts == {
        "name": "house",
        "kind": "hosted: the arena runs its submitted package, the operator's",
        "games": "Seep",
        "hello": f"House {HOSTILE}",
        "registered": "2027-01-15 08:00:00 UTC",
    }
    assert [r.cells[:4] for r in doc.tables["bot-versions"]] == [
        ["v2", "2027-01-15 08:00:00 UTC", "python3.11", "Seep"]
    ]
    assert [r.attrs["data-match"] for r in doc.tables["bot-matches"]] == ["t1-m1", "t1-m0"]
    assert [(r.attrs["data-kind"], r.cells[1:]) for r in doc.tables["bot-faults"]] == [
        ("timeout", ["2", "1.000"]),
        ("forfeit", ["0", "0.000"]),
    ]
    assert "Over its last 2 matches (20 decisions by all seats)" in text
    assert doc.tags.count("svg") == 1  # the rating chart stays (seep's is a sweep's bound)
    # A remote bot without faults; a bot removed from the registry says so.
    rand = Document(site.get("/bots/rand").body.decode())
    assert {r.attrs["data-field"]: r.cells[0] for r in rand.tables["bot-facts"]}["kind"] == (
        "remote: the arena calls it at its address; in Seep: partners share one process: "
        "each may see the other's hand"
    )
    assert "rand made no fault in these matches." in site.get("/bots/rand").body.decode()
    source.registry["rand"] = BotFacts("rand", None, [])
    assert 'id="not-registered"' in site.get("/bots/rand").body.decode()
