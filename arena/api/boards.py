"""Leaderboards computed once per change of the stored results.

A leaderboard refits ratings from every stored result (about 0.3 s for 20,000), and the
web page asks for six per view. Results change only when a worker stores one, which
bumps a version in the same Redis script; so a board is refitted only when the version
moved since it was last fitted, and requests that arrive meanwhile share that one fit.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

BoardKey = tuple[object, ...]
"""(tournament id or "" for the whole arena, game or "" for all games), and the scale
(``arena.ratings.scale.Scale``) for a board asked for on another."""
Board = TypeVar("Board")
"""What is cached: a ``Leaderboard``, or the OpenSkill table shown beside it."""


class BoardCache(Generic[Board]):
    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._boards: OrderedDict[BoardKey, tuple[str, Board]] = OrderedDict()
        self._fitting: dict[tuple[BoardKey, str], asyncio.Future[Board]] = {}

    async def get(self, key: BoardKey, version: str, fit: Callable[[], Awaitable[Board]]) -> Board:
        """The board for ``key`` as of results ``version``; ``fit`` computes it afresh.

        A fit may see results newer than ``version`` (read after it): the board is then
        fresher than its label and is refitted once more on the next change, never stale.
        """
        cached = self._boards.get(key)
        if cached is not None and cached[0] == version:
            self._boards.move_to_end(key)
            return cached[1]
        job = self._fitting.get((key, version))
        if job is None:
            job = asyncio.ensure_future(fit())
            self._fitting[key, version] = job
            job.add_done_callback(lambda _: self._fitting.pop((key, version), None))
        board = await asyncio.shield(job)  # a caller that goes away leaves the fit to others
        self._boards[key] = (version, board)
        self._boards.move_to_end(key)
        while len(self._boards) > self.size:
            self._boards.popitem(last=False)
        return board
