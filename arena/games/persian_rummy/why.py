"""Persian Rummy: the turn's order, the taken card, melds and lay-offs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.play.why.words import (
    SUIT_WORDS,
    Card,
    Observation,
    card_in,
    codes,
    show,
    shown,
)
from arena.v1 import persian_rummy_pb2

RUMMY_RANKS = "23456789TJQKA"
RUMMY_ORDER = {
    card: i
    for i, card in enumerate(
        [*(r + s for r in RUMMY_RANKS for s in "CDHS"), "X1", "X2", "X3", "X4"]
    )
}
"""Persian Rummy's canonical card order (rank-major, jokers last): how actions list cards."""
USE_CHOSEN = persian_rummy_pb2.PERSIAN_RUMMY_PHASE_USE_CHOSEN


def _rummy_cards(words: Sequence[str]) -> list[Card] | None:
    found = [card_in(word) for word in words]
    return None if any(c is None for c in found) else [c for c in found if c is not None]


def _is_joker(card: Card) -> bool:
    return card.startswith("X")


def _rummy_rank(card: Card) -> int:
    return RUMMY_RANKS.index(card[0])


def _rummy_meld_fault(cards: Sequence[Card]) -> str | None:
    """Why these cards are no set or run; None when they are one."""
    if len(cards) < 3:
        return "a meld must have at least three cards"
    jokers = [c for c in cards if _is_joker(c)]
    if jokers:
        if len(jokers) == len(cards):
            return None
        return "jokers are not wild: they may only meld with other jokers, as a set"
    if len({c[0] for c in cards}) == 1:
        return None
    if len({c[1] for c in cards}) == 1:
        ranks = sorted(_rummy_rank(c) for c in cards)
        if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
            return None
        return (
            "a run must be consecutive ranks of one suit, aces high only "
            "(Q-K-A is a run, A-2-3 is not)"
        )
    return (
        "a meld must be a set (three or four cards of one rank) or a run (three or more "
        "consecutive ranks of one suit)"
    )


def _rummy_layoff_fault(table_meld: Any, cards: Sequence[Card]) -> str | None:
    """Why these cards may not be laid off on this table meld; None when they may."""
    on_table = [str(p.card.code) for p in table_meld.cards]
    number = table_meld.id
    if table_meld.kind == persian_rummy_pb2.PERSIAN_RUMMY_MELD_KIND_SET:
        if len(on_table) >= 4:
            return f"meld {number} is a full set of four: you may not lay off anything on it"
        kind = "joker" if _is_joker(on_table[0]) else on_table[0][0]
        same = all(_is_joker(c) if kind == "joker" else c[0] == kind for c in cards)
        if len(cards) != 1 or not same:
            return f"only the fourth {kind} may be laid off on the set meld {number}"
        return None
    suit = on_table[0][1]
    if any(_is_joker(c) or c[1] != suit for c in cards):
        return f"only {SUIT_WORDS[suit]} may be laid off on the run meld {number}"
    ranks = sorted(_rummy_rank(c) for c in [*on_table, *cards])
    if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        low = min(on_table, key=_rummy_rank)
        high = max(on_table, key=_rummy_rank)
        return (
            f"a lay-off on the run meld {number} must extend it without a gap, below "
            f"{show(low)} or above {show(high)} (aces high only)"
        )
    return None


def _not_held(observation: Observation, cards: Sequence[Card]) -> str | None:
    hand = codes(observation.hand)
    missing = [c for c in cards if c not in hand]
    return f"you do not hold {shown(missing)}; your hand: {shown(hand)}" if missing else None


