"""``arena store migrate``: data earlier builds stored, upgraded to today's shapes
(``arena.store.migrate``)."""

from __future__ import annotations

import argparse

from arena.cli.common import CliError


def migrate(args: argparse.Namespace) -> None:
    import redis

    from arena.records import RecordError
    from arena.store.migrate import migrate as run
    from arena.store.reach import StoreUnreachable, connect, unreachable

    try:
        client = connect(args.redis)
    except StoreUnreachable as error:
        raise CliError(str(error)) from None
    try:
        counts = run(client, dry_run=args.dry_run)
    except RecordError as error:
        raise CliError(f"cannot upgrade {error}") from None
    except redis.RedisError as error:
        raise CliError(unreachable(client, error)) from None
    for count in counts:
        print(count.line(args.dry_run))
    if not any(count.upgraded for count in counts):
        print("nothing to upgrade: every record is of today's shape")
