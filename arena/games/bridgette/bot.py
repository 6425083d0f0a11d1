"""A rule-based Bridgette bot. It reads only its ActRequest, as a bot in any language
would: it discards its weakest cards, bids the contract its hand should make, doubles a
bid it expects to beat, and in play wins as cheaply as it can, ducks with a matching
colon to bar the leader's suit, or throws its lowest card."""

from __future__ import annotations

from arena.bots.sdk import Bot
from arena.v1 import bot_pb2
from arena.v1 import bridgette_pb2 as bg

SUITS = "CDHS"
RANKS = "23456789TJQKA"
COLONS = ("LC", "RC", "GC")
STRAIN_LETTERS = {
    bg.BRIDGETTE_STRAIN_CLUBS: "C",
    bg.BRIDGETTE_STRAIN_DIAMONDS: "D",
    bg.BRIDGETTE_STRAIN_HEARTS: "H",
    bg.BRIDGETTE_STRAIN_SPADES: "S",
    bg.BRIDGETTE_STRAIN_NO_TRUMP: "NT",
}
HONOUR_TRICKS = {"A": 1.0, "K": 0.7, "Q": 0.35, "J": 0.15}
COLON_TRICKS = {"GC": 0.6, "RC": 0.3, "LC": 0.1}
MARGIN = 0.5
"""Estimated tricks to spare before the bot bids a contract or doubles one."""
CONTRACT_POINTS = {  # by level: C, D, H, S, NT (what a made contract is worth)
    0: (0, 0, 0, 0, 150),
    1: (150, 150, 150, 150, 250),
    2: (250, 250, 250, 250, 250),
    3: (250, 250, 250, 250, 750),
    4: (250, 250, 750, 750, 750),
    5: (750, 750, 750, 750, 1500),
    6: (1500, 1500, 1500, 1500, 2200),
    7: (2200, 2200, 2200, 2200, 2500),
}


def suit_of(card: str) -> str:
    """The suit letter, or '' for a colon."""
    return "" if card in COLONS else card[1]


def rank_of(card: str) -> int:
    return -1 if card in COLONS else RANKS.index(card[0])


def matching_colon(card: str) -> str:
    rank = card[0]
    return "GC" if rank == "A" else "RC" if rank in "KQJ" else "LC"


def estimated_tricks(hand: list[str], strain: str) -> float:
    """Tricks the hand should take with ``strain`` as trump (``NT``: none): honours,
    long trumps, and in no trump the length of a long suit."""
    tricks = 0.0
    for suit in SUITS:
        cards = sorted((rank_of(c) for c in hand if suit_of(c) == suit), reverse=True)
        length = len(cards)
        for position, rank in enumerate(cards[:3]):
            value = HONOUR_TRICKS.get(RANKS[rank], 0.0)
            if position >= length - 1 and RANKS[rank] != "A" and length < 3:
                value /= 2  # an unguarded king or queen falls easily
            tricks += value
        if suit == strain:
            tricks += max(0, length - 2) * 0.8
        elif strain == "NT":
            tricks += max(0, length - 4) * 0.5
    for colon in COLONS:
        if colon in hand:
            tricks += COLON_TRICKS[colon]
    return tricks


def keep_value(card: str, hand: list[str]) -> float:
    """How much a card is worth keeping during the exchange (higher is kept)."""
    if card in COLONS:
        return {"GC": 9.0, "RC": 4.0, "LC": 1.0}[card]
    suit = suit_of(card)
    length = sum(1 for c in hand if suit_of(c) == suit)
    return rank_of(card) + 1.5 * length


