"""Where the arena may dial a bot: the operator's bot network policy.

RegisterBot (the API) and PlayMatch (the referee) connect to addresses their callers
choose. Unchecked, a caller could make either one connect to anything it can reach, such
as a cloud's metadata service. A host name is resolved first, and every address it
resolves to must pass, since a connection may use any of them.

Refused unless the operator allows them by name: link-local networks (most clouds'
metadata services live there), the metadata addresses outside them, multicast, and the
unspecified addresses (Linux takes 0.0.0.0 for the local host). Loopback and private
ranges pass: the arena runs on laptops and in clusters. The operator narrows this with
an allow list (only those networks) and a deny list (never those networks, whatever the
allow list says). An allowed network that lies inside one refused by default (such as
169.254.0.0/16 itself) lifts that default for its addresses; a wider one (0.0.0.0/0)
does not.

Not caught here: a name whose answer changes between this check and the connection (DNS
rebinding). A firewall or Kubernetes NetworkPolicy on the referee's and the API's egress
is the firm boundary; this policy is the one that says why, in the caller's words.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOW_ENV = "ARENA_BOT_ALLOW"
DENY_ENV = "ARENA_BOT_DENY"
REFUSED_BY_DEFAULT: tuple[tuple[Network, str], ...] = tuple(
    (ipaddress.ip_network(network), why)
    for network, why in (  # the most specific first: its name is the one given
        ("169.254.169.254/32", "a cloud metadata address"),
        ("fd00:ec2::254/128", "a cloud metadata address (AWS)"),
        ("100.100.100.200/32", "a cloud metadata address (Alibaba Cloud)"),
        ("169.254.0.0/16", "link-local"),
        ("fe80::/10", "link-local"),
        ("224.0.0.0/4", "multicast"),
        ("ff00::/8", "multicast"),
        ("0.0.0.0/8", "unspecified"),
        ("::/128", "unspecified"),
    )
)
DEFAULTS_IN_WORDS = "link-local, cloud metadata, multicast and unspecified addresses"


class AddressRefused(ValueError):
    """The policy refuses a bot address; the message is for the caller."""


def parse_networks(text: str, source: str) -> tuple[Network, ...]:
    """Comma-separated networks in CIDR notation (a bare address is one network of its
    own); ``source`` names the flag or variable in the error."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            found.append(ipaddress.ip_network(item))
        except ValueError as error:
            raise ValueError(
                f"{source}: {error}; give networks such as 10.0.0.0/8,fd00::/8"
            ) from None
    return tuple(found)


@dataclass(frozen=True)
class BotNetworks:
    """An operator's policy: which addresses a bot may be dialled at (the module says
    how the lists combine)."""

    allow: tuple[Network, ...] = ()
    """If any, only these networks."""
    deny: tuple[Network, ...] = ()
    """Never these networks."""
    refuse_defaults: bool = True
    """Refuse ``REFUSED_BY_DEFAULT`` (all but the tools that play on one's own machine)."""

    @property
    def restricts(self) -> bool:
        return bool(self.allow or self.deny or self.refuse_defaults)

    def refusal(self, address: Address) -> str | None:
        """Why ``address`` may not be dialled (``is link-local (169.254.0.0/16)``), or None."""
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped  # ::ffff:169.254.169.254 is 169.254.169.254
        for network in self.deny:
            if address in network:
                return f"is in {network}, which the operator refuses"
        allowed_by = [network for network in self.allow if address in network]
        if self.allow and not allowed_by:
            return "is outside the networks the operator allows"
        if self.refuse_defaults:
            for network, why in REFUSED_BY_DEFAULT:
                if address in network and not any(_inside(a, network) for a in allowed_by):
                    return f"is {why} ({network})"
        return None

    def describe(self) -> str:
        """What the policy allows, in words."""
        where = f"addresses in {', '.join(map(str, self.allow))}" if self.allow else "any address"
        never = [f"those in {', '.join(map(str, self.deny))}"] if self.deny else []
        if self.refuse_defaults:
            never.append(DEFAULTS_IN_WORDS)
        return where + (f" except {' and '.join(never)}" if never else "")

    def check(self, address: str, resolved: Sequence[Address]) -> None:
        """Raise ``AddressRefused`` unless every address ``address`` resolved to passes."""
        host = _host(address)
        subject = host if _literal(host) is not None else f"{host} resolves to an address that"
        for ip in resolved:
            why = self.refusal(ip)
            if why is not None:
                raise AddressRefused(
                    f"bot address {address!r} is not allowed by the operator's bot network "
                    f"policy: {subject} {why}; allowed: {self.describe()}"
                )


DEFAULT = BotNetworks()
ANYWHERE = BotNetworks(refuse_defaults=False)
"""For the tools that play on one's own machine: whoever names the bot there owns the
network it is on."""


async def refusals(policy: BotNetworks, addresses: Iterable[str]) -> dict[str, str]:
    """Why each of ``addresses`` that the policy refuses may not be dialled; nothing to
    resolve for a policy that refuses nothing. A name that does not resolve passes:
    there is nothing to dial."""
    refused: dict[str, str] = {}
    if policy.restricts:
        for address in dict.fromkeys(addresses):
            try:
                policy.check(address, await resolve(address))
            except AddressRefused as error:
                refused[address] = str(error)
    return refused


async def resolve(address: str) -> list[Address]:
    """The addresses the host of ``address`` (``host:port``, already well formed) stands
    for: itself if it is one, none for a name that does not resolve."""
    host = _host(address)
    literal = _literal(host)
    if literal is not None:
        return [literal]
    try:
        answers = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(ipaddress.ip_address(str(a[4][0]).split("%")[0]) for a in answers))


def _host(address: str) -> str:
    host = address.rpartition(":")[0]
    return host[1:-1] if host.startswith("[") else host


def _literal(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _inside(allowed: Network, refused: Network) -> bool:
    return allowed.version == refused.version and allowed.subnet_of(refused)  # type: ignore[arg-type]
