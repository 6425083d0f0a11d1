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
    embedded_ipv4,
    nat64_ipv4,
    parse_networks,
    refusals,
    resolve,
)
from arena.referee.requests import check_address

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
        (
            "::ffff:169.254.169.254",
            "embeds 169.254.169.254 (IPv4-mapped), a cloud metadata address (169.254.169.254/32)",
        ),
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
        "[::1] is outside the networks the operator allows; allowed: addresses in 10.0.0.0/8 "
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


# IPv6 addresses that embed an IPv4 address, as a caller types them to RegisterBot or
# PlayMatch, and the form the refusal names. Each embeds the metadata address.
EMBEDDING_METADATA = [
    ("[::ffff:169.254.169.254]:80", "IPv4-mapped"),
    ("[::ffff:a9fe:a9fe]:80", "IPv4-mapped"),
    ("[::FFFF:A9FE:a9fe]:80", "IPv4-mapped"),
    ("[0000:0:0:0:0:ffff:169.254.169.254]:80", "IPv4-mapped"),
    ("[::ffff:0:a9fe:a9fe]:80", "IPv4-translated"),
    ("[::ffff:0:169.254.169.254]:80", "IPv4-translated"),
    ("[0::FFFF:0000:A9FE:A9FE]:80", "IPv4-translated"),
    ("[::a9fe:a9fe]:80", "IPv4-compatible"),
    ("[::169.254.169.254]:80", "IPv4-compatible"),
    ("[0:0::0:0:0:a9fe:a9fe]:80", "IPv4-compatible"),
    ("[64:ff9b::a9fe:a9fe]:80", "NAT64"),
    ("[64:ff9b::169.254.169.254]:80", "NAT64"),
    ("[0064:FF9B:0000:0000:0000:0000:A9FE:A9FE]:80", "NAT64"),
    ("[64:ff9b:0::0:a9fe:a9fe]:80", "NAT64"),
    ("[64:FF9B::0:0:169.254.169.254]:80", "NAT64"),
    ("[64:ff9b::a9fe:a9fe%eth0]:80", "NAT64"),  # with a zone
    ("[64:ff9b:1:a9fe:a9:fe00::]:80", "NAT64 local-use, as a /48 prefix"),
    ("[64:ff9b:1:a9:fe:a9fe::]:80", "NAT64 local-use, as a /56 prefix"),
    ("[64:ff9b:1:0:a9:fea9:fe00:0]:80", "NAT64 local-use, as a /64 prefix"),
    ("[64:ff9b:1::169.254.169.254]:80", "NAT64 local-use, as a /96 prefix"),
    ("[64:ff9b:0001:0000::a9fe:a9fe]:80", "NAT64 local-use, as a /96 prefix"),
    ("[2002:a9fe:a9fe::1]:80", "6to4"),
    ("[2002:A9FE:A9FE:0:0:0:0:1]:80", "6to4"),
    ("[2002:a9fe:a9fe:1234::]:80", "6to4"),
    ("[2001:0:a9fe:a9fe::1]:80", "Teredo server"),
    # 8.8.8.8 serves; the client, 169.254.169.254, is stored XORed: 5601:5601.
    ("[2001:0000:808:808:0:0:5601:5601]:80", "Teredo client"),
]


@pytest.mark.parametrize(("address", "form"), EMBEDDING_METADATA)
def test_an_ipv6_address_embedding_the_metadata_address_is_refused(address: str, form: str) -> None:
    check_address(address)  # well formed: RegisterBot and PlayMatch hand it to the policy
    refused = asyncio.run(refusals(DEFAULT, [address]))
    host = address.rpartition(":")[0]
    assert refused[address] == (
        f"bot address {address!r} is not allowed by the operator's bot network policy: "
        f"{host} embeds 169.254.169.254 ({form}), a cloud metadata address "
        "(169.254.169.254/32); allowed: any address except link-local, cloud metadata, "
        "multicast and unspecified addresses"
    )


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("64:ff9b::169.254.1.1", "embeds 169.254.1.1 (NAT64), link-local (169.254.0.0/16)"),
        (
            "::100.100.100.200",
            "embeds 100.100.100.200 (IPv4-compatible), a cloud metadata address (Alibaba "
            "Cloud) (100.100.100.200/32)",
        ),
        ("2002:e000:1::", "embeds 224.0.0.1 (6to4), multicast (224.0.0.0/4)"),
        ("::ffff:0.0.0.0", "embeds 0.0.0.0 (IPv4-mapped), unspecified (0.0.0.0/8)"),
        ("::ffff:0:0.0.0.0", "embeds 0.0.0.0 (IPv4-translated), unspecified (0.0.0.0/8)"),
        ("::2", "embeds 0.0.0.2 (IPv4-compatible), unspecified (0.0.0.0/8)"),
    ],
)
def test_every_default_refusal_applies_to_an_embedded_address(address: str, why: str) -> None:
    assert DEFAULT.refusal(ip(address)) == why