def explain_action(observation: Observation, text: str, legal: Sequence[str]) -> str | None:
    """The turn's order (one draw or take, then melds and lay-offs, then one discard),
    the taken card that must be used at once, and what makes a meld or a lay-off."""
    words = text.split()
    if not words:
        return None
    verb = words[0].casefold()
    phase = observation.phase
    if phase == persian_rummy_pb2.PERSIAN_RUMMY_PHASE_DRAW:
        return _draw_fault(observation, verb, words)
    if verb in ("draw", "take", "pass"):
        if phase in (USE_CHOSEN, persian_rummy_pb2.PERSIAN_RUMMY_PHASE_MELD):
            done = "not pass after drawing" if verb == "pass" else "draw only once a turn"
            return f"you may {done}: now meld, lay off or discard"
        return None
    if phase == USE_CHOSEN and verb == "discard":
        return (
            f"you took {show(_chosen(observation))} from the pile: you must meld it or lay it "
            f"off before anything else"
        )
    if verb in ("meld", "layoff"):
        return _meld_or_layoff_fault(observation, verb, words, legal)
    return None


def _chosen(observation: Observation) -> Card:
    return str(observation.chosen_card.code) if observation.HasField("chosen_card") else ""


def _draw_fault(observation: Observation, verb: str, words: Sequence[str]) -> str | None:
    """A turn opens with one draw from the stock or take from the pile; passing is for
    an empty stock only."""
    stock = observation.stock_size
    if verb in ("meld", "layoff", "discard"):
        return (
            "you must draw first: "
            + ("draw from the stock or take" if stock else "take")
            + " from the discard pile"
            + ("" if stock else ", or pass")
        )
    if verb == "draw" and len(words) == 1 and not stock:
        return (
            "the stock is empty and the pile never becomes a new stock: "
            "you may only take from the pile or pass"
        )
    if verb == "pass" and len(words) == 1 and stock:
        return f"you may pass only when the stock is empty ({stock} left): draw or take"
    if verb == "take" and len(words) == 2 and words[1].isdigit():
        return _take_fault(observation, int(words[1]))
    return None


def _take_fault(observation: Observation, index: int) -> str:
    """A card taken from the pile (with every card above it) must be used at once."""
    pile = [str(d.card.code) for d in observation.discard_pile]
    if index >= len(pile):
        return f"the discard pile has {len(pile)} cards: you may only take 0..{len(pile) - 1}"
    above = pile[index + 1 :]
    with_above = f" and {shown(above)}, taken with it" if above else ""
    return (
        f"you may take {show(pile[index])} only to meld it or lay it off at once, "
        f"and your hand{with_above} could not"
    )


def _meld_or_layoff_fault(
    observation: Observation, verb: str, words: Sequence[str], legal: Sequence[str]
) -> str | None:
    """Melds and lay-offs use held cards that fit, include a card just taken from the
    pile, and list their cards in order."""
    if verb == "meld":
        cards = _rummy_cards(words[1:])
        if cards is None:
            return None
        fault = _not_held(observation, cards) or _rummy_meld_fault(cards)
    else:
        if len(words) < 3 or not words[1].isdigit():
            return None
        cards = _rummy_cards(words[2:])
        if cards is None:
            return None
        fault = _not_held(observation, cards) or _table_fault(observation, int(words[1]), cards)
    if fault is not None:
        return fault
    chosen = _chosen(observation)
    if observation.phase == USE_CHOSEN and chosen not in cards:
        return f"the card you took, {show(chosen)}, must be in your next meld or lay-off"
    ordered = sorted(cards, key=RUMMY_ORDER.__getitem__)
    typed = " ".join([verb, *words[1 : len(words) - len(cards)], *ordered])
    if typed.casefold() in (t.casefold() for t in legal):
        return f"the cards must be listed in order: {typed}"
    return None


def _table_fault(observation: Observation, number: int, cards: Sequence[Card]) -> str | None:
    """A lay-off goes on a meld that is on the table, and must fit it."""
    table = {m.id: m for m in observation.melds}
    if number not in table:
        ids = ", ".join(str(i) for i in sorted(table)) or "none yet"
        return f"you may lay off only on a meld on the table (melds: {ids})"
    return _rummy_layoff_fault(table[number], cards)
