"""The API's leaderboard cache: one fit per results version, shared by concurrent readers."""

from __future__ import annotations

import asyncio

from arena.api.boards import BoardCache
from arena.ratings.leaderboard import Leaderboard
from tests.support.waiting import wait_until_async


def test_concurrent_readers_share_one_fit_and_a_new_version_refits() -> None:
    fits: list[str] = []

    async def main() -> list[Leaderboard]:
        cache = BoardCache[Leaderboard]()
        release = asyncio.Event()

        async def fit(version: str) -> Leaderboard:
            fits.append(version)
            await release.wait()
            return Leaderboard(game="", rows=(), draw_elo=0.0, matches=len(fits))

        readers = [
            asyncio.ensure_future(cache.get(("", ""), "v1", lambda: fit("v1"))) for _ in range(5)
        ]
        await wait_until_async(
            lambda: fits == ["v1"], timeout=10, what="the first reader to fit v1"
        )
        release.set()
        boards = list(await asyncio.gather(*readers))
        boards.append(await cache.get(("", ""), "v1", lambda: fit("v1")))  # cached
        boards.append(await cache.get(("", ""), "v2", lambda: fit("v2")))  # refitted
        return boards

    boards = asyncio.run(main())
    assert fits == ["v1", "v2"]
    assert [b.matches for b in boards] == [1] * 6 + [2]


def test_the_cache_keeps_only_the_most_recently_read_boards() -> None:
    async def main() -> int:
        cache = BoardCache[Leaderboard](size=2)
        fits = 0

        async def fit() -> Leaderboard:
            nonlocal fits
            fits += 1
            return Leaderboard(game="", rows=(), draw_elo=0.0, matches=0)

        for key in [("a", ""), ("b", ""), ("a", ""), ("c", ""), ("a", ""), ("b", "")]:
            await cache.get(key, "v", fit)
        return fits

    # a, b fitted; a cached; c evicts b; a cached; b fitted again.
    assert asyncio.run(main()) == 4
