"""The author's view over plain HTTP against a real API: the session cookie and its
flags, sign-in refusals, CSRF and origin checks, the API's checks holding for the
author's calls, escaping, and the public pages unchanged but for the header."""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.hosting.package import MAX_PACKAGE_BYTES
from arena.local_redis import LocalRedis
from arena.web.author import STRIP
from arena.web.author_app import MAX_UPLOAD_BYTES
from arena.web.sessions import IDLE_S
from tests.api.hosted import OPERATOR, python_package
from tests.web.authors import (
    LOG_LINE,
    PLAYED,
    TOURNAMENT,
    AuthorSite,
    author_site,
    form_token,
    sign_in,
)

PUBLIC = ("/", "/matches", "/live", "/bots/ana-bot", f"/tournaments/{TOURNAMENT}", "/games/seep")
LOGS = f"/author/logs?bot=ana-bot&match={PLAYED}&tournament={TOURNAMENT}"


@pytest.fixture(scope="module")
def site(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorSite]:
    with author_site(local_redis, tmp_path_factory.mktemp("author-web")) as started:
        yield started


def set_cookies(response: object) -> list[str]:
    return response.headers.get_list("set-cookie")  # type: ignore[attr-defined, no-any-return]


def test_signing_in_keeps_the_token_on_the_server_behind_a_strict_cookie(
    site: AuthorSite,
) -> None:
    with site.client() as client:
        signed = sign_in(site, client, "ana")
        assert signed.status_code == 303 and signed.headers["location"] == "/author/"
        (session,) = [c for c in set_cookies(signed) if c.startswith("arena_author=")]
        flags = session.split("; ")
        assert set(flags[1:]) == {"Path=/", "HttpOnly", "SameSite=Strict"}  # no Secure on http
        assert site.tokens["ana"] not in " ".join(set_cookies(signed))
        assert any(
            c.startswith("arena_sign_in=;") and "Max-Age=0" in c for c in set_cookies(signed)
        )

        home = client.get("/author/")
        assert home.status_code == 200 and home.headers["cache-control"] == "no-store"
        page = home.text
        assert '<strong id="author-name">ana</strong>' in page
        assert 'data-bot="ana-bot"' in page and 'data-bot="bea-bot"' not in page
        assert 'data-version="v1"' in page
        assert "You have joined no competition" in page
        # The finished tournament's match links to ana's logs only, and its name is escaped.
        assert (
            f'href="/author/logs?bot=ana-bot&amp;match={PLAYED}&amp;tournament={TOURNAMENT}"'
            in page
        )
        assert "logs?bot=bea-bot" not in page
        assert "&lt;b&gt;cup&lt;/b&gt;" in page and "<b>cup</b>" not in page
        assert site.tokens["ana"] not in page

        out = client.post("/author/sign-out", data={"csrf": form_token(page)}, headers=site.origin)
        assert out.status_code == 303 and out.headers["location"] == "/"
        assert any(c.startswith("arena_author=;") and "Max-Age=0" in c for c in set_cookies(out))
        assert client.get("/author/").headers["location"] == "/author/sign-in"


def test_a_session_that_is_absent_unknown_or_expired_goes_back_to_sign_in(
    site: AuthorSite,
) -> None:
    with site.client() as client:
        for cookies in (
            {},
            {"arena_author": secrets.token_urlsafe(32)},
            {"arena_author": "x" * 500},
        ):
            client.cookies.clear()
            client.cookies.update(cookies)
            for path in ("/author/", LOGS):
                got = client.get(path)
                assert (got.status_code, got.headers["location"]) == (303, "/author/sign-in")
            posted = client.post("/author/submit", headers=site.origin, content=b"")
            assert (posted.status_code, posted.headers["location"]) == (303, "/author/sign-in")
        client.cookies.clear()
        sign_in(site, client, "ana")
        assert client.get("/author/").status_code == 200
        site.clock.now += IDLE_S - 1  # used within the idle time: still on
        assert client.get("/author/").status_code == 200
        site.clock.now += IDLE_S + 1
        assert client.get("/author/").headers["location"] == "/author/sign-in"


