"""``arena competition ...`` and ``arena author join``, run as a user runs them: a
round trip from a TOML file to a joined author, and bad input as one line and an exit
code."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from arena.store.authors import AuthorStore
from tests.competition.helpers import TOKEN, Api
from tests.support.cli import arena


def _utc(hours: float) -> str:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _file(tmp_path: Path, name: str, extra: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\n'
        'description = """\n# Winter\n\nBring *your* best bot.\n"""\n'
        "[[games]]\n"
        'game = "seep"\n'
        "[[games]]\n"
        'game = "bid-euchre"\n'
        "[timeline]\n"
        f"opens_at = {_utc(1)}\n"
        f"submissions_close_at = {_utc(48)}\n"
        f"final_ends_at = {_utc(72)}\n"
        "[rules]\n"
        'fair_play = "sealed"\n'
        "daily_submissions = 3\n"
        "final_los = 0.9\n"
        'move_deadline = "0.5s"\n' + extra
    )
    return path


def test_create_show_list_invite_join_cancel(api: Api, tmp_path: Path) -> None:
    op = ("--api", api.service.address, "--token", TOKEN)
    made = arena("competition", "create", str(_file(tmp_path, "winter")), *op)
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[0] == "competition winter: scheduled"
    assert "  games: seep, bid-euchre" in made.stdout.splitlines()
    assert "fair play sealed, partners isolated, 3 submissions a day" in made.stdout
    assert "0.5 s a move" in made.stdout
    assert "at most 50 final deals per pairing and game, final LOS 0.9," in made.stdout
    assert made.stdout.rstrip().endswith("Bring *your* best bot.")
    assert made.stderr.count("\n") == 1

    shown = arena("competition", "show", "winter", "--json", "--api", api.service.address)
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert found["phase"] == "COMPETITION_PHASE_SCHEDULED"
    assert found["spec"]["rules"]["daily_submissions"] == 3
    assert found["spec"]["rules"]["final_los"] == 0.9

    listed = arena("competition", "list", "--api", api.service.address)
    assert listed.returncode == 0, listed.stderr
    assert [line for line in listed.stdout.splitlines() if line.startswith("winter  scheduled")]

    invited = arena("competition", "invite", "winter", "--count", "2", "--expires", "2h", *op)
    assert invited.returncode == 0, invited.stderr
    codes = invited.stdout.split()
    assert len(codes) == 2 and all(c.startswith("invite-") for c in codes)
    assert "2 invite codes to winter (single-use" in invited.stderr
    assert invited.stderr.count("\n") == 1

    joined = arena("author", "join", "--invite", codes[0], "frost", "--api", api.service.address)
    assert joined.returncode == 0, joined.stderr
    token = joined.stdout.strip()
    assert joined.stdout == token + "\n" and AuthorStore(api.redis).who(token) == "frost"
    assert "the token of author frost, in competition winter" in joined.stderr
    assert joined.stderr.count("\n") == 1

    again = arena("author", "join", "--invite", codes[0], "snow", "--api", api.service.address)
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.startswith("arena: error: FAILED_PRECONDITION: this invite code is used up")
    assert again.stderr.count("\n") == 1

    cancelled = arena("competition", "cancel", "winter", *op)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout == "competition winter is cancelled\n"


def test_bad_input_is_one_line_and_an_exit_code(api: Api, tmp_path: Path) -> None:
    op = ("--api", api.service.address, "--token", TOKEN)
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("name = \n")
    naive = _file(tmp_path, "naive")
    naive.write_text(naive.read_text().replace("Z\n", "\n", 1))
    unknown_key = _file(tmp_path, "unknown", "colour = 3\n")
    backwards = _file(tmp_path, "backwards")
    backwards.write_text(
        backwards.read_text().replace(f"final_ends_at = {_utc(72)}", f"final_ends_at = {_utc(24)}")
    )
    for path, words in (
        (tmp_path / "missing.toml", "cannot read"),
        (bad_toml, "not TOML"),
        (naive, "has no offset"),
        (unknown_key, "colour"),
        (backwards, "INVALID_ARGUMENT: the timeline must be strictly increasing"),
    ):
        done = arena("competition", "create", str(path), *op)
        assert done.returncode == 1, done.stdout
        assert done.stdout == ""
        assert done.stderr.startswith("arena: error: ") and words in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
    expires = arena("competition", "invite", "winter", "--expires", "soon", *op)
    assert expires.returncode == 2 and "--expires takes a UTC time" in expires.stderr
    assert expires.stderr.count("\n") == 1
    usage = arena("competition", "invite", "winter", "--count", "0", *op)
    assert usage.returncode == 2 and usage.stderr.endswith(
        "(see arena competition invite --help)\n"
    )
    no_invite = arena("author", "join", "frost", "--api", api.service.address)
    assert no_invite.returncode == 2 and "--invite" in no_invite.stderr
    missing = arena("competition", "show", "nowhere", "--api", api.service.address)
    assert missing.returncode == 1
    assert missing.stderr == "arena: error: NOT_FOUND: no competition 'nowhere'\n"
