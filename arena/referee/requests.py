"""Validation of PlayMatch requests: every rejection says what was wrong and what is allowed."""

from __future__ import annotations

import ipaddress
import re
import uuid

from arena import limits
from arena.games import OptionError, UnknownGameError, get_game
from arena.referee.faults import FaultPolicy
from arena.referee.match import MatchSpec, new_token
from arena.v1 import referee_pb2

_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\Z"
)


class InvalidRequest(ValueError):
    """The request cannot be played; the message is for the caller."""


def check_address(address: str) -> str:
    """Accept ``host:port`` (hostname, IPv4, or ``[IPv6]``) with port 1..65535."""
    allowed = "use host:port, e.g. 127.0.0.1:50051, bots.example:7000 or [::1]:50051"
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
        if not limits.BOT_NAME.match(name):
            raise InvalidRequest(
                f"bad bot name {name!r}: use 1 to 40 letters, digits, '-', '_' or '.'"
            )
    if len(bots) == info.num_seats:
        seat_bots, seat_names = tuple(bots), tuple(names)
    elif len(bots) == info.num_teams:
        seat_bots = tuple(bots[t] for t in info.seat_teams)
        seat_names = tuple(names[t] for t in info.seat_teams)
    else:
        counts = sorted({info.num_seats, info.num_teams})
        raise InvalidRequest(
            f"{info.name} takes {' or '.join(map(str, counts))} bot addresses "
            f"(one per seat or one per team), got {len(bots)}"
        )
    for address in bots:
        check_address(address)
    try:
        options = info.resolve_options(dict(request.options))
    except OptionError as error:
        raise InvalidRequest(str(error)) from None
    try:
        deadline = limits.move_deadline_s(
            request.move_deadline if request.HasField("move_deadline") else None
        )
        time_bank = limits.time_bank_s(request.time_bank if request.HasField("time_bank") else None)
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
        seat_bots=seat_bots,
        seat_names=seat_names,
        seed=request.seed,
        options=options,
        move_deadline_s=deadline,
        policy=FaultPolicy.from_proto(request.fault_policy),
        time_bank_s=time_bank,
        disclosure=disclosure,
        replay_id="" if public else new_token(),
    )
