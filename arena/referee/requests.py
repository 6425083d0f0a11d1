"""Validation of PlayMatch requests: every rejection says what was wrong and what is allowed."""

from __future__ import annotations

import ipaddress
import re
import uuid

from arena import limits
from arena.games import OptionError, UnknownGameError, get_game
from arena.hosting.runtimes import NAMES
from arena.match_rules.faults import FaultPolicy
from arena.referee.hosted import HostedEntry
from arena.referee.match import MatchSpec, new_token
from arena.v1 import referee_pb2

_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\Z"
)

PACKAGE_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


class InvalidRequest(ValueError):
    """The request cannot be played; the message is for the caller."""


def check_address(address: str) -> str:
    """Accept ``host:port`` (hostname, IPv4, or ``[IPv6]``) with port 1..65535."""
    allowed = "use host:port, e.g. 127.0.0.1:50051, bots.example:7000 or [::1]:50051"
    if address.startswith("unix:"):
        raise InvalidRequest(
            f"bot address {address[:100]!r} is a Unix socket; the referee dials host:port "
            "only (e.g. 127.0.0.1:50051), and starts the bots it hosts itself (hosted)"
        )
    host, sep, port = address.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise InvalidRequest(f"malformed bot address {address!r}: {allowed}")
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise InvalidRequest(f"malformed bot address {address!r}: {allowed}") from None
    elif not _HOSTNAME.match(host):
        raise InvalidRequest(f"malformed bot address {address!r}: {allowed}")
    return address


def match_spec(request: referee_pb2.PlayMatchRequest) -> MatchSpec:
    try:
        game = get_game(request.game)
    except UnknownGameError as error:
        raise InvalidRequest(str(error)) from None
    info = game.info
    bots = list(request.bots)
    names = list(request.bot_names) or [f"bot {n}" for n in range(1, len(bots) + 1)]
    if len(names) != len(bots):
        raise InvalidRequest(
            f"bot_names has {len(names)} names for {len(bots)} bot addresses: "
            "give one per address, or none"
        )
    for name in request.bot_names:
        if not limits.ENTRY_NAME.match(name):
            raise InvalidRequest(
                f"bad bot name {name!r}: use 1 to 40 letters, digits, '-', '_' or '.', "
                "then for a hosted bot '@' and its version"
            )
    if len(bots) == info.num_seats:
        entry_of_seat = tuple(range(info.num_seats))
    elif len(bots) == info.num_teams:
        entry_of_seat = tuple(info.seat_teams)
    else:
        counts = sorted({info.num_seats, info.num_teams})
        raise InvalidRequest(
            f"{info.name} takes {' or '.join(map(str, counts))} bot addresses "
            f"(one per seat or one per team), got {len(bots)}"
        )
    hosted = _hosted_entries(request)
    for index, address in enumerate(bots):
        if index not in hosted:
            _check_remote(index, address)
    try:
        options = info.resolve_options(dict(request.options))
    except OptionError as error:
        raise InvalidRequest(str(error)) from None
    try:
        deadline = limits.move_deadline_s(
            request.move_deadline if request.HasField("move_deadline") else None
        )
        time_bank = limits.time_bank_s(request.time_bank if request.HasField("time_bank") else None)
        delay = limits.broadcast_delay_s(
            request.broadcast_delay if request.HasField("broadcast_delay") else None
        )
        limits.max_faults(request.fault_policy.max_faults, "fault_policy.max_faults")
    except limits.LimitError as error:
        raise InvalidRequest(str(error)) from None
    match_id = request.match_id or uuid.uuid4().hex
    if not limits.MATCH_ID.match(match_id):
        raise InvalidRequest(
            f"bad match_id {request.match_id!r}: use 1 to 64 letters, digits, '-' or '_'"
        )
    if request.disclosure not in referee_pb2.DealDisclosure.values():
        allowed = ", ".join(referee_pb2.DealDisclosure.keys()[1:])
        raise InvalidRequest(f"unknown disclosure {request.disclosure}; allowed: {allowed}")
    disclosure = request.disclosure or referee_pb2.DEAL_DISCLOSURE_PUBLIC
    public = disclosure == referee_pb2.DEAL_DISCLOSURE_PUBLIC
    return MatchSpec(
        match_id=match_id,
        game=game,
        seat_bots=tuple(bots[e] for e in entry_of_seat),
        seat_names=tuple(names[e] for e in entry_of_seat),
        seat_hosted=tuple(hosted.get(e) for e in entry_of_seat) if hosted else (),
        seed=request.seed,
        options=options,
        move_deadline_s=deadline,
        policy=FaultPolicy.from_proto(request.fault_policy),
        time_bank_s=time_bank,
        disclosure=disclosure,
        replay_id="" if public else new_token(),
        broadcast_delay_s=delay,
    )


def _hosted_entries(request: referee_pb2.PlayMatchRequest) -> dict[int, HostedEntry]:
    """The entries of ``request.hosted``, each for an empty entry of ``bots``."""
    bots = request.bots
    entries = {}
    for index in sorted(request.hosted):
        bot = request.hosted[index]
        where = f"hosted[{index}]"
        if not 0 <= index < len(bots):
            raise InvalidRequest(
                f"{where} names no entry of bots: its key is the index of an empty entry "
                f"of bots, 0 to {len(bots) - 1}"
            )
        if bots[index]:
            raise InvalidRequest(
                f"bots[{index}] is {bots[index][:100]!r}, but {where} hosts that bot: "
                "leave a hosted entry's address empty (the referee starts it itself)"
            )
        entries[index] = hosted_entry(index, bot, where)
    return entries


def hosted_entry(index: int, bot: referee_pb2.HostedBot, where: str) -> HostedEntry:
    """One HostedBot of a request, which the request calls ``where`` (``hosted[0]``,
    ``bot``), checked: a runtime of the allow-list and a SHA-256."""
    if bot.runtime not in NAMES:
        raise InvalidRequest(
            f"{where}.runtime {bot.runtime[:40]!r} is not on the allow-list; "
            f"allowed: {', '.join(NAMES)}"
        )
    if not PACKAGE_SHA256.match(bot.package_sha256):
        raise InvalidRequest(
            f"{where}.package_sha256 {bot.package_sha256[:80]!r} is not a SHA-256: "
            "give the package's digest as 64 lowercase hex digits"
        )
    return HostedEntry(index, bot.package_sha256, bot.runtime, bot.command, bot.package, where)


def checked_bot(request: referee_pb2.CheckBotRequest) -> HostedEntry:
    """The bot of a CheckBot request, checked as PlayMatch checks a hosted entry."""
    if not request.HasField("bot"):
        raise InvalidRequest("bot is missing: give the HostedBot to start")
    return hosted_entry(0, request.bot, "bot")


def _check_remote(index: int, address: str) -> None:
    if not address:
        raise InvalidRequest(
            f"bots[{index}] is empty, and hosted has no entry {index}: give the bot's "
            f"host:port (e.g. 127.0.0.1:50051), or the package to host in hosted[{index}]"
        )
    check_address(address)
