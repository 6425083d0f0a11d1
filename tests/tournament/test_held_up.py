"""A running tournament held up by stranded matches (neither queued nor being played,
as the watchdog marks them) says so, naming them: in ``arena tournament status``, in
``arena doctor`` and on its web page; the mark goes when they are not stranded."""

from __future__ import annotations

import json
import subprocess

from arena.processes import arena_command
from arena.store import TournamentStore
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from arena.web.standings import summary_table
from tests.records import spec
from tests.support.arena import Arena
from tests.support.worker_process import run

STRANDED = [f"t-held-seep-0-{deal}-a" for deal in range(4)]
WATCHDOG_ROUNDS = """
import json
from arena.store import TournamentStore
from arena.tournament.schedule import ScheduledMatch
from workers.stores import client
from workers.watchdog import Watchdog

SHARED = True  # one referee and API for the module (tests/tournament/conftest.py)

watchdog, marks = Watchdog(), []
for _ in range(3):
    watchdog.round()
    t = TournamentStore(client()).get("t-held")
    marks.append(None if t.stranded is None else [t.stranded.count, *t.stranded.matches])
print(json.dumps(marks))
"""


def arena_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena_command(*args), capture_output=True, text=True, timeout=120)


def test_stranded_matches_are_named_until_they_are_not(arena: Arena) -> None:
    store = TournamentStore(arena.redis)
    store.create("t-held", spec(("a", "b"), ("seep",), deals=4), ["seep"], total=8)
    store.note_stranded({"t-held": set(STRANDED)}, ["t-held"])
    record = store.get("t-held")
    assert record is not None
    # Reads name them by public ids while the tournament runs, as they name every match.
    shown = [record.spec.seed.public_id(m) for m in STRANDED[:3]]
    named = ", ".join(shown) + ", ..."
    said = "4 matches stranded since "
    why = f"({named}): neither queued nor being played; the watchdog queues them again"

    status = arena_cli("tournament", "status", "t-held", "--api", arena.api.address)
    assert status.returncode == 0, status.stderr
    assert said in status.stdout and why in status.stdout

    found = arena_cli(
        "doctor", "--json", "--redis", arena.redis_url, "--api", arena.api.address,
        "--referee", arena.referee.address,
    )  # fmt: skip
    held = [c for c in json.loads(found.stdout)["components"] if c["component"] == "tournament"]
    assert [(c["name"], c["state"]) for c in held] == [("t-held", "waiting")]
    assert said in held[0]["detail"] and why in held[0]["detail"]

    tournament = arena.get("t-held")
    assert tournament.stranded.count == 4 and list(tournament.stranded.match_ids) == shown
    page = summary_table(tournament)
    assert said in page and why.replace("'", "&#x27;") in page

    since = tournament.stranded.since
    store.note_stranded({"t-held": {STRANDED[0]}}, ["t-held"])  # the same spell goes on
    again = arena.get("t-held")
    assert again.stranded.count == 1 and again.stranded.since == since
    store.note_stranded({}, ["t-held"])
    cleared = arena.get("t-held")
    assert not cleared.HasField("stranded")
    assert cleared.state == arena_pb2.TOURNAMENT_STATE_RUNNING


def test_the_watchdog_marks_what_it_finds_stranded_and_clears_it_once_queued(
    arena: Arena,
) -> None:
    """Matches handed out but never queued (a step that died before queueing): the
    first round marks them, the second queues them again, the third finds them queued."""
    store = TournamentStore(arena.redis)
    plan = spec(("a", "b"), ("seep",), deals=2)
    matches = [
        ScheduledMatch(m, "seep", ("a", "b"), deal, 7 + deal, m, paired=False)
        for deal, m in enumerate(STRANDED[:2])
    ]
    store.create("t-held", plan, ["seep"], matches=matches, total=2)
    marks = run(arena.redis_url, WATCHDOG_ROUNDS)
    assert marks == [[2, *STRANDED[:2]], [2, *STRANDED[:2]], None]
