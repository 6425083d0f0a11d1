"""Fair play: what each mode promises, and how a tournament's seeds stay secret.

The threat is a bot that keeps everything it is ever sent and reads everything open to
anyone. What it must never learn is a deal it still has to play. So:

- the master seed is drawn from ``secrets`` (unless the operator gives one, which every
  read then marks) and only its commitment is public until the tournament ends;
- every deal seed derives from the master seed and the match's *deal key*;
- in ``open`` every match has a deal key of its own, so no entry meets a deal twice;
  ``sealed`` and ``trusted`` give both halves of a duplicate pair the same key;
- a pair's second half starts only once its first half has ended (``workers.scheduler``,
  ``arena.tournament.schedule.release``): no bot of the first is still running to pass
  the cards to one of the second through what the host shares (CPU load, timing). Sealed
  needs it; trusted, whose entries the operator vouches for, follows the same rule,
  which costs it nothing;
- results, replays and seeds of a tournament are published when it ends; a deal is
  never published while a match still to be played, or being played, shares it. An
  open ladder, which never ends and whose every match has a deal of its own, publishes
  each match's seed and replay once that match has ended (``arena.api.common``);
- while it runs, every public read names a match by its *public id*, which derives from
  the secret seed and salt, so nothing a bot can watch ties its plays to a pairing, a
  deal or a half; once the seed is published anyone can check the mapping.

Commitment texts (hash: lowercase hex SHA-256 of the UTF-8 text; parts separated by
one space, integers in decimal without leading zeros):

- tournament: ``arena.v1 tournament <tournament_id> <master_seed> <salt>``
- deal seed:  first 8 bytes, big-endian, of SHA-256 of ``arena.v1 seed <master_seed> <deal_key>``
- public id:  ``p`` and the first 20 hex digits of SHA-256 of
  ``arena.v1 public <master_seed> <salt> <match_id>``
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from arena.fair_play_terms import OPEN as OPEN
from arena.fair_play_terms import OPERATOR_SEED_CAVEAT as OPERATOR_SEED_CAVEAT
from arena.fair_play_terms import PARTNERS_CAVEAT as PARTNERS_CAVEAT
from arena.fair_play_terms import SEALED as SEALED
from arena.fair_play_terms import TRUSTED as TRUSTED
from arena.fair_play_terms import TRUSTED_CAVEAT as TRUSTED_CAVEAT
from arena.games import get_game
from arena.match_rules.commitment import SALT, new_salt
from arena.v1 import arena_pb2, referee_pb2

MODES = {
    arena_pb2.FAIR_PLAY_UNSPECIFIED: OPEN,
    arena_pb2.FAIR_PLAY_OPEN: OPEN,
    arena_pb2.FAIR_PLAY_SEALED: SEALED,
    arena_pb2.FAIR_PLAY_TRUSTED: TRUSTED,
}
PROTO = {
    OPEN: arena_pb2.FAIR_PLAY_OPEN,
    SEALED: arena_pb2.FAIR_PLAY_SEALED,
    TRUSTED: arena_pb2.FAIR_PLAY_TRUSTED,
}
MAX_SEED = 2**64 - 1
PUBLIC_ID = re.compile(r"p[0-9a-f]{20}")
"""A public match id (``public_match_id``)."""

SHARED, ISOLATED = "shared", "isolated"
PARTNERS = {
    arena_pb2.PARTNERS_SHARED: SHARED,
    arena_pb2.PARTNERS_ISOLATED: ISOLATED,
}
PARTNERS_PROTO = {name: value for value, name in PARTNERS.items()}


def default_partners(mode: str) -> str:
    """Sealed tournaments seat only hosted bots, each seat its own sandbox: isolated."""
    return ISOLATED if mode == SEALED else SHARED


def partnership_games(games: Iterable[str]) -> list[str]:
    """The games among ``games`` in which a team holds more than one seat."""
    found = []
    for name in games:
        info = get_game(name).info
        if info.num_seats > info.num_teams:
            found.append(name)
    return found


def duplicate(mode: str) -> bool:
    """Whether the mode plays each deal twice, seats swapped, and rates the pair."""
    return mode != OPEN


def disclosure(mode: str) -> referee_pb2.DealDisclosure.ValueType:
    """What the referee may tell about a deal when a match of this mode ends: in open
    the bots may see the deal, which was theirs alone; in the others a second half shares
    it. The seed and the replay wait for the tournament's end in every mode, or in an
    open ladder for the match's (``arena.api.common.deal_revealed``)."""
    return referee_pb2.DEAL_DISCLOSURE_BOTS if mode == OPEN else referee_pb2.DEAL_DISCLOSURE_CALLER


@dataclass(frozen=True)
class MasterSeed:
    value: int
    salt: str
    operator: bool
    """Given by the operator rather than drawn by the arena."""

    @classmethod
    def draw(cls) -> MasterSeed:
        return cls(secrets.randbits(64), new_salt(), operator=False)

    @classmethod
    def given(cls, value: int) -> MasterSeed:
        if not 0 <= value <= MAX_SEED:
            raise ValueError(f"a master seed is 0..2^64-1, got {value}")
        return cls(value, new_salt(), operator=True)

    def commitment(self, tournament_id: str) -> str:
        return seed_commitment(tournament_id, self.value, self.salt)

    def public_id(self, match_id: str) -> str:
        """What public reads call ``match_id`` while its tournament runs: an id that says
        nothing of its pairing, deal or half without the secret seed and salt (an
        operator's seed may be guessed; the salt, drawn by the arena, may not)."""
        return public_match_id(self.value, self.salt, match_id)


def commitment_text(tournament_id: str, master_seed: int, salt: str) -> str:
    if not 0 <= master_seed <= MAX_SEED:
        raise ValueError(f"a master seed is 0..2^64-1, got {master_seed}")
    if not SALT.match(salt):
        raise ValueError(f"a salt is 32 lowercase hex digits, got {salt!r}")
    return f"arena.v1 tournament {tournament_id} {master_seed} {salt}"


def seed_commitment(tournament_id: str, master_seed: int, salt: str) -> str:
    text = commitment_text(tournament_id, master_seed, salt)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def public_match_id(master_seed: int, salt: str, match_id: str) -> str:
    text = f"arena.v1 public {master_seed} {salt} {match_id}"
    return "p" + hashlib.sha256(text.encode()).hexdigest()[:20]


def deal_seed(master_seed: int, deal_key: str) -> int:
    digest = hashlib.sha256(f"arena.v1 seed {master_seed} {deal_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
