"""Bridgette's fixed facts and its action ids: the game's options, the 55 cards (the colons
included) and their orders, the bids (and which a hand may make) and the contract scores, and
every action id with its text and payload. Part of the engine ``arena.games.bridgette.game``,
which exports these names and whose docstring lists the ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.api import GameInfo, IllegalActionError, OptionSpec
from arena.games.cards import RANKS, SUITS, Card

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="bridgette",
    title="Bridgette",
    num_seats=2,
    seat_teams=(0, 1),
    options=(
        OptionSpec(
            "deals",
            6,
            "Regular deals in a game (the rules say 6); equal totals after them play one "
            "more deal, which always decides.",
            minimum=1,
            maximum=60,
        ),
    ),
    description="Two-player bridge with 55 cards: an exchange with the stock, an auction "
    "with holding rules, and three colons that bar the next lead.",
    # Until 2026-12-03 a hand's end said "with 1 tricks"; stored replays still do.
    former_texts=((r"with 1 trick;", "with 1 tricks;"),),
)

NUM_SEATS = 2
HAND_SIZE = 13
TRICKS_PER_DEAL = 13
NON_DEALER_DRAWS = 2

SUIT_CARDS: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
COLONS: tuple[Card, ...] = ("LC", "RC", "GC")
"""The colons in canonical order: the Little, Royal and Grand Colon."""
CARDS: tuple[Card, ...] = SUIT_CARDS + COLONS
"""The 55 cards in canonical order (the order of hands and of card action ids)."""
CARD_ORDER: dict[Card, int] = {card: index for index, card in enumerate(CARDS)}

NO_SUIT = ""
"""The suit a colon counts as: none, so it never follows, trumps or wins a suit lead."""
SUIT_OF: dict[Card, str] = {card: card[1] for card in SUIT_CARDS} | dict.fromkeys(COLONS, NO_SUIT)
STRENGTH: dict[Card, int] = {card: RANKS.index(card[0]) for card in SUIT_CARDS} | dict.fromkeys(
    COLONS, -1
)
"""Order within a suit, 2 (0) up to A (12); colons never win on strength."""


def _matching_colon(card: Card) -> Card:
    """The colon of a suit card's group: GC for aces, RC for K, Q, J, LC for 2..10."""
    if card[0] == "A":
        return "GC"
    if card[0] in "KQJ":
        return "RC"
    return "LC"


MATCHING_COLON: dict[Card, Card] = {card: _matching_colon(card) for card in SUIT_CARDS}
DEALER_DRAWS: dict[Card, int] = {
    card: {"GC": 12, "RC": 8, "LC": 4}[MATCHING_COLON.get(card, card)] for card in CARDS
}
"""Cards the dealer draws by the up-card: 4 (2..10, LC), 8 (J, Q, K, RC), 12 (A, GC)."""

# Strains in bidding order; the suit strains are also the trump suits.
STRAINS = ("C", "D", "H", "S", "NT")
NT = 4
STRAIN_NAMES = ("clubs", "diamonds", "hearts", "spades", "no_trump")
BIDS: tuple[tuple[int, int], ...] = (
    (0, NT),
    *((level, strain) for level in range(1, 8) for strain in range(5)),
)
"""Every bid as (level, strain index), in bidding order: 0NT, 1C, ..., 7NT."""
NUM_BIDS = len(BIDS)
BID_TEXTS: tuple[str, ...] = tuple(f"{level}{STRAINS[strain]}" for level, strain in BIDS)

UNDOUBLED, DOUBLED, REDOUBLED = 0, 1, 2
DOUBLING_NAMES = ("undoubled", "doubled", "redoubled")

_POINTS_BY_LEVEL = {  # clubs, diamonds, hearts, spades, no trump
    0: (0, 0, 0, 0, 150),
    1: (150, 150, 150, 150, 250),
    2: (250, 250, 250, 250, 250),
    3: (250, 250, 250, 250, 750),
    4: (250, 250, 750, 750, 750),
    5: (750, 750, 750, 750, 1500),
    6: (1500, 1500, 1500, 1500, 2200),
    7: (2200, 2200, 2200, 2200, 2500),
}
CONTRACT_POINTS: tuple[int, ...] = tuple(_POINTS_BY_LEVEL[level][s] for level, s in BIDS)
"""Points of a made contract, by bid index; not by the tricks won."""
EXACT_BONUS: tuple[int, ...] = tuple(
    250 if level <= 5 else 100 if level == 6 else 0 for level, _ in BIDS
)
"""Bonus for winning exactly 6 + level tricks: 250 up to 5NT, 100 at level 6, 0 at 7."""
OVER_THREE_BONUS = 350
"""Bonus for winning exactly three tricks more than needed."""
DOUBLE_BONUS = (0, 400, 1000)
MULTIPLIER = (1, 2, 4)
UNDERTRICK_POINTS: tuple[tuple[int, int, int], ...] = (
    (100, 200, 300),
    (200, 500, 700),
    (300, 800, 1100),
    (400, 1100, 1500),
    (700, 2000, 2700),
    (1000, 3000, 4000),
)
"""What the opponent scores for 1, 2, ... 6 or more undertricks: undoubled, doubled,
redoubled."""


