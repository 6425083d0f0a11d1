"""HTTP requests to the web server under test."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from email.message import Message
from typing import Any


def get(url: str, method: str = "GET", data: bytes | None = None) -> tuple[int, Message, bytes]:
    """Status, headers (looked up in any case, as HTTP's are) and body."""
    request = urllib.request.Request(url, method=method, data=data)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def get_json(url: str) -> Any:
    status, headers, body = get(url)
    assert status == 200, body
    assert headers["Content-Type"] == "application/json"
    return json.loads(body)
