"""A real arena API with the operator's token, authors it added, a finished tournament
with logs of their bots, and the web site in front of it in this process (sessions on
a clock the test moves): shared by the author's view's tests."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import redis
import uvicorn

from arena.local_redis import LocalRedis
from arena.store import BotRegistry, RegisteredBot, TournamentStore
from arena.store.bot_logs import BotLogStore, SeatOutput
from arena.store.packages import HostedVersion, PackageStore
from arena.store.tournaments import FINISHED
from arena.throttle import Throttle
from arena.tournament.schedule import ScheduledMatch
from arena.v1 import arena_pb2
from arena.web.app import create_app
from arena.web.server import listen, url_of
from arena.web.sessions import Sessions
from tests.api.hosted import OPERATOR, HostedApi, as_, start_api
from tests.records import result, spec

TOURNAMENT = "t00000000a0b1"
PLAYED = f"{TOURNAMENT}-seep-0-0-a"
LOG_LINE = "<script>alert('log')</script> & thinking\n"
AUTHORS = ("ana", "bea", "cyd", "eve")


class Clock:
    """The sessions' clock, which a test moves on."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class AuthorSite:
    api: HostedApi
    url: str
    tokens: dict[str, str]
    clock: Clock
    sessions: Sessions

    def client(self) -> httpx2.Client:
        """A client with its own cookie jar that follows no redirect."""
        return httpx2.Client(
            base_url=self.url, follow_redirects=False, timeout=120, trust_env=False
        )

    @property
    def origin(self) -> dict[str, str]:
        return {"origin": self.url}


def hosted(client: redis.Redis, name: str, author: str, sha256: str) -> None:
    """A hosted bot of ``author`` with one version, v1, as SubmitBot stores it."""
    games = ("seep",)
    BotRegistry(client).put(RegisteredBot(name, "", games, name, "1", 0.0, True, author))
    version = HostedVersion(
        name, "v1", "python3.11", "python3 bot.py", sha256, 1, author, time.time(), games, name, "1"
    )
    PackageStore(client).add_version(version)


def finished_tournament(client: redis.Redis) -> None:
    """ana-bot met bea-bot once, in a finished tournament, and both wrote logs."""
    entries = ("ana-bot@v1", "bea-bot@v1")
    packages = dict(zip(entries, ("a" * 64, "b" * 64), strict=True))
    TournamentStore(client).create(
        TOURNAMENT,
        spec(entries, ["seep"], packages, name="<b>cup</b>"),
        ["seep"],
        [ScheduledMatch(PLAYED, "seep", entries, 0, 1, PLAYED)],
    )
    TournamentStore(client).record_result(
        TOURNAMENT,
        result(
            match_id=PLAYED, tournament_id=TOURNAMENT, game="seep", entries=entries, scores=[1, 0]
        ),
        b"",
    )
    TournamentStore(client).set_state(TOURNAMENT, FINISHED)
    BotLogStore(client).put(
        TOURNAMENT,
        PLAYED,
        [
            SeatOutput(0, "ana-bot@v1", LOG_LINE, False, "killed at the end"),
            SeatOutput(1, "bea-bot@v1", "bea's secret plan\n", False, "killed at the end"),
        ],
    )


@contextlib.contextmanager
def author_site(local_redis: LocalRedis, directory: Path) -> Iterator[AuthorSite]:
    api = start_api(local_redis, directory)
    try:
        tokens = {
            name: api.stub.AddAuthor(
                arena_pb2.AddAuthorRequest(name=name), metadata=as_(OPERATOR)
            ).token
            for name in AUTHORS
        }
        hosted(api.redis, "ana-bot", "ana", "a" * 64)
        hosted(api.redis, "bea-bot", "bea", "b" * 64)
        hosted(api.redis, "eve-bot", "eve", "e" * 64)
        finished_tournament(api.redis)
        clock = Clock()
        sessions = Sessions(clock=clock)
        sock = listen("127.0.0.1", 0)
        app = create_app(api.address, sessions=sessions)
        # Many sign-ins from one address, far more than a person's (one test has its own).
        app.state.site.author.sign_ins = Throttle(rate_per_s=1e6, burst=10**6)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        )
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
        thread.start()
        while not server.started and thread.is_alive():
            time.sleep(0.01)
        try:
            yield AuthorSite(api, url_of(sock), tokens, clock, sessions)
        finally:
            server.should_exit = True
            thread.join()
            sock.close()
    finally:
        api.stop()


def form_token(html: str) -> str:
    """The CSRF token of the page's first form."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, html
    return found.group(1)


def sign_in(
    site: AuthorSite, client: httpx2.Client, author: str, token: str = ""
) -> httpx2.Response:
    """Load the sign-in form and post it, as a browser does."""
    form = client.get("/author/sign-in")
    assert form.status_code == 200, form.text
    return client.post(
        "/author/sign-in",
        data={
            "csrf": form_token(form.text),
            "author": author,
            "token": token or site.tokens[author],
        },
        headers=site.origin,
    )
