"""A rule-based Persian Rummy bot. It reads only its ActRequest, as a bot in any language
would: it takes from the discard pile when the chosen card melds and the cards above it
are not a burden, lays down the most valuable meld or lay-off it is offered until none is
left, and discards the card it is least likely to use and that helps nobody at once."""

from __future__ import annotations

from collections import Counter

from arena.bots.sdk import Bot
from arena.v1 import bot_pb2
from arena.v1 import persian_rummy_pb2 as pr

RANKS = "23456789TJQKA"
BURDEN = 0.6  # how much a taken card that does not meld at once is feared to cost
TAKE_WHEN = 8  # the least net gain (in points) that makes taking beat drawing


def value(card: str) -> int:
    """Points of a card on the table or left in hand."""
    if card[0] == "X":
        return 20
    if card[0] == "A":
        return 15
    return min(10, RANKS.index(card[0]) + 2)


def rank_of(card: str) -> int:
    return 13 if card[0] == "X" else RANKS.index(card[0])


def meld_points(cards: list[str]) -> int:
    """Value of a new meld, a set of four counting double."""
    points = sum(value(c) for c in cards)
    four_of_a_kind = len(cards) == 4 and len({rank_of(c) for c in cards}) == 1
    return 2 * points if four_of_a_kind else points


def meldable(hand: list[str], melds: list[list[str]]) -> tuple[int, set[str]]:
    """A greedy estimate of what the hand can put on the table now: points and cards.

    Sets first (all four at once when held), then runs, then single lay-offs repeated
    until nothing more fits.
    """
    left = set(hand)
    used: set[str] = set()
    points = 0
    by_rank: dict[int, list[str]] = {}
    for card in hand:
        by_rank.setdefault(rank_of(card), []).append(card)
    for cards in by_rank.values():
        if len(cards) >= 3:
            points += meld_points(cards)
            used |= set(cards)
    left -= used
    for suit in "CDHS":
        ranks = sorted(rank_of(c) for c in left if c[1] == suit and c[0] != "X")
        stretch: list[int] = []
        for r in [*ranks, 99]:
            if stretch and r == stretch[-1] + 1:
                stretch.append(r)
                continue
            if len(stretch) >= 3:
                cards = [RANKS[x] + suit for x in stretch]
                points += meld_points(cards)
                used |= set(cards)
            stretch = [r]
    left -= used
    ends = [meld_ends(meld) for meld in melds]
    grew = True
    while grew:
        grew = False
        for card in sorted(left):
            for i, fits in enumerate(ends):
                if card in fits:
                    points += value(card)
                    used.add(card)
                    left.discard(card)
                    ends[i] = meld_ends([*fits_source(melds, i, used)])
                    grew = True
                    break
    return points, used


def fits_source(melds: list[list[str]], i: int, used: set[str]) -> list[str]:
    """Meld ``i`` together with the used cards that extend it (for the greedy above)."""
    meld = list(melds[i])
    changed = True
    while changed:
        changed = False
        for card in used:
            if card not in meld and card in meld_ends(meld):
                meld.append(card)
                changed = True
    return meld


def meld_ends(meld: list[str]) -> set[str]:
    """Cards that could be laid off on this table meld one at a time."""
    if not meld:
        return set()
    if meld[0][0] == "X":
        return {f"X{n}" for n in "1234"} - set(meld) if len(meld) == 3 else set()
    ranks = {rank_of(c) for c in meld}
    if len(ranks) == 1:
        if len(meld) != 3:
            return set()
        return {meld[0][0] + s for s in "CDHS"} - set(meld)
    suit = meld[0][1]
    low, high = min(ranks), max(ranks)
    fits = set()
    if low > 0:
        fits.add(RANKS[low - 1] + suit)
    if high < 12:
        fits.add(RANKS[high + 1] + suit)
    return fits


class PersianRummyBasicBot(Bot):
    name = "persian-rummy-basic"
    games = ("persian-rummy",)

    def act(self, request: bot_pb2.ActRequest) -> int:
        obs = request.persian_rummy
        hand = [c.code for c in obs.hand]
        melds = [[p.card.code for p in m.cards] for m in obs.melds]
        by_kind: dict[str, list[bot_pb2.LegalAction]] = {}
        for action in request.legal_actions:
            by_kind.setdefault(action.persian_rummy.WhichOneof("kind") or "", []).append(action)
        if obs.phase == pr.PERSIAN_RUMMY_PHASE_DRAW:
            return self._draw(obs, hand, melds, by_kind)
        table_plays = by_kind.get("meld", []) + by_kind.get("layoff", [])
        if table_plays:
            return max(table_plays, key=lambda a: (self._points(a), -a.id)).id
        return self._discard(obs, hand, melds, by_kind["discard"])

    @staticmethod
    def _points(action: bot_pb2.LegalAction) -> int:
        payload = action.persian_rummy
        if payload.WhichOneof("kind") == "meld":
            return meld_points([c.code for c in payload.meld.cards])
        return sum(value(c.code) for c in payload.layoff.cards)

    def _draw(
        self,
        obs: pr.PersianRummyObservation,
        hand: list[str],
        melds: list[list[str]],
        by_kind: dict[str, list[bot_pb2.LegalAction]],
    ) -> int:
        pile = [d.card.code for d in obs.discard_pile]
        now, _ = meldable(hand, melds)
        best, best_gain = None, float(TAKE_WHEN if obs.stock_size else 0)
        for action in by_kind.get("take", []):
            taken = pile[action.persian_rummy.take :]
            points, used = meldable(hand + taken, melds)
            burden = sum(value(c) for c in taken if c not in used)
            gain = points - now - BURDEN * burden
            if gain > best_gain:
                best, best_gain = action, gain
        if best is not None:
            return best.id
        fallback = by_kind.get("draw_stock") or by_kind.get("pass_turn") or by_kind["take"]
        return fallback[0].id

    def _discard(
        self,
        obs: pr.PersianRummyObservation,
        hand: list[str],
        melds: list[list[str]],
        discards: list[bot_pb2.LegalAction],
    ) -> int:
        gives_away = set().union(*(meld_ends(m) for m in melds)) if melds else set()
        ranks = Counter(rank_of(c) for c in hand)
        suited = {(rank_of(c), c[1]) for c in hand if c[0] != "X"}

        def keep(card: str) -> float:
            """Higher means more worth keeping (or more harmful to give away)."""
            score = 0.0
            r = rank_of(card)
            if ranks[r] >= 2:
                score += 12 * (ranks[r] - 1)
            if card[0] != "X":
                for d, weight in ((1, 8), (2, 4)):
                    if (r - d, card[1]) in suited:
                        score += weight
                    if (r + d, card[1]) in suited:
                        score += weight
            if card in gives_away:
                score += 30
            return score - value(card) / 2

        return min(discards, key=lambda a: (keep(a.persian_rummy.discard.code), a.id)).id


BOT = PersianRummyBasicBot
"""The game's example bot: ``arena bot serve`` knows it by its ``name``."""
