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

An IPv6 address that embeds an IPv4 address reaches it through the kernel, a translator
or a tunnel, so each IPv4 address it embeds must pass as if given itself, defaults and
the operator's lists alike, and so must the IPv6 address (``embedded_ipv4`` lists the
forms: IPv4-mapped, -translated and -compatible, NAT64, 6to4, Teredo). An IPv4-mapped
address is only its IPv4 address: no IPv6 packet is ever sent to it. So an operator who
allows 10.0.0.0/8 alone refuses ``64:ff9b::a00:1``; allowing ``64:ff9b::a00:0/104`` as
well admits it (DNS64 networks synthesize such addresses for IPv4-only names).

Not caught here: a name whose answer changes between this check and the connection (DNS
rebinding), and IPv4 addresses behind prefixes only the network knows (a NAT64
network-specific prefix, ISATAP). A firewall or Kubernetes NetworkPolicy on the
referee's and the API's egress is the firm boundary; this policy is the one that says
why, in the caller's words.
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
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""The well-known NAT64 prefix (RFC 6052): the IPv4 address is the last 32 bits."""
NAT64_LOCAL_USE = ipaddress.IPv6Network("64:ff9b:1::/48")
"""The local-use NAT64 prefix (RFC 8215): a network's translator uses it, or a longer
prefix inside it, which places the IPv4 address differently (``nat64_ipv4``)."""
NAT64_LOCAL_USE_LENGTHS = (48, 56, 64, 96)
"""The RFC 6052 prefix lengths a translator may use inside ``NAT64_LOCAL_USE``."""
ZERO_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
"""'This network' (RFC 1122): never a destination, so never what a translator sends to."""


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
        """Why ``address`` may not be dialled (``is link-local (169.254.0.0/16)``, ``embeds
        169.254.169.254 (NAT64), a cloud metadata address (169.254.169.254/32)``), or None."""
        if isinstance(address, ipaddress.IPv6Address):
            for ipv4, form in embedded_ipv4(address):
                why = self._verdict(ipv4)
                if why is not None:
                    return f"embeds {ipv4} ({form}), {why}"
            if address.ipv4_mapped is not None:
                return None  # the kernel dials the IPv4 address: it was judged above
        why = self._verdict(address)
        return None if why is None else f"is {why}"

    def _verdict(self, address: Address) -> str | None:
        """What the policy refuses ``address`` as (``link-local (169.254.0.0/16)``), or
        None; judges the address alone, not what it embeds."""
        for network in self.deny:
            if address in network:
                return f"in {network}, which the operator refuses"
        allowed_by = [network for network in self.allow if address in network]
        if self.allow and not allowed_by:
            return "outside the networks the operator allows"
        if self.refuse_defaults:
            for network, why in REFUSED_BY_DEFAULT:
                if address in network and not any(_inside(a, network) for a in allowed_by):
                    return f"{why} ({network})"
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
        literal = _literal(host)
        if literal is None:
            subject = f"{host} resolves to an address that"
        else:  # an IPv6 literal in brackets, as the referee's watchers see it redacted
            subject = f"[{host}]" if literal.version == 6 else host
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


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[tuple[ipaddress.IPv4Address, str]]:
    """Each IPv4 address that ``address`` embeds, with the form that embeds it: dialling
    the IPv6 address sends to the IPv4 one (through the kernel, a translator or a tunnel)."""
    bits = int(address)
    high, low = bits >> 32, ipaddress.IPv4Address(bits & 0xFFFFFFFF)
    found: list[tuple[ipaddress.IPv4Address, str]] = []
    if high == 0xFFFF:  # ::ffff:0:0/96
        found.append((low, "IPv4-mapped"))
    elif high == 0xFFFF_0000:  # ::ffff:0:0:0/96, SIIT (RFC 2765)
        found.append((low, "IPv4-translated"))
    elif high == 0 and bits > 1:  # ::/96 except :: and ::1 (RFC 4291, deprecated)
        found.append((low, "IPv4-compatible"))
    elif address in NAT64:
        found.append((low, "NAT64"))
    elif address in NAT64_LOCAL_USE:
        # Which prefix the network's translator uses is not known here, so each reading
        # must pass; but one in 0.0.0.0/8 is the zero padding of another layout (as in
        # 64:ff9b:1::a00:1), and no translator sends there (RFC 1122: not a destination).
        readings = ((nat64_ipv4(address, n), n) for n in NAT64_LOCAL_USE_LENGTHS)
        found.extend(
            (ipv4, f"NAT64 local-use, as a /{length} prefix")
            for ipv4, length in readings
            if ipv4 not in ZERO_NETWORK
        )
    if address.sixtofour is not None:  # 2002::/16: tunnelled to the IPv4 address
        found.append((address.sixtofour, "6to4"))
    if address.teredo is not None:
        # 2001::/32 embeds a Teredo server and its client's public address (XORed with
        # 0xffffffff; ``teredo`` undoes that). With native IPv6 the referee sends to a
        # relay, which forwards to the client; but a host that is a Teredo client itself
        # (miredo) sends UDP to the peer's server and then to the client directly. Both
        # must pass: Teredo is retired, so refusing costs honest callers nothing.
        server, client = address.teredo
        found += [(server, "Teredo server"), (client, "Teredo client")]
    return found


def nat64_ipv4(address: ipaddress.IPv6Address, prefix_length: int) -> ipaddress.IPv4Address:
    """The IPv4 address a translator with a ``prefix_length`` prefix (32, 40, 48, 56, 64
    or 96) reads from ``address``: the 32 bits after the prefix, skipping bits 64 to 71,
    the u octet (RFC 6052, section 2.2)."""
    bits = int(address)
    if prefix_length == 96:
        return ipaddress.IPv4Address(bits & 0xFFFFFFFF)
    without_u = ((bits >> 64) << 56) | (bits & ((1 << 56) - 1))  # 120 bits
    return ipaddress.IPv4Address((without_u >> (88 - prefix_length)) & 0xFFFFFFFF)


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
