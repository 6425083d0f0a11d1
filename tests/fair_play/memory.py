"""What a bot that remembers everything can infer about the hidden cards of a match.

The attacker of the fair-play tests. It keeps every request and every MatchEnded it is
sent and every deal it can read, and at each decision it states the opponents' cards
it can name from memory, by one of three routes:

- ``deal``: a deal it has seen whole (a MatchEnded, a replay, a seed it read) whose hand
  at its seat is the hand it holds now;
- ``seed``: the same, from a deal it dealt itself from a seed it guessed (a small
  master seed and the schedule's deal keys, which are public code);
- ``mirror``: the second half of a duplicate pair. The opponents now sit where it sat,
  holding the hands it held; it recognises the deal because the cards it saw played
  from its present seats, last time, are all in the hands it holds now.

Every claim is checked by the tests against the real hands. The identification rules
are strict, so that a chance resemblance between two random deals is far less likely
than a test run's other risks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from arena.games import get_game
from arena.tournament.fair_play import deal_seed
from arena.v1 import bot_pb2

HAND_COUNTERS = ("bazzi_number", "deal_number", "hand_number", "round_number")
MIN_SEEN = 5
"""Cards seen played from a seat before the mirror route trusts a match on them."""
Claim = tuple[int, str, str]
"""Seat, card code, route."""


def plays_seen(message: Message) -> Iterator[tuple[int, str]]:
    """Every (seat, card) the message shows a seat to have played: any part of it with
    a seat and a card (a trick's cards, a Seep play, a discard)."""
    fields = {f.name: v for f, v in message.ListFields()}
    card = fields.get("card")
    if "seat" in fields and isinstance(card, Message) and hasattr(card, "code"):
        yield fields["seat"], card.code
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        items = value if descriptor.is_repeated else [value]
        for item in items:
            if isinstance(item, Message):
                yield from plays_seen(item)


def hand_key(observation: Message) -> tuple[int, ...]:
    names = observation.DESCRIPTOR.fields_by_name
    return tuple(getattr(observation, n) for n in HAND_COUNTERS if n in names)


@dataclass
class HandSeen:
    """One hand of one match as the bot saw it while playing."""

    game: str
    number: int
    """Which hand of its match, 0 for the first."""
    first: dict[int, frozenset[str]] = field(default_factory=dict)
    """The bot's own seats: the hand each held at its first decision of this hand."""
    played: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Every seat: the cards seen played from it."""


@dataclass(frozen=True)
class KnownDeal:
    game: str
    number: int
    """Which hand of its match (0 for the first): only the same hand of another match
    can share its deal, as the deals follow one another from the seed."""
    hands: tuple[frozenset[str], ...]
    """Each seat's dealt cards."""
    route: str


def first_deal(game: str, seed: int) -> tuple[frozenset[str], ...]:
    """The cards each seat holds once all are dealt from ``seed`` (default options); the
    first legal moves are played until then (a Seep bid), as the deal does not depend
    on them."""
    state = get_game(game).new_state(seed, None)
    seats = range(state.game_info.num_seats)
    while not state.is_terminal() and not all(state.observation(s).hand for s in seats):
        state.apply(state.legal_actions()[0])
    return tuple(frozenset(state.observation(s).hand) for s in seats)


def deal_of(hands: Sequence[Iterable[Any]]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(c if isinstance(c, str) else c.code for c in h) for h in hands)


def guessed_seeds(game: str, masters: int = 4, pairings: int = 3, deals: int = 2) -> set[int]:
    """Deal seeds of small master seeds, for every deal key a small schedule has."""
    keys = [
        f"{game}-{p}-{d}{half}"
        for p in range(pairings)
        for d in range(deals)
        for half in ("", "-a", "-b")
    ]
    return {deal_seed(m, k) for m in range(masters) for k in keys}


def _fits(dealt: frozenset[str], held: frozenset[str]) -> bool:
    """Whether a seat's hand at its first decision is the one dealt: the same cards, or
    (Seep's bidder, a draw before the first decision) one held within the other."""
    return min(len(dealt), len(held)) >= 4 and (dealt <= held or held <= dealt)


class Memory:
    def __init__(self, seat_teams: Mapping[str, Sequence[int]]) -> None:
        self.seat_teams = seat_teams
        self.hands: dict[tuple[str, tuple[int, ...]], HandSeen] = {}
        self.deals: list[KnownDeal] = []
        self.dealt_seeds: set[tuple[str, int]] = set()

    def learn_deal(
        self, game: str, number: int, hands: Sequence[Iterable[Any]], route: str
    ) -> None:
        self.deals.append(KnownDeal(game, number, deal_of(hands), route))

    def learn_seed(self, game: str, seed: int, route: str) -> None:
        if (game, seed) not in self.dealt_seeds:
            self.dealt_seeds.add((game, seed))
            self.deals.append(KnownDeal(game, 0, first_deal(game, seed), route))

    def match_ended(self, request: bot_pb2.MatchEndedRequest) -> None:
        for number, dealt in enumerate(request.deals):
            self.learn_deal(request.game, number, [s.cards for s in dealt.seats], "deal")

    def decide(self, request: bot_pb2.ActRequest) -> list[Claim]:
        """Remember what this request shows; return the opponents' cards it can name."""
        observation = getattr(request, str(request.WhichOneof("observation")))
        key = (request.match_id, hand_key(observation))
        if key not in self.hands:
            number = sum(1 for token, _ in self.hands if token == request.match_id)
            self.hands[key] = HandSeen(request.game, number)
        seen = self.hands[key]
        held = frozenset(c.code for c in observation.hand)
        seen.first.setdefault(request.seat, held)
        for seat, card in plays_seen(observation):
            seen.played[seat].add(card)
        teams = self.seat_teams[request.game]
        opponents = [s for s in range(len(teams)) if teams[s] != teams[request.seat]]
        mine = [s for s in range(len(teams)) if teams[s] == teams[request.seat]]
        claims: set[Claim] = set()
        # Every seat of its team must hold what a deal gave it: the few cards of one
        # seat match some deal among hundreds too often.
        for deal in self.deals if set(seen.first) == set(mine) else ():
            if (deal.game, deal.number) != (request.game, seen.number):
                continue
            if all(_fits(deal.hands[s], seen.first[s]) for s in mine):
                claims |= {
                    (t, c, deal.route)
                    for t in opponents
                    for c in deal.hands[t] - seen.played[t] - held
                }
        # The mirror route only on a match's first hand: with hundreds of hands per match
        # (random play), two unrelated deals would now and then look alike.
        for (token, _), then in self.hands.items() if seen.number == 0 else ():
            if token != request.match_id and (then.game, then.number) == (request.game, 0):
                claims |= self._mirror(seen, then, set(opponents))
        return sorted(claims)

    @staticmethod
    def _mirror(now: HandSeen, then: HandSeen, opponents: set[int]) -> set[Claim]:
        """Claims if ``now`` is the other half of the deal of ``then``: the bot sits
        where its opponent sat then, and the opponents where it sat."""
        if set(then.first) != opponents or set(now.first) & set(then.first):
            return set()
        for seat, held in now.first.items():
            shown = then.played[seat]
            if len(shown) < MIN_SEEN or not shown <= held:
                return set()
            if any(held & then.first[t] for t in then.first):
                return set()
        if any(now.played[t] - then.first[t] for t in then.first):
            return set()
        return {(t, c, "mirror") for t in then.first for c in then.first[t] - now.played[t]}
