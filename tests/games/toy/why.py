"""The toy's one rule on which card may be played: follow the led suit when you can."""

from __future__ import annotations

from arena.play.why.words import Card, Observation, _follow, codes


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """The second card of a pair follows the suit of the first, if the hand holds one."""
    if not observation.trick:
        return None
    led = str(observation.trick[0].card.code)[1]
    holding = [c for c in codes(observation.hand) if c[1] == led]
    if holding and card[1] != led:
        return _follow(led, holding, card)
    return None
