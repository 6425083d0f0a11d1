"""``arena backup`` and ``arena restore``: the arena's Redis database to a file and back
into an empty one (``arena.store.backup``), the records replays are built from with the
results (deploy/README.md, *Backup and restore*)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli.common import CliError

if TYPE_CHECKING:
    import redis


def make(args: argparse.Namespace) -> None:
    from arena.store.backup import backup

    client = _connect(args.redis)
    try:
        count = backup(client, Path(args.file))
    except OSError as error:
        raise CliError(f"cannot write {args.file}: {error.strerror}") from None
    print(f"{count} keys copied to {args.file}")


def put_back(args: argparse.Namespace) -> None:
    from arena.store.backup import BackupError, restore

    client = _connect(args.redis)
    try:
        count = restore(client, Path(args.file))
    except BackupError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"cannot read {args.file}: {error.strerror}") from None
    print(f"{count} keys restored from {args.file}")


def _connect(url: str) -> redis.Redis:
    from arena.store.reach import StoreUnreachable, connect

    try:
        return connect(url)
    except StoreUnreachable as error:
        raise CliError(str(error)) from None
