"""Baloot's fixed facts and its action ids: the game's options, the 32 cards and their orders
and points in Sun and Hokum, the projects and the declarations made of them, and every action id
with its text and payload. Part of the engine ``arena.games.baloot.game``, which exports these
names and whose docstring lists the ids.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from arena.games.api import GameInfo, IllegalActionError, OptionSpec
from arena.games.cards import SUITS, Card

# --- Facts of the game -------------------------------------------------------------------

GAME_INFO = GameInfo(
    name="baloot",
    title="Baloot",
    num_seats=4,
    seat_teams=(0, 1, 0, 1),
    options=(
        OptionSpec(
            "max_rounds",
            100,
            "Arena safeguard: after this many rounds (thrown-in rounds included) the higher "
            "score wins (equal scores are a draw).",
            minimum=1,
            maximum=10000,
        ),
    ),
    description="Saudi partnership trick game: bid Sun or Hokum for the up-card, declare "
    "projects, double up to Gahwa, first to 152.",
)

NUM_SEATS = 4
SEAT_TEAMS = GAME_INFO.seat_teams
FIRST_CARDS = 5
TRICKS_PER_ROUND = 8
GAME_TARGET = 152
LAST_TRICK_BONUS = 10
SUN_DOUBLING_THRESHOLD = 100
FAILED_POINTS = {"sun": 26, "hokum": 16}
"""What a failed or doubled round pays its winner before projects and multiplier."""
KABOOT_POINTS, KABOOT_ACE_POINTS = 44, 88

RANKS = "789TJQKA"
"""Ranks low to high as printed (the canonical order of hands); play order is below."""

CARDS: tuple[Card, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 32 cards in canonical order (the order of hands and of card action ids)."""

CARD_ORDER: dict[Card, int] = {card: index for index, card in enumerate(CARDS)}
CARD_BIT: dict[Card, int] = {card: 1 << index for index, card in enumerate(CARDS)}
SUIT_OF: dict[Card, str] = {card: card[1] for card in CARDS}

SUN_ORDER = "789JQKTA"
"""Every suit in Sun, and the plain suits in Hokum, low to high."""
TRUMP_ORDER = "78QKTA9J"
"""The trump suit in Hokum, low to high."""
SEQUENCE_ORDER = "AKQJT987"
"""The natural order of project sequences (and of project tie-breaks), high to low."""

PLAIN_ABNAT = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
TRUMP_ABNAT = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}


def _strengths(trump: str | None) -> dict[Card, int]:
    """Order within each suit: trumps by ``TRUMP_ORDER``, every other suit by ``SUN_ORDER``."""
    return {card: (TRUMP_ORDER if card[1] == trump else SUN_ORDER).index(card[0]) for card in CARDS}


def _abnat(trump: str | None) -> dict[Card, int]:
    return {card: (TRUMP_ABNAT if card[1] == trump else PLAIN_ABNAT)[card[0]] for card in CARDS}


# Tables per trump suit; key ``None`` is Sun.
TRUMP_KEYS: tuple[str | None, ...] = (None, *SUITS)
STRENGTH: dict[str | None, dict[Card, int]] = {t: _strengths(t) for t in TRUMP_KEYS}
ABNAT: dict[str | None, dict[Card, int]] = {t: _abnat(t) for t in TRUMP_KEYS}

# --- Projects ------------------------------------------------------------------------------

SIRA, FIFTY, HUNDRED, FOUR_ACES = "sira", "fifty", "hundred", "four_aces"
PROJECT_POINTS = {
    "sun": {SIRA: 4, FIFTY: 10, HUNDRED: 20, FOUR_ACES: 40},
    "hokum": {SIRA: 2, FIFTY: 5, HUNDRED: 10, FOUR_ACES: 10},
}
"""Game points of each project; they also rank projects (400 > 100 > 50 > Sira)."""
PROJECT_SHOWN = {SIRA: "sira", FIFTY: "50", HUNDRED: "100", FOUR_ACES: "aces"}
BALOOT_POINTS = 2


@dataclass(frozen=True, slots=True)
class BalootProject:
    """A project as declared: its kind and cards (a sequence high to low, else suit order)."""

    kind: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BalootDeclaration:
    """Zero, one or two projects declared together in trick 1."""

    projects: tuple[BalootProject, ...]


def _sequence_kind(length: int) -> str:
    return SIRA if length == 3 else FIFTY if length == 4 else HUNDRED


