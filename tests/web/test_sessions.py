"""The author's sessions and form reading, without a server: bounds, expiry, the
origin check, cookies, and multipart bodies."""

from __future__ import annotations

import pytest

from arena.v1 import arena_pb2
from arena.web.author_data import daily_of
from arena.web.forms import FormError, multipart, urlencoded
from arena.web.sessions import Sessions, cookie, same_origin, tokens_match


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_sessions_expire_when_idle_or_old_and_stay_within_their_bounds() -> None:
    clock = Clock()
    sessions = Sessions(idle_s=10, max_age_s=25, max_sessions=3, per_author=2, clock=clock)
    first, _ = sessions.start("ana", "t-ana")
    for _ in range(3):  # used every 9 s: never idle, but over at 25 s
        clock.now += 9
        assert (sessions.get(first) is None) == (clock.now > 25)
    assert sessions.get(first) is None and len(sessions) == 0
    a1, _ = sessions.start("ana", "t")
    a2, _ = sessions.start("ana", "t")
    a3, _ = sessions.start("ana", "t")  # ana's third ends her oldest
    assert sessions.get(a1) is None and sessions.get(a2) and sessions.get(a3)
    b1, _ = sessions.start("bea", "t")
    c1, _ = sessions.start("cyd", "t")  # the site's fourth ends the least used
    assert len(sessions) == 3 and sessions.get(a2) is None and sessions.get(c1)
    assert sessions.get(b1) is not None
    clock.now += 11
    assert sessions.get(b1) is None  # idle
    sessions.end(c1)
    assert sessions.get(c1) is None and sessions.get("") is None and sessions.get(None) is None


def test_the_origin_must_be_this_host_and_tokens_match_exactly() -> None:
    host = "arena.example:8000"
    assert same_origin({"origin": "https://arena.example:8000"}, host) is None
    assert same_origin({"referer": "http://arena.example:8000/author/"}, host) is None
    for headers in (
        {"origin": "https://arena.example"},
        {"origin": "https://evil.example:8000"},
        {"origin": "null"},
        {"origin": "file://arena.example:8000"},
        {"referer": "https://evil.example/arena.example:8000"},
        {},
    ):
        assert same_origin(headers, host) is not None, headers
    assert tokens_match("abc", "abc") and not tokens_match("abc", "abd")
    assert not tokens_match("abc", None) and not tokens_match("", "")
    assert cookie("c", "v", secure=True) == "c=v; Path=/; HttpOnly; SameSite=Strict; Secure"


def test_forms_are_read_strictly() -> None:
    assert urlencoded(b"csrf=a%20b&author=ana", ("csrf", "author")).fields == {
        "csrf": "a b",
        "author": "ana",
    }
    for body in (b"csrf=a&csrf=b", b"other=1", b"\xff=1"):
        with pytest.raises(FormError):
            urlencoded(body, ("csrf",))
    body = (
        b'--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nbot\r\n'
        b'--XyZ\r\nContent-Disposition: form-data; name="package"; filename="b.tar.gz"\r\n'
        b"Content-Type: application/gzip\r\n\r\n\x1f\x8b\r\n-XyZ--XyZ\x00\r\n"
        b"--XyZ--\r\n"
    )
    form = multipart(body, "multipart/form-data; boundary=XyZ", ("name",), "package")
    assert form.fields == {"name": "bot"}
    assert form.files["package"].filename == "b.tar.gz"
    assert form.files["package"].data == b"\x1f\x8b\r\n-XyZ--XyZ\x00"  # no delimiter inside
    with pytest.raises(FormError, match="cut short"):
        multipart(body[:-9], "multipart/form-data; boundary=XyZ", ("name",), "package")
    with pytest.raises(FormError, match="multipart/form-data"):
        multipart(body, "application/x-www-form-urlencoded", ("name",), "package")
    part = b'--XyZ\r\nContent-Disposition: form-data; name="%s"\r\n\r\nx\r\n'
    for fields, why in (
        ([b"other"], "unexpected field 'other'"),
        ([b"name", b"name"], "sent twice"),
        ([b"f%d" % n for n in range(17)], "more than 16 parts"),
    ):
        sent = b"".join(part % f for f in fields) + b"--XyZ--\r\n"
        allowed = ("name", *(f"f{n}" for n in range(17)))
        with pytest.raises(FormError, match=why):
            multipart(sent, "multipart/form-data; boundary=XyZ", allowed, "package")


def test_the_daily_submissions_left_are_the_apis_count() -> None:
    """The page shows what WhoAmI says the limit leaves, for the competition it names;
    a competition past its open phase (no count) leaves nothing."""
    competition = arena_pb2.Competition(phase=arena_pb2.COMPETITION_PHASE_OPEN)
    competition.spec.name = "cup"
    competition.spec.rules.daily_submissions = 3
    who = arena_pb2.WhoAmIResponse(author="ana", competition="cup", submissions_left=2)
    left = daily_of(competition, who)
    assert (left.limit, left.used, left.remaining, left.next_at) == (3, 1, 2, None)
    who.submissions_left = 0
    who.next_submission_at.FromSeconds(1_000_000)
    full = daily_of(competition, who)
    assert (full.remaining, full.next_at) == (0, 1_000_000.0)
    closed = daily_of(competition, arena_pb2.WhoAmIResponse(author="ana", competition="cup"))
    assert (closed.used, closed.remaining, closed.next_at) == (3, 0, None)
    competition.spec.rules.daily_submissions = 0  # unset: the proto's 5
    assert daily_of(competition, who).limit == 5
