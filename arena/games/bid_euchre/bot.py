"""A rule-based Bid Euchre bot. It reads only its ActRequest, as a bot in any language
would: it bids what its hand (plus a trick from partner) should take, names its
strongest suit, and in play wins as cheaply as it can or throws its lowest card."""

from __future__ import annotations

from collections.abc import Sequence

from arena.bots.sdk import Bot
from arena.v1 import bid_euchre_pb2 as be
from arena.v1 import bot_pb2

SUITS = "CDHS"
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
PLAIN_ORDER = "9TJQKA"
TRUMP_ORDER = "9TQKA"  # below the two bowers
JOKER, RIGHT_BOWER, LEFT_BOWER = 210, 200, 190
JOKER_CARD = "X1"  # option joker: the highest trump
CALL_TRICKS = {be.BID_EUCHRE_CALL_THREE: 3, be.BID_EUCHRE_CALL_FOUR: 4, be.BID_EUCHRE_CALL_FIVE: 5}
ASK_WHEN, MOON_WHEN = 4.6, 5.5  # expected tricks of the hand alone
PARTNER_TRICKS = 1.0


def effective_suit(card: str, trump: str) -> str:
    """The left bower and the joker belong to trump; every other card to its printed suit."""
    if card == JOKER_CARD or (card[0] == "J" and card[1] == SAME_COLOUR[trump]):
        return trump
    return card[1]


def strength(card: str, trump: str, led: str) -> int:
    """Power of a card in a trick led in ``led``; 0 means it cannot win."""
    suit = effective_suit(card, trump)
    if suit == trump:
        if card == JOKER_CARD:
            return JOKER
        if card[0] == "J":
            return RIGHT_BOWER if card[1] == trump else LEFT_BOWER
        return 100 + TRUMP_ORDER.index(card[0])
    if suit == led:
        return 1 + PLAIN_ORDER.index(card[0])
    return 0


def expected_tricks(hand: list[str], trump: str) -> float:
    value = {
        JOKER: 1.0,
        RIGHT_BOWER: 1.0,
        LEFT_BOWER: 0.9,
        100 + TRUMP_ORDER.index("A"): 0.8,
        100 + TRUMP_ORDER.index("K"): 0.6,
    }
    tricks = 0.0
    for card in hand:
        power = strength(card, trump, trump)
        if power >= 100:
            tricks += value.get(power, 0.4)
        elif card[0] == "A":
            tricks += 0.7
    return tricks


def card_rank(card: str) -> int:
    """Printed rank, 9 lowest; the joker above the ace."""
    return len(PLAIN_ORDER) if card == JOKER_CARD else PLAIN_ORDER.index(card[0])


def _suit_letter(suit: int) -> str:
    return SUITS[suit - 1]


class BidEuchreBasicBot(Bot):
    name = "bid-euchre-basic"
    games = ("bid-euchre",)

    def act(self, request: bot_pb2.ActRequest) -> int:
        obs = request.bid_euchre
        hand = [c.code for c in obs.hand]
        by_kind: dict[str, list[bot_pb2.LegalAction]] = {}
        for action in request.legal_actions:
            by_kind.setdefault(action.bid_euchre.WhichOneof("kind") or "", []).append(action)
        if "ace_no_face" in by_kind:
            keep = [a for a in by_kind["ace_no_face"] if not a.bid_euchre.ace_no_face]
            return (keep or by_kind["ace_no_face"])[0].id
        if "call" in by_kind:
            return self._call(hand, by_kind["call"])
        if "trump" in by_kind:
            best = max(SUITS, key=lambda s: expected_tricks(hand, s))
            return next(a.id for a in by_kind["trump"] if _suit_letter(a.bid_euchre.trump) == best)
        if "discard" in by_kind:  # option joker: keep the suit that would make the best trump
            best = max(SUITS, key=lambda s: expected_tricks(hand, s))
            return min(
                by_kind["discard"],
                key=lambda a: (
                    strength(a.bid_euchre.discard.code, best, best),
                    card_rank(a.bid_euchre.discard.code),
                ),
            ).id
        trump = _suit_letter(obs.trump)
        if "give" in by_kind:  # keep trumps and aces: give the weakest card
            return min(
                by_kind["give"],
                key=lambda a: (
                    strength(a.bid_euchre.give.code, trump, trump) >= 100,
                    card_rank(a.bid_euchre.give.code),
                ),
            ).id
        if "return_card" in by_kind:  # forced when partner holds trump
            return max(
                by_kind["return_card"],
                key=lambda a: card_rank(a.bid_euchre.return_card.code),
            ).id
        trick = [(p.seat, p.card.code) for p in obs.trick]
        return play_card(
            trump, trick, obs.seat, {a.bid_euchre.play.code: a.id for a in by_kind["play"]}
        )

    def _call(self, hand: list[str], calls: list[bot_pb2.LegalAction]) -> int:
        alone = max(expected_tricks(hand, s) for s in SUITS)
        options = {a.bid_euchre.call: a.id for a in calls}
        if alone >= MOON_WHEN and be.BID_EUCHRE_CALL_MOON in options:
            return options[be.BID_EUCHRE_CALL_MOON]
        if alone >= ASK_WHEN and be.BID_EUCHRE_CALL_ASK in options:
            return options[be.BID_EUCHRE_CALL_ASK]
        makeable = [
            c for c, n in CALL_TRICKS.items() if c in options and n <= alone + PARTNER_TRICKS
        ]
        if makeable:
            return options[max(makeable)]
        if be.BID_EUCHRE_CALL_PASS in options:
            return options[be.BID_EUCHRE_CALL_PASS]
        return options[min(options)]  # the dealer is stuck: the cheapest call


def play_card(
    trump: str, trick: Sequence[tuple[int, str]], seat: int, cards: dict[str, int]
) -> int:
    """The card play of ``BidEuchreBasicBot``: ``trick`` the cards played so far as (seat,
    code), ``cards`` the playable codes with their action ids. A function of its own, so
    that a caller holding an engine state (the learned bot's playouts) plays the same."""
    if not trick:
        trumps = sorted(
            (c for c in cards if effective_suit(c, trump) == trump),
            key=lambda c: strength(c, trump, trump),
        )
        if trumps and (len(trumps) >= 3 or strength(trumps[-1], trump, trump) == RIGHT_BOWER):
            return cards[trumps[-1]]
        aces = [c for c in cards if c[0] == "A" and effective_suit(c, trump) != trump]
        if aces:
            return cards[aces[0]]
        return cards[min(cards, key=lambda c: (strength(c, trump, c[1]), c))]
    led = effective_suit(trick[0][1], trump)
    winner_seat, winner_card = max(trick, key=lambda p: strength(p[1], trump, led))
    best = strength(winner_card, trump, led)
    cheapest = min(cards, key=lambda c: (strength(c, trump, led), card_rank(c)))
    if winner_seat % 2 == seat % 2:
        return cards[cheapest]  # partner is winning the trick
    beaters = [c for c in cards if strength(c, trump, led) > best]
    if beaters:
        return cards[min(beaters, key=lambda c: strength(c, trump, led))]
    return cards[cheapest]


BOT = BidEuchreBasicBot
"""The game's example bot: ``arena bot serve`` knows it by its ``name``."""
