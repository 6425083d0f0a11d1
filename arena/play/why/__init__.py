"""Why a card the person typed may not be played: the rule that forbids it, in words.

The referee only ever offers legal actions, so a person who types ``play JD`` where it is
not legal deserves more than "not an action". ``explain`` finds the card in what was
typed and asks the game's function for the rule it breaks: must follow suit (with Bid
Euchre's left bower, a trump and not a card of its printed suit, and its optional joker,
a card of the trump suit), a locked Hokum's ban on trump leads, Bridgette's colons and
barred suit, Seep's compulsory captures and house rules, Bid Euchre's ASK return. For a
call: Bid Euchre's rule that a call beats the highest so far and that a stuck dealer
must call; Baloot's bidding (who may call Hokum or Ashkal, and when; the claim window;
the Hokum caller's trump; the doubling chain's order). Games whose actions carry several
cards get the whole typed text first (``ACTION_EXPLAINERS``): Persian Rummy's turn (draw
or take first, a taken card used at once, a pass only on an empty stock), its melds and
lay-offs; Baloot's declarations of projects (only in trick 1 before the seat's first
card, once, from its own hand, and what makes a project); Seep's captures, builds, adds
and breaks typed with cards that do not fit (sums, maximal captures, house values, the
card kept for a house). Each function reads only the seat's own observation, so an
explanation can never give away a hidden card; when no rule is recognised the answer
lists what is legal instead.

One module per game holds its explanations (``bid_euchre``, ``baloot``, ``bridgette``,
``seep``, ``persian_rummy``); ``words`` what they share; this one dispatches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.play.screen import observation_of
from arena.play.why import baloot, bid_euchre, bridgette, persian_rummy, seep
from arena.play.why.words import (
    Card,
    Explainer,
    Observation,
    card_in,
    codes,
    legal_texts,
    show,
    shown,
)
from arena.v1 import bot_pb2

__all__ = ["card_in", "explain"]


def explain(request: bot_pb2.ActRequest, text: str) -> str | None:
    """Why the card in ``text`` cannot be played now; None when ``text`` names no card
    or names a legal action. Uses the request's observation and legal actions only."""
    card = card_in(text)
    observation = observation_of(request)
    if observation is None:
        return None
    legal = legal_texts(request)
    if " ".join(text.split()).casefold() in (t.casefold() for t in legal):
        return None
    whole = ACTION_EXPLAINERS.get(request.game)
    if whole is not None and (reason := whole(observation, text, legal)) is not None:
        return reason
    if card is None:
        calls = CALL_EXPLAINERS.get(request.game)
        return None if calls is None else calls(observation, text)
    with_card = [t for t in legal if card in t.split()]
    hand = codes(getattr(observation, "hand", ()))
    if card not in hand:
        if with_card:
            return f"{show(card)} can be played as: {', '.join(with_card)}"
        return f"you do not hold {show(card)}; your hand: {shown(hand)}"
    words = text.split()
    verb = words[0].casefold() if len(words) > 1 else ""
    reason = EXPLAINERS.get(request.game, _no_rule)(observation, card, verb)
    if reason is not None:
        return reason
    if with_card:  # the card is playable, but not as typed
        return f"{show(card)} can be played as: {', '.join(with_card)}"
    listed = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
    return f"{show(card)} is not legal now; legal: {listed}"


def _no_rule(observation: Observation, card: Card, verb: str) -> str | None:
    return None


CALL_EXPLAINERS: dict[str, Callable[[Observation, str], str | None]] = {
    "bid-euchre": bid_euchre.bid_euchre_call,
    "baloot": baloot.baloot_call,
}

ACTION_EXPLAINERS: dict[str, Callable[[Observation, str, Sequence[str]], str | None]] = {
    "persian-rummy": persian_rummy.persian_rummy,
    "seep": seep.seep_play,
    "baloot": baloot.baloot_declare,
}
"""Games whose whole typed action matters (several cards, a pile index): asked first,
with the text and the legal actions' texts."""

EXPLAINERS: dict[str, Explainer] = {
    "bid-euchre": bid_euchre.bid_euchre,
    "baloot": baloot.baloot,
    "bridgette": bridgette.bridgette,
    "seep": seep.seep,
}