def _all_projects() -> tuple[BalootProject, ...]:
    """Every possible project: sequences by suit, top card high to low, then length; then
    the four-of-a-kinds that count (10s, Js, Qs, Ks, aces)."""
    found = []
    for suit in SUITS:
        for top in range(len(SEQUENCE_ORDER) - 2):
            for length in range(3, len(SEQUENCE_ORDER) - top + 1):
                ranks = SEQUENCE_ORDER[top : top + length]
                found.append(BalootProject(_sequence_kind(length), tuple(r + suit for r in ranks)))
    for rank in "TJQKA":
        kind = FOUR_ACES if rank == "A" else HUNDRED
        found.append(BalootProject(kind, tuple(rank + suit for suit in SUITS)))
    return tuple(found)


PROJECTS = _all_projects()
PROJECT_MASK: tuple[int, ...] = tuple(
    sum(CARD_BIT[card] for card in project.cards) for project in PROJECTS
)
PROJECT_TOP: tuple[int, ...] = tuple(
    len(SEQUENCE_ORDER) - SEQUENCE_ORDER.index(project.cards[0][0]) for project in PROJECTS
)
"""Top card of each project for tie-breaks: higher is better (ace 8 ... seven 1)."""


def _all_declarations() -> tuple[tuple[int, ...], ...]:
    singles = [(p,) for p in range(len(PROJECTS))]
    pairs = [
        (p, q)
        for p, q in itertools.combinations(range(len(PROJECTS)), 2)
        if not PROJECT_MASK[p] & PROJECT_MASK[q]
        and len(PROJECTS[p].cards) + len(PROJECTS[q].cards) <= TRICKS_PER_ROUND
    ]
    return ((), *singles, *pairs)


DECLARATIONS = _all_declarations()
"""Project-index tuples by declaration index (see the docstring of
``arena.games.baloot.game``)."""

# --- Action ids (see the docstring of arena.games.baloot.game) -----------------------------

PASS, HOKUM, SUN, ASHKAL = range(4)
BIDS = ("pass", "hokum", "sun", "ashkal")
CHOOSE_SUN = 4
CHOOSE_HOKUM_BASE = 5
DECLINE, DOUBLE, TRIPLE, FOUR, GAHWA = range(9, 14)
DOUBLINGS = ("decline", "double", "triple", "four", "gahwa")
PLAY_BASE = 14
DECLARE_BASE = PLAY_BASE + len(CARDS)
NUM_ACTIONS = DECLARE_BASE + len(DECLARATIONS)

PLAY_ACTION = {card: PLAY_BASE + i for i, card in enumerate(CARDS)}
DECLARATION_ACTION = {projects: DECLARE_BASE + i for i, projects in enumerate(DECLARATIONS)}


@dataclass(frozen=True, slots=True)
class BalootContractChoice:
    """The Hokum caller's final choice: ``contract`` sun or hokum, and the trump."""

    contract: str
    trump: str | None


def declaration_text(projects: tuple[int, ...]) -> str:
    if not projects:
        return "declare none"
    shown = (f"{PROJECT_SHOWN[PROJECTS[p].kind]} {' '.join(PROJECTS[p].cards)}" for p in projects)
    return "declare " + " + ".join(shown)


ACTION_TEXTS: tuple[str, ...] = (
    *BIDS,
    "choose sun",
    *(f"choose hokum {suit}" for suit in SUITS),
    *DOUBLINGS,
    *(f"play {card}" for card in CARDS),
    *(declaration_text(projects) for projects in DECLARATIONS),
)
ACTION_PAYLOADS: tuple[tuple[str, object], ...] = (
    *(("bid", bid) for bid in BIDS),
    ("choose", BalootContractChoice("sun", None)),
    *(("choose", BalootContractChoice("hokum", suit)) for suit in SUITS),
    *(("doubling", doubling) for doubling in DOUBLINGS),
    *(("play", card) for card in CARDS),
    *(
        ("declare", BalootDeclaration(tuple(PROJECTS[p] for p in projects)))
        for projects in DECLARATIONS
    ),
)
assert len(ACTION_TEXTS) == len(ACTION_PAYLOADS) == NUM_ACTIONS == 1336


def checked_action(action: int) -> int:
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"baloot has action ids 0..{NUM_ACTIONS - 1}, not {action}")
    return action