@pytest.mark.parametrize(
    "address",
    [
        "[::1]:50051",
        "[fd12:3456::1]:50051",
        "[2001:db8::1]:50051",
        "[2001:db8::a9fe:a9fe]:50051",  # ends like 169.254.169.254, but embeds nothing
        "[fd00::169.254.169.254]:50051",
        "[64:ff9b::a00:1]:50051",  # NAT64 to 10.0.0.1
        "[64:ff9b::8.8.8.8]:50051",
        "[64:ff9b:1::a00:1]:50051",  # local-use /96: the other readings are zero padding
        "[2002:808:808::1]:50051",
        "[::ffff:127.0.0.1]:50051",
        "[::127.0.0.1]:50051",
        "[2001:0:808:808::f7f7:f7f7]:50051",  # Teredo: server and client 8.8.8.8
    ],
)
def test_honest_ipv6_addresses_still_pass(address: str) -> None:
    check_address(address)
    assert asyncio.run(refusals(DEFAULT, [address])) == {}


def test_the_forms_and_their_readings() -> None:
    v6 = ipaddress.IPv6Address
    assert embedded_ipv4(v6("::1")) == embedded_ipv4(v6("::")) == []
    assert embedded_ipv4(v6("2001:0:a9fe:a9fe::5601:5601")) == [
        (ip("169.254.169.254"), "Teredo server"),
        (ip("169.254.169.254"), "Teredo client"),
    ]
    # RFC 6052, section 2.4: 192.0.2.33 behind a prefix of each length.
    for address, length in [
        ("2001:db8:c000:221::", 32),
        ("2001:db8:1c0:2:21::", 40),
        ("2001:db8:122:c000:2:2100::", 48),
        ("2001:db8:122:3c0:0:221::", 56),
        ("2001:db8:122:344:c0:2:2100:0", 64),
        ("2001:db8:122:344::192.0.2.33", 96),
    ]:
        assert nat64_ipv4(v6(address), length) == ip("192.0.2.33")


def test_the_operators_lists_apply_to_the_embedded_address_and_to_the_ipv6_one() -> None:
    denied = policy(deny="10.9.0.0/16")
    for address, form in [
        ("64:ff9b::10.9.0.1", "NAT64"),
        ("::ffff:10.9.0.1", "IPv4-mapped"),
        ("2002:a09:1::1", "6to4"),
        ("::ffff:0:a09:1", "IPv4-translated"),
    ]:
        assert denied.refusal(ip(address)) == (
            f"embeds 10.9.0.1 ({form}), in 10.9.0.0/16, which the operator refuses"
        )
    assert denied.refusal(ip("64:ff9b::10.8.0.1")) is None
    assert policy(deny="64:ff9b::/96").refusal(ip("64:ff9b::a00:1")) == (
        "is in 64:ff9b::/96, which the operator refuses"
    )

    # Allowing 10.0.0.0/8 alone keeps NAT64 from reaching anywhere, even inside it: the
    # IPv6 address must be allowed as well.
    ten = policy(allow="10.0.0.0/8")
    assert ten.refusal(ip("64:ff9b::8.8.8.8")) == (
        "embeds 8.8.8.8 (NAT64), outside the networks the operator allows"
    )
    assert ten.refusal(ip("64:ff9b::a00:1")) == "is outside the networks the operator allows"
    assert ten.refusal(ip("::ffff:10.0.0.1")) is None  # only IPv4 packets: it is 10.0.0.1
    nat64 = policy(allow="10.0.0.0/8,64:ff9b::a00:0/104")
    assert nat64.refusal(ip("64:ff9b::a00:1")) is None
    assert nat64.refusal(ip("2002:a00:1::1")) == "is outside the networks the operator allows"

    # A default is lifted for an embedded address as for a direct one: by name, both.
    metadata = ip("64:ff9b::a9fe:a9fe")
    assert policy(allow="169.254.169.254").refusal(metadata) == (
        "is outside the networks the operator allows"
    )
    assert policy(allow="169.254.169.254,64:ff9b::a9fe:a9fe").refusal(metadata) is None
    assert policy(allow="0.0.0.0/0,::/0").refusal(metadata) is not None
    assert ANYWHERE.refusal(metadata) is None


def test_a_name_is_refused_for_an_embedding_address_it_resolves_to() -> None:
    """A DNS64 resolver answers 64:ff9b::a9fe:a9fe for a name whose A record is the
    metadata address."""
    with pytest.raises(AddressRefused) as refused:
        DEFAULT.check("bots.example:7000", [ip("10.0.0.5"), ip("64:ff9b::a9fe:a9fe")])
    assert "bots.example resolves to an address that embeds 169.254.169.254 (NAT64), " in str(
        refused.value
    )
