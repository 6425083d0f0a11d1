"""Bid Euchre's fixed facts and its action ids: the game's options, the 24 cards (and the
``joker`` variant's X1), the calls and what they need and cost, the trump orders, and every
action id with its text and payload. Part of the engine ``arena.games.bid_euchre.game``, which
exports these names and whose docstring lists the ids.
"""

from __future__ import annotations

from arena.games.api import GameInfo, IllegalActionError, OptionSpec
from arena.games.cards import SUITS, Card

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="bid-euchre",
    title="Bid Euchre",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(
        OptionSpec(
            "stick_the_dealer",
            True,
            "After three passes the dealer must call; off: four passes throw the hand in.",
        ),
        OptionSpec(
            "ace_no_face",
            False,
            "Before the calls, a hand with an ace and no K, Q or J may be thrown in.",
        ),
        OptionSpec(
            "joker",
            False,
            "25 cards: the dealer gets 7 and discards one face down (seen by the dealer "
            "alone) before the calls; the joker is the highest trump, above the right bower.",
        ),
        OptionSpec(
            "max_hands",
            100,
            "Arena safeguard: after this many scored hands the higher score wins "
            "(equal scores are a draw).",
            minimum=1,
            maximum=10000,
        ),
    ),
    refused_options=(
        (
            "double_deck",
            "the rules name a 48-card double deck but give it no ASK or MOON targets or "
            "scores and do not say which of two identical cards wins a trick",
        ),
    ),
    description="Partnership euchre with one round of calls from 3 tricks up to a lone "
    "shoot-the-moon, bowers as top trumps, and a game to 32.",
    # Until 2026-12-03 a hand's end said "with 1 tricks"; stored replays still do.
    former_texts=((r"with 1 trick;", "with 1 tricks;"),),
)

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
TRICKS_PER_HAND = 6
GAME_TARGET = 32

RANKS = "9TJQKA"
"""Ranks low to high as printed; trump order is set apart in ``STRENGTH``."""

CARDS: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 24 cards in canonical order (the order of hands and of card action ids)."""

JOKER: Card = "X1"
"""The ``joker`` variant's one joker: the highest trump whatever the trump suit."""

JOKER_CARDS: tuple[Card, ...] = (*CARDS, JOKER)
"""The 25 cards of the ``joker`` variant; the joker sorts last (card index 24)."""

CARD_ORDER: dict[Card, int] = {card: index for index, card in enumerate(JOKER_CARDS)}

SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
"""The suit whose jack becomes the left bower when the key suit is trump."""

# The calls, by strength: index 0 is a pass; a call must beat the highest index so far.
PASS, THREE, FOUR, FIVE, ASK, MOON = range(6)
CALLS = ("pass", "three", "four", "five", "ask", "moon")
CALL_TEXTS = ("pass", "call 3", "call 4", "call 5", "call ASK", "call MOON")
CALL_SHOWN = ("pass", "3", "4", "5", "ASK", "MOON")
TRICKS_NEEDED = (0, 3, 4, 5, 6, 6)
SET_COST = (0, 3, 4, 5, 6, 6)
"""What a failed call costs: the bid, and 6 (not 12 or 24) for either lone call."""
ALONE_MADE_POINTS = {ASK: 12, MOON: 24}
"""Made ``ASK`` and ``MOON`` pay a fixed amount; a made 3, 4 or 5 pays the tricks taken."""


def left_bower(trump: str) -> Card:
    """The jack of trump's colour, a trump second only to the right bower (and the joker)."""
    return "J" + SAME_COLOUR[trump]


def _effective_suits(trump: str) -> dict[Card, str]:
    """Each card's suit in a deal with this trump: the left bower and the joker count as
    trump."""
    suits = {card: card[1] for card in CARDS}
    suits[left_bower(trump)] = trump
    suits[JOKER] = trump
    return suits


def _strengths(trump: str) -> dict[Card, int]:
    """Order within each effective suit. Plain suits rank A K Q J T 9 (0..5); trumps rank
    above every plain card: joker 14, right bower 13, left bower 12, then A 11 down to 9
    at 6.
    """
    strengths = {card: RANKS.index(card[0]) for card in CARDS}
    for rank in "9TQKA":
        strengths[rank + trump] = 6 + RANKS.index(rank)
    strengths[left_bower(trump)] = 12
    strengths["J" + trump] = 13
    strengths[JOKER] = 14
    return strengths


EFFECTIVE_SUIT: dict[str, dict[Card, str]] = {t: _effective_suits(t) for t in SUITS}
STRENGTH: dict[str, dict[Card, int]] = {t: _strengths(t) for t in SUITS}

# --- Action ids (see the docstring of arena.games.bid_euchre.game) -------------------------

KEEP_HAND = 0
THROW_IN = 1
CALL_BASE = 2
TRUMP_BASE = 8
GIVE_BASE = 12
RETURN_BASE = 36
PLAY_BASE = 60
DISCARD_BASE = 84
GIVE_JOKER = 109
RETURN_JOKER = 110
PLAY_JOKER = 111
NUM_ACTIONS = 112

GIVE_ACTION = {**{card: GIVE_BASE + i for i, card in enumerate(CARDS)}, JOKER: GIVE_JOKER}
RETURN_ACTION = {**{card: RETURN_BASE + i for i, card in enumerate(CARDS)}, JOKER: RETURN_JOKER}
PLAY_ACTION = {**{card: PLAY_BASE + i for i, card in enumerate(CARDS)}, JOKER: PLAY_JOKER}
DISCARD_ACTION = {card: DISCARD_BASE + i for i, card in enumerate(JOKER_CARDS)}

ACTION_TEXTS: tuple[str, ...] = (
    "keep hand",
    "throw in",
    *CALL_TEXTS,
    *(f"trump {suit}" for suit in SUITS),
    *(f"give {card}" for card in CARDS),
    *(f"return {card}" for card in CARDS),
    *(f"play {card}" for card in CARDS),
    *(f"discard {card}" for card in JOKER_CARDS),
    f"give {JOKER}",
    f"return {JOKER}",
    f"play {JOKER}",
)
ACTION_PAYLOADS: tuple[tuple[str, object], ...] = (
    ("ace_no_face", False),
    ("ace_no_face", True),
    *(("call", call) for call in CALLS),
    *(("trump", suit) for suit in SUITS),
    *(("give", card) for card in CARDS),
    *(("return_card", card) for card in CARDS),
    *(("play", card) for card in CARDS),
    *(("discard", card) for card in JOKER_CARDS),
    ("give", JOKER),
    ("return_card", JOKER),
    ("play", JOKER),
)
assert len(ACTION_TEXTS) == len(ACTION_PAYLOADS) == NUM_ACTIONS
ACTION_CARD: tuple[Card, ...] = tuple(
    value if isinstance(value, str) and value in CARD_ORDER else "" for _, value in ACTION_PAYLOADS
)
"""The card an action gives, returns, plays or discards (by id); "" for the others."""


def checked_action(action: int) -> int:
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"bid-euchre has action ids 0..{NUM_ACTIONS - 1}, not {action}")
    return action


TRUMP_ACTIONS = [TRUMP_BASE + i for i in range(len(SUITS))]
ACE_NO_FACE_ACTIONS = [KEEP_HAND, THROW_IN]
