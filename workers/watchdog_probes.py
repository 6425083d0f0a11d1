"""The watchdog's Hello to the entries a ladder has suspended
(``arena.tournament.formats.ladder_suspension``), so that one that answers is paired again.

Each watchdog round looks, in every running ladder, for the suspended entries due a
probe (from their suspension's ``probe_from`` on, then every ``probe_every``), notes the
probe in Redis (``arena.store.suspensions``: the next round, in whichever worker, then
does not probe them again) and says Hello to them in a thread of its own, so a bot that
takes its time to answer never holds up the watchdog's round. An entry answered when:

- a remote bot, dialled at its address as the referee would (the operator's bot network
  policy from ``ARENA_BOT_ALLOW`` and ``ARENA_BOT_DENY``, TLS with the CAs in
  ``ARENA_BOT_TLS_CA`` if set: ``workers.settings``), answers Hello within 5 s, as
  ``RegisterBot`` asks;
- a hosted version, started once by a referee (``Referee.CheckBot``, the check SubmitBot
  runs; the package is sent first if the referee lacks it), answers Hello.

Then the probe's answer is noted and the ladder is stepped: its scheduler pairs the
entry again (``workers.scheduler``). Why a probe failed goes to the worker's log only: a
reader of the ladder learns that the entry has not answered, not what listens where.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from functools import cache

import grpc

from arena.api.probe import HELLO_TIMEOUT_S
from arena.bot_networks import AddressRefused
from arena.bot_networks import resolve as resolve_address
from arena.hosting.referee_calls import PackageGone, lacked
from arena.referee.bot_client import BotConnection, BotFault
from arena.referee.hosted import NOT_STARTED
from arena.store.suspensions import LadderProbes
from arena.store.tournaments import TournamentStore
from arena.tls import channel_credentials
from arena.tournament import formats
from arena.tournament.formats import ladder_suspension
from arena.tournament.spec import Entry
from arena.v1 import referee_pb2, referee_pb2_grpc
from workers import referees, scheduler
from workers.settings import current
from workers.stores import client

log = logging.getLogger(__name__)
settings = current()

CHECK_TIMEOUT_S = 120.0
"""How long a referee may take to start a hosted version and hear its Hello."""


@dataclass(frozen=True)
class Due:
    """One probe to make: a suspended entry of a ladder, in its ``times``-th suspension."""

    tournament_id: str
    entry: Entry
    times: int
    at: float


@cache
def _bot_credentials() -> grpc.ChannelCredentials | None:
    ca = settings.bot_tls_ca
    return channel_credentials(ca) if ca else None


class Prober:
    """Starts each round's probes in a thread; a round while the last ones still run
    starts none (their entries are not due again before then anyway)."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None

    def round(self, store: TournamentStore, running: list[str]) -> list[Due]:
        """Note and start the probes due now; the probes started."""
        if self.thread is not None and self.thread.is_alive():
            return []
        found = due(store, running, time.time())
        if found:
            self.thread = threading.Thread(
                target=probe_all, args=(found,), name="arena-ladder-probes", daemon=True
            )
            self.thread.start()
        return found


def due(store: TournamentStore, running: list[str], now: float) -> list[Due]:
    """The suspended entries of the running ladders due a Hello at ``now``, each noted as
    probed (so that no other round probes it again before ``probe_every``)."""
    probes = LadderProbes(client())
    found: list[Due] = []
    for tournament_id in running:
        record = store.get(tournament_id)
        if record is None or not formats.get(record.spec.format).suspends or not record.scheduler:
            continue
        state = record.scheduler["format"]
        held = ladder_suspension.suspended(state)
        if not held:
            continue
        last = {
            entry: probe.at
            for entry, probe in probes.all(tournament_id).items()
            if entry in held and probe.times == held[entry]["times"]
        }
        lineup = store.lineup(tournament_id)
        for label in ladder_suspension.due(state, now, last):
            entry = lineup.get(label)
            if entry is None:
                continue  # never seated: nothing to dial
            times = int(held[label]["times"])
            probes.start(tournament_id, label, times, now)
            found.append(Due(tournament_id, entry, times, now))
    return found


def probe_all(found: list[Due]) -> None:
    """Say Hello to each, note the answers, and step the ladders where one answered."""
    try:
        answers = asyncio.run(_hello_all(found))
    except Exception:  # the thread must not die silently: the next rounds try again
        log.exception("ladder probes failed")
        return
    probes = LadderProbes(client())
    stepped: set[str] = set()
    for probe, why_not in zip(found, answers, strict=True):
        label = probe.entry.label
        if why_not is None:
            log.warning("ladder %s: %s answered Hello", probe.tournament_id, label)
        else:
            log.warning(
                "ladder %s: suspended %s did not answer Hello: %s",
                probe.tournament_id,
                label,
                why_not,
            )
        probes.finish(probe.tournament_id, label, probe.times, probe.at, why_not is None)
        if why_not is None:
            stepped.add(probe.tournament_id)
    for tournament_id in sorted(stepped):
        scheduler.advance(tournament_id)


async def _hello_all(found: list[Due]) -> list[str | None]:
    return list(await asyncio.gather(*(hello(p.entry) for p in found)))


async def hello(entry: Entry) -> str | None:
    """None if ``entry`` answered Hello, else why not (for the log)."""
    if entry.hosted is not None:
        return await asyncio.to_thread(_check_hosted, entry)
    return await _hello_remote(entry.address)


async def _hello_remote(address: str) -> str | None:
    resolved = await resolve_address(address)
    try:
        settings.bot_networks.check(address, resolved)
    except AddressRefused as error:
        return str(error)
    if not resolved:
        return "its host name does not resolve"
    connection = BotConnection.open(address, _bot_credentials())
    try:
        await connection.say_hello(HELLO_TIMEOUT_S)
    except BotFault as fault:
        return fault.detail
    finally:
        await connection.close()
    return None


def _check_hosted(entry: Entry) -> str | None:
    """Referee.CheckBot on each referee in turn until one can tell."""
    assert entry.hosted is not None
    package = entry.hosted
    request = referee_pb2.CheckBotRequest(
        bot=referee_pb2.HostedBot(
            package_sha256=package.sha256, runtime=package.runtime, command=package.command
        )
    )
    why = "no referee is configured"
    for referee in settings.referees:
        try:
            return _check_on(referee, request)
        except (grpc.RpcError, grpc.FutureTimeoutError) as error:
            why = referees.reason(referee, error)
    return why


def _check_on(referee: str, request: referee_pb2.CheckBotRequest) -> str | None:
    """None if the bot answered on ``referee``, why not if it did not start or answer;
    raises if the referee could not tell (unreachable, refused, ...)."""
    with referees.channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)

        def check() -> None:
            stub.CheckBot(request, metadata=referees.metadata(), timeout=CHECK_TIMEOUT_S)

        try:
            referees.with_packages(check, stub, 1)  # its one package, if the referee lacks it
        except PackageGone as error:
            return str(error)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            details = error.details() or ""
            if details.startswith(NOT_STARTED):
                return details  # the bot's own failure
            if lacked(error) is not None:
                return "the referee kept asking for the package"
            raise  # this referee cannot run it (its runtime, say): the next one
    return None
