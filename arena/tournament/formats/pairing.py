"""Swiss pairing as a pure function: one round's pairs from the ranking and who has met.

A round is a minimum-cost perfect matching over the entries, plus a dummy ``BYE``
vertex in an odd field. Edge costs are ranked tiers, each weighing more than any sum
of the tiers below it over a whole round:

1. a repeat pairing, or a second bye: only when no round without one exists;
2. the bye goes to the lowest-ranked entry that has not had one;
3. the squared score difference: score groups pair within themselves, and an entry
   that must float floats to the nearest group;
4. the squared rank difference: within a group 1 v 2, 3 v 4 (Monrad), which is also
   how the first round pairs by entry order; when 1 v 2 is a repeat, 1 v 3, 2 v 4.

A round paired on its own can force a repeat later (three rounds of six entries can
leave two triangles), so the cheapest rounds are tried in order of cost (Murty's
ranking of matchings) until one leaves, among the pairs not yet met, a pairing for
every round still to come. The search is bounded: past its budget the cheapest round
stands (or, if that cannot be completed, the first round of a completion found).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

BYE = ""
"""The dummy opponent of an odd field's bye (no entry label is empty)."""

Pair = tuple[str, str]
Edges = tuple[tuple[int, int], ...]
"""Pairs of players by their place in the ranking, the better first."""
CANDIDATES = 200
"""Rounds tried, cheapest first, before settling for a completable one at any cost."""
STEPS = 20_000
"""Search steps spent on finding whether a set of pairs can fill the rounds to come."""


class Unsure(Exception):
    """The search ran out of steps."""


def pairing(
    entries: Sequence[str], points: Sequence[float], met: set[frozenset[str]], left: int
) -> list[Pair]:
    """One round's pairs, the better-ranked entry first, top board first.

    ``entries`` are in ranking order with their ``points``; ``met`` holds the pairs
    already played (a bye as a pair with ``BYE``); ``left`` is how many rounds follow.
    """
    players = [*entries, BYE] if len(entries) % 2 else list(entries)
    costs = Costs(players, points, met)
    cheapest = costs.best((), ())
    assert cheapest is not None  # the graph is complete: repeats cost, but exist
    try:
        completion = rounds(players, met, left + 1)
    except Unsure:
        return costs.named(cheapest[1])
    if completion is None:
        return costs.named(cheapest[1])  # repeats are unavoidable: the fewest, then
    queue: list[tuple[int, Edges, Edges, Edges]] = [(*cheapest, (), ())]
    for _ in range(CANDIDATES):
        if not queue:
            break
        _, pairs, forced, banned = heapq.heappop(queue)
        named = costs.named(pairs)
        try:
            if rounds(players, met | {frozenset(p) for p in named}, left) is not None:
                return named
        except Unsure:
            return named
        free = [e for e in pairs if e not in forced]
        for k, edge in enumerate(free):
            child = costs.best((*forced, *free[:k]), (*banned, edge))
            if child is not None:
                heapq.heappush(queue, (*child, (*forced, *free[:k]), (*banned, edge)))
    rank = {p: i for i, p in enumerate(players)}
    ordered = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in completion[0]]
    return sorted(ordered, key=lambda p: rank[p[0]])


class Costs:
    """The tiered edge costs of one round, and its cheapest matchings."""

    def __init__(self, players: list[str], points: Sequence[float], met: set[frozenset[str]]):
        self.players, self.points, self.met = players, points, met
        self.base = 4 * (len(players) + 2) ** 3  # more than a tier can sum to in a round

    def cost(self, i: int, j: int) -> int:
        """Of pairing the ``i``-th and ``j``-th ranked players, ``i < j``."""
        a, b, base = self.players[i], self.players[j], self.base
        repeat = int(frozenset((a, b)) in self.met)
        if b == BYE:
            return (repeat * base + len(self.players) - 2 - i) * base**2
        squared = int(2 * (self.points[i] - self.points[j])) ** 2
        return (repeat * base**2 + squared) * base + (j - i) ** 2

    def best(self, forced: Edges, banned: Edges) -> tuple[int, Edges] | None:
        """The cheapest perfect matching with ``forced`` and without ``banned``."""
        import networkx as nx  # here: a reader of a format's texts pairs nothing

        taken = {v for e in forced for v in e}
        rest = [v for v in range(len(self.players)) if v not in taken]
        graph: nx.Graph[int] = nx.Graph()
        graph.add_nodes_from(rest)
        top = self.base**4
        graph.add_weighted_edges_from(
            (i, j, top - self.cost(i, j))
            for i in rest
            for j in rest
            if i < j and (i, j) not in banned
        )
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) != len(rest):
            return None
        pairs = tuple(sorted({*forced, *((min(e), max(e)) for e in matching)}))
        return sum(self.cost(i, j) for i, j in pairs), pairs

    def named(self, pairs: Edges) -> list[Pair]:
        return [(self.players[i], self.players[j]) for i, j in pairs]


def rounds(players: Sequence[str], met: set[frozenset[str]], k: int) -> list[list[Pair]] | None:
    """``k`` rounds of pairs not in ``met``, none repeated; None if there are none.

    Raises Unsure when the search takes more than ``STEPS`` steps.
    """
    adjacent = {p: {q for q in players if q != p and frozenset((p, q)) not in met} for p in players}
    found: list[list[Pair]] = []
    steps = [STEPS]

    def fill(k: int, after: str | None) -> bool:
        if k == 0:
            return True
        if any(len(q) < k for q in adjacent.values()):
            return False
        return match(set(players), [], k, after)

    def match(free: set[str], chosen: list[Pair], k: int, after: str | None) -> bool:
        steps[0] -= 1
        if steps[0] < 0:
            raise Unsure
        if not free:
            for a, b in chosen:
                adjacent[a].discard(b)
                adjacent[b].discard(a)
            found.append(list(chosen))
            # The rounds are unordered: the first player's partner rises round by round.
            if fill(k - 1, chosen[0][1]):
                return True
            found.pop()
            for a, b in chosen:
                adjacent[a].add(b)
                adjacent[b].add(a)
            return False
        first = not chosen
        v = min(players) if first else min(free, key=lambda p: (len(adjacent[p] & free), p))
        for u in sorted(adjacent[v] & free):
            if first and after is not None and u <= after:
                continue
            chosen.append((v, u))
            if match(free - {v, u}, chosen, k, after):
                return True
            chosen.pop()
        return False

    return found if fill(k, None) else None
