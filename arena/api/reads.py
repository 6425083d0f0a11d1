"""A budget per anonymous caller for the API's costly reads.

Reads are open (``arena.access``), and a few cost the API real work whoever asks:
OpenSkill ratings (GetLeaderboard with ``openskill``, a second fit that replays every
result in order), CompareBots (one pair a call, so reading a board's every pair is n²
calls, on boards of the caller's choosing, fitted if not cached), every result of a
tournament (ListResults without a ``page_size``, or any page of a running tournament,
whose results are all read to sort them by public id) and a match re-run on its engine
(GetMatchReplay). Each such call from a caller without a token the API knows spends one
read of its address's budget (``arena.throttle``: 10 a second in bursts of 60,
``arena api serve --reads-per-s``, ``--read-burst``); past it the call is refused
RESOURCE_EXHAUSTED, saying what was limited and when to retry, with ``retry-after``
(whole seconds) in its trailers. Every other read (ListBots, GetTournament, a plain
GetLeaderboard, which is fitted at most once per change of the results whoever asks:
``arena.api.boards``) is never counted. GetCollusionReport, which reads every result
too, is the operator's: counted only on an API without an operator token, where
anyone may call it.

A caller with a token is known and not counted: the operator, an author (looked up in
Redis only on a costly call that carries a token that is neither of the others) and
the holder of the API's read token, which opens nothing else. That one is for a client
that reads for many people, the web site (``arena leaderboard serve
--read-token-file``): to the API it is one address, whose visitors would otherwise
share one budget. As with the referee's WatchMatch shares, a token
the API was not given is held by nobody: without an operator token every caller may
write, but still reads within its budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena.access import holds_any, sent_token
from arena.grpc_server import abort
from arena.throttle import Throttle, peer_host

if TYPE_CHECKING:
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]


class ReadBudget:
    """Spends anonymous callers' costly reads from ``throttle``; callers holding the
    ``operator``'s token, the ``reader``'s or one that ``author_of`` knows pass free."""

    def __init__(
        self,
        throttle: Throttle,
        operator: str | None,
        reader: str | None,
        author_of: Callable[[str], str | None],
    ) -> None:
        self.throttle = throttle
        self._free = (operator, reader)
        self._author_of = author_of

    async def spend(self, what: str, context: Context) -> None:
        """Spend one of the caller's costly reads on ``what`` (the call, as the refusal
        names it), or refuse it RESOURCE_EXHAUSTED with when to retry."""
        if await self._known(context.invocation_metadata()):
            return
        wait = self.throttle.take(peer_host(context.peer()))
        if wait is None:
            return
        context.set_trailing_metadata((("retry-after", str(wait)),))
        await abort(
            context,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"{what} is a costly read, limited to {self.throttle.rate_per_s:g} a second "
            f"(in bursts of {self.throttle.burst}) for each address calling without a "
            f"token; retry in {wait} s (retry-after), or call with a token: the API's "
            "read token for a site that reads for many people",
        )

    async def _known(self, metadata: Iterable[tuple[str, Any]] | None) -> bool:
        """Whether the call carries the operator's token, the reader's or an author's
        (looked up only if it carries one that is neither)."""
        if holds_any(metadata, self._free):
            return True
        token = sent_token(metadata)
        return bool(token) and await asyncio.to_thread(self._author_of, token) is not None
