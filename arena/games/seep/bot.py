"""A rule-based Seep bot. It reads only its ActRequest, as a bot in any language would:
it bids the house value it holds most of, then scores every legal play by the points it
takes or secures now, and by the sweep it may leave the next opponent, and plays the best.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.bots.sdk import Bot
from arena.v1 import bot_pb2
from arena.v1 import seep_pb2 as sp

RANKS = "A23456789TJQK"
SWEEP = 50
SWEEP_RISK = 0.35  # chance the next opponent holds the card that clears a small floor
HOUSE_KEPT = 0.8  # share of a house's points a team can expect from owning it
HOUSE_AT_RISK = 0.55  # the same while an opponent may still break it


def value_of(code: str) -> int:
    return RANKS.index(code[0]) + 1


def points_of(code: str) -> int:
    """Spades their capture value, the other aces 1, the ten of diamonds 6."""
    if code[1] == "S":
        return value_of(code)
    if code[0] == "A":
        return 1
    return 6 if code == "TD" else 0


def points(codes: Sequence[str]) -> int:
    return sum(points_of(c) for c in codes)


def clearable(loose: Sequence[str]) -> bool:
    """True when one card could take the whole floor: every loose card of one value, or
    all of them adding up to a card value."""
    values = [value_of(c) for c in loose]
    return bool(values) and (len(set(values)) == 1 or sum(values) <= 13)


class SeepBasicBot(Bot):
    name = "seep-basic"
    games = ("seep",)

    def act(self, request: bot_pb2.ActRequest) -> int:
        obs = request.seep
        actions = list(request.legal_actions)
        if actions[0].seep.WhichOneof("kind") == "bid":
            return self._bid(obs, actions)
        table = _Table(obs, request.seat)
        return max(actions, key=lambda a: (table.score(a.seep), -a.id)).id

    def _bid(self, obs: sp.SeepObservation, actions: list[bot_pb2.LegalAction]) -> int:
        held = [value_of(c.code) for c in obs.hand]
        return max(actions, key=lambda a: (held.count(a.seep.bid), a.seep.bid)).id


class _Table:
    """The public table as the bot reads it, with the scoring of one play."""

    def __init__(self, obs: sp.SeepObservation, seat: int) -> None:
        self.seat = seat
        self.team = seat % 2
        self.play = obs.play_number + 1
        self.loose = [c.code for c in obs.loose]
        self.houses = {h.value: h for h in obs.houses}
        self.hand = [c.code for c in obs.hand]

    def _ours(self, house: sp.SeepHouse) -> bool:
        return any(owner % 2 == self.team for owner in house.owners)

    def _left_open(self, loose: list[str], houses: int) -> float:
        """What the floor left behind may give the next opponent: a sweep and its cards."""
        if houses or not loose or not clearable(loose) or self.play >= 47:
            return 0.0
        return SWEEP_RISK * (SWEEP + points(loose))

    def score(self, action: sp.SeepAction) -> float:
        kind = action.WhichOneof("kind")
        if kind == "throw":
            card = action.throw.code
            # Keep cards that can capture later; shed pointless high cards first.
            return (
                -points_of(card)
                - self._left_open([*self.loose, card], len(self.houses))
                - (0.05 * (13 - value_of(card)))
            )
        if kind == "capture":
            return self._capture(action.capture)
        if kind == "build":
            build = action.build
            moved = [build.card.code, *(c.code for c in build.loose)]
            left = [c for c in self.loose if c not in moved]
            safe = build.value == 13 or sum(value_of(c) for c in moved) > build.value
            share = HOUSE_KEPT if safe else HOUSE_AT_RISK
            return share * points(moved) + 1.0 - self._left_open(left, len(self.houses) + 1)
        if kind == "add":
            add = action.add
            house = self.houses[add.value]
            moved = [add.card.code, *(c.code for c in add.loose)]
            left = [c for c in self.loose if c not in moved]
            gain = HOUSE_KEPT * points(moved)
            if not house.cemented and self._ours(house):
                gain += (HOUSE_KEPT - HOUSE_AT_RISK) * points([c.code for c in house.cards])
            elif not self._ours(house):
                gain += 0.3 * points([c.code for c in house.cards])
            return gain + 0.5 - self._left_open(left, len(self.houses))
        broken = action.break_house
        house = self.houses[broken.house]
        moved = [broken.card.code, *(c.code for c in broken.loose)]
        left = [c for c in self.loose if c not in moved]
        taken = points([c.code for c in house.cards]) + points(moved)
        if self._ours(house):
            return -1.0 - self._left_open(left, len(self.houses))
        houses = len(self.houses) - (1 if broken.value in self.houses else 0)
        return HOUSE_AT_RISK * taken + 2.0 - self._left_open(left, houses)

    def _capture(self, capture: sp.SeepCapture) -> float:
        card = capture.card.code
        taken = [card, *(c.code for c in capture.loose)]
        houses = len(self.houses)
        house = self.houses.get(value_of(card))
        if house is not None:
            taken += [c.code for c in house.cards]
            houses -= 1
        left = [c for c in self.loose if c not in taken]
        gain = points(taken) + 0.2 * len(taken)
        if not left and not houses:
            gain += 25 if self.play == 1 else 0 if self.play == 48 else SWEEP
        return gain - self._left_open(left, houses)


BOT = SeepBasicBot
"""The game's example bot: ``arena bot serve`` knows it by its ``name``."""
