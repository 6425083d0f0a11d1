"""A rule-based Baloot bot. It reads only its ActRequest, as a bot in any language would:
it bids Hokum on the jack or nine of trump and Sun on aces, doubles only with a strong
trump holding and never raises further, declares its most valuable projects, and in play
wins as cheaply as it can, gives points to a winning partner and throws its least
valuable card otherwise."""

from __future__ import annotations

from collections.abc import Callable

from arena.bots.sdk import Bot
from arena.v1 import baloot_pb2 as pb
from arena.v1 import bot_pb2

SUITS = "CDHS"
SUN_ORDER = "789JQKTA"  # low to high, every suit in Sun and plain suits in Hokum
TRUMP_ORDER = "78QKTA9J"  # low to high, the trump suit in Hokum
PLAIN_ABNAT = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_ABNAT = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
TRUMP_WORTH = {"J": 2.0, "9": 1.6, "A": 1.1, "T": 0.9, "K": 0.6, "Q": 0.5, "8": 0.4, "7": 0.4}
PROJECT_POINTS = {
    pb.BALOOT_PROJECT_KIND_SIRA: (4, 2),
    pb.BALOOT_PROJECT_KIND_FIFTY: (10, 5),
    pb.BALOOT_PROJECT_KIND_HUNDRED: (20, 10),
    pb.BALOOT_PROJECT_KIND_FOUR_ACES: (40, 10),
}
HOKUM_WHEN = 4.0  # trump strength of the hand plus side aces
SUN_WHEN = 3.2  # aces and guarded tens
DOUBLE_WHEN = 4.5


def suit_letter(suit: int) -> str:
    return SUITS[suit - 1] if suit else ""


def hokum_strength(cards: list[str], trump: str) -> float:
    """Expected trump tricks: high trumps and length, plus side aces."""
    trumps = [c for c in cards if c[1] == trump]
    if not any(c[0] in "J9" for c in trumps):
        return 0.0
    worth = sum(TRUMP_WORTH[c[0]] for c in trumps)
    worth += sum(0.8 for c in cards if c[0] == "A" and c[1] != trump)
    return worth


def sun_strength(cards: list[str]) -> float:
    worth = 0.0
    for card in cards:
        if card[0] == "A":
            worth += 1.0
        elif card[0] == "T" and "A" + card[1] in cards:
            worth += 0.8
        elif card[0] == "K" and "A" + card[1] in cards:
            worth += 0.3
    return worth


