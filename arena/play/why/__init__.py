"""Why a card the person typed may not be played: the rule that forbids it, in words.

The referee only ever offers legal actions, so a person who types ``play JD`` where it is
not legal deserves more than "not an action". ``explain`` asks the game's ``why`` part
(``arena.games.registry.part``) for the rule the typed text breaks, through up to three
functions, each optional:

- ``explain_action(observation, text, legal)``: for games whose whole typed action
  matters (several cards, a pile index); asked first, with the text and the legal
  actions' texts;
- ``explain_call(observation, text)``: for a typed line that names no card (a bid);
- ``explain_card(observation, card, verb)``: for a card the seat holds but may not play
  as typed (follow suit, a barred lead...).

Each reads only the seat's own observation, so an explanation can never give away a
hidden card; when no rule is recognised the answer lists what is legal instead.
``words`` holds what the games' explanations share.
"""

from __future__ import annotations

from arena.games.registry import part
from arena.play.screen import observation_of
from arena.play.why.words import (
    ActionExplainer,
    CallExplainer,
    Explainer,
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
    rules = part(request.game, "why")
    whole: ActionExplainer | None = getattr(rules, "explain_action", None)
    if whole is not None and (reason := whole(observation, text, legal)) is not None:
        return reason
    if card is None:
        calls: CallExplainer | None = getattr(rules, "explain_call", None)
        return None if calls is None else calls(observation, text)
    with_card = [t for t in legal if card in t.split()]
    hand = codes(getattr(observation, "hand", ()))
    if card not in hand:
        if with_card:
            return f"{show(card)} can be played as: {', '.join(with_card)}"
        return f"you do not hold {show(card)}; your hand: {shown(hand)}"
    words = text.split()
    verb = words[0].casefold() if len(words) > 1 else ""
    by_card: Explainer | None = getattr(rules, "explain_card", None)
    reason = None if by_card is None else by_card(observation, card, verb)
    if reason is not None:
        return reason
    if with_card:  # the card is playable, but not as typed
        return f"{show(card)} can be played as: {', '.join(with_card)}"
    listed = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
    return f"{show(card)} is not legal now; legal: {listed}"
