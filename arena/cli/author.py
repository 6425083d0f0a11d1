"""``arena author add``: the operator issues bot authors their tokens."""

from __future__ import annotations

import argparse
import sys

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