class BalootBasicBot(Bot):
    name = "baloot-basic"
    games = ("baloot",)

    def act(self, request: bot_pb2.ActRequest) -> int:
        obs = request.baloot
        by_kind: dict[str, list[bot_pb2.LegalAction]] = {}
        for action in request.legal_actions:
            by_kind.setdefault(action.baloot.WhichOneof("kind") or "", []).append(action)
        hand = [c.code for c in obs.hand]
        if "bid" in by_kind:
            return self._bid(obs, hand, by_kind["bid"])
        if "choose" in by_kind:
            return self._choose(obs, hand, by_kind["choose"])
        if "doubling" in by_kind:
            return self._doubling(obs, hand, by_kind["doubling"])
        if "declare" in by_kind:
            hokum = obs.contract == pb.BALOOT_CONTRACT_HOKUM
            return max(
                by_kind["declare"],
                key=lambda a: sum(PROJECT_POINTS[p.kind][hokum] for p in a.baloot.declare.projects),
            ).id
        return self._play(obs, hand, {a.baloot.play.code: a.id for a in by_kind["play"]})

    # -- bidding ----------------------------------------------------------------------------

    def _bid(
        self, obs: pb.BalootObservation, hand: list[str], calls: list[bot_pb2.LegalAction]
    ) -> int:
        options = {a.baloot.bid: a.id for a in calls}
        cards = [*hand, obs.up_card.code]
        up_suit = obs.up_card.code[1]
        if sun_strength(cards) >= SUN_WHEN and pb.BALOOT_BID_SUN in options:
            return options[pb.BALOOT_BID_SUN]
        if pb.BALOOT_BID_HOKUM in options:
            if obs.bidding_round == 1:
                best = hokum_strength(cards, up_suit)
            else:
                best = max(hokum_strength(hand, s) for s in SUITS if s != up_suit)
            if best >= HOKUM_WHEN:
                return options[pb.BALOOT_BID_HOKUM]
        return options[pb.BALOOT_BID_PASS]

    def _choose(
        self, obs: pb.BalootObservation, hand: list[str], choices: list[bot_pb2.LegalAction]
    ) -> int:
        cards = hand if obs.bidding_round == 2 else [*hand, obs.up_card.code]

        def worth(action: bot_pb2.LegalAction) -> float:
            choice = action.baloot.choose
            if choice.contract == pb.BALOOT_CONTRACT_SUN:
                return sun_strength(cards) + 0.5
            return hokum_strength(cards, suit_letter(choice.trump))

        return max(choices, key=worth).id

    def _doubling(
        self, obs: pb.BalootObservation, hand: list[str], steps: list[bot_pb2.LegalAction]
    ) -> int:
        options = {a.baloot.doubling: a.id for a in steps}
        trump = suit_letter(obs.trump)
        strong = (hokum_strength(hand, trump) if trump else sun_strength(hand) + 1.0) >= DOUBLE_WHEN
        if strong and pb.BALOOT_DOUBLING_DOUBLE in options:
            return options[pb.BALOOT_DOUBLING_DOUBLE]
        return options[pb.BALOOT_DOUBLING_DECLINE]

    # -- play -------------------------------------------------------------------------------

    def _play(self, obs: pb.BalootObservation, hand: list[str], cards: dict[str, int]) -> int:
        trump = suit_letter(obs.trump)

        def power(card: str, led: str) -> int:
            """Strength in a trick led in ``led``; 0 means it cannot win."""
            if card[1] == trump:
                return 100 + TRUMP_ORDER.index(card[0])
            if card[1] == led:
                return 1 + SUN_ORDER.index(card[0])
            return 0

        def abnat(card: str) -> int:
            return (TRUMP_ABNAT if card[1] == trump else PLAIN_ABNAT)[card[0]]

        played = {p.card.code for t in obs.tricks for p in t.cards}
        played |= {p.card.code for p in obs.trick}

        def is_master(card: str) -> bool:
            """No unplayed card of the suit outside this hand beats it."""
            order = TRUMP_ORDER if card[1] == trump else SUN_ORDER
            higher = order[order.index(card[0]) + 1 :]
            return all(r + card[1] in played or r + card[1] in hand for r in higher)

        if not obs.trick:
            return cards[self._lead(obs, trump, list(cards), is_master, abnat)]
        led = obs.trick[0].card.code[1]
        winner = max(obs.trick, key=lambda p: power(p.card.code, led))
        best = power(winner.card.code, led)
        cheapest = min(cards, key=lambda c: (abnat(c), power(c, led)))
        if winner.seat % 2 == obs.seat % 2:
            if len(obs.trick) == 3 or is_master(winner.card.code):
                # Partner takes it: give the most points that are not a master card.
                givers = [c for c in cards if not (c[1] == trump or is_master(c))]
                if givers:
                    return cards[max(givers, key=abnat)]
            return cards[cheapest]
        beaters = [c for c in cards if power(c, led) > best]
        if beaters:
            if len(obs.trick) == 3:
                return cards[min(beaters, key=lambda c: (power(c, led) >= 100, abnat(c)))]
            masters = [c for c in beaters if is_master(c)]
            return cards[min(masters or beaters, key=lambda c: power(c, led))]
        return cards[cheapest]

    @staticmethod
    def _lead(
        obs: pb.BalootObservation,
        trump: str,
        cards: list[str],
        is_master: Callable[[str], bool],
        abnat: Callable[[str], int],
    ) -> str:
        """Bidders draw trumps with the top trump; then cash a master card; else lead low."""
        trumps = [c for c in cards if c[1] == trump]
        bidders = obs.HasField("buyer") and obs.buyer % 2 == obs.seat % 2
        if trumps and bidders:
            top = max(trumps, key=lambda c: TRUMP_ORDER.index(c[0]))
            if is_master(top):
                return top
        masters = [c for c in cards if c[1] != trump and is_master(c)]
        if masters:
            return max(masters, key=abnat)
        plain = [c for c in cards if c[1] != trump] or cards
        return min(plain, key=lambda c: (abnat(c), c))


BOT = BalootBasicBot
"""The game's example bot: ``arena bot serve`` knows it by its ``name``."""
