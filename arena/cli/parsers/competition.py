"""Arguments of ``arena competition``: the organiser's season (``docs/competitions.md``)."""

from __future__ import annotations

import argparse

from arena.cli.parsers import add_api_flag, positive, subcommands
from arena.cli.parsers.tournament import commitment


def competition(parser: argparse.ArgumentParser) -> None:
    commands = subcommands(parser)
    create = commands.add_parser(
        "create",
        help="create a competition from a TOML file (operator)",
        description="Create a competition from a TOML file whose keys are the fields of "
        "arena.v1.CompetitionSpec: name, description, [[games]] (game, [games.options]), "
        "[timeline] (opens_at, submissions_close_at, final_ends_at: TOML date-times with "
        "an offset, UTC), [rules] (fair_play: open, sealed or trusted; partners: shared or "
        "isolated; daily_submissions, active_versions, final_deals (the most), final_los, "
        "move_deadline such as "
        '"1s", time_bank, max_faults). docs/competitions.md has an example.',
    )
    create.add_argument("file", help="the competition's TOML file")
    create.add_argument("--json", action="store_true", help="print the stored competition as JSON")
    add_api_flag(create)
    create.set_defaults(run="competition:create")

    show = commands.add_parser("show", help="show a competition: phase, timeline, rules")
    show.add_argument("name", help="competition name")
    show.add_argument("--json", action="store_true", help="print JSON")
    add_api_flag(show)
    show.set_defaults(run="competition:show")

    wait = commands.add_parser(
        "wait",
        help="follow a competition until it reaches a phase, printing each as recorded",
        description="Print each phase the workers record, as it is recorded, until the "
        "competition reaches PHASE or a later one (exit 0). Exit 1 if it is cancelled "
        "first, or when --timeout passes.",
    )
    wait.add_argument("name", help="competition name")
    wait.add_argument(
        "--until",
        choices=("open", "closed", "final", "finished"),
        default="finished",
        help="the phase to wait for (default finished)",
    )
    wait.add_argument(
        "--timeout", type=positive(float), default=None, metavar="SECONDS",
        help="give up after this long (default: no limit)",
    )  # fmt: skip
    add_api_flag(wait)
    wait.set_defaults(run="competition:wait")

    listing = commands.add_parser("list", help="list competitions, newest first")
    listing.add_argument("--json", action="store_true", help="print JSON, one object a line")
    add_api_flag(listing)
    listing.set_defaults(run="competition:list_")

    cancel = commands.add_parser(
        "cancel", help="cancel a competition for good (operator): it never advances again"
    )
    cancel.add_argument("name", help="competition name")
    add_api_flag(cancel)
    cancel.set_defaults(run="competition:cancel")

    board = commands.add_parser(
        "board",
        help="the live board: one row per author (their best active version)",
        description="The competition's board from its open ladder: one row per author, "
        "their best-rated active version. With --mine and an author's token, also every "
        "version of theirs the ladder rated (the operator's token: everyone's).",
    )
    board.add_argument("name", help="competition name")
    board.add_argument("--game", default="", help="one game's ratings (default: all games)")
    board.add_argument(
        "--mine", action="store_true", help="also every version of the token's author"
    )
    board.add_argument("--json", action="store_true", help="print JSON")
    add_api_flag(board)
    board.set_defaults(run="competition:board")

    final = commands.add_parser(
        "final",
        help="mark one of your active versions as your final version (author)",
        description="Mark one of your active versions (name@version) as the one the final "
        "plays, with your author token. Unmarked, the final plays your best-rated active "
        "version. Only while the competition takes submissions; a later mark replaces it.",
    )
    final.add_argument("name", help="competition name")
    final.add_argument("version", help="one of your active versions, as name@version")
    add_api_flag(final)
    final.set_defaults(run="competition:final")

    verify = commands.add_parser(
        "verify",
        help="check a finished competition's final: seeds, records, and the board as a refit",
        description="Check the final round robin's seeds against the commitment published "
        "as it began, re-run every match record, and refit the frozen final board from the "
        "results. Exit 0 with one line when everything holds, 1 naming what does not.",
    )
    verify.add_argument("name", help="competition name")
    verify.add_argument(
        "--commitment",
        type=commitment,
        default="",
        metavar="HEX",
        help="the final's seed commitment as you saw it published when the final began (64 "
        "hex digits): the revealed seed must hash to it, whatever the arena serves now",
    )
    add_api_flag(verify)
    verify.set_defaults(run="competition_verify:verify")

    invite = commands.add_parser(
        "invite",
        help="issue invite codes (operator), printed one a line on stdout, shown only now",
    )
    invite.add_argument("name", help="competition name")
    invite.add_argument(
        "--count", type=positive(int), default=1, help="how many codes (default 1; at most 1000)"
    )
    invite.add_argument(
        "--uses",
        type=positive(int),
        default=1,
        help="authors each code may bring in (default 1: single-use)",
    )
    invite.add_argument(
        "--expires",
        metavar="WHEN",
        help="when the codes stop working: a UTC time (2027-03-01T12:00:00Z) or a time from "
        "now (90m, 12h, 7d); default: when submissions close",
    )
    add_api_flag(invite)
    invite.set_defaults(run="competition:invite")
