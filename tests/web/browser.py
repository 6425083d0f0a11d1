"""Headless Chromium under Selenium, through Debian's chromedriver: the real-browser
tests and the docs' screenshots share it.

The driver is always ``/usr/bin/chromedriver`` and the browser ``/usr/bin/chromium``
(``make chromium`` installs both): given a driver path, Selenium never starts its
Selenium Manager, which would try to download one (there is no network here), and the
fixture makes sure of it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import Any
from unittest import mock

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common import driver_finder
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1280, 800
WAIT_S = 20.0


class MissingBrowser(RuntimeError):
    """Chromium or its driver is not installed."""


class _NoSeleniumManager:
    """Stands in for Selenium Manager: it downloads drivers, and must never run."""

    def binary_paths(self, args: list[str]) -> dict[str, str]:
        raise AssertionError(f"Selenium Manager was asked for a driver: {args}")


@contextlib.contextmanager
def chromium(width: int = WIDTH, height: int = HEIGHT) -> Iterator[WebDriver]:
    """A headless Chromium at ``width`` x ``height`` with a throwaway profile, quit after."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            raise MissingBrowser(
                f"{path} is not installed: run `make chromium` (Debian's {package} package)"
            )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
        ):
            options.add_argument(flag)
        with mock.patch.object(driver_finder, "SeleniumManager", _NoSeleniumManager):
            driver = webdriver.Chrome(
                service=Service(executable_path=CHROMEDRIVER), options=options
            )
        try:
            driver.set_window_size(width, height)
            yield driver
        finally:
            driver.quit()


def wait_for(driver: WebDriver, script: str, *args: Any, timeout: float = WAIT_S) -> Any:
    """Wait until ``script`` (JavaScript, ``return``-ing a value) gives a true value; the
    value. ``timeout`` bounds the wait only (a loaded machine is slow)."""
    return WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script, *args))
