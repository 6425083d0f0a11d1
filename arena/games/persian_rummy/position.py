"""Persian Rummy positions: the phases of a turn, ``PersianRummyPosition``, a deal in progress
at any turn, and its checks, one per rule of what real play allows, for
``PersianRummyGame.from_position``. Part of the engine ``arena.games.persian_rummy.game``,
which exports these names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.games.api import DealError, check_progress
from arena.games.cards import Card
from arena.games.persian_rummy.actions import (
    CARD_INDEX,
    CARDS,
    GAME_INFO,
    NUM_DEALS,
    NUM_SEATS,
    PASSES_TO_END,
)
from arena.games.persian_rummy.observation import PersianRummyDiscard, PersianRummyTableMeld
from arena.games.persian_rummy.rules import meld_fault

# Phases, named as the proto's PersianRummyPhase values (lower case, without the prefix).
DRAW = "draw"
USE_CHOSEN = "use_chosen"
MELD = "meld"


def progress_problem(scores: tuple[int, ...], deal_number: int) -> str | None:
    """What keeps scores and a deal number from a match in progress: a game is two
    deals, and scores may be anything (cards left in hand count against a team)."""
    if deal_number > NUM_DEALS:
        return (
            f"deal_number must be 1..{NUM_DEALS} (a game is {NUM_DEALS} deals), not {deal_number}"
        )
    return None


# --- Positions -------------------------------------------------------------------------------

PHASES = ("draw", "use_chosen", "meld")
"""The phases a position may be in (``game_over`` is no position to play from)."""


@dataclass(frozen=True)
class PersianRummyPosition:
    """A deal in progress, everything a turn depends on, for
    ``PersianRummyGame.from_position`` (tests, bots and analysis start from one, as from
    a FEN in chess); ``PersianRummyState.position()`` reads one back. Cards are codes
    (``QH``, ``X1``); seats 0..3.

    * ``hands``: the cards each seat holds, one tuple per seat, in any order; a hand may
      hold any number of cards, none included.
    * ``to_act`` and ``phase``: the seat whose turn it is and where the turn is:
      ``draw`` (its start: draw, take or pass), ``use_chosen`` (just after a take: the
      ``chosen`` card, taken from the pile and still in hand, must be melded or laid off
      next, and it must be possible) or ``meld`` (after the draw or the use: melds,
      lay-offs, a discard; the hand is not empty). ``chosen`` is None in other phases.
    * ``stock``: the face-down stock, the next card drawn first.
    * ``pile``: the discard pile from the bottom, each card with the seat that discarded
      it; only the bottom card may have None (turned up from the stock).
    * ``melds``: the table, as observations show it: meld ``i`` has id ``i``, ``kind``
      ``set`` (3 or 4 cards of a rank, or 3 or 4 jokers) or ``run`` (3 or more
      consecutive ranks of a suit, aces high only), each card with the seat that placed
      it, and ``melded_by`` the seat that laid it down: that seat placed at least three of
      its cards, a stretch of a run. ``doubled`` (a set of four laid down at once, all by
      ``melded_by``) scores the set twice. The table points of each team follow from the
      melds.
    * ``known``: per seat, the pile cards it took and still holds (everyone saw them),
      a part of its hand.
    * ``passes``: passes in a row so far, 0..3; only on an empty stock, at a turn's start.
    * ``deal_number`` (1 or 2) and ``scores``: the match before this deal, as
      ``Deal`` has them; the dealer of deal 2 is the first dealer's left.
    * ``out_of_play``: cards that are in none of these places. Real play never has any:
      they are for study positions (a short stock with the other cards gone), and are
      never drawn, seen or scored. Hands, stock, pile, melds and ``out_of_play`` hold
      the 56 cards exactly once.
    """

    hands: tuple[tuple[Card, ...], ...]
    to_act: int
    dealer: int
    phase: str = "draw"
    stock: tuple[Card, ...] = ()
    pile: tuple[PersianRummyDiscard, ...] = ()
    melds: tuple[PersianRummyTableMeld, ...] = ()
    known: tuple[tuple[Card, ...], ...] = ((), (), (), ())
    chosen: Card | None = None
    passes: int = 0
    deal_number: int = 1
    scores: tuple[int, ...] = (0, 0)
    out_of_play: tuple[Card, ...] = ()


def cards_mask(cards: tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << CARD_INDEX[card]
    return mask


def canonical(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=CARD_INDEX.__getitem__))


def _is_seat(value: object) -> bool:
    return type(value) is int and 0 <= value < NUM_SEATS


def _position_error(problem: str) -> DealError:
    return DealError(f"persian-rummy: {problem}")


def check_position(position: PersianRummyPosition) -> None:
    """Raise ``DealError`` unless the rules can hold ``position`` (the chosen card's use is
    checked once the table is built): the rules of ``POSITION_RULES`` in order, the first
    one broken is the one reported."""
    for rule in POSITION_RULES:
        rule(position)


def _dealer_and_to_act_are_seats(p: PersianRummyPosition) -> None:
    for name in ("dealer", "to_act"):
        value = getattr(p, name)
        if not _is_seat(value):
            raise _position_error(f"{name} must be a seat 0..3, not {value!r}")


def _phase_is_a_turn_phase(p: PersianRummyPosition) -> None:
    if p.phase not in PHASES:
        raise _position_error(
            f"phase must be one of {', '.join(PHASES)} (a finished match is no position), "
            f"not {p.phase!r}"
        )


def _match_so_far_leaves_a_deal(p: PersianRummyPosition) -> None:
    check_progress(GAME_INFO.name, p.scores, p.deal_number, 2, progress_problem)


def _hands_and_known_per_seat(p: PersianRummyPosition) -> None:
    for name in ("hands", "known"):
        if len(getattr(p, name)) != NUM_SEATS:
            raise _position_error(
                f"{name} has one tuple of cards per seat, 4, not {len(getattr(p, name))}"
            )


def _places(p: PersianRummyPosition) -> list[tuple[str, Card]]:
    """Every card of a position with its place: hands, stock, pile, melds, out of play."""
    places: list[tuple[str, Card]] = []
    for seat, hand in enumerate(p.hands):
        places += ((f"seat {seat}'s hand", card) for card in hand)
    places += (("the stock", card) for card in p.stock)
    for i, discard in enumerate(p.pile):
        if not isinstance(discard, PersianRummyDiscard):
            raise _position_error(f"pile card {i} must be a PersianRummyDiscard, not {discard!r}")
        places.append(("the pile", discard.card))
    for i, meld in enumerate(p.melds):
        if not isinstance(meld, PersianRummyTableMeld):
            raise _position_error(f"meld {i} must be a PersianRummyTableMeld, not {meld!r}")
        places += ((f"meld {i}", placed.card) for placed in meld.cards)
    places += (("out_of_play", card) for card in p.out_of_play)
    return places


def _every_card_in_one_place(p: PersianRummyPosition) -> None:
    places = _places(p)
    strange = [card for _, card in places if card not in CARD_INDEX]
    if strange:
        raise _position_error(
            f"{', '.join(map(repr, strange))} {'is' if len(strange) == 1 else 'are'} not "
            f"{'a card' if len(strange) == 1 else 'cards'} of the pack (56 cards: "
            f"{' '.join(CARDS)})"
        )
    where: dict[Card, str] = {}
    for place, card in places:
        if card in where:
            raise _position_error(f"{card} is in two places, {where[card]} and {place}")
        where[card] = place
    missing = [card for card in CARDS if card not in where]
    if missing:
        raise _position_error(
            f"the 56 cards must each be somewhere; {' '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} in no hand, stock, pile or meld (list "
            "cards that are not in play in out_of_play)"
        )


def _pile_cards_were_discarded_by_seats(p: PersianRummyPosition) -> None:
    for i, discard in enumerate(p.pile):
        if not (_is_seat(discard.seat) or (discard.seat is None and i == 0)):
            raise _position_error(
                f"pile card {i} ({discard.card}) was discarded by a seat 0..3, not "
                f"{discard.seat!r}; only the bottom card may have None (turned up)"
            )


def _melds_as_play_placed_them(p: PersianRummyPosition) -> None:
    for i, meld in enumerate(p.melds):
        _check_meld(i, meld)


def _known_cards_are_in_hand(p: PersianRummyPosition) -> None:
    for seat, (known, hand) in enumerate(zip(p.known, p.hands, strict=True)):
        if not set(known) <= set(hand):
            raise _position_error(
                f"seat {seat}'s known cards {' '.join(known)} must all be in its hand "
                "(they are the pile cards it took and still holds)"
            )


def _passes_before_four_in_a_row(p: PersianRummyPosition) -> None:
    if type(p.passes) is not int or not 0 <= p.passes < PASSES_TO_END:
        raise _position_error(f"passes must be 0..{PASSES_TO_END - 1}, not {p.passes!r}")


def _passes_only_on_an_empty_stock(p: PersianRummyPosition) -> None:
    if p.passes and (p.stock or p.phase != DRAW):
        raise _position_error(
            "passes in a row happen only on an empty stock and leave the next seat at the "
            f"draw phase; this position has {len(p.stock)} stock cards and phase {p.phase}"
        )


def _chosen_card_is_a_taken_card_in_hand(p: PersianRummyPosition) -> None:
    if p.phase == USE_CHOSEN:
        if p.chosen not in p.known[p.to_act]:
            raise _position_error(
                f"in the use_chosen phase the chosen card is one that seat {p.to_act} took "
                f"from the pile and holds (in its known cards), not {p.chosen!r}"
            )
    elif p.chosen is not None:
        raise _position_error(
            f"chosen is None outside the use_chosen phase, not {p.chosen!r} in {p.phase}"
        )


def _meld_phase_holds_a_card(p: PersianRummyPosition) -> None:
    if p.phase == MELD and not p.hands[p.to_act]:
        raise _position_error(
            f"in the meld phase seat {p.to_act} holds a card (melding or laying off the last "
            "one ends the deal)"
        )


POSITION_RULES: tuple[Callable[[PersianRummyPosition], None], ...] = (
    _dealer_and_to_act_are_seats,
    _phase_is_a_turn_phase,
    _match_so_far_leaves_a_deal,
    _hands_and_known_per_seat,
    _every_card_in_one_place,
    _pile_cards_were_discarded_by_seats,
    _melds_as_play_placed_them,
    _known_cards_are_in_hand,
    _passes_before_four_in_a_row,
    _passes_only_on_an_empty_stock,
    _chosen_card_is_a_taken_card_in_hand,
    _meld_phase_holds_a_card,
)
"""The checks of ``check_position``, one per rule, in the order they run."""


def _check_meld(i: int, meld: PersianRummyTableMeld) -> None:
    """Raise ``DealError`` unless ``meld`` is meld ``i`` as the rules can have placed it."""
    if meld.id != i:
        raise _position_error(
            f"meld {i} has id {meld.id!r}: melds are numbered 0, 1, 2... in order"
        )
    for name, seat in [
        ("melded_by", meld.melded_by),
        *(("a card's seat", p.seat) for p in meld.cards),
    ]:
        if not _is_seat(seat):
            raise _position_error(f"meld {i}: {name} must be a seat 0..3, not {seat!r}")
    placed = sorted((CARD_INDEX[p.card], p.seat) for p in meld.cards)
    cards = [card for card, _ in placed]
    shown = " ".join(CARDS[card] for card in cards)
    if meld_fault(cards) is not None:
        raise _position_error(
            f"meld {i} ({shown}) is no meld: a set is 3 or 4 cards of one rank (or 3 or 4 "
            "jokers), a run 3 or more consecutive ranks of one suit, aces high only"
        )
    kind = "set" if len({card >> 2 for card in cards}) == 1 else "run"
    if meld.kind != kind:
        raise _position_error(f"meld {i} ({shown}) is a {kind}, not a {meld.kind!r}")
    by = [seat == meld.melded_by for _, seat in placed]
    longest = run = 0
    for mine in by:
        run = run + 1 if mine else 0
        longest = max(longest, run)
    if (sum(by) if kind == "set" else longest) < 3:
        raise _position_error(
            f"meld {i} ({shown}): seat {meld.melded_by} laid it down, so it placed at least "
            f"three of its cards{'' if kind == 'set' else ' in a row'}; the others were laid off"
        )
    if meld.doubled not in (False, True) or (
        meld.doubled and not (kind == "set" and all(by) and len(cards) == 4)
    ):
        raise _position_error(
            f"meld {i} ({shown}): doubled is True only for a set of four that seat "
            f"{meld.melded_by} laid down at once, not {meld.doubled!r} here"
        )
