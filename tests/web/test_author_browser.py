"""The author's view in a real browser (headless Chromium): sign in with a token the
operator issued through the API, see one's bots, upload a package through the form and
find the new version listed, sign out from a public page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from arena.local_redis import LocalRedis
from tests.api.hosted import python_package
from tests.web.authors import AuthorSite, author_site
from tests.web.browser import chromium, wait_for

UPLOAD_WAIT_S = 90.0
"""The API starts the bot in a sandbox and asks its Hello before it answers."""


@pytest.fixture(scope="module")
def site(local_redis: LocalRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorSite]:
    with author_site(local_redis, tmp_path_factory.mktemp("author-browser")) as started:
        yield started


def test_an_author_signs_in_uploads_a_version_sees_it_listed_and_signs_out(
    site: AuthorSite, tmp_path: Path
) -> None:
    package = tmp_path / "eve-bot.tar.gz"
    package.write_bytes(python_package(tmp_path / "eve-bot"))
    with chromium() as browser:
        browser.get(f"{site.url}/author/")
        wait_for(browser, "return location.pathname === '/author/sign-in';")
        browser.find_element(By.ID, "author").send_keys("eve")
        browser.find_element(By.ID, "token").send_keys(site.tokens["eve"])
        browser.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
        wait_for(browser, "return location.pathname === '/author/';")
        assert browser.find_element(By.ID, "author-name").text == "eve"
        cookies = {c["name"]: c for c in browser.get_cookies()}
        session = cookies["arena_author"]
        assert session["httpOnly"] is True and session["sameSite"] == "Strict"
        assert session["path"] == "/" and site.tokens["eve"] not in session["value"]
        assert "arena_sign_in" not in cookies
        versions = "table.author-versions[data-bot='eve-bot'] tbody tr"
        assert [
            r.get_attribute("data-version")
            for r in browser.find_elements(By.CSS_SELECTOR, versions)
        ] == ["v1"]

        browser.find_element(By.ID, "bot-name").send_keys("eve-bot")
        browser.find_element(By.ID, "bot-version").send_keys("v2")
        browser.find_element(By.ID, "bot-package").send_keys(str(package))
        browser.find_element(By.CSS_SELECTOR, "#submit button[type=submit]").click()
        wait_for(
            browser,
            "return location.search === '?submitted=eve-bot@v2';",
            timeout=UPLOAD_WAIT_S,
        )
        assert (
            browser.find_element(By.CSS_SELECTOR, ".flash #message").text == "Submitted eve-bot@v2."
        )
        listed = [
            r.get_attribute("data-version")
            for r in browser.find_elements(By.CSS_SELECTOR, versions)
        ]
        assert listed == ["v2", "v1"]

        # A public page says who is signed in, and signs out from its header.
        browser.find_element(By.LINK_TEXT, "Overall").click()
        wait_for(browser, "return location.pathname === '/';")
        assert browser.find_element(By.ID, "signed-in").text.startswith("Signed in as eve")
        browser.find_element(By.ID, "sign-out").click()
        wait_for(
            browser, "return !document.getElementById('signed-in') && location.pathname === '/';"
        )
        assert browser.find_element(By.CSS_SELECTOR, "a.author-link").text == "Author sign-in"
        assert "arena_author" not in {c["name"] for c in browser.get_cookies()}
        browser.get(f"{site.url}/author/")
        wait_for(browser, "return location.pathname === '/author/sign-in';")
