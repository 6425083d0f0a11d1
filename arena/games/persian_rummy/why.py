"""Persian Rummy: the turn's order, the taken card, melds and lay-offs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.cards import SUITS
from arena.games.persian_rummy import rules
from arena.games.persian_rummy.actions import CARD_INDEX, CARDS, RANK_MASK, SUIT_BIT
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

# The rules are the engine's own functions, looked up on ``arena.games.persian_rummy.rules``
# at each call: this module reads the seat's observation into the card indices they take
# and puts what fails into words.

USE_CHOSEN = persian_rummy_pb2.PERSIAN_RUMMY_PHASE_USE_CHOSEN
MELD_FAULTS = {
    "few": "a meld must have at least three cards",
    "joker": "jokers are not wild: they may only meld with other jokers, as a set",
    "gap": (
        "a run must be consecutive ranks of one suit, aces high only (Q-K-A is a run, A-2-3 is not)"
    ),
    "shape": (
        "a meld must be a set (three or four cards of one rank) or a run (three or more "
        "consecutive ranks of one suit)"
    ),
}
"""``meld_fault``'s answers in words."""


def _rummy_cards(words: Sequence[str]) -> list[Card] | None:
    found = [card_in(word) for word in words]
    return None if any(c is None for c in found) else [c for c in found if c is not None]


def _indices(cards: Sequence[Card]) -> list[int]:
    return [CARD_INDEX[card] for card in cards]


def _rummy_meld_fault(cards: Sequence[Card]) -> str | None:
    """Why these cards are no set or run; None when they are one."""
    fault = rules.meld_fault(_indices(cards))
    return None if fault is None else MELD_FAULTS[fault]


def _rummy_layoff_fault(table_meld: Any, cards: Sequence[Card]) -> str | None:
    """Why these cards may not be laid off on this table meld; None when they may."""
    on_table = _indices([str(p.card.code) for p in table_meld.cards])
    typed = _indices(cards)
    number = table_meld.id
    if table_meld.kind == persian_rummy_pb2.PERSIAN_RUMMY_MELD_KIND_SET:
        missing = rules.set_completion(on_table)
        if missing < 0:
            return f"meld {number} is a full set of four: you may not lay off anything on it"
        if typed != [missing]:
            kind = "joker" if on_table[0] >= rules.FIRST_JOKER else CARDS[on_table[0]][0]
            return f"only the fourth {kind} may be laid off on the set meld {number}"
        return None
    suit = on_table[0] & 3
    lanes = [SUIT_BIT[card] >> (16 * suit) & RANK_MASK for card in typed]
    if not all(lanes):
        return f"only {SUIT_WORDS[SUITS[suit]]} may be laid off on the run meld {number}"
    ranks = 0
    for lane in lanes:
        ranks |= lane
    low, high = min(on_table), max(on_table)
    down, up = rules.run_reach(low >> 2, high >> 2, ranks)
    if down + up != len(typed):
        return (
            f"a lay-off on the run meld {number} must extend it without a gap, below "
            f"{show(CARDS[low])} or above {show(CARDS[high])} (aces high only)"
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
    draws = rules.draws_from_stock(stock)
    if verb in ("meld", "layoff", "discard"):
        return (
            "you must draw first: "
            + ("draw from the stock or take" if draws else "take")
            + " from the discard pile"
            + ("" if draws else ", or pass")
        )
    if verb == "draw" and len(words) == 1 and not draws:
        return (
            "the stock is empty and the pile never becomes a new stock: "
            "you may only take from the pile or pass"
        )
    if verb == "pass" and len(words) == 1 and draws:
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
    ordered = sorted(cards, key=CARD_INDEX.__getitem__)
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
