"""``arena author add``: the operator issues bot authors their tokens; ``arena author
join``: an author joins a competition by invite and gets their token; ``arena token
new``: where the operator's own tokens come from."""

from __future__ import annotations

import argparse
import os
import secrets
import sys

from arena.cli.common import CliError
from arena.cli.connect import arena_api
from arena.v1 import arena_pb2


def add(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        issued = api.AddAuthor(arena_pb2.AddAuthorRequest(name=args.name), timeout=10)
    print(issued.token)
    print(
        f"the token of author {issued.name}, shown only now (the arena keeps its hash): "
        "they pass it as --token, --token-file or $ARENA_API_TOKEN to `arena bot submit` "
        "and `arena bot logs`; any earlier token of theirs no longer works",
        file=sys.stderr,
    )


def join(args: argparse.Namespace) -> None:
    with arena_api(args) as api:
        joined = api.JoinCompetition(
            arena_pb2.JoinCompetitionRequest(invite=args.invite, author=args.name), timeout=10
        )
    print(joined.author.token)
    print(
        f"the token of author {joined.author.name}, in competition {joined.competition}, shown "
        "only now (the arena keeps its hash): pass it as --token, --token-file or "
        "$ARENA_API_TOKEN to `arena bot submit` and `arena bot logs`",
        file=sys.stderr,
    )


def new_token(args: argparse.Namespace) -> None:
    token = secrets.token_hex(32)
    if args.out is None:
        print(token)
        return
    try:  # O_EXCL: never over a token some server already reads
        fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CliError(f"{args.out} exists: a token file is never overwritten") from None
    except OSError as error:
        raise CliError(f"cannot write {args.out}: {error}") from None
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    print(
        f"a new token is in {args.out} (readable by you only): give it to a server with "
        f"--token-file {args.out}, and to its clients the same way",
        file=sys.stderr,
    )