class BridgetteBasicBot(Bot):
    name = "bridgette-basic"
    games = ("bridgette",)

    def act(self, request: bot_pb2.ActRequest) -> int:
        obs = request.bridgette
        hand = [c.code for c in obs.hand]
        by_kind: dict[str, list[bot_pb2.LegalAction]] = {}
        for action in request.legal_actions:
            by_kind.setdefault(action.bridgette.WhichOneof("kind") or "", []).append(action)
        if "discard" in by_kind:
            worst = min(
                by_kind["discard"],
                key=lambda a: (keep_value(a.bridgette.discard.code, hand), a.id),
            )
            return worst.id
        if "call" in by_kind:
            return self._call(obs, hand, by_kind["call"])
        return self._play(obs, hand, {a.bridgette.play.code: a.id for a in by_kind["play"]})

    # -- auction ------------------------------------------------------------------------

    def _call(
        self, obs: bg.BridgetteObservation, hand: list[str], calls: list[bot_pb2.LegalAction]
    ) -> int:
        options: dict[str, int] = {}
        bids: list[tuple[int, str, int]] = []
        for action in calls:
            call = action.bridgette.call
            if call.kind == bg.BRIDGETTE_CALL_KIND_BID:
                bids.append((call.level, STRAIN_LETTERS[call.strain], action.id))
            else:
                options[bg.BridgetteCallKind.Name(call.kind)] = action.id
        estimates = {s: estimated_tricks(hand, s) for s in (*SUITS, "NT")}
        makeable = [b for b in bids if estimates[b[1]] >= 6 + b[0] + MARGIN]
        best = max(makeable, key=lambda b: (self._points(b), -b[2]), default=None)
        pass_id = options.get("BRIDGETTE_CALL_KIND_PASS")
        if obs.HasField("high_bid"):
            high = obs.high_bid
            strain = STRAIN_LETTERS[high.strain]
            if high.declarer == obs.seat:
                redouble = options.get("BRIDGETTE_CALL_KIND_REDOUBLE")
                if redouble is not None and estimates[strain] >= high.tricks_needed + 1:
                    return redouble
            else:
                # Tricks the opponent cannot take if ours are as estimated.
                ours = estimates[strain] if strain == "NT" else self._defence(hand, strain)
                beaten = ours >= 14 - high.tricks_needed
                double = options.get("BRIDGETTE_CALL_KIND_DOUBLE")
                if beaten and double is not None:
                    return double
                if beaten and pass_id is not None:
                    return pass_id
        if best is not None:
            return best[2]
        if pass_id is not None:
            return pass_id
        # Forced to bid: the cheapest bid in the strain the hand likes best.
        return min(bids, key=lambda b: (-estimates[b[1]] + 6 + b[0], b[2]))[2]

    @staticmethod
    def _points(bid: tuple[int, str, int]) -> int:
        level, strain, _ = bid
        return CONTRACT_POINTS[level][(*SUITS, "NT").index(strain)]

    @staticmethod
    def _defence(hand: list[str], trump: str) -> float:
        """Tricks the hand should take against a contract in ``trump``."""
        tricks = 0.0
        for card in hand:
            if card in COLONS:
                continue
            rank = card[0]
            if suit_of(card) == trump:
                tricks += {"A": 1.0, "K": 0.8, "Q": 0.5}.get(rank, 0.2)
            else:
                tricks += {"A": 0.9, "K": 0.5}.get(rank, 0.0)
        return tricks

    # -- play ---------------------------------------------------------------------------

    def _play(self, obs: bg.BridgetteObservation, hand: list[str], cards: dict[str, int]) -> int:
        trump = suit_of_enum(obs.trump)
        if obs.trick:
            return cards[self._follow(obs.trick[0].card.code, trump, list(cards))]
        seen = {p.card.code for t in obs.tricks for p in t.cards}
        return cards[self._lead(hand, list(cards), trump, seen, obs)]

    @staticmethod
    def _follow(led: str, trump: str, playable: list[str]) -> str:
        def cheapest(choices: list[str]) -> str:
            return min(choices, key=lambda c: (suit_of(c) == trump, rank_of(c)))

        if led in COLONS:
            winners = [
                c
                for c in playable
                if c not in COLONS and (suit_of(c) == trump or matching_colon(c) == led)
            ]
            if winners:
                return min(winners, key=lambda c: (suit_of(c) == trump, rank_of(c)))
            return cheapest(playable)
        suit = suit_of(led)
        winners = [c for c in playable if suit_of(c) == suit and rank_of(c) > rank_of(led)]
        if suit != trump:
            winners += [c for c in playable if trump and suit_of(c) == trump]
        if winners:
            return min(winners, key=lambda c: (suit_of(c) == trump, rank_of(c)))
        colon = matching_colon(led)
        if colon in playable:
            return colon  # the trick is lost anyway: keep a card and bar the suit
        plain = [c for c in playable if c not in COLONS]
        return cheapest(plain or playable)

    @staticmethod
    def _lead(
        hand: list[str],
        playable: list[str],
        trump: str,
        seen: set[str],
        obs: bg.BridgetteObservation,
    ) -> str:
        """Draw trumps as declarer with length, then cash top cards, else lead low from
        the longest plain suit."""
        gone = seen | set(hand)

        def is_top(card: str) -> bool:
            suit = suit_of(card)
            higher = RANKS[rank_of(card) + 1 :]
            return all(r + suit in gone for r in higher)

        declarer = obs.HasField("contract") and obs.contract.declarer == obs.seat
        trumps = [c for c in playable if trump and suit_of(c) == trump]
        if declarer and trumps and len(trumps) >= 3:
            return max(trumps, key=rank_of)
        tops = [c for c in playable if c not in COLONS and is_top(c)]
        if tops:
            return max(tops, key=lambda c: (suit_of(c) != trump, rank_of(c)))
        aces_gone = all("A" + s in gone for s in SUITS)
        if "GC" in playable and aces_gone and not trump:
            return "GC"
        plain = [c for c in playable if c not in COLONS and suit_of(c) != trump]
        if plain:
            longest = max(SUITS, key=lambda s: sum(1 for c in plain if suit_of(c) == s))
            return min((c for c in plain if suit_of(c) == longest), key=rank_of)
        return min(playable, key=lambda c: (c in COLONS, rank_of(c)))


def suit_of_enum(suit: int) -> str:
    """The suit letter of a proto Suit value; '' when unset (no trump)."""
    return SUITS[suit - 1] if suit else ""


BOT = BridgetteBasicBot
"""The game's example bot: ``arena bot serve`` knows it by its ``name``."""