def test_posts_without_the_sessions_token_or_from_elsewhere_are_refused(site: AuthorSite) -> None:
    with site.client() as client:
        sign_in(site, client, "ana")
        csrf = form_token(client.get("/author/").text)
        refusals = [
            ({}, site.origin, "security token is missing"),
            (
                {"csrf": ("y" if csrf[0] == "x" else "x") + csrf[1:]},
                site.origin,
                "security token is missing",
            ),
            ({"csrf": csrf}, {"origin": "https://evil.example"}, "comes from another site"),
            ({"csrf": csrf}, {"origin": "null"}, "comes from another site"),
            ({"csrf": csrf}, {"referer": "http://evil.example/page"}, "comes from another site"),
            ({"csrf": csrf}, {}, "neither where it comes from"),
        ]
        for data, headers, why in refusals:
            refused = client.post("/author/sign-out", data=data, headers=headers)
            assert refused.status_code == 403, (data, headers)
            assert refused.headers["content-type"].startswith("text/html")
            assert why in refused.text and '<p id="message">refused: ' in refused.text
        assert client.get("/author/").status_code == 200  # still signed in
        # The same page's Referer will do when a browser sends no Origin.
        out = client.post(
            "/author/sign-out", data={"csrf": csrf}, headers={"referer": site.url + "/author/"}
        )
        assert out.status_code == 303

        form = client.get("/author/sign-in")
        for data in ({"author": "ana", "token": site.tokens["ana"]},
                     {"csrf": "forged", "author": "ana", "token": site.tokens["ana"]}):  # fmt: skip
            forged = client.post("/author/sign-in", data=data, headers=site.origin)
            assert forged.status_code == 403 and "security token" in forged.text
            assert not [c for c in set_cookies(forged) if c.startswith("arena_author=")]
        assert form_token(form.text)


def test_a_token_that_is_not_the_authors_signs_no_one_in(site: AuthorSite) -> None:
    cases = [
        ("ana", "author-" + secrets.token_urlsafe(32), "the arena does not know that token"),
        ("ana", site.tokens["bea"], "that token is an author's, but not ana's"),
        ("ana", OPERATOR, "that is the operator's token"),
        ("<b>ana</b>", site.tokens["ana"], "bad author name '<b>ana</b>'"),
        ("ana", "two words", "one word of printable characters"),
    ]
    with site.client() as client:
        for name, token, why in cases:
            refused = sign_in(site, client, name, token)
            assert refused.status_code in (400, 403), refused.text
            assert why in html.unescape(refused.text), refused.text
            assert '<form class="stack" id="sign-in"' in refused.text  # try again there
            assert not [c for c in set_cookies(refused) if c.startswith("arena_author=")]
            assert "<b>ana</b>" not in refused.text
        assert len(site.sessions) == 0 or client.get("/author/").status_code == 303
        # An author who owns no bot yet is signed in all the same: WhoAmI names them.
        assert sign_in(site, client, "cyd").status_code == 303
        home = client.get("/author/").text
        assert '<strong id="author-name">cyd</strong>' in home
        assert "None yet: submit one below." in home


def test_an_author_reads_their_own_logs_escaped_and_no_one_elses(site: AuthorSite) -> None:
    with site.client() as ana, site.client() as bea:
        sign_in(site, ana, "ana")
        sign_in(site, bea, "bea")
        logs = ana.get(LOGS)
        assert logs.status_code == 200 and logs.headers["cache-control"] == "no-store"
        assert "&lt;script&gt;alert(&#x27;log&#x27;)&lt;/script&gt; &amp; thinking" in logs.text
        assert LOG_LINE.strip() not in logs.text and "bea&#x27;s secret plan" not in logs.text
        # bea asks the site for ana's logs: the API, asked with bea's token, refuses.
        refused = bea.get(LOGS)
        assert refused.status_code == 403
        assert (
            "the logs of &#x27;ana-bot&#x27; are for its author (&#x27;ana&#x27;)" in refused.text
        )
        assert "thinking" not in refused.text
        own = bea.get(LOGS.replace("bot=ana-bot", "bot=bea-bot"))
        assert own.status_code == 200 and "bea&#x27;s secret plan" in own.text