def made_points(bid: int, doubling: int, won: int) -> int:
    """What the declarer scores for a made contract (``won`` >= 6 + level)."""
    needed = 6 + BIDS[bid][0]
    points = CONTRACT_POINTS[bid] + DOUBLE_BONUS[doubling]
    if won == needed:
        points += EXACT_BONUS[bid]
    elif won == needed + 3:
        points += OVER_THREE_BONUS
    return points * MULTIPLIER[doubling]


def failed_points(undertricks: int, doubling: int) -> int:
    """What the opponent scores when the declarer falls ``undertricks`` short."""
    return UNDERTRICK_POINTS[min(undertricks, 6) - 1][doubling]


# --- Action ids (see the docstring of arena.games.bridgette.game) --------------------------

DISCARD_BASE = 0
PASS = 55
DOUBLE = 56
REDOUBLE = 57
BID_BASE = 58
PLAY_BASE = 94
NUM_ACTIONS = 149

DISCARD_ACTION = {card: DISCARD_BASE + i for i, card in enumerate(CARDS)}
PLAY_ACTION = {card: PLAY_BASE + i for i, card in enumerate(CARDS)}


@dataclass(frozen=True, slots=True)
class BridgetteCall:
    """One call: ``kind`` is pass, bid, double or redouble; bids give level and strain
    (``clubs`` .. ``spades`` or ``no_trump``)."""

    kind: str
    level: int | None = None
    strain: str | None = None


CALL_PASS = BridgetteCall("pass")
CALL_DOUBLE = BridgetteCall("double")
CALL_REDOUBLE = BridgetteCall("redouble")
BID_CALLS: tuple[BridgetteCall, ...] = tuple(
    BridgetteCall("bid", level, STRAIN_NAMES[strain]) for level, strain in BIDS
)

ACTION_TEXTS: tuple[str, ...] = (
    *(f"discard {card}" for card in CARDS),
    "pass",
    "double",
    "redouble",
    *(f"bid {text}" for text in BID_TEXTS),
    *(f"play {card}" for card in CARDS),
)
ACTION_PAYLOADS: tuple[tuple[str, object], ...] = (
    *(("discard", card) for card in CARDS),
    ("call", CALL_PASS),
    ("call", CALL_DOUBLE),
    ("call", CALL_REDOUBLE),
    *(("call", call) for call in BID_CALLS),
    *(("play", card) for card in CARDS),
)
assert len(ACTION_TEXTS) == len(ACTION_PAYLOADS) == NUM_ACTIONS


def checked_action(action: int) -> int:
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"bridgette has action ids 0..{NUM_ACTIONS - 1}, not {action}")
    return action


def _lowest_above(high: int) -> tuple[int | None, ...]:
    """For each strain, the lowest bid index of that strain above bid ``high`` (-1: none)."""
    return tuple(
        next((b for b in range(high + 1, NUM_BIDS) if BIDS[b][1] == s), None) for s in range(5)
    )


LOWEST_ABOVE: tuple[tuple[int | None, ...], ...] = tuple(
    _lowest_above(high) for high in range(-1, NUM_BIDS)
)
"""``LOWEST_ABOVE[high + 1][strain]``: the non-jump bid of a strain over bid ``high``."""


def suit_counts(hand: list[Card]) -> list[int]:
    """Cards held in each suit C, D, H, S; colons are in no suit."""
    counts = [0, 0, 0, 0]
    for card in hand:
        suit = SUIT_OF[card]
        if suit:
            counts[SUITS.index(suit)] += 1
    return counts


def biddable(hand: list[Card], high: int) -> list[int]:
    """Bid indices the holder of ``hand`` may bid over bid ``high`` (-1: no bid yet).

    A suit needs two cards of it, four for a jump; no trump needs a card of every suit,
    jump or not.
    """
    counts = suit_counts(hand)
    lowest = LOWEST_ABOVE[high + 1]
    has_every_suit = all(counts)
    allowed = []
    for bid in range(high + 1, NUM_BIDS):
        strain = BIDS[bid][1]
        if strain == NT:
            if has_every_suit:
                allowed.append(bid)
        elif counts[strain] >= 4 or (counts[strain] >= 2 and bid == lowest[strain]):
            allowed.append(bid)
    return allowed


def colon_lead_taken(colon: Card, card: Card, trump: str | None) -> bool:
    """Whether ``card`` beats a led colon: a trump, or a suit card of the colon's group."""
    suit = SUIT_OF[card]
    return bool(suit) and (suit == trump or MATCHING_COLON[card] == colon)
