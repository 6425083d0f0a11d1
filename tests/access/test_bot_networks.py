"""The operator's bot network policy on its own: which addresses a bot may be dialled
at, for literal addresses and for names that resolve to several."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from arena.bot_networks import (
    ANYWHERE,
    DEFAULT,
    AddressRefused,
    BotNetworks,
    parse_networks,
    refusals,
    resolve,
)

ip = ipaddress.ip_address


def policy(allow: str = "", deny: str = "") -> BotNetworks:
    return BotNetworks(parse_networks(allow, "allow"), parse_networks(deny, "deny"))


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.9",
        "192.168.1.1",
        "8.8.8.8",
        "::1",
        "fd12::1",
        "2001:db8::1",
    ],
)
def test_loopback_private_and_public_addresses_pass_by_default(address: str) -> None:
    assert DEFAULT.refusal(ip(address)) is None


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("169.254.169.254", "is a cloud metadata address (169.254.169.254/32)"),
        ("fd00:ec2::254", "is a cloud metadata address (AWS) (fd00:ec2::254/128)"),
        ("100.100.100.200", "is a cloud metadata address (Alibaba Cloud) (100.100.100.200/32)"),
        ("169.254.1.1", "is link-local (169.254.0.0/16)"),
        ("fe80::1", "is link-local (fe80::/10)"),
        ("224.0.0.1", "is multicast (224.0.0.0/4)"),
        ("ff02::1", "is multicast (ff00::/8)"),
        ("0.0.0.0", "is unspecified (0.0.0.0/8)"),
        ("::", "is unspecified (::/128)"),
        ("::ffff:169.254.169.254", "is a cloud metadata address (169.254.169.254/32)"),
    ],
)
def test_link_local_metadata_multicast_and_unspecified_are_refused_by_default(
    address: str, why: str
) -> None:
    assert DEFAULT.refusal(ip(address)) == why


def test_an_allow_list_admits_only_its_networks_in_both_families() -> None:
    only = policy(allow="10.0.0.0/8, fd00::/8")
    assert only.refusal(ip("10.9.8.7")) is None
    assert only.refusal(ip("fd00::1")) is None
    assert only.refusal(ip("127.0.0.1")) == "is outside the networks the operator allows"
    assert only.refusal(ip("::1")) == "is outside the networks the operator allows"


def test_deny_overrides_allow() -> None:
    mixed = policy(allow="10.0.0.0/8", deny="10.9.0.0/16")
    assert mixed.refusal(ip("10.8.0.1")) is None
    assert mixed.refusal(ip("10.9.0.1")) == "is in 10.9.0.0/16, which the operator refuses"
    # A deny list alone leaves everything else as the defaults say.
    assert policy(deny="::1").refusal(ip("::1")) == "is in ::1/128, which the operator refuses"
    assert policy(deny="::1").refusal(ip("127.0.0.1")) is None


def test_only_an_allowed_network_inside_a_default_one_lifts_it() -> None:
    assert policy(allow="0.0.0.0/0").refusal(ip("169.254.169.254")) is not None
    link_local = policy(allow="169.254.0.0/16")
    assert link_local.refusal(ip("169.254.1.1")) is None
    # The metadata address is a narrower default: allowing link-local does not lift it.
    assert link_local.refusal(ip("169.254.169.254")) == (
        "is a cloud metadata address (169.254.169.254/32)"
    )
    assert policy(allow="169.254.169.254").refusal(ip("169.254.169.254")) is None
    assert ANYWHERE.refusal(ip("169.254.169.254")) is None and not ANYWHERE.restricts


def test_every_address_a_name_resolves_to_must_pass() -> None:
    private, metadata = ip("10.0.0.5"), ip("169.254.169.254")
    DEFAULT.check("bots.example:7000", [private, ip("fd00::5")])
    with pytest.raises(AddressRefused) as refused:
        DEFAULT.check("bots.example:7000", [private, metadata])
    assert str(refused.value) == (
        "bot address 'bots.example:7000' is not allowed by the operator's bot network policy: "
        "bots.example resolves to an address that is a cloud metadata address "
        "(169.254.169.254/32); allowed: any address except link-local, cloud metadata, "
        "multicast and unspecified addresses"
    )


def test_a_refusal_names_a_literal_address_and_says_what_is_allowed() -> None:
    with pytest.raises(AddressRefused) as refused:
        policy(allow="10.0.0.0/8", deny="10.9.0.0/16").check("[::1]:50051", [ip("::1")])
    assert str(refused.value) == (
        "bot address '[::1]:50051' is not allowed by the operator's bot network policy: "
        "::1 is outside the networks the operator allows; allowed: addresses in 10.0.0.0/8 "
        "except those in 10.9.0.0/16 and link-local, cloud metadata, multicast and "
        "unspecified addresses"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10.0.0.1/8", "has host bits set"),
        ("10.0.0.0/33", "10.0.0.0/33"),
        ("intranet", "'intranet' does not appear to be an IPv4 or IPv6 network"),
    ],
)
def test_a_bad_network_is_refused_naming_its_source(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_networks(f"10.0.0.0/8,{text}", "ARENA_BOT_ALLOW")
    assert str(caught.value).startswith("ARENA_BOT_ALLOW: ")
    assert message in str(caught.value)


def test_names_are_resolved_and_literals_are_not() -> None:
    assert asyncio.run(resolve("[fe80::1]:1")) == [ip("fe80::1")]
    assert ip("127.0.0.1") in asyncio.run(resolve("localhost:1"))
    refused = asyncio.run(refusals(policy(deny="127.0.0.0/8"), ["localhost:1", "10.0.0.1:1"]))
    assert list(refused) == ["localhost:1"]
    assert "localhost resolves to an address that is in 127.0.0.0/8" in refused["localhost:1"]
    # Refuses nothing, resolves nothing.
    assert asyncio.run(refusals(ANYWHERE, ["169.254.169.254:80"])) == {}