def test_public_pages_are_the_same_signed_in_but_for_the_header_and_take_no_post(
    site: AuthorSite,
) -> None:
    def settled(html: str) -> str:  # the footer says when the page was read
        return re.sub(r"<footer>.*?</footer>", "", html)

    with site.client() as anonymous, site.client() as signed:
        sign_in(site, signed, "ana")
        csrf = form_token(signed.get("/author/").text)
        for path in PUBLIC:
            plain, mine = anonymous.get(path), signed.get(path)
            assert plain.status_code == mine.status_code == 200, path
            assert STRIP.decode() in plain.text and 'id="signed-in"' not in plain.text
            strip = re.search(
                r'<span class="author-link" id="signed-in">.*?</form></span>', mine.text
            )
            assert strip is not None and 'Signed in as <a href="/author/">ana</a>' in strip.group()
            assert settled(mine.text.replace(strip.group(), STRIP.decode())) == settled(plain.text)
            assert mine.headers["cache-control"] == "private, no-store"
            assert plain.headers["cache-control"] == "no-cache"
            assert int(mine.headers["content-length"]) == len(mine.content)
        for path in (*PUBLIC, "/author/", LOGS, "/api/leaderboard", "/static/site.css"):
            posted = signed.post(path, data={"csrf": csrf}, headers=site.origin)
            assert posted.status_code == 405, path
            assert posted.headers["allow"] == "GET, HEAD"
        assert signed.get("/api/leaderboard").headers["cache-control"] == "no-cache"


def test_an_upload_is_checked_as_the_command_checks_it_and_refusals_are_shown_escaped(
    site: AuthorSite, tmp_path: Path
) -> None:
    package = python_package(tmp_path / "pkg")
    with site.client() as client:
        sign_in(site, client, "bea")
        csrf = form_token(client.get("/author/").text)

        def upload(blob: bytes, **fields: str) -> tuple[int, str]:
            data = {"csrf": csrf, "name": "bea-new", "version": "v1", "runtime": "python3.11",
                    "command": "python3 bot.py", **fields}  # fmt: skip
            files = {"package": ("bot.tar.gz", blob, "application/gzip")}
            got = client.post("/author/submit", data=data, files=files, headers=site.origin)
            return got.status_code, got.text

        status, page = upload(b"not a tarball")
        assert status == 400 and "the package is not a readable tar.gz" in page
        assert 'value="bea-new"' in page  # the form comes back filled in
        status, page = upload(package, command="python3 <b>x</b>.py")
        assert status == 400
        assert (
            "the command runs &#x27;&lt;b&gt;x&lt;/b&gt;.py&#x27;, which is not in the package"
            in page
        )
        status, page = upload(package, name="<i>bot</i>")
        assert status == 400 and "bad bot name &#x27;&lt;i&gt;bot&lt;/i&gt;&#x27;" in page
        status, page = upload(package, csrf="")
        assert status == 403
        # The API's own refusal, word for word: ana-bot is ana's.
        status, page = upload(package, name="ana-bot", version="v9")
        assert status == 403
        assert "PERMISSION_DENIED" not in page and "ana-bot" in page
        assert re.search(r'<p id="message">[^<]*ana[^<]*</p>', page), page
        too_big = client.post(
            "/author/submit",
            content=b"x" * (MAX_UPLOAD_BYTES + 1),
            headers={**site.origin, "content-type": "multipart/form-data; boundary=b"},
        )
        assert too_big.status_code == 413 and f"{MAX_UPLOAD_BYTES:,}" in too_big.text
        assert MAX_UPLOAD_BYTES > MAX_PACKAGE_BYTES
